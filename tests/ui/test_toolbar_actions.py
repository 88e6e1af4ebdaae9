"""The toolbar is built from the live session's `actions()`: every action its kind offers,
with the spec's label, shortcut and (when disabled) reason; the step box beside an action
that takes steps; Stop last and always shown; text from the human seat dock or a prompt.
The kind and scenario pickers list the registry and start a session of what is chosen.
Where a kind allows it, a human speaks while AI seats stream. Offscreen, on a running
qasync loop; layout is checked from widget geometry, not pixels."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QPushButton, QWidget

from roundtable_desktop.engine.base import Action
from roundtable_desktop.engine.registry import kind_names, register_kind
from roundtable_desktop.ui.kinds.roundtable.dock_base import meeting_state
from roundtable_desktop.ui.window.main_window import MainWindow
from roundtable_desktop.ui.window.new_session_dialog import NewSessionDialog
from roundtable_desktop.ui.window.session_runner import ClientChoice
from tests.fakes.paced_client import PacedClient
from tests.fakes.panel_kind import OPEN_FLOOR_PANEL, PANEL, PanelSession
from tests.fakes.window_harness import (
    WAIT_MS,
    perform,
    wait_idle,
)

pytestmark = pytest.mark.qt


@pytest.fixture(autouse=True)
def test_kinds() -> Iterator[None]:
    removers = [register_kind(PANEL), register_kind(OPEN_FLOOR_PANEL)]
    yield
    for remove in removers:
        remove()


def start(qtbot, window: MainWindow, kind: str, scenario: str = "default") -> str:  # type: ignore[no-untyped-def]
    before = window.bridge.session_id()
    window.runner.start_new(kind, scenario)
    qtbot.waitUntil(lambda: window.bridge.session_id() not in (None, before), timeout=WAIT_MS)
    wait_idle(qtbot, window)
    qtbot.waitUntil(lambda: set(window.toolbar.qactions) == {
        s.id for s in window.runner.actions()}, timeout=WAIT_MS)
    return str(window.bridge.session_id())


def rect_in(window: QWidget, widget: QWidget) -> QRect:
    return QRect(widget.mapTo(window, QPoint(0, 0)), widget.size())


def make_human(window: MainWindow) -> None:
    """Tick Human seat for the actor whose turn it is, as a user does in the Actors dock."""
    actors = window.docks["actorsDock"]
    actors.select_actor(meeting_state(window.bridge).actor.id)
    actors.human_check.click()


def paced(words: int = 40, delay_s: float = 0.03):  # type: ignore[no-untyped-def]
    return lambda: ClientChoice(PacedClient(words=words, delay_s=delay_s), "paced", "paced")


# -- what the toolbar lists ------------------------------------------------------------------
def test_the_toolbar_lists_every_action_the_session_offers(make_window):
    window = make_window()

    offered = [spec.id for spec in window.runner.handle.session.actions()]

    assert sorted(window.toolbar.qactions) == sorted(offered)
    assert "send" in window.toolbar.qactions  # not a fixed list: the human seat's action too


def test_each_action_takes_its_label_and_shortcut_from_its_spec(make_window):
    window = make_window()

    for spec in window.runner.actions():
        qaction = window.toolbar.qactions[spec.id]
        assert qaction.text().replace("&&", "&") == spec.label
        assert qaction.shortcut() == QKeySequence(spec.shortcut)


def test_an_enabled_action_shows_its_key_and_a_disabled_one_its_reason(make_window):
    window = make_window()
    specs = {spec.id: spec for spec in window.runner.actions()}

    infer, send = window.toolbar.qactions["infer"], window.toolbar.qactions["send"]

    assert infer.isEnabled() and "Ctrl+Return" in infer.toolTip()
    assert not send.isEnabled() and specs["send"].reason in send.toolTip()


def test_stop_comes_after_every_other_action(make_window):
    window = make_window()
    toolbar = window.toolbar

    stop = toolbar.button("stop")
    others = [toolbar.button(a) for a in toolbar.qactions if a != "stop"]

    assert stop is not None and stop.isVisible()
    assert all(rect_in(window, stop).left() >= rect_in(window, b).right()
               for b in others if b is not None and b.isVisible())


def test_stop_stays_shown_however_narrow_the_window(qtbot, make_window):
    window = make_window()
    window.resize(700, 700)

    stop, overflow = window.toolbar.button("stop"), window.toolbar.overflow_button()

    qtbot.waitUntil(lambda: overflow is not None and overflow.isVisible(), timeout=WAIT_MS)
    assert stop is not None and stop.isVisible()
    assert window.rect().contains(rect_in(window, stop))


def test_the_step_box_sits_beside_the_action_that_takes_steps(make_window):
    window = make_window()
    auto = window.toolbar.button("auto")
    spin = window.toolbar.steps_spin

    assert [s.id for s in window.runner.actions() if s.needs_steps] == ["auto"]
    assert auto is not None and spin.isVisible()
    assert 0 <= rect_in(window, spin).left() - rect_in(window, auto).right() <= 20


def test_another_kind_gets_its_own_actions_in_the_toolbar_and_the_session_menu(
    qtbot, make_window
):
    window = make_window()

    start(qtbot, window, "panel")

    assert set(window.toolbar.qactions) == {"ask", "auto", "stop", "send"}
    assert window.toolbar.qactions["ask"].text() == "Ask the panel"
    menu = set(window.menus.session_menu.actions())
    assert set(window.toolbar.qactions.values()) <= menu
    assert not any(a.objectName() == "action_infer" for a in menu)


# -- New session: a dialog, so choosing a kind starts nothing by itself ------------------------
def _open_new_session(qtbot, window: MainWindow) -> NewSessionDialog:  # type: ignore[no-untyped-def]
    window.toolbar.new_button.click()
    qtbot.waitUntil(lambda: window.findChild(NewSessionDialog) is not None, timeout=WAIT_MS)
    dialog = window.findChild(NewSessionDialog)
    assert dialog is not None
    return dialog


def _choose(combo, name: str) -> None:  # type: ignore[no-untyped-def]
    combo.setCurrentIndex(combo.findData(name, Qt.ItemDataRole.UserRole))


def test_the_new_session_dialog_lists_every_registered_kind_enabled(qtbot, make_window):
    window = make_window()
    model = _open_new_session(qtbot, window).kind_combo.model()

    enabled = {model.item(row).data(Qt.ItemDataRole.UserRole): model.item(row).isEnabled()
               for row in range(model.rowCount())}

    assert list(enabled) == kind_names()
    assert all(enabled.values())


def test_choosing_a_kind_lists_its_scenarios_and_starts_nothing_until_start(
    qtbot, make_window
):
    window = make_window()
    first = window.bridge.session_id()
    dialog = _open_new_session(qtbot, window)

    _choose(dialog.kind_combo, "panel")

    scenarios = dialog.scenario_combo
    assert [scenarios.itemData(i, Qt.ItemDataRole.UserRole)
            for i in range(scenarios.count())] == PANEL.scenario_names()
    assert dialog.chosen() == ("panel", "default")
    wait_idle(qtbot, window)
    assert window.bridge.session_id() == first and window.bridge.kind() != "panel"
    dialog.reject()


def test_start_in_the_dialog_starts_the_kind_and_scenario_chosen(qtbot, make_window):
    window = make_window()
    old_id = window.bridge.session_id()
    dialog = _open_new_session(qtbot, window)
    _choose(dialog.kind_combo, "panel")
    _choose(dialog.scenario_combo, "tabs")

    dialog.findChild(QPushButton, "startButton").click()

    qtbot.waitUntil(lambda: window.bridge.session_id() not in (None, old_id), timeout=WAIT_MS)
    record = window.runner.store.get_session(str(window.bridge.session_id()))
    assert (record.kind, record.scenario) == ("panel", "tabs")
    qtbot.waitUntil(lambda: "Tabs or spaces?" in window.windowTitle(), timeout=WAIT_MS)


def test_the_seed_box_starts_at_the_settings_seed_when_the_offline_model_answers(
    qtbot, make_window
):
    window = make_window()
    window.settings.set_model_settings(
        window.settings.model_settings().model_copy(update={"offline_seed": 5}))

    dialog = _open_new_session(qtbot, window)

    assert dialog.seed_spin.isVisibleTo(dialog) and dialog.chosen_seed() == 5
    dialog.reject()


def test_a_seed_chosen_in_the_dialog_is_stored_with_the_new_session(qtbot, make_window):
    window = make_window()
    old_id = window.bridge.session_id()
    dialog = _open_new_session(qtbot, window)
    _choose(dialog.kind_combo, "panel")
    dialog.seed_spin.setValue(12)

    dialog.findChild(QPushButton, "startButton").click()

    qtbot.waitUntil(lambda: window.bridge.session_id() not in (None, old_id), timeout=WAIT_MS)
    assert window.runner.store.get_session(str(window.bridge.session_id())).meta["seed"] == 12
    assert window.runner.handle is not None and window.runner.handle.seed == 12


def test_there_is_no_seed_box_when_another_model_answers(qtbot, make_window):
    window = make_window(client_factory=paced())

    dialog = _open_new_session(qtbot, window)

    assert not dialog.seed_spin.isVisibleTo(dialog) and dialog.chosen_seed() is None
    dialog.reject()


def test_new_session_opens_on_the_live_kind_and_scenario_and_says_the_old_one_stays(
    qtbot, make_window
):
    window = make_window()
    start(qtbot, window, "panel", "tabs")
    perform(qtbot, window, "ask")

    window.menus.new_action.trigger()
    qtbot.waitUntil(lambda: window.findChild(NewSessionDialog) is not None, timeout=WAIT_MS)
    dialog = window.findChild(NewSessionDialog)

    assert dialog.chosen() == ("panel", "tabs")
    assert "stays saved" in dialog.leaving.text()
    dialog.reject()

def test_with_no_human_seat_dock_a_text_action_asks_for_its_text(qtbot, make_window):
    window = make_window()
    start(qtbot, window, "panel")
    perform(qtbot, window, "ask")
    qtbot.waitUntil(lambda: window.toolbar.qactions["send"].isEnabled(), timeout=WAIT_MS)

    window.toolbar.qactions["send"].trigger()
    prompt = window.toolbar.text_prompt
    assert prompt is not None and prompt.isVisible()
    prompt.setTextValue("Only with a time limit.")
    prompt.accept()

    session = window.runner.handle.session
    assert isinstance(session, PanelSession)
    qtbot.waitUntil(lambda: any(line.text == "Only with a time limit."
                                for line in session.state.lines), timeout=WAIT_MS)
    assert session.state.round == 2


def test_the_roundtable_send_action_sends_what_the_human_seat_wrote(qtbot, make_window):
    window = make_window()
    state = meeting_state(window.bridge)
    make_human(window)
    composer = window.docks["composerDock"]
    qtbot.waitUntil(lambda: window.toolbar.qactions["send"].isEnabled(), timeout=WAIT_MS)
    written = 'CALL: addTranscript("I start with the RAG talk.")'
    composer.editor.setPlainText(written)

    window.toolbar.qactions["send"].trigger()

    qtbot.waitUntil(lambda: state.last_reply == written, timeout=WAIT_MS)  # its reply now
    assert composer.text() == ""


def test_with_nothing_written_the_send_action_brings_the_human_seat_forward(
    qtbot, make_window
):
    window = make_window()
    make_human(window)
    composer, transcript = window.docks["composerDock"], window.docks["transcriptDock"]
    qtbot.waitUntil(lambda: window.toolbar.qactions["send"].isEnabled(), timeout=WAIT_MS)
    transcript.raise_()
    qtbot.waitUntil(lambda: composer.visibleRegion().isEmpty(), timeout=WAIT_MS)

    window.toolbar.qactions["send"].trigger()

    qtbot.waitUntil(lambda: not composer.visibleRegion().isEmpty(), timeout=WAIT_MS)
    assert window.toolbar.text_prompt is None  # the human seat dock, not a prompt


# -- alongside a stream --------------------------------------------------------------------------
def test_a_human_may_speak_while_the_ai_seats_stream_where_the_kind_allows_it(
    qtbot, make_window
):
    window = make_window(paced())
    start(qtbot, window, "openfloor")
    client = window.runner.choice.client
    assert isinstance(client, PacedClient)
    window.runner.perform(Action(id="ask"))
    qtbot.waitUntil(lambda: client.in_flight == 2, timeout=WAIT_MS)
    send = window.toolbar.qactions["send"]
    qtbot.waitUntil(send.isEnabled, timeout=WAIT_MS)

    task = window.runner.perform(Action(id="send", text="Keep it short, please."))

    assert task is not None
    qtbot.waitUntil(task.done, timeout=WAIT_MS)
    session = window.runner.handle.session
    assert isinstance(session, PanelSession)
    assert client.in_flight > 0  # the panelists were still streaming when it was heard
    assert [line.text for line in session.state.lines] == ["Keep it short, please."]
    wait_idle(qtbot, window)


def test_while_a_step_streams_every_other_action_waits_and_says_why(qtbot, make_window):
    window = make_window(paced())
    start(qtbot, window, "openfloor")
    client = window.runner.choice.client
    refused: list[str] = []
    window.runner.failed.connect(lambda _level, message, _hint: refused.append(message))
    window.runner.perform(Action(id="ask"))
    qtbot.waitUntil(lambda: client.in_flight == 2, timeout=WAIT_MS)
    ask = window.toolbar.qactions["ask"]
    qtbot.waitUntil(lambda: not ask.isEnabled(), timeout=WAIT_MS)

    second = window.runner.perform(Action(id="ask"))

    assert second is None and refused == ["A step is already running."]
    assert "running" in ask.toolTip()
    assert window.toolbar.qactions["stop"].isEnabled()
    window.toolbar.qactions["stop"].trigger()
    wait_idle(qtbot, window)


def test_in_a_kind_that_does_not_allow_it_the_human_waits_for_the_stream(qtbot, make_window):
    window = make_window(paced())
    start(qtbot, window, "panel")
    client = window.runner.choice.client
    window.runner.perform(Action(id="ask"))
    qtbot.waitUntil(lambda: client.in_flight == 2, timeout=WAIT_MS)
    window.toolbar.refresh()

    assert not window.toolbar.qactions["send"].isEnabled()
    window.toolbar.qactions["stop"].trigger()
    wait_idle(qtbot, window)


# -- leaving a running session asks first -----------------------------------------------------
def test_opening_a_recent_session_while_auto_runs_asks_first_and_keeps_running_on_cancel(
    qtbot, make_window
):
    from roundtable_desktop.ui.dialogs.ask_first import AskFirstBox

    window = make_window(paced(words=400, delay_s=0.02))
    other = start(qtbot, window, "panel")
    window.runner.start_new("roundtable")
    qtbot.waitUntil(lambda: window.bridge.session_id() not in (None, other), timeout=WAIT_MS)
    live = window.bridge.session_id()
    window.runner.perform(Action(id="auto", steps=5))
    qtbot.waitUntil(lambda: window.runner.busy, timeout=WAIT_MS)

    assert window.runner.busy, "Auto stopped before the question could be asked"
    box = window.menus.open_recent(other)

    assert isinstance(box, AskFirstBox)
    qtbot.waitUntil(box.isVisible, timeout=WAIT_MS)
    assert "stays saved" in box.informativeText()
    assert window.bridge.session_id() == live and window.runner.busy
    box.reject()
    assert window.bridge.session_id() == live  # Cancel: nothing left, nothing opened
