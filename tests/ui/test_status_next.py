"""What to do next, always: the status line names the action that starts a session and its
key, whose line a human seat waits for and where to write it, how many replies stream,
and, once ended, where the result, Export and Replay are; worded from the engine
interface for every kind. The Human seat tick applies at once and brings the Human seat
dock forward. Replay lives in the Session menu (Ctrl+Shift+R), its title ends in whole
words, and leaving it gives back the live view whole. Offscreen, on a running qasync
loop."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtGui import QKeySequence

from roundtable_desktop.domain.summary import SessionSummary
from roundtable_desktop.engine.registry import register_kind
from roundtable_desktop.ui.elided_label import ELLIPSIS
from roundtable_desktop.ui.kinds.roundtable.dock_base import meeting_state
from roundtable_desktop.ui.window.main_window import MainWindow
from roundtable_desktop.ui.window.session_runner import ClientChoice
from tests.fakes.paced_client import PacedClient
from tests.fakes.panel_kind import OPEN_FLOOR_PANEL, PANEL
from tests.fakes.window_harness import (
    WAIT_MS,
    perform,
    wait_idle,
    wait_view,
)

pytestmark = pytest.mark.qt

ROOT = Path(__file__).resolve().parents[2]
STATUS_SOURCE = ROOT / "src/roundtable_desktop/ui/window/status_bar.py"


@pytest.fixture(autouse=True)
def test_kinds() -> Iterator[None]:
    removers = [register_kind(PANEL), register_kind(OPEN_FLOOR_PANEL)]
    yield
    for remove in removers:
        remove()


def start(qtbot, window: MainWindow, kind: str) -> str:  # type: ignore[no-untyped-def]
    before = window.bridge.session_id()
    window.runner.start_new(kind, "default")
    qtbot.waitUntil(lambda: window.bridge.session_id() not in (None, before), timeout=WAIT_MS)
    wait_idle(qtbot, window)
    return str(window.bridge.session_id())


def status_says(qtbot, window: MainWindow, *words: str) -> str:  # type: ignore[no-untyped-def]
    """Wait until the phase line holds every one of `words`; the line."""
    qtbot.waitUntil(lambda: all(w in window.status.phase_text() for w in words),
                    timeout=WAIT_MS)
    return window.status.phase_text()


def paced(words: int = 60, delay_s: float = 0.03):  # type: ignore[no-untyped-def]
    return lambda: ClientChoice(PacedClient(words=words, delay_s=delay_s), "paced", "paced")


# -- at start, and next ---------------------------------------------------------------------
def test_at_start_the_status_names_the_first_action_and_its_key(qtbot, make_window):
    window = make_window()
    infer = next(s for s in window.runner.actions() if s.id == "infer")

    line = status_says(qtbot, window, "To start", infer.label, "Ctrl+Return")

    assert "Idle" not in line


def test_at_start_another_kind_names_its_own_first_action(qtbot, make_window):
    window = make_window()

    start(qtbot, window, "panel")

    status_says(qtbot, window, "To start", "Ask the panel", "Ctrl+Return")


def test_after_a_step_the_status_names_the_next_one_and_its_tooltip_what_else_is_offered(
    qtbot, make_window
):
    window = make_window()

    perform(qtbot, window, "infer")

    line = status_says(qtbot, window, "Waiting for you", "Run tools", "Ctrl+T")
    assert "Next turn" not in line  # one action named: the line is never cut
    assert "Also: Next turn" in window.status.phase_label.toolTip()


def test_the_context_line_shows_the_progress_and_who_acts_not_the_results_count(
    qtbot, make_window
):
    window = make_window()
    start(qtbot, window, "panel")

    perform(qtbot, window, "ask")

    qtbot.waitUntil(lambda: window.status.context_text().startswith("Round 1"),
                    timeout=WAIT_MS)
    assert "Verdicts" not in window.status.context_text()  # the result shows it


# -- a human seat --------------------------------------------------------------------------
def test_while_a_human_seat_waits_the_status_names_it_and_its_send_action(qtbot, make_window):
    window = make_window()
    start(qtbot, window, "panel")

    perform(qtbot, window, "ask")

    status_says(qtbot, window, "Waiting for You", "Speak as You")


def test_the_human_seat_tick_applies_at_once_and_says_where_to_write(qtbot, make_window):
    window = make_window()
    composer, transcript = window.docks["composerDock"], window.docks["transcriptDock"]
    transcript.raise_()
    qtbot.waitUntil(lambda: composer.visibleRegion().isEmpty(), timeout=WAIT_MS)
    actors = window.docks["actorsDock"]
    name = meeting_state(window.bridge).actor.name
    actors.select_actor(meeting_state(window.bridge).actor.id)

    actors.human_check.click()  # and nothing else: no Apply changes

    status_says(qtbot, window, f"Waiting for {name}", "write your line in Human seat")
    qtbot.waitUntil(lambda: not composer.visibleRegion().isEmpty(), timeout=WAIT_MS)
    assert composer.can_send()
    assert not actors.apply_button.isEnabled()


# -- streaming -----------------------------------------------------------------------------
def test_while_calls_stream_the_status_says_how_many_and_the_tokens(qtbot, make_window):
    window = make_window(paced())
    start(qtbot, window, "panel")

    window.toolbar.qactions["ask"].trigger()

    line = status_says(qtbot, window, "Streaming 2 replies", "Ada", "Bo", "tokens")
    assert re.search(r"\d+ tokens", line)
    window.toolbar.qactions["stop"].trigger()
    wait_idle(qtbot, window)


def test_while_calls_stream_the_status_names_what_may_still_be_done(qtbot, make_window):
    window = make_window(paced())
    start(qtbot, window, "openfloor")

    window.toolbar.qactions["ask"].trigger()

    status_says(qtbot, window, "Streaming 2 replies", "speak as You", "meanwhile")
    window.toolbar.qactions["stop"].trigger()
    wait_idle(qtbot, window)


def test_one_stream_is_named_with_its_speaker(qtbot, make_window):
    window = make_window(paced())
    name = meeting_state(window.bridge).actor.name

    window.toolbar.qactions["infer"].trigger()

    status_says(qtbot, window, f"Streaming {name}'s reply", "tokens")
    window.toolbar.qactions["stop"].trigger()
    wait_idle(qtbot, window)


# -- the end -------------------------------------------------------------------------------
def test_when_the_session_ends_the_status_says_so_and_points_to_export_and_replay(
    qtbot, make_window
):
    window = make_window()
    start(qtbot, window, "panel")
    for line in ("First.", "Second."):
        perform(qtbot, window, "ask")
        perform(qtbot, window, "send", text=line)
    assert window.bridge.ended()

    status_says(qtbot, window, "has ended", "result", "Ctrl+N")
    tip = window.status.phase_label.toolTip()
    assert "Export" in tip and "Ctrl+Shift+R" in tip


def test_the_status_line_words_no_kind_of_its_own():
    text = STATUS_SOURCE.read_text(encoding="utf-8").replace("roundtable_desktop", "")

    for word in ("roundtable", "meeting", "MeetingState", "suggestions?", "turn", "panel",
                 "candidates?", "verdicts?", r"state\(\)"):
        assert re.search(rf"\b{word}\b", text, re.IGNORECASE) is None, word


def test_the_status_reads_only_the_kind_neutral_summary():
    fields = set(SessionSummary.model_fields) | set(SessionSummary.model_computed_fields)

    used = set(re.findall(r"summary\.(\w+)", STATUS_SOURCE.read_text(encoding="utf-8")))

    assert used <= fields | {"name_of"}


# -- replay --------------------------------------------------------------------------------
def test_replay_is_in_the_session_menu_with_ctrl_shift_r(make_window):
    window = make_window(start=False)
    menus = window.menus

    assert menus.replay_action in menus.session_menu.actions()
    assert menus.live_action in menus.session_menu.actions()
    assert menus.replay_action not in menus.file_menu.actions()
    assert menus.replay_action.shortcut() == QKeySequence("Ctrl+Shift+R")


def test_the_replay_title_ends_in_whole_words_with_the_full_title_as_tooltip(
    qtbot, make_window
):
    window = make_window()
    perform(qtbot, window, "infer")
    session_id = str(window.bridge.session_id())

    window.menus.start_replay(session_id)  # "Replay: What should Jun watch … (kind, id)"
    title = window.menus.replay_widget.title_label

    qtbot.waitUntil(lambda: title.shown_text().endswith(ELLIPSIS), timeout=WAIT_MS)
    full = title.full_text()
    shown = title.shown_text()[: -len(ELLIPSIS)]
    assert full.startswith("Replay: ") and title.toolTip() == full
    assert full.split()[: len(shown.split())] == shown.split()  # whole words only
    window.menus.live_action.trigger()


def test_leaving_replay_gives_back_the_live_view_whole(qtbot, make_window):
    window = make_window()
    perform(qtbot, window, "infer")
    perform(qtbot, window, "run_tools")
    polygon = window.docks["polygonDock"]
    qtbot.waitUntil(lambda: not polygon.animating(), timeout=WAIT_MS)
    ids = list(polygon.drawing.vertex_positions())
    edges = {(a, b) for a in ids for b in ids if a != b and polygon.edge_heat(a, b) > 0}
    last_call = window.status.last_call_text()
    assert last_call.startswith("Last call:") and edges

    window.menus.start_replay(str(window.bridge.session_id()))
    qtbot.waitUntil(lambda: window.bridge.read_only, timeout=WAIT_MS)
    assert window.status.last_call_text() == ""
    window.menus.live_action.trigger()

    assert not window.bridge.read_only
    assert window.status.last_call_text() == last_call
    assert {(a, b) for a in ids for b in ids if a != b and polygon.edge_heat(a, b) > 0} == edges
    wait_view(qtbot, window)  # the context view shows what the live session sends next
    status_says(qtbot, window, "Waiting for you")
