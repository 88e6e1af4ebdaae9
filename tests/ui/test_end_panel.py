"""The end panel: when the live session ends, the window says what happened, shows the
result large above the view, and offers Export, Replay and New session, each doing what
the window's own action does. A roundtable meeting and the test panel kind, offline.
Layout is checked from widget geometry, not pixels."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import QWidget

from roundtable_desktop.domain.summary import ResultItem, ResultSection
from roundtable_desktop.ui.kinds.roundtable.dock_base import meeting_state
from roundtable_desktop.ui.theme import point_size
from roundtable_desktop.ui.window.end_panel import TITLE_SCALE, EndPanel
from roundtable_desktop.ui.window.main_window import VIEW_KEEP_LINES, MainWindow
from roundtable_desktop.ui.window.new_session_dialog import NewSessionDialog
from tests.fakes.panel_kind import (
    panel_kind,  # noqa: F401 (autouse: the panel kind)
)
from tests.fakes.window_harness import (
    WAIT_MS,
    perform,
    wait_idle,
)

pytestmark = pytest.mark.qt


def finish_roundtable(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    """Auto until the offline meeting has ended."""
    for _ in range(10):
        if window.bridge.ended():
            break
        perform(qtbot, window, "auto", steps=50)
    assert window.bridge.ended()
    qtbot.waitUntil(window.end_panel.isVisible, timeout=WAIT_MS)


def finish_panel(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    before = window.bridge.session_id()
    window.runner.start_new("panel", "default")
    qtbot.waitUntil(lambda: window.bridge.session_id() not in (None, before), timeout=WAIT_MS)
    wait_idle(qtbot, window)
    for line in ("Only with a time limit.", "And a note-taker."):
        perform(qtbot, window, "ask")
        perform(qtbot, window, "send", text=line)
    assert window.bridge.ended()
    qtbot.waitUntil(window.end_panel.isVisible, timeout=WAIT_MS)


def rect_in(window: QWidget, widget: QWidget) -> QRect:
    return QRect(widget.mapTo(window, QPoint(0, 0)), widget.size())


# -- when it shows ------------------------------------------------------------------------
def test_the_end_panel_is_hidden_while_the_session_runs(qtbot, make_window):
    window = make_window()
    perform(qtbot, window, "infer")

    assert not window.end_panel.isVisible()


def test_a_finished_meeting_shows_its_final_suggestions_in_the_end_panel(qtbot, make_window):
    window = make_window()

    finish_roundtable(qtbot, window)

    state = meeting_state(window.bridge)
    panel = window.end_panel
    calls = len(window.runner.store.calls(window.bridge.session_id()))
    assert panel.heading_text() == "Final suggestions"
    assert panel.item_titles() == [s.candidate.title for s in state.suggestions]
    assert panel.headline_text().startswith(f"The meeting ended at turn {state.turn}")
    assert f"after {calls} calls" in panel.headline_text()
    qtbot.waitUntil(lambda: "Ended" in window.windowTitle(), timeout=5000)


def test_a_finished_panel_session_shows_its_verdicts(qtbot, make_window):
    window = make_window()

    finish_panel(qtbot, window)

    panel = window.end_panel
    assert panel.heading_text() == "Verdicts"
    assert [t.split(":")[0] for t in panel.item_titles()] == ["Ada", "Bo"]
    assert panel.headline_text().startswith("Test panel ended at round 3 after 4 calls")


SCREENS = {"laptop": QRect(0, 0, 1366, 768), "desktop": QRect(0, 0, 1920, 1080)}


@pytest.mark.parametrize("screen", SCREENS.values(), ids=SCREENS.keys())
def test_the_end_panel_sits_above_the_view_inside_the_window(qtbot, make_window, screen):
    window = make_window(start=False)
    window.place_on_screen(screen)
    qtbot.waitUntil(lambda: window.width() <= screen.width(), timeout=WAIT_MS)
    window.size_docks()
    window.runner.start_new()
    wait_idle(qtbot, window)
    finish_roundtable(qtbot, window)

    panel, view = rect_in(window, window.end_panel), rect_in(window, window.context_view)

    assert window.rect().contains(panel) and window.rect().contains(view)
    assert panel.bottom() < view.top() and not panel.intersects(view)
    assert view.height() >= VIEW_KEEP_LINES * window.fontMetrics().height()  # its header
    for button in (window.end_panel.export_button, window.end_panel.replay_button,
                   window.end_panel.new_button):
        assert panel.contains(rect_in(window, button)), button.text()
    heading = window.end_panel.heading
    assert heading.width() >= heading.fontMetrics().horizontalAdvance(heading.text())  # uncut
    first = window.end_panel.item_labels()[1]  # the first item's title, after its number
    assert first.objectName() == "endItemTitle" and first.isVisible()
    assert screen.contains(window.frameGeometry())  # the panel did not widen the window


def test_the_result_is_larger_than_the_windows_text_and_follows_zoom(qtbot, make_window):
    window = make_window()
    finish_panel(qtbot, window)
    title = next(label for label in window.end_panel.item_labels()
                 if label.objectName() == "endItemTitle")
    title.ensurePolished()
    before = title.font().pointSizeF()

    window.zoom_by(1)
    title.ensurePolished()

    assert before == pytest.approx(point_size(1.0) * TITLE_SCALE, abs=0.11)
    assert title.font().pointSizeF() == pytest.approx(point_size(window.zoom) * TITLE_SCALE,
                                                      abs=0.11)


def test_a_result_with_no_items_says_so(qtbot):
    panel = EndPanel()
    qtbot.addWidget(panel)

    panel.show_result("Done.", ResultSection(heading="Deal", empty_text="No deal was made."))

    texts = [label.text() for label in panel.item_labels()]
    assert texts == ["No deal was made."]


def test_an_items_detail_says_who_it_is_by(qtbot):
    panel = EndPanel()
    qtbot.addWidget(panel)

    panel.show_result("Done.", ResultSection(heading="Suggestions", items=[
        ResultItem(title="Orbits, simply", detail="Channel · 12:03", by=["Ada", "Bo"])]))

    texts = [label.text() for label in panel.item_labels()]
    assert "Orbits, simply" in texts
    assert "Channel · 12:03 — by Ada, Bo" in texts


# -- what the buttons do ---------------------------------------------------------------------
def test_export_opens_the_windows_export_dialog(qtbot, make_window):
    window = make_window()
    finish_panel(qtbot, window)
    first_format = next(iter(window.menus.export_actions.values()))
    triggered: list[bool] = []
    first_format.triggered.connect(lambda *_: triggered.append(True))

    qtbot.mouseClick(window.end_panel.export_button, Qt.MouseButton.LeftButton)

    assert triggered == [True]
    assert window.menus.open_dialogs()[-1].objectName().startswith("exportDialog_")
    assert window.end_panel.export_button.menu().actions() == list(
        window.menus.export_actions.values())  # the other formats on the arrow


def test_replay_replays_this_session_and_hides_the_panel(qtbot, make_window):
    window = make_window()
    finish_panel(qtbot, window)
    session_id = window.bridge.session_id()

    qtbot.mouseClick(window.end_panel.replay_button, Qt.MouseButton.LeftButton)

    qtbot.waitUntil(lambda: window.bridge.read_only, timeout=WAIT_MS)
    assert window.bridge.session_id() == session_id
    assert window.menus.replay_widget is not None and window.menus.replay_widget.isVisible()
    qtbot.waitUntil(lambda: not window.end_panel.isVisible(), timeout=WAIT_MS)


def test_new_session_starts_a_fresh_session_and_hides_the_panel(qtbot, make_window):
    window = make_window()
    finish_panel(qtbot, window)
    old_id = window.bridge.session_id()
    triggered: list[bool] = []
    window.menus.new_action.triggered.connect(lambda *_: triggered.append(True))

    qtbot.mouseClick(window.end_panel.new_button, Qt.MouseButton.LeftButton)

    assert triggered == [True]
    qtbot.waitUntil(lambda: window.findChild(NewSessionDialog) is not None, timeout=WAIT_MS)
    window.findChild(NewSessionDialog).accept()
    qtbot.waitUntil(lambda: window.bridge.session_id() not in (None, old_id), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: not window.end_panel.isVisible(), timeout=WAIT_MS)
    assert not window.bridge.ended()
