"""The context view keeps a minion's perception tab beside its response tab for the whole
turn: when the response call starts (a DM and a group) and after the turn has ended.
Also the tab list itself: the calls of one step stay together, the next step's first call
clears them. Offscreen, offline model."""

from __future__ import annotations

import pytest

from roundtable_desktop.domain.calls import CallOutcome, CallStatus
from roundtable_desktop.domain.events import CallStarted
from roundtable_desktop.ui.context.payload_tabs import PayloadTabs, TabState
from roundtable_desktop.ui.window.main_window import MainWindow
from tests.kinds.legion.window_helpers import start_legion, state_of, write

pytestmark = pytest.mark.qt


class TabsAtResponse:
    """The view's tab titles at the moment each response call starts (connected after the
    view, so the view has taken the call in first)."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window
        self.seen: dict[str, list[str]] = {}
        window.bridge.callStarted.connect(self._on_bridge_call_started)

    def _on_bridge_call_started(self, event: CallStarted) -> None:
        if event.purpose == "response":
            self.seen[event.label] = self.window.context_view.tab_titles()


def _bare(titles: list[str]) -> list[str]:
    return [t.lstrip("●✓✗ ") for t in titles]


def test_a_dm_turn_shows_the_perception_beside_the_response_being_sent(qtbot, make_window):
    window = make_window()
    start_legion(qtbot, window)
    watch = TabsAtResponse(window)

    write(qtbot, window, "commander-alpha", "hi Alpha")

    at_response = watch.seen["Alpha · response"]
    assert "✓ Alpha · perception" in at_response
    assert "● Alpha · response" in at_response


def test_after_a_dm_turn_both_of_its_tabs_stay(qtbot, make_window):
    window = make_window()
    start_legion(qtbot, window)

    write(qtbot, window, "commander-alpha", "hi Alpha")

    assert window.context_view.tab_titles() == ["✓ Alpha · perception", "✓ Alpha · response"]


def test_a_group_turn_keeps_each_minions_perception_beside_its_response(qtbot, make_window):
    window = make_window()
    start_legion(qtbot, window)
    watch = TabsAtResponse(window)

    write(qtbot, window, "war-room", "Alpha, Beta, Gamma: good morning!", answers=3)

    state = state_of(window)
    assert state is not None
    speakers = {m.speaker for m in state.channel_messages("war-room") if m.role == "minion"}
    titles = _bare(window.context_view.tab_titles())
    for name in speakers:
        assert f"{name} · perception" in _bare(watch.seen[f"{name} · response"])
        assert {f"{name} · perception", f"{name} · response"} <= set(titles)


def test_the_calls_of_one_step_stay_together_until_the_next_step_starts_one():
    def done(tabs: PayloadTabs, call_id: str) -> None:
        tabs.call_finished(call_id, CallOutcome(status=CallStatus.OK, text="ok"))

    tabs = PayloadTabs()
    tabs.new_batch()
    tabs.call_started("p", "Alpha · perception", "alpha", [{"n": 1}], lambda: "<a/>")
    done(tabs, "p")
    tabs.call_started("r", "Alpha · response", "alpha", [{"n": 2}], lambda: "<a/>")
    done(tabs, "r")
    together = [t.label for t in tabs.tabs]
    tabs.new_batch()
    tabs.call_started("p2", "Alpha · perception", "alpha", [{"n": 3}], lambda: "<a/>")

    assert together == ["Alpha · perception", "Alpha · response"]
    assert [(t.call_id, t.state) for t in tabs.tabs] == [("p2", TabState.SENDING)]
