"""The MCP servers of Settings, connected for the window, and the tools the live session gets.

`McpToolboxController` connects the enabled servers of Settings (stdio by command line,
streamable HTTP by URL) into one McpToolbox, in the background: an asyncio task it keeps
in its own registry, never blocking the event loop (the MCP SDK is imported in a worker
thread on first use). Each environment variable's value is read from the keyring
(llm/keys.py, `mcp_env_key`); the settings file holds only the names. A server that
cannot be used is one `notice` (one line per server, for the banner) and the others are
used. `reload()` (after Settings are saved) reconnects only when the servers changed.

It is also the one hand-off of MCP tools to the live session, for every kind alike:
the session's `attach_mcp` gets the window's bridge connection alone (McpController's
`attachable`) when no server of Settings is connected, else one McpToolbox of both (a
toolbox reads like one connection, so a kind written for one connection takes it too).
It re-attaches when the live session or what is connected changes, and detaches on
`shutdown()`, which the window awaits when it closes (the servers are closed, stdio
children stopped). In replay the live session keeps what it has.
Must not touch widgets, hold keys beyond handing them to the servers it starts, or know
any session kind.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Coroutine
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from roundtable_desktop.engine.base import SessionProtocol
from roundtable_desktop.llm.keys import KeyStore, mcp_env_key
from roundtable_desktop.sources.mcp_servers_config import ServerConfig
from roundtable_desktop.sources.mcp_toolbox import McpToolbox
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.mcp_controller import McpController
from roundtable_desktop.ui.settings_store import AppSettings
from roundtable_desktop.ui.task_set import TaskSet, cancel_and_wait, task_failure

log = logging.getLogger(__name__)

FAILED_HINT = "The session goes on without that server's tools; check it in Settings (Ctrl+,)."


def _load_clients() -> None:
    """Import the MCP SDK's clients (about a second: done in a worker thread)."""
    from roundtable_desktop.sources import mcp_client, mcp_stdio  # noqa: F401


class McpToolboxController(QObject):
    changed = Signal()  # the servers' status or tools changed
    notice = Signal(str, str, str)  # level, message, hint: one per server that failed

    def __init__(
        self, bridge: EngineBridge, *, settings: AppSettings, keys: KeyStore,
        mcp: McpController | None = None, parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._bridge, self._settings, self._keys, self._mcp = bridge, settings, keys, mcp
        self._toolbox: McpToolbox | None = None
        self._configs: list[ServerConfig] | None = None  # what is connected (or connecting)
        self._failures: dict[str, str] = {}
        self._lost: set[str] = set()  # servers whose loss was said already
        self._op: asyncio.Task[Any] | None = None
        self._tasks = TaskSet(self._on_task_done)
        self._live: SessionProtocol | None = None
        self._attached: SessionProtocol | None = None
        self._attached_as: tuple[tuple[str, int], ...] = ()
        self._closed = False
        bridge.sessionChanged.connect(self._on_bridge_session_changed)
        if mcp is not None:
            mcp.changed.connect(self._on_mcp_changed)
        self._on_bridge_session_changed()
        QTimer.singleShot(0, self, self.reload)  # once the event loop runs

    # -- what the window reads --------------------------------------------------------------
    @property
    def toolbox(self) -> McpToolbox | None:
        """The servers of Settings connected now (None before the first connect)."""
        return self._toolbox

    @property
    def busy(self) -> bool:
        return self._op is not None and not self._op.done()

    @property
    def tool_names(self) -> list[str]:
        return self._toolbox.tool_names if self._toolbox is not None else []

    def status_lines(self) -> list[str]:
        """One line per enabled server: how it is, or why it cannot be used."""
        servers = self._toolbox.servers if self._toolbox is not None else {}
        lines = [f"{name}: {c.status}" for name, c in servers.items()]
        return lines + list(self._failures.values())

    def tasks(self) -> frozenset[asyncio.Task[Any]]:
        return frozenset(self._tasks)

    def configs(self) -> tuple[list[ServerConfig], list[str]]:
        """The enabled servers of Settings with their environments' values from the
        keyring; and one sentence per server left out or variable with no value."""
        configs: list[ServerConfig] = []
        notes: list[str] = []
        for server in self._settings.mcp_servers:
            if not server.enabled:
                continue
            problem = server.problem()
            if problem is not None:
                notes.append(problem)
                continue
            values: dict[str, str] = {}
            for name in server.env_names:
                value = self._keys.get(mcp_env_key(server.name, name), env=False)
                if value is None:
                    notes.append(f"MCP server {server.name}: no value is stored for {name} "
                                 "(set it in Settings); it starts without it.")
                else:
                    values[name] = value
            configs.append(server.config(values))
        return configs, notes

    # -- what the window asks for -------------------------------------------------------------
    def reload(self) -> asyncio.Task[Any] | None:
        """Connect the servers Settings enable now, unless they are connected already."""
        if self._closed:
            return None
        configs, notes = self.configs()
        if configs == self._configs or (not configs and self._toolbox is None
                                        and not self.busy):
            self._configs = configs
            return None
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            log.warning("MCP servers of Settings not connected: no event loop runs")
            return None
        self._configs = configs
        for note in notes:
            self.notice.emit("warning", note, "")
        previous = self._op
        if previous is not None and not previous.done():
            previous.cancel()
        self._op = self._spawn(self._reconnect(previous, configs), "connect MCP servers")
        self.changed.emit()
        return self._op

    async def shutdown(self) -> None:
        """Cancel what runs, detach the live session, close the servers (window close)."""
        self._closed = True
        await cancel_and_wait(self._tasks.others())
        self._detach()
        toolbox, self._toolbox = self._toolbox, None
        if toolbox is not None:
            toolbox.remove_listener(self._on_server_changed)
            try:
                await toolbox.close()
            except Exception:  # closing must never block quitting
                log.warning("closing the MCP servers of Settings failed", exc_info=True)
        self.changed.emit()

    # -- the work ------------------------------------------------------------------------------
    async def _reconnect(self, previous: asyncio.Task[Any] | None,
                         configs: list[ServerConfig]) -> None:
        if previous is not None:
            await asyncio.wait({previous})
        old, self._toolbox = self._toolbox, None
        self._failures, self._lost = {}, set()
        self._sync_session()
        if old is not None:
            old.remove_listener(self._on_server_changed)
            await old.close()
        self.changed.emit()
        if not configs:
            return
        await asyncio.to_thread(_load_clients)
        toolbox = McpToolbox()
        try:
            await toolbox.connect_all(configs)
        except BaseException:
            await asyncio.shield(toolbox.close())  # cancelled: stop what did start
            raise
        self._toolbox = toolbox
        named = {c.name for c in configs}
        for failure in toolbox.failures:
            server = next((n for n in named if failure.startswith(f"MCP server {n}:")), failure)
            self._failures[server] = failure
            self.notice.emit("warning", failure, FAILED_HINT)
        toolbox.add_listener(self._on_server_changed)
        self._sync_session()
        self.changed.emit()

    def _spawn(self, coro: Coroutine[Any, Any, Any], what: str) -> asyncio.Task[Any]:
        return self._tasks.spawn(coro, what)

    def _on_task_done(self, task: asyncio.Task[Any]) -> None:
        if (exc := task_failure(task)) is not None:
            sys.excepthook(type(exc), exc, exc.__traceback__)
        self.changed.emit()

    # -- the live session -----------------------------------------------------------------------
    def _attachment(self) -> tuple[Any, tuple[tuple[str, int], ...]]:
        """What the live session should use, and what it is made of (to notice a change):
        the bridge connection alone, or a toolbox of the servers and the bridge."""
        bridge = self._mcp.attachable if self._mcp is not None else None
        servers = self._toolbox.servers if self._toolbox is not None else {}
        if not servers:
            return bridge, (("", id(bridge)),) if bridge is not None else ()
        combined = McpToolbox()
        for name, connection in servers.items():
            combined.add(name, connection)
        if bridge is not None:
            combined.add(getattr(bridge, "server_name", "") or "mcp", bridge)
        return combined, tuple((n, id(c)) for n, c in combined.servers.items())

    def _sync_session(self) -> None:
        attachment, parts = self._attachment()
        live = self._live
        if live is self._attached and parts == self._attached_as:
            return
        self._detach()
        if live is not None and attachment is not None and live.attach_mcp(attachment):
            self._attached, self._attached_as = live, parts  # False: a kind with no tools

    def _detach(self) -> None:
        attached, self._attached, self._attached_as = self._attached, None, ()
        if attached is not None:
            attached.detach_mcp()

    def _on_bridge_session_changed(self) -> None:
        if self._bridge.read_only:
            return  # replay: the live session keeps its tools
        handle = self._bridge.handle
        self._live = handle.session if handle is not None else None
        if not self._closed:
            self._sync_session()

    def _on_server_changed(self) -> None:
        """A server's status changed: a server that died is said once (the session goes
        on with the others: its tools are left out while it is down)."""
        servers = self._toolbox.servers if self._toolbox is not None else {}
        for name, connection in servers.items():
            if connection.status.startswith("connection lost") and name not in self._lost:
                self._lost.add(name)
                self.notice.emit("warning", f"MCP server {name}: {connection.status}",
                                 FAILED_HINT)
        self.changed.emit()

    def _on_mcp_changed(self) -> None:
        if not self._closed:
            self._sync_session()
