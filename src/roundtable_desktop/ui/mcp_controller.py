"""The window's one MCP bridge connection: connect, disconnect, the bundled server.

`McpController` owns ONE McpConnection and, when the user asks for it, the bundled MCP
server as a child process. Connect, disconnect and starting the server are asyncio
tasks it keeps in its own registry (qasync keeps no strong reference to tasks); only one
runs at a time, and a new one cancels the one before (Disconnect while connecting
cancels the attempt). They are not the SessionRunner's tasks on purpose: a connect must
not grey out the toolbar, and New session must not cancel it. The window awaits
`shutdown()` when it closes, which disconnects and stops the child; deleting the
controller stops the child too (and the child stops by itself when our stdin pipe closes).

While connected (or after the connection was lost) `attachable` is the connection; the
McpToolboxController (mcp_toolbox_controller.py) hands it, with the servers of Settings,
to the live session, so a roundtable's context window shows the status and the tool names.
When nothing listens at the address the bundled server would use, `offer` holds that
URL, so the dock can offer to start the server. The MCP SDK takes a second to import:
it is imported in a worker thread on the first connect, never at start-up.
Must not touch widgets, block the event loop, or reach into protocol internals.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import urllib.parse
from collections.abc import Coroutine, Mapping
from types import ModuleType
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer, Signal

from roundtable_desktop.sources.mcp_address import DEFAULT_HOST, DEFAULT_PORT, endpoint_url
from roundtable_desktop.sources.mcp_model import DEFAULT_MCP_URL, McpError, display_url
from roundtable_desktop.sources.mcp_process import (
    BundledServer,
    McpServerStartError,
    start_bundled_server_async,
    stop_bundled_server_async,
)
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.settings_store import AppSettings
from roundtable_desktop.ui.task_set import TaskSet, cancel_and_wait, task_failure

if TYPE_CHECKING:
    from roundtable_desktop.sources.mcp_client import McpConnection

log = logging.getLogger(__name__)

CHECK_INTERVAL_MS = 5000  # how often an idle connection is pinged, to notice a dead server
_LOOPBACK = {"127.0.0.1", "localhost", "::1"}
NOT_CONNECTED = "not connected"

# What the status dot shows.
OFF, BUSY, ON, FAILED = "off", "busy", "on", "failed"


def status_kind(status: str) -> str:
    """Which dot a status line gets: off, busy, on or failed."""
    if status.startswith("connected"):
        return ON
    if status.startswith(("connecting", "starting", "disconnecting")):
        return BUSY
    if status.startswith(("connection failed", "connection lost", "could not")):
        return FAILED
    return OFF


def is_bundled_address(url: str, port: int) -> bool:
    """Whether `url` is where the bundled server listens: this machine, `port`, /mcp."""
    try:
        parts = urllib.parse.urlsplit(url.strip())
        url_port = parts.port
    except ValueError:
        return False
    return (parts.scheme == "http" and (parts.hostname or "") in _LOOPBACK
            and url_port == port and parts.path.rstrip("/") in ("/mcp", ""))


def _client_module() -> ModuleType:
    """The MCP client module, imported on first use (in a worker thread: about a second)."""
    from roundtable_desktop.sources import mcp_client

    return mcp_client


class _ChildGuard:
    """Holds the bundled server apart from the controller, so it can be stopped from the
    controller's `destroyed` signal without touching the half-deleted controller."""

    def __init__(self) -> None:
        self.server: BundledServer | None = None

    def stop(self, *_: object) -> None:
        server, self.server = self.server, None
        if server is not None:
            server.stop()


class McpController(QObject):
    changed = Signal()  # status, tools, offer, busy or the bundled server changed

    def __init__(
        self, bridge: EngineBridge, *, settings: AppSettings | None = None,
        port: int = DEFAULT_PORT, host: str = DEFAULT_HOST,
        server_env: Mapping[str, str] | None = None,
        check_interval_ms: int = CHECK_INTERVAL_MS, parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._bridge = bridge
        self._settings = settings
        self.port = port  # where the bundled server is started (tests use a free port)
        self.host = host
        self.server_env = server_env  # the child's environment (tests keep keys out)
        self._connection: McpConnection | None = None
        self._status = NOT_CONNECTED
        self._offer = ""
        self._op: asyncio.Task[Any] | None = None
        self._tasks = TaskSet(self._on_task_done)
        self._starting: asyncio.Future[BundledServer] | None = None
        self._guard = _ChildGuard()
        self._closed = False
        self._check_timer = QTimer(self)
        self._check_timer.setInterval(check_interval_ms)
        self._check_timer.timeout.connect(self._on_check_timer_timeout)
        self.destroyed.connect(self._guard.stop)

    # -- what the dock reads ----------------------------------------------------------------
    @property
    def default_url(self) -> str:
        return self._settings.mcp_url if self._settings is not None else DEFAULT_MCP_URL

    @property
    def status(self) -> str:
        return self._status

    @property
    def kind(self) -> str:
        return status_kind(self._status)

    @property
    def connected(self) -> bool:
        return self._connection is not None and self._connection.connected

    @property
    def attachable(self) -> McpConnection | None:
        """The connection a live session should use: connected, or lost (a meeting shows
        the loss); None otherwise."""
        connection = self._connection
        if connection is not None and (connection.connected
                                       or connection.status.startswith("connection lost")):
            return connection
        return None

    @property
    def tool_names(self) -> list[str]:
        return self._connection.tool_names if self._connection is not None else []

    def tool_descriptions(self) -> dict[str, str]:
        """Name -> the server's description (untrusted text, cleaned and clipped)."""
        tools = self._connection.tools if self._connection is not None else []
        return {tool.name: tool.description for tool in tools}

    @property
    def offer(self) -> str:
        """The URL nothing listens at, when starting the bundled server would help; or ""."""
        return self._offer

    @property
    def busy(self) -> bool:
        return self._op is not None and not self._op.done()

    @property
    def server(self) -> BundledServer | None:
        """The bundled server this controller started, if any (running or not)."""
        return self._guard.server

    @property
    def bundled_url(self) -> str:
        return endpoint_url(self.host, self.port)

    @property
    def check_interval_ms(self) -> int:
        """How often a connection that looks idle is pinged to notice a dead server."""
        return self._check_timer.interval()

    @check_interval_ms.setter
    def check_interval_ms(self, interval_ms: int) -> None:
        self._check_timer.setInterval(interval_ms)

    def tasks(self) -> frozenset[asyncio.Task[Any]]:
        return frozenset(self._tasks)

    # -- what the dock asks for ---------------------------------------------------------------
    def connect_to(self, url: str) -> asyncio.Task[Any] | None:
        if self._closed:
            return None
        return self._run(self._connect(url.strip()), "connect MCP")

    def disconnect_mcp(self) -> asyncio.Task[Any] | None:
        """Disconnect, or cancel the attempt in progress."""
        if self._closed:
            return None
        return self._run(self._disconnect(), "disconnect MCP")

    def start_server_and_connect(self) -> asyncio.Task[Any] | None:
        if self._closed:
            return None
        return self._run(self._start_and_connect(), "start the bundled MCP server")

    async def shutdown(self) -> None:
        """Cancel what runs, disconnect, and stop the bundled server (the window's close)."""
        self._closed = True
        self._check_timer.stop()
        await self._cancel_tasks()
        if self._connection is not None:
            try:
                await self._connection.disconnect()
            except Exception:  # closing must never block quitting
                log.warning("closing the MCP connection failed", exc_info=True)
        starting = self._starting
        if starting is not None and not starting.done():
            await asyncio.wait({starting})  # a child that is starting is stopped once up
        server, self._guard.server = self._guard.server, None
        if server is not None:
            await stop_bundled_server_async(server)
        self.changed.emit()

    # -- the work ------------------------------------------------------------------------------
    async def _connect(self, url: str) -> None:
        try:
            connection = await self._ensure_connection()
        except ImportError as error:  # a build that lost the SDK: say so, keep the window
            self._set_status(f"could not load the MCP client ({error.name or error})")
            return
        try:
            await connection.connect(url)  # the status line follows through the listener
        except McpError as error:
            if getattr(error, "nothing_listening", False) and is_bundled_address(url, self.port):
                self._set_offer(display_url(url))
            return
        if self._settings is not None:
            self._settings.mcp_url = url

    async def _disconnect(self) -> None:
        if self._connection is None:
            self._set_status(NOT_CONNECTED)
            return
        self._set_status("disconnecting")
        await self._connection.disconnect()

    async def _start_and_connect(self) -> None:
        running = self._guard.server
        if running is not None and running.running():
            await self._connect(running.url)
            return
        self._guard.stop()  # a child of ours that died: clear it away first
        self._set_status(f"starting the bundled MCP server on port {self.port}")
        starting = asyncio.ensure_future(start_bundled_server_async(
            self.port, host=self.host, env=self.server_env))
        self._starting = starting
        me = asyncio.current_task()
        starting.add_done_callback(lambda done: self._on_server_started(done, me))
        try:
            server = await asyncio.shield(starting)
        except asyncio.CancelledError:
            self._set_status(NOT_CONNECTED)
            raise  # _on_server_started stops the child if it comes up after all
        except (McpServerStartError, OSError) as error:
            why = str(error).removeprefix("The bundled MCP server did not start: ")
            self._set_status(f"could not start the bundled MCP server: {why}")
            return
        await self._connect(server.url)

    def _on_server_started(
        self, starting: asyncio.Future[BundledServer], wanted_by: asyncio.Task[Any] | None
    ) -> None:
        """Keep the child if the task that asked for it still waits for it; stop it if
        that task was cancelled meanwhile or the window is closing."""
        if starting.cancelled() or starting.exception() is not None:
            return
        server = starting.result()
        if self._closed or wanted_by is None or wanted_by.done():
            server.stop()
            return
        self._guard.server = server
        self.changed.emit()

    async def _ensure_connection(self) -> McpConnection:
        if self._connection is None:
            module = await asyncio.to_thread(_client_module)
            connection: McpConnection = module.McpConnection()
            connection.add_listener(self._on_connection_changed)
            self._connection = connection
        return self._connection

    async def _check(self) -> None:
        if self._connection is not None:
            await self._connection.check()

    # -- tasks ---------------------------------------------------------------------------------
    def _run(self, coro: Coroutine[Any, Any, Any], what: str) -> asyncio.Task[Any]:
        """One operation at a time: the new one waits for the one it cancels."""
        previous = self._op
        if previous is not None and not previous.done():
            previous.cancel()
        self._set_offer("")
        task = self._spawn(self._after(previous, coro), what)
        self._op = task
        self.changed.emit()
        return task

    @staticmethod
    async def _after(previous: asyncio.Task[Any] | None, coro: Coroutine[Any, Any, Any]) -> Any:
        if previous is not None:
            await asyncio.wait({previous})
        return await coro

    def _spawn(self, coro: Coroutine[Any, Any, Any], what: str) -> asyncio.Task[Any]:
        return self._tasks.spawn(coro, what)

    def _on_task_done(self, task: asyncio.Task[Any]) -> None:
        if (exc := task_failure(task)) is not None:
            if isinstance(exc, McpError):  # said in the status line already
                log.info("MCP: %s", exc)
            else:
                sys.excepthook(type(exc), exc, exc.__traceback__)
        if task is self._op:
            if task.cancelled() and self._status.startswith(("connecting", "starting")):
                self._set_status(NOT_CONNECTED)
            self.changed.emit()

    async def _cancel_tasks(self) -> None:
        await cancel_and_wait(self._tasks.others())

    # -- slots ---------------------------------------------------------------------------------
    def _on_connection_changed(self) -> None:
        connection = self._connection
        if connection is None:
            return
        if connection.connected:
            self._check_timer.start()
        else:
            self._check_timer.stop()
        if not self._set_status(connection.status):
            self.changed.emit()  # the tools may have changed: the session's hand-off looks

    def _on_check_timer_timeout(self) -> None:
        if self.connected and not self.busy and not any(
                t.get_name() == "check MCP" for t in self._tasks):
            self._spawn(self._check(), "check MCP")

    # -- internals -----------------------------------------------------------------------------
    def _set_status(self, status: str) -> bool:
        """Whether it changed (and `changed` was emitted)."""
        if status != self._status:
            self._status = status
            self.changed.emit()
            return True
        return False

    def _set_offer(self, url: str) -> None:
        if url != self._offer:
            self._offer = url
            self.changed.emit()
