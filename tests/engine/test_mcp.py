"""MCP end to end against the real bundled server in its own process: connect, list
tools, call them, every failure as a clear message (never a hang), the meeting's MCP
section, and an offline CLI meeting that fetches through fetchCandidatesMCP."""

from __future__ import annotations

import asyncio
import socket
from types import SimpleNamespace

import pytest

from roundtable_desktop.cli.main import main
from roundtable_desktop.domain.events import StateChanged, ToolRan
from roundtable_desktop.engine.base import Action
from roundtable_desktop.kinds.roundtable.mcp import attach_mcp, detach_mcp
from roundtable_desktop.kinds.roundtable.session import RoundtableSession
from roundtable_desktop.kinds.roundtable.sources.mcp_search import mcp_search_for
from roundtable_desktop.sources.mcp_client import (
    McpConnectError,
    McpConnection,
    McpConnectionLost,
    McpNotConnected,
    McpTimeout,
    McpToolError,
)
from roundtable_desktop.store.database import SessionStore
from tests.fakes.mcp_fixture import SLOW_S, start_servers, stop_servers
from tests.fakes.youtube_fixture import fake_youtube  # noqa: F401

TOOLS = ["get_video_details", "search_videos"]


@pytest.fixture(scope="module")
def servers():
    """All the servers this module needs, started at once: `normal`, `slow` (its
    search_videos sleeps) and `spares`, slow ones a test may stop or kill (take one with
    `.pop()`)."""
    started = start_servers(0, SLOW_S, SLOW_S, SLOW_S, SLOW_S)
    try:
        yield SimpleNamespace(normal=started[0], slow=started[1], spares=started[2:])
    finally:
        stop_servers(started)


@pytest.fixture(scope="module")
def bundled_mcp(servers):
    return servers.normal


@pytest.fixture(scope="module")
def slow_mcp(servers):
    return servers.slow


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def connected(url: str) -> McpConnection:
    connection = McpConnection()
    await connection.connect(url)
    return connection


async def wait_for_text(server, text: str, deadline_s: float = 10.0) -> None:
    """Poll the server's log until `text` appears (readiness with a deadline, no sleep)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + deadline_s
    while text not in server.log_text():
        assert loop.time() < end, f"the server never logged {text!r}"
        await asyncio.sleep(0.02)


# -- connecting ---------------------------------------------------------------------------


def test_the_bundled_server_listens_on_loopback_at_mcp(bundled_mcp):
    assert bundled_mcp.url.startswith("http://127.0.0.1:") and bundled_mcp.url.endswith("/mcp")


def test_connect_lists_the_tools_and_says_connected(bundled_mcp):
    async def go():
        connection = await connected(bundled_mcp.url)
        try:
            return connection.status, connection.tool_names, connection.tools[1].description
        finally:
            await connection.disconnect()

    status, names, description = asyncio.run(go())
    assert status == f"connected to {bundled_mcp.url} (2 tools)"
    assert names == TOOLS and description.startswith("Search videos")


def test_nothing_listening_is_a_clear_message():
    url = f"http://127.0.0.1:{free_port()}/mcp"
    connection = McpConnection()
    with pytest.raises(McpConnectError) as caught:
        asyncio.run(connection.connect(url))
    assert str(caught.value) == (f"Could not connect to MCP: nothing is listening at {url} "
                                 "(is the MCP server running?).")
    assert caught.value.nothing_listening
    assert connection.status.startswith("connection failed: nothing is listening")
    assert not connection.connected and connection.tool_names == []


def test_a_server_that_never_answers_is_a_timeout_not_a_hang():
    with socket.socket() as silent:  # accepts connections (backlog), never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(4)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/mcp"
        connection = McpConnection()
        with pytest.raises(McpConnectError) as caught:
            asyncio.run(connection.connect(url, timeout=0.3))
    assert str(caught.value) == (f"Could not connect to MCP: no MCP answer from {url} within "
                                 "0.3 s; check that the server is running and the URL.")
    assert connection.status == f"connection failed: no MCP answer from {url} within 0.3 s"


def test_a_server_that_is_not_mcp_is_a_clear_message(fake_youtube):  # noqa: F811
    says = "is not an MCP endpoint \\(it answered 'Not Found'\\)"
    with pytest.raises(McpConnectError, match=says):
        asyncio.run(McpConnection().connect(f"{fake_youtube.root_url}/mcp", timeout=5))


def test_a_url_that_is_not_http_is_refused_before_connecting():
    with pytest.raises(McpConnectError, match="must start with http:// or https://"):
        asyncio.run(McpConnection().connect("ftp://127.0.0.1/mcp"))


def test_credentials_in_the_url_are_never_shown(bundled_mcp):
    secret_url = bundled_mcp.url.replace("http://", "http://user:hunter2@") + "?token=abc123"

    async def go():
        connection = await connected(secret_url)
        await connection.disconnect()
        return connection.url

    shown = asyncio.run(go())
    assert shown == bundled_mcp.url


def test_listeners_hear_every_status_change(bundled_mcp):
    heard: list[str] = []

    async def go():
        connection = McpConnection()
        connection.add_listener(lambda: heard.append(connection.status.split(" ")[0]))
        await connection.connect(bundled_mcp.url)
        await connection.disconnect()

    asyncio.run(go())
    assert heard == ["connecting", "connected", "not"]


# -- calling ------------------------------------------------------------------------------


def test_search_videos_gives_mcp_candidates_in_the_servers_order(bundled_mcp, catalog):
    async def go():
        connection = await connected(bundled_mcp.url)
        try:
            return await mcp_search_for(connection)("rag evaluation")
        finally:
            await connection.disconnect()

    result = asyncio.run(go())
    assert result.source == "mcp" and result.notice == ""
    expected = catalog.find("rag evaluation").candidates
    assert [c.id for c in result.candidates] == [c.id for c in expected]
    assert {c.source for c in result.candidates} == {"mcp"}


def test_get_video_details_returns_structured_json(bundled_mcp):
    async def go():
        connection = await connected(bundled_mcp.url)
        try:
            return await connection.call_tool("get_video_details", {"video_id": "qFJWe2aQrry"})
        finally:
            await connection.disconnect()

    output = asyncio.run(go())
    assert output.structured["id"] == "qFJWe2aQrry" and output.structured["duration"] == "48:12"


@pytest.mark.parametrize(
    ("tool", "arguments", "says"),
    [
        ("get_video_details", {"video_id": "nosuchvideo"},
         "The MCP tool get_video_details failed: No video with id nosuchvideo is known; "
         "search for it first."),
        ("no_such_tool", {}, "The MCP tool no_such_tool failed: Unknown tool: no_such_tool"),
    ],
    ids=["tool-error", "unknown-tool"],
)
def test_a_tool_error_result_is_a_clear_message(bundled_mcp, tool, arguments, says):
    async def go():
        connection = await connected(bundled_mcp.url)
        try:
            with pytest.raises(McpToolError) as caught:
                await connection.call_tool(tool, arguments)
            return str(caught.value), connection.connected
        finally:
            await connection.disconnect()

    message, still_connected = asyncio.run(go())
    assert message == says and still_connected


def test_calls_without_a_connection_say_connect_first():
    with pytest.raises(McpNotConnected, match="MCP is not connected \\(not connected\\)"):
        asyncio.run(McpConnection().call_tool("search_videos", {"query": "x"}))


def test_after_disconnect_calls_say_connect_first(bundled_mcp):
    async def go():
        connection = await connected(bundled_mcp.url)
        await connection.disconnect()
        assert connection.status == "not connected" and connection.tool_names == []
        with pytest.raises(McpNotConnected):
            await connection.call_tool("search_videos", {"query": "x"})

    asyncio.run(go())


def test_a_slow_tool_times_out_and_the_connection_stays(slow_mcp):
    async def go():
        connection = await connected(slow_mcp.url)
        try:
            with pytest.raises(McpTimeout) as caught:
                await connection.call_tool("search_videos", {"query": "x"}, timeout=0.3)
            return str(caught.value), connection.connected
        finally:
            await connection.disconnect()

    message, still_connected = asyncio.run(go())
    assert message == ("The MCP tool search_videos did not answer within 0.3 s; try again or "
                       "raise the timeout.")
    assert still_connected


def test_a_server_killed_mid_call_is_connection_lost_not_a_hang(servers):
    server = servers.spares.pop()

    async def go():
        connection = await connected(server.url)
        call = asyncio.create_task(
            connection.call_tool("search_videos", {"query": "x"}, timeout=20))
        await wait_for_text(server, "search_videos: test delay")
        server.process.kill()
        with pytest.raises(McpConnectionLost) as caught:
            await asyncio.wait_for(call, 15)  # a safety net: the failure comes at once
        status = connection.status
        await connection.disconnect()
        return str(caught.value), status

    try:
        message, status = asyncio.run(go())
    finally:
        server.stop()
    assert "search_videos" in message and "reconnect" in message
    assert status.startswith("connection lost: ")


def test_check_notices_a_server_that_died_while_idle(servers):
    server = servers.spares.pop()
    heard: list[str] = []

    async def go():
        connection = await connected(server.url)
        connection.add_listener(lambda: heard.append(connection.status))
        alive = await connection.check()
        server.stop()
        dead = await connection.check()
        await connection.disconnect()
        return alive, dead

    assert asyncio.run(go()) == (True, False)
    assert heard[0] == "connection lost: the server stopped answering"


# -- the meeting --------------------------------------------------------------------------


def test_attach_shows_status_and_tool_names_in_the_context_window(bundled_mcp, meeting):
    events: list[StateChanged] = []
    meeting.bus.subscribe(lambda e: events.append(e) if isinstance(e, StateChanged) else None)

    async def go():
        connection = await connected(bundled_mcp.url)
        attach_mcp(meeting, connection)
        window = meeting.pending_payloads()[0].document
        await connection.disconnect()
        return window

    window = asyncio.run(go())
    assert f"Status: connected to {bundled_mcp.url} (2 tools)." in window
    assert "Tools: get_video_details, search_videos" in window
    assert [e.part for e in events].count("mcp") == 2  # connected, then not connected
    assert meeting.state.mcp_status == "not connected" and meeting.mcp_search is None


def test_fetch_candidates_mcp_uses_search_videos(bundled_mcp, meeting, scripted):
    scripted.queue('CALL: fetchCandidatesMCP("retrieval augmented generation")',
                   "CALL: passTurn()")
    ran: list[ToolRan] = []
    meeting.bus.subscribe(lambda e: ran.append(e) if isinstance(e, ToolRan) else None)

    async def go():
        connection = await connected(bundled_mcp.url)
        attach_mcp(meeting, connection)
        await meeting.perform(Action(id="infer"))
        await meeting.perform(Action(id="run_tools"))
        detach_mcp(meeting)
        await connection.disconnect()

    asyncio.run(go())
    state = meeting.state
    assert (state.candidate_source, state.candidate_query) == ("mcp",
                                                               "retrieval augmented generation")
    assert {c.source for c in state.candidates} == {"mcp"}
    assert ran[0].result.message == (f"fetched {len(state.candidates)} candidates for "
                                     '"retrieval augmented generation" from mcp')


def test_a_server_gone_between_calls_fails_the_fetch_and_the_window_says_lost(
    servers, meeting: RoundtableSession, scripted
):
    server = servers.spares.pop()
    scripted.queue('CALL: fetchCandidatesMCP("rag")', "CALL: passTurn()")

    async def go():
        connection = McpConnection()
        await connection.connect(server.url)
        attach_mcp(meeting, connection)
        before = list(meeting.state.candidates)
        server.stop()
        await meeting.perform(Action(id="infer"))
        await meeting.perform(Action(id="run_tools"))
        window = meeting.pending_payloads()[0].document
        await connection.disconnect()
        return before, window

    try:
        before, window = asyncio.run(go())
    finally:
        server.stop()
    refusal = next(line.text for line in meeting.state.transcript
                   if "fetchCandidatesMCP" in line.text)
    assert "the candidate list is unchanged" in refusal
    assert meeting.state.candidates == before
    assert "Status: connection lost: " in window


# -- the command line ---------------------------------------------------------------------


def test_an_offline_cli_meeting_runs_through_the_bundled_mcp_server(bundled_mcp, tmp_path,
                                                                     capsys):
    db = tmp_path / "mcp.sqlite3"
    code = main(["run", "--offline", "--mcp", bundled_mcp.url, "--turns", "12", "--delay", "0",
                 "--db", str(db)])
    out = capsys.readouterr().out
    assert code == 0
    assert f"MCP: connected to {bundled_mcp.url} (2 tools): {', '.join(TOOLS)}." in out
    assert "✓ fetchCandidatesMCP(" in out and "from mcp" in out
    assert "finalizeMeeting(" in out and "Suggestions (final):" in out
    with SessionStore.open(db) as store:
        sid = store.latest_session_id()
        record = store.get_session(sid)
        windows = [c.request["messages"][-1]["content"] for c in store.calls(sid)]
    assert record.status == "ended" and len(record.state["meeting"]["final_ids"]) >= 3
    assert f"Status: connected to {bundled_mcp.url} (2 tools)." in windows[0]
    assert all("Tools: get_video_details, search_videos" in w for w in windows)


def test_a_cli_meeting_whose_mcp_server_is_down_says_so_and_runs_without_it(tmp_path, capsys):
    url = f"http://127.0.0.1:{free_port()}/mcp"
    code = main(["run", "--offline", "--mcp", url, "--turns", "4", "--delay", "0",
                 "--db", str(tmp_path / "s.sqlite3")])
    captured = capsys.readouterr()
    assert code == 0
    assert captured.err.strip() == (f"! Could not connect to MCP: nothing is listening at {url} "
                                    "(is the MCP server running?). The meeting runs without MCP.")
    assert "fetchCandidatesMCP" not in captured.out
