"""The MCP dock: connect to a real bundled server, disconnect, a failure that offers to start
the bundled server, starting it from the dock, and the child stopping with the window;
the live meeting's context window shows the connection. Offscreen, on a running qasync
loop, against real server processes on 127.0.0.1."""

from __future__ import annotations

import socket

import pytest
from lxml import etree
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton

from roundtable_desktop.sources.mcp_process import BundledServer
from roundtable_desktop.ui.kinds.roundtable.mcp_dock import McpDock
from roundtable_desktop.ui.mcp_controller import is_bundled_address
from roundtable_desktop.ui.window.main_window import MainWindow
from tests.fakes.mcp_fixture import bundled_mcp, server_env, start_server  # noqa: F401
from tests.fakes.window_harness import (
    WAIT_MS,
    perform,
    wait_idle,
    wait_view,
)

pytestmark = pytest.mark.qt

START_MS = 30_000  # a child process imports the MCP SDK before it listens


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _dock(window: MainWindow) -> McpDock:
    dock = window.docks["mcpDock"]
    assert isinstance(dock, McpDock)
    dock.show()
    dock.raise_()
    return dock


def _settled(qtbot, window: MainWindow, timeout: int = WAIT_MS) -> None:  # type: ignore[no-untyped-def]
    """Until the controller is idle and the dock has redrawn what it reports."""
    dock = _dock(window)
    qtbot.waitUntil(lambda: not window.mcp.busy
                    and dock.status_text().lower() == window.mcp.status.lower(),
                    timeout=timeout)


def _click(qtbot, button: QPushButton) -> None:  # type: ignore[no-untyped-def]
    """Click once the button is shown, enabled and laid out: a button just shown (the
    offer's) has no size until its layout runs, and a click on it then hits nothing."""
    qtbot.waitUntil(lambda: button.isVisible() and button.isEnabled()
                    and not button.rect().isEmpty(), timeout=WAIT_MS)
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def _connect(qtbot, window: MainWindow, url: str) -> McpDock:  # type: ignore[no-untyped-def]
    dock = _dock(window)
    dock.url_edit.setText(url)
    _click(qtbot, dock.connect_button)
    _settled(qtbot, window)
    return dock


def _mcp_section(document: str) -> str:
    """The text of the payload's MCP section."""
    root = etree.fromstring(document.encode("utf-8"))
    found = root.xpath("//*[local-name()='section'][@id='mcp']")
    assert found, "the payload has no MCP section"
    return " ".join(" ".join(found[0].itertext()).split())


def _pending_mcp(window: MainWindow) -> str:
    return _mcp_section(window.runner.handle.session.pending_payloads()[0].document)


def test_connecting_shows_the_status_the_tools_and_the_next_payload_says_so(
        qtbot, make_window, bundled_mcp: BundledServer):  # noqa: F811
    window = make_window()

    dock = _connect(qtbot, window, bundled_mcp.url)

    assert dock.status_text().startswith(f"Connected to {bundled_mcp.url} (")
    assert dock.status_dot.kind == "on"
    assert "search_videos" in dock.tools_text().splitlines()
    assert dock.disconnect_button.isEnabled()
    wait_view(qtbot, window)
    shown = _mcp_section(window.context_view.document() or "")
    assert shown.startswith(f"MCP Status: connected to {bundled_mcp.url}")
    assert "search_videos" in shown


def test_disconnecting_says_not_connected_in_the_dock_and_the_payload(
        qtbot, make_window, bundled_mcp: BundledServer):  # noqa: F811
    window = make_window()
    dock = _connect(qtbot, window, bundled_mcp.url)

    _click(qtbot, dock.disconnect_button)
    _settled(qtbot, window)

    assert dock.status_text() == "Not connected"
    assert dock.status_dot.kind == "off"
    assert "search_videos" not in dock.tools_text()
    wait_view(qtbot, window)
    assert _pending_mcp(window) == "MCP Status: not connected."
    assert _mcp_section(window.context_view.document() or "") == "MCP Status: not connected."


def test_nothing_listening_at_the_bundled_address_fails_and_offers_to_start_the_server(
        qtbot, make_window):
    window = make_window()
    window.mcp.port = free_port()
    url = f"http://127.0.0.1:{window.mcp.port}/mcp"

    dock = _connect(qtbot, window, url)

    assert dock.status_text().startswith(f"Connection failed: nothing is listening at {url}")
    assert dock.status_dot.kind == "failed"
    assert dock.offer_shown()
    assert f"Nothing is listening at {url}." in dock.offer_label.text()
    assert dock.start_button.isEnabled()
    assert _pending_mcp(window) == "MCP Status: not connected."


def test_a_failure_elsewhere_offers_no_bundled_server(qtbot, make_window):
    window = make_window()
    window.mcp.port = free_port()
    elsewhere = f"http://127.0.0.1:{free_port()}/mcp"

    dock = _connect(qtbot, window, elsewhere)

    assert dock.status_text().startswith("Connection failed: nothing is listening")
    assert not dock.offer_shown()


def test_the_offer_starts_the_bundled_server_and_closing_the_window_stops_it(
        qtbot, make_window):
    window = make_window()
    window.mcp.port = free_port()
    window.mcp.server_env = server_env()
    dock = _connect(qtbot, window, window.mcp.bundled_url)
    assert dock.offer_shown()

    _click(qtbot, dock.start_button)
    assert window.mcp.busy, "the click on the offer's button started nothing"
    _settled(qtbot, window, START_MS)
    server = window.mcp.server
    # The status says why a start failed (a port taken since free_port() chose it, ...).
    assert server is not None and server.running(), window.mcp.status
    assert dock.status_text().startswith(f"Connected to {window.mcp.bundled_url}")
    assert not dock.offer_shown()
    assert str(server.pid) in dock.server_label.text()
    assert "search_videos" in _pending_mcp(window)

    window.close()
    qtbot.waitUntil(lambda: not window.isVisible(), timeout=WAIT_MS)

    assert server.process.poll() is not None


def test_a_server_that_dies_shows_as_lost_in_the_dock_and_the_payload(qtbot, make_window):
    server = start_server()
    try:
        window = make_window()
        window.mcp.check_interval_ms = 100
        dock = _connect(qtbot, window, server.url)
        assert window.mcp.connected

        server.process.kill()
        qtbot.waitUntil(lambda: dock.status_text().startswith("Connection lost"),
                        timeout=WAIT_MS)

        assert dock.status_dot.kind == "failed"
        assert dock.disconnect_button.isEnabled()
        assert _pending_mcp(window).startswith("MCP Status: connection lost")
    finally:
        server.stop()


def test_a_new_session_shows_the_live_connection_and_the_old_one_lets_go(
        qtbot, make_window, bundled_mcp: BundledServer):  # noqa: F811
    window = make_window()
    _connect(qtbot, window, bundled_mcp.url)
    old = window.runner.handle.session

    window.runner.start_new()
    wait_idle(qtbot, window)
    wait_view(qtbot, window)

    assert window.runner.handle.session is not old
    assert _pending_mcp(window).startswith(f"MCP Status: connected to {bundled_mcp.url}")
    assert old.state.mcp_status == "not connected" and old.mcp_search is None


def test_replay_leaves_the_live_connection_and_session_attached(
        qtbot, make_window, bundled_mcp: BundledServer):  # noqa: F811
    window = make_window()
    _connect(qtbot, window, bundled_mcp.url)
    perform(qtbot, window, "infer")
    live = window.runner.handle.session

    window.menus.start_replay(window.runner.handle.session_id)
    assert window.bridge.read_only
    replaying_status = live.state.mcp_status
    window.menus.live_action.trigger()
    wait_view(qtbot, window)

    assert window.mcp.connected
    assert replaying_status.startswith("connected to") and live.mcp_search is not None
    assert _pending_mcp(window).startswith(f"MCP Status: connected to {bundled_mcp.url}")


def test_only_this_machines_port_and_path_count_as_the_bundled_address():
    assert is_bundled_address("http://127.0.0.1:8081/mcp", 8081)
    assert is_bundled_address("http://localhost:8081/mcp/", 8081)
    assert not is_bundled_address("http://127.0.0.1:9000/mcp", 8081)
    assert not is_bundled_address("http://example.com:8081/mcp", 8081)
    assert not is_bundled_address("http://127.0.0.1:8081/other", 8081)
    assert not is_bundled_address("http://127.0.0.1:notaport/mcp", 8081)


def test_a_url_saved_in_settings_shows_in_the_dock(qtbot, make_window):
    window = make_window(start=False)
    dock = _dock(window)
    window.menus.open_settings()
    dialog = window.menus.open_dialogs()[-1]
    dialog.mcp_url_edit.setText("http://127.0.0.1:9123/mcp")
    dialog._on_save_clicked()
    qtbot.waitUntil(lambda: dock.url_edit.text() == "http://127.0.0.1:9123/mcp", timeout=WAIT_MS)
