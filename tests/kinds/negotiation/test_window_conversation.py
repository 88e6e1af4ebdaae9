"""The conversation dock ("Dialogue"): the lines the two sides said to each other, who said each, in
order, and nothing of the observer's, planner's or adjudicator's JSON (which stays in
the shared Transcript and the calls). Offscreen, offline model."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractSlider

from roundtable_desktop.ui.kinds.negotiation.conversation_dock import spoken_lines
from tests.fakes.window_harness import WAIT_MS, perform, wait_idle
from tests.kinds.negotiation.window_helpers import conversation_dock, state_of

pytestmark = pytest.mark.qt
Right = Qt.DockWidgetArea.RightDockWidgetArea


def play_turns(qtbot, window, turns: int) -> None:  # type: ignore[no-untyped-def]
    for _ in range(turns):
        perform(qtbot, window, "take_turn")
    wait_idle(qtbot, window)


def test_the_conversation_holds_every_spoken_line_with_its_speaker_in_order(qtbot, window):
    dock = conversation_dock(window)

    play_turns(qtbot, window, 3)

    state = state_of(window)
    said = [(state.sides[m.who].name, m.text) for m in state.messages()]
    assert len(said) == 5  # two opening lines and three turns
    qtbot.waitUntil(lambda: said[-1][1] in dock.text(), timeout=WAIT_MS)
    assert [(line.name, line.text) for line in dock.lines()] == said
    shown = dock.text()
    positions = [shown.index(text) for _name, text in said]
    assert positions == sorted(positions)
    for name, _text in said:
        assert name in shown


def test_the_conversation_holds_no_json_of_the_observer_or_the_planner(qtbot, window):
    dock = conversation_dock(window)

    play_turns(qtbot, window, 3)

    qtbot.waitUntil(lambda: state_of(window).messages()[-1].text in dock.text(),
                    timeout=WAIT_MS)
    transcript = window.docks["transcriptDock"].text()
    assert '"dims"' in transcript or '"options"' in transcript  # the JSON is still there
    shown = dock.text()
    assert "{" not in shown and '"dims"' not in shown and '"options"' not in shown
    replies = [c.response_text for c in window.bridge.store().calls(
        window.bridge.session_id()) if c.purpose in ("observer", "planner")]
    assert replies
    for reply in replies:
        json.loads(reply)  # the observer and the planner answer in JSON ...
        assert reply not in shown  # ... and none of it is in the conversation


def test_a_human_line_is_marked_as_a_persons(qtbot, window):
    dock = conversation_dock(window)
    perform(qtbot, window, "take_turn")  # ALLY speaks; GATEKEEPER is next
    window.docks["negotiationSequencerDock"].seats["KEEPER"].human_check.click()
    qtbot.waitUntil(lambda: state_of(window).sides["KEEPER"].human, timeout=WAIT_MS)
    wait_idle(qtbot, window)

    perform(qtbot, window, "send", text="Show me a week of clean logs first.")

    qtbot.waitUntil(lambda: "Show me a week of clean logs first." in dock.text(),
                    timeout=WAIT_MS)
    name = state_of(window).sides["KEEPER"].name
    assert f"✎ {name}" in dock.text()
    assert dock.lines()[-1].human


def test_the_conversation_sits_in_the_right_column_and_comes_forward_when_the_talk_begins(
    qtbot, window
):
    dock = conversation_dock(window)
    assert window.dockWidgetArea(dock) == Right
    assert dock.windowTitle() == "Dialogue"

    play_turns(qtbot, window, 1)

    qtbot.waitUntil(lambda: not dock.visibleRegion().isEmpty(), timeout=WAIT_MS)


def test_the_opening_lines_are_spoken_lines_and_nothing_else_is():
    from roundtable_desktop.kinds.negotiation.scenario import load_scenario
    from roundtable_desktop.kinds.negotiation.state import LogEntry, new_state

    state = new_state("default", load_scenario("default"), model="m", provider="offline")
    state.log.append(LogEntry(turn=1, who="OBSERVER", type="MODEL", text='{"dims": {}}'))

    lines = spoken_lines(state)

    assert [line.side for line in lines] == ["ALLY", "KEEPER"]
    assert all(line.turn == 0 for line in lines)



def test_the_conversation_follows_the_newest_line_unless_the_reader_scrolled_back(
    qtbot, window
):
    dock = conversation_dock(window)
    bar = dock.view.verticalScrollBar()
    play_turns(qtbot, window, 4)
    qtbot.waitUntil(lambda: bar.maximum() > 0, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: bar.value() == bar.maximum(), timeout=WAIT_MS)

    bar.triggerAction(QAbstractSlider.SliderAction.SliderToMinimum)  # back to the start
    play_turns(qtbot, window, 1)

    qtbot.waitUntil(lambda: state_of(window).messages()[-1].text in dock.text(),
                    timeout=WAIT_MS)
    assert bar.value() == 0
