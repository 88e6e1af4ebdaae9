"""Legion tools over real MCP servers: the bundled read-only file-system server over
stdio, the mcpServers configuration, a server killed mid-call, a tool that times out."""

from __future__ import annotations

import asyncio
import sys

import pytest

from roundtable_desktop.engine.base import SEND, Action
from roundtable_desktop.kinds.legion.scenario import load_scenario
from roundtable_desktop.paths import resources_dir
from roundtable_desktop.sources.mcp_client import McpConnection
from roundtable_desktop.sources.mcp_process import app_command
from roundtable_desktop.sources.mcp_servers_config import (
    HttpServerConfig,
    McpConfigError,
    StdioServerConfig,
    parse_servers,
)
from roundtable_desktop.sources.mcp_toolbox import McpToolbox
from tests.fakes.mcp_fixture import start_server
from tests.fakes.scripted_model import ScriptedClient
from tests.fakes.slow_mcp_file_server import slow_file_server
from tests.kinds.legion.conftest import plan, session_for

SAMPLE = str(resources_dir() / "legion" / "sample_project")


def file_server(name: str = "file_system", **env: str) -> dict:
    return {name: {"command": sys.executable,
                   "args": ["-m", "roundtable_desktop.kinds.legion.file_server", SAMPLE],
                   "env": env}}


def test_mcp_servers_json_reads_stdio_and_http_entries_with_placeholders():
    servers = parse_servers({"mcpServers": {
        "files": {"command": "{python}", "args": ["-m", "x", "{resources}/a"],
                  "env": {"A": "1"}},
        "web": {"url": "http://127.0.0.1:9/mcp"}}},
        placeholders={"python": "/usr/bin/python3", "resources": "/r"})
    stdio, http = servers
    assert isinstance(stdio, StdioServerConfig) and isinstance(http, HttpServerConfig)
    assert (stdio.command, stdio.args, stdio.env) == ("/usr/bin/python3", ["-m", "x", "/r/a"],
                                                      {"A": "1"})
    assert http.url == "http://127.0.0.1:9/mcp"


def test_a_server_whose_command_is_app_runs_this_apps_own_command_line():
    (stdio,) = parse_servers(
        {"files": {"command": "{app}", "args": ["serve-files", "{resources}/a"]}},
        placeholders={"resources": "/r"}, app_command=["/opt/roundtable/roundtable"])
    assert (stdio.command, stdio.args) == ("/opt/roundtable/roundtable", ["serve-files", "/r/a"])


def test_in_a_source_install_the_app_command_is_this_python_with_dash_m():
    assert app_command("serve-files", "x") == [sys.executable, "-m", "roundtable_desktop",
                                               "serve-files", "x"]


def test_the_bundled_scenario_starts_its_file_server_through_the_app_command():
    servers = load_scenario("default").mcpServers["file_system"]
    assert servers["command"] == "{app}" and servers["args"][0] == "serve-files"


@pytest.mark.parametrize(("data", "named"), [
    ({"mcpServers": {"bad name": {"url": "http://x"}}}, "bad name"),
    ({"mcpServers": {"files": {"args": []}}}, "files"),
    ({"mcpServers": {"files": {"command": "x", "args": "not-a-list"}}}, "files.args"),
])
def test_a_bad_mcp_servers_entry_is_refused_naming_it(data, named):
    with pytest.raises(McpConfigError, match=named):
        parse_servers(data)


def test_the_bundled_file_server_lists_and_refuses_paths_outside_its_folder():
    async def run():
        toolbox = McpToolbox()
        try:
            assert await toolbox.connect_all(parse_servers(file_server())) == ["file_system"]
            specs = {s["name"]: s for s in toolbox.tool_specs()}
            listed = await toolbox.call_text("file_system.list_files", {"path": "components/"})
            with pytest.raises(Exception, match="outside the shared folder"):
                await toolbox.call_text("file_system.read_file", {"path": "../default.json"})
            return specs, listed
        finally:
            await toolbox.close()

    specs, listed = asyncio.run(run())
    assert specs["file_system.list_files"]["inputSchema"]["properties"]["path"]["type"] == \
        "string"
    assert "file_system.read_file" in specs
    assert "AnalyticsDashboard.tsx" in listed and "ApiKeyManager.tsx" in listed


def test_a_stdio_tool_that_times_out_is_an_error_line():
    tool = {"name": "file_system.list_files", "arguments": {"path": "components/"}}
    client = ScriptedClient(plan("USE_TOOL", 60, tool=tool), plan("SPEAK", 60), "Too slow.")

    async def run():
        session = session_for(client)
        session.tool_timeout_s = 1.0
        toolbox = McpToolbox()
        await toolbox.connect_all(parse_servers(slow_file_server(SAMPLE, 30)))
        session.attach_mcp(toolbox)
        try:
            assert await session.perform(Action(id=SEND, text="list components"))
        finally:
            await toolbox.close()
        return session

    session = asyncio.run(run())
    assert "[TOOL OUTPUT] Error: " in client.requests[1].user_text()
    assert session.state.messages[-1].text == "Too slow."


def test_an_mcp_server_killed_mid_call_is_an_error_line_and_the_turn_ends():
    tool = {"name": "roundtable-youtube.search_videos", "arguments": {"query": "rag"}}
    client = ScriptedClient(plan("USE_TOOL", 60, tool=tool), plan("SPEAK", 60),
                            "The server went away.")
    server = start_server(30.0)

    async def run():
        connection = McpConnection()
        await connection.connect(server.url)
        session = session_for(client)
        session.attach_mcp(connection)
        task = asyncio.ensure_future(session.perform(Action(id=SEND, text="search rag")))
        for _ in range(400):  # until the server is inside the slow tool
            if "test delay" in server.log_text():
                break
            await asyncio.sleep(0.025)
        server.process.kill()
        try:
            return session, await asyncio.wait_for(task, 30)
        finally:
            await connection.disconnect()

    try:
        session, ok = asyncio.run(run())
    finally:
        server.stop()
    assert ok
    assert "[TOOL OUTPUT] Error: The MCP" in client.requests[1].user_text()
    assert session.state.diaries[-1].tool_steps[0].ok is False
    assert session.state.messages[-1].text == "The server went away."


def test_offline_the_default_scenario_answers_the_file_question_with_its_own_server():
    from roundtable_desktop.engine.bus import EventBus
    from roundtable_desktop.kinds.legion.scenario import new_state
    from roundtable_desktop.kinds.legion.session import LegionSession
    from roundtable_desktop.llm.offline import OfflineClient

    async def run():
        session = LegionSession(new_state("default"), client=OfflineClient(delay_s=0),
                                bus=EventBus())
        try:
            for line in ("hi", "ur amazing ily",
                         "Can you tell me what files are in the `components` directory?"):
                assert await session.perform(Action(id=SEND, text=line))
        finally:
            await session.aclose()
        return session

    session = asyncio.run(run())
    state = session.state
    reply = state.messages[-1]
    assert reply.speaker == "Alpha"
    assert state.diaries[reply.diary].tool_steps[0].name == "file_system.list_files"
    for name in ("AnalyticsDashboard.tsx", "ApiKeyManager.tsx", "AutoChatControls.tsx"):
        assert name in reply.text
    path = state.trajectory("Alpha", "Rowan")
    assert path == sorted(path) and path[-1] > path[0]


def _stdio_children(marker: str) -> list[int]:
    """Our child processes whose command line holds `marker` (Linux /proc)."""
    import os
    from pathlib import Path

    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            stat = (proc / "stat").read_text().rsplit(")", 1)[1].split()
            cmdline = (proc / "cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        if int(stat[1]) == os.getpid() and marker in cmdline:
            found.append(int(proc.name))
    return found


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_stdio_server_killed_mid_call_is_an_error_line_and_the_turn_ends():
    import os
    import signal

    tool = {"name": "file_system.list_files", "arguments": {"path": "components/"}}
    client = ScriptedClient(plan("USE_TOOL", 60, tool=tool), plan("SPEAK", 60), "It died.")

    async def run():
        session = session_for(client)
        toolbox = McpToolbox()
        await toolbox.connect_all(parse_servers(slow_file_server(SAMPLE, 30)))
        session.attach_mcp(toolbox)
        [pid] = _stdio_children("slow_mcp_file_server")
        task = asyncio.ensure_future(session.perform(Action(id=SEND, text="list components")))
        for _ in range(200):  # until the tool call is on its way
            if session.thinking and len(client.requests) == 1:
                break
            await asyncio.sleep(0.025)
        await asyncio.sleep(0.3)
        os.kill(pid, signal.SIGKILL)
        try:
            return session, await asyncio.wait_for(task, 30)
        finally:
            await toolbox.close()

    session, ok = asyncio.run(run())
    assert ok
    assert "[TOOL OUTPUT] Error: The MCP" in client.requests[1].user_text()
    assert session.state.messages[-1].text == "It died."
    assert _stdio_children("mcp_file_server") == []
