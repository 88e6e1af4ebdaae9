"""The offline model's participants fetch through MCP exactly when their context window's
MCP section says connected and lists search_videos; otherwise they fetch directly."""

from __future__ import annotations

import pytest

from roundtable_desktop.kinds.roundtable.offline import roundtable_reply


def _participant_reply(meeting, status: str, tools: list[str]) -> str:
    state = meeting.state
    state.current = 1  # the first participant; on its first turn it fetches for its interests
    state.mcp_status, state.mcp_tools = status, tools
    return roundtable_reply(meeting.pending_payloads()[0].request, seed=7)


def test_the_offline_participant_fetches_through_mcp_when_connected_with_search_videos(meeting):
    reply = _participant_reply(meeting, "connected to http://127.0.0.1:8081/mcp (2 tools)",
                               ["get_video_details", "search_videos"])
    assert "CALL: fetchCandidatesMCP(" in reply and "CALL: fetchCandidates(" not in reply


@pytest.mark.parametrize(
    ("status", "tools"),
    [
        ("not connected", []),
        ("connection lost: the server stopped answering", ["search_videos"]),
        ("connected to http://127.0.0.1:9/mcp (1 tool)", ["get_weather"]),
    ],
    ids=["not-connected", "lost", "no-search-tool"],
)
def test_the_offline_participant_fetches_directly_otherwise(meeting, status, tools):
    reply = _participant_reply(meeting, status, tools)
    assert "CALL: fetchCandidates(" in reply and "fetchCandidatesMCP" not in reply
