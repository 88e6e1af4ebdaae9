"""The legion in the window keeps "shown is sent": the context view's tab for each minion
call (perception and response, the seed's three turns with the tool in the third)
parses back to the messages the call sent, byte for byte; and the window releases a
legion session it drops (its MCP servers stop). Offscreen, offline model."""

from __future__ import annotations

import json

import pytest

from roundtable_desktop.context.request_document import messages_from_document
from roundtable_desktop.domain.events import CallFinished
from roundtable_desktop.ui.window.main_window import MainWindow
from tests.fakes.window_harness import WAIT_MS, wait_idle
from tests.kinds.legion.window_helpers import start_legion, state_of, write

pytestmark = pytest.mark.qt
SEED_TURNS = ("hi", "ur amazing ily",
              "Can you tell me what files are in the `components` directory?")


class ShownTabs:
    """The document the context view holds for each call, when the call finishes."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window
        self.documents: dict[str, tuple[str, str]] = {}  # call id -> (label, document)
        window.bridge.callFinished.connect(self._on_call_finished)

    def _on_call_finished(self, event: CallFinished) -> None:
        tab = next((t for t in self.window.context_view.tabs() if t.call_id == event.call_id),
                   None)
        if tab is not None:
            self.documents[event.call_id] = (tab.label, tab.document)


def test_each_minion_call_shown_parses_back_to_the_messages_sent(qtbot, make_window):
    window = make_window(start=False)
    start_legion(qtbot, window)
    shown = ShownTabs(window)

    for text in SEED_TURNS:
        write(qtbot, window, "commander-alpha", text)

    calls = window.runner.store.calls(window.bridge.session_id())
    purposes = [c.purpose for c in calls]
    assert purposes.count("perception") >= 4 and purposes.count("response") == 3
    for call in calls:
        label, document = shown.documents[call.id]
        assert label == call.label
        parsed = [m.to_body() for m in messages_from_document(document)]
        sent = call.request["messages"]
        assert json.dumps(parsed, ensure_ascii=False) == json.dumps(sent, ensure_ascii=False)
    last_response = next(c for c in reversed(calls) if c.purpose == "response")
    assert "<tool_output>" in last_response.request["messages"][0]["content"]
    state = state_of(window)
    assert "AnalyticsDashboard.tsx" in state.messages[-1].text


def test_the_window_releases_a_legion_session_it_drops(qtbot, make_window):
    window = make_window(start=False)
    start_legion(qtbot, window)
    write(qtbot, window, "commander-alpha", "What files are in the components directory?")
    session = window.runner.handle.session
    assert session.toolbox.tool_names  # the scenario's file-system server is running

    window.runner.start_new("roundtable", "default")
    qtbot.waitUntil(lambda: window.kind == "roundtable", timeout=WAIT_MS)
    wait_idle(qtbot, window)

    assert not session.toolbox.tool_names
