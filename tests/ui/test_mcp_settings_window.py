"""The hand-off of the servers of Settings is kind-neutral: a roundtable (whose `attach_mcp`
takes one connection) gets them as one toolbox, and its context window's MCP section
shows them, namespaced. Offscreen, offline model, a real child process."""

from __future__ import annotations

import sys

import pytest

from roundtable_desktop.paths import resources_dir
from roundtable_desktop.sources.mcp_servers_config import McpServerSetting
from roundtable_desktop.ui.settings_store import AppSettings

pytestmark = pytest.mark.qt
START_MS = 30_000

FILES = McpServerSetting(name="share", command=sys.executable, args=[
    "-m", "roundtable_desktop.kinds.legion.file_server",
    str(resources_dir() / "legion" / "sample_project")])


def test_a_roundtable_shows_the_servers_of_settings_in_its_mcp_section(qtbot, make_window):
    AppSettings().set_mcp_servers([FILES])
    window = make_window()

    state = window.runner.handle.session.state
    qtbot.waitUntil(lambda: "share.list_files" in state.mcp_tools, timeout=START_MS)

    assert state.mcp_status.startswith("share: connected")
    assert "share.list_files" in window.runner.handle.session.pending_payloads()[0].document
