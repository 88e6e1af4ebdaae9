"""Show an MCP connection in a roundtable meeting, and let fetchCandidatesMCP use it.

`attach_mcp` mirrors the connection into the meeting state (`mcp_status`, `mcp_tools`:
the context window's MCP section) and sets `session.mcp_search` when the server offers
`search_videos`; it keeps mirroring on every later change (a lost connection shows up
in the next payload) and emits StateChanged(part="mcp") whenever what the window shows
changes. `detach_mcp` undoes it. Must not open or close connections (the caller owns
the connection) and must not import Qt.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol
from weakref import WeakKeyDictionary

from roundtable_desktop.domain.events import StateChanged
from roundtable_desktop.kinds.roundtable.sources.mcp_search import SEARCH_TOOL, mcp_search_for

if TYPE_CHECKING:
    from roundtable_desktop.kinds.roundtable.session import RoundtableSession
    from roundtable_desktop.sources.mcp_model import ToolOutput

NOT_CONNECTED = "not connected"


class Connection(Protocol):
    """What this module needs of an McpConnection (sources/mcp_client.py); naming the
    protocol instead of the class keeps the MCP SDK out of this import."""

    @property
    def status(self) -> str: ...
    @property
    def connected(self) -> bool: ...
    @property
    def tool_names(self) -> list[str]: ...
    def has_tool(self, name: str) -> bool: ...
    def add_listener(self, listener: Callable[[], None]) -> None: ...
    def remove_listener(self, listener: Callable[[], None]) -> None: ...
    async def call_tool(
        self, name: str, arguments: dict[str, Any] | None = None, timeout: float = ...
    ) -> ToolOutput: ...

_attached: WeakKeyDictionary[RoundtableSession, tuple[Connection, Callable[[], None]]] = (
    WeakKeyDictionary()
)


def attach_mcp(session: RoundtableSession, connection: Connection) -> None:
    """Mirror `connection` into `session` now and after every status change."""
    detach_mcp(session)

    def mirror() -> None:
        _show(session, connection)

    connection.add_listener(mirror)
    _attached[session] = (connection, mirror)
    mirror()


def detach_mcp(session: RoundtableSession) -> None:
    """Stop mirroring; the meeting shows "not connected" and fetchCandidatesMCP refuses."""
    attached = _attached.pop(session, None)
    if attached is not None:
        connection, mirror = attached
        connection.remove_listener(mirror)
    session.mcp_search = None
    _set(session, NOT_CONNECTED, [])


def _show(session: RoundtableSession, connection: Connection) -> None:
    usable = connection.connected and connection.has_tool(SEARCH_TOOL)
    session.mcp_search = mcp_search_for(connection) if usable else None
    _set(session, connection.status, connection.tool_names)


def _set(session: RoundtableSession, status: str, tools: list[str]) -> None:
    state = session.state
    if (state.mcp_status, state.mcp_tools) == (status, tools):
        return
    state.mcp_status, state.mcp_tools = status, list(tools)
    session.emit(StateChanged(part="mcp", detail=status))
