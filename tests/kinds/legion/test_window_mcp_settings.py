"""MCP servers from Settings in the window: an enabled stdio server (the bundled read-only
file-system server) gives a legion session its namespaced tools, the Minion dock lists
them, and the window stops the server when it closes; a server that cannot start is one
banner line naming it and the session goes on. Offscreen, offline model, real child
processes."""

from __future__ import annotations

import json
import sys

import pytest

from roundtable_desktop.kinds.legion.state import ChannelType
from roundtable_desktop.paths import resources_dir
from roundtable_desktop.sources.mcp_servers_config import McpServerSetting
from roundtable_desktop.ui.settings_store import AppSettings
from roundtable_desktop.ui.window.main_window import MainWindow
from tests.kinds.legion.window_helpers import minion_dock, start_legion, state_of, write

pytestmark = pytest.mark.qt
START_MS = 30_000  # a child process imports the MCP SDK before it answers

FILES = McpServerSetting(name="share", command=sys.executable, args=[
    "-m", "roundtable_desktop.kinds.legion.file_server",
    str(resources_dir() / "legion" / "sample_project")])
DEAD = McpServerSetting(name="broken", command=sys.executable,
                        args=["-c", "raise SystemExit(3)"])


def _tools(window: MainWindow) -> list[str]:
    handle = window.runner.handle
    toolbox = getattr(handle.session, "toolbox", None) if handle is not None else None
    return list(toolbox.tool_names) if toolbox is not None else []


def test_an_enabled_stdio_server_from_settings_gives_the_legion_its_tools(qtbot, make_window):
    AppSettings().set_mcp_servers([FILES])
    window = make_window()
    start_legion(qtbot, window, "newsroom")  # a scenario with no servers of its own

    qtbot.waitUntil(lambda: "share.list_files" in _tools(window), timeout=START_MS)

    assert set(_tools(window)) == {"share.list_files", "share.read_file"}
    qtbot.waitUntil(lambda: "share.list_files" in minion_dock(window).tools.text(),
                    timeout=START_MS)


def test_a_new_live_session_gets_the_tools_again(qtbot, make_window):
    AppSettings().set_mcp_servers([FILES])
    window = make_window()
    start_legion(qtbot, window, "newsroom")
    qtbot.waitUntil(lambda: "share.list_files" in _tools(window), timeout=START_MS)
    first = window.runner.handle.session

    start_legion(qtbot, window, "starship")

    qtbot.waitUntil(lambda: "share.list_files" in _tools(window), timeout=START_MS)
    assert "share.list_files" not in first.toolbox.tool_names


def test_closing_the_window_stops_the_servers_of_settings(qtbot, make_window):
    AppSettings().set_mcp_servers([FILES])
    window = make_window(start=False)
    qtbot.waitUntil(lambda: "share.list_files" in window.mcp_tools.tool_names,
                    timeout=START_MS)
    toolbox = window.mcp_tools.toolbox
    assert toolbox is not None
    share = toolbox.servers["share"]

    window.close()
    qtbot.waitUntil(lambda: not window.isVisible(), timeout=START_MS)

    assert not share.connected and window.mcp_tools.toolbox is None


def test_a_dead_server_is_one_banner_line_and_the_session_goes_on(qtbot, make_window):
    AppSettings().set_mcp_servers([DEAD, FILES])
    window = make_window()
    start_legion(qtbot, window, "newsroom")
    qtbot.waitUntil(lambda: not window.mcp_tools.busy and window.mcp_tools.toolbox
                    is not None, timeout=START_MS)
    state = state_of(window)
    assert state is not None
    channel = next(c.id for c in state.channels if c.type == ChannelType.DM)

    write(qtbot, window, channel, "hello there")

    about_broken = [n for n in window.banner.notices() if "broken" in n.message]
    assert len(about_broken) == 1 and about_broken[0].level == "warning"
    assert about_broken[0].message.startswith("MCP server broken:")
    assert "share.list_files" in _tools(window)
    assert not any(name.startswith("broken.") for name in _tools(window))


def test_a_minion_uses_a_tool_of_a_server_from_settings(qtbot, make_window):
    AppSettings().set_mcp_servers([FILES])
    window = make_window()
    start_legion(qtbot, window, "newsroom")
    qtbot.waitUntil(lambda: "share.list_files" in _tools(window), timeout=START_MS)
    state = state_of(window)
    assert state is not None
    channel = next(c.id for c in state.channels if c.type == ChannelType.DM)

    write(qtbot, window, channel,
          "Can you tell me what files are in the `components` directory?")

    steps = [step for diary in state.diaries for step in diary.tool_steps]
    assert [(s.name, s.ok) for s in steps][:1] == [("share.list_files", True)]
    assert "AnalyticsDashboard.tsx" in state.channel_messages(channel)[-1].text


def test_a_server_saved_in_settings_is_connected_without_a_restart(qtbot, make_window):
    window = make_window()
    start_legion(qtbot, window, "newsroom")
    window.menus.open_settings()
    dialog = window.menus.open_dialogs()[-1]
    config = {"mcpServers": {"share": {"command": FILES.command, "args": FILES.args}}}
    assert dialog.mcp_servers.import_text(json.dumps(config))

    dialog._on_save_clicked()

    qtbot.waitUntil(lambda: "share.list_files" in _tools(window), timeout=START_MS)
