"""A generic MCP client connection over streamable HTTP: connect, list tools, call any
tool with a timeout, disconnect, and a status line a person can read.

One owner task per connection opens the HTTP client, the transport and the
ClientSession, and later closes them, all in that same task (anyio raises cancel-scope
errors otherwise). Calls run in the caller's task against the open session and race the
owner: if the connection dies mid-call the call fails at once with McpConnectionLost,
and every call has a deadline, because a call to a server that died can wait forever.
Tool descriptions, tool results and server error texts are untrusted: they are cleaned
and clipped (of a result, at most `kept_chars` characters are kept, with the whole
answer's size and hash: sources/tool_results.py), and the URL shown in messages has no
user, password or query. Arguments are scrubbed of known keys before they are sent.
Must not know about videos or meetings (see mcp_search.py and kinds/roundtable/mcp.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import urllib.parse
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.types import (
    CONNECTION_CLOSED,
    REQUEST_TIMEOUT,
    Implementation,
    PaginatedRequestParams,
)

from roundtable_desktop import __version__
from roundtable_desktop.domain.secrets import scrub_value
from roundtable_desktop.sources.mcp_model import (
    DEFAULT_CALL_TIMEOUT_S,
    DEFAULT_CONNECT_TIMEOUT_S,
    DEFAULT_MCP_URL,
    McpConnectError,
    McpConnectionLost,
    McpError,
    McpNotConnected,
    McpTimeout,
    McpToolError,
    ToolInfo,
    ToolOutput,
    display_url,
)
from roundtable_desktop.sources.outside_text import clean
from roundtable_desktop.sources.tool_results import DEFAULT_KEPT_CHARS, kept_output

__all__ = [
    "DEFAULT_CALL_TIMEOUT_S", "DEFAULT_CONNECT_TIMEOUT_S", "DEFAULT_MCP_URL", "McpConnectError",
    "McpConnection",
    "McpConnectionLost", "McpError", "McpNotConnected", "McpTimeout", "McpToolError",
    "ToolInfo", "ToolOutput", "display_url",
]
_GRACE_S = 1.0  # our own deadline, just after the SDK's, in case its timer never fires
_PING_TIMEOUT_S = 3.0
_CLOSE_TIMEOUT_S = 5.0
_MAX_TOOL_PAGES = 10
_TOOL_NAME = re.compile(r"[A-Za-z0-9_./-]{1,128}")
_LOOPBACK = {"127.0.0.1", "localhost", "::1"}
_HTTP_STAND_INS = {"Not Found", "Server returned an error response"}
# What a broken transport raises into a call (other exceptions are a bad answer).
_TRANSPORT_ERRORS = (httpx2.HTTPError, anyio.ClosedResourceError, anyio.BrokenResourceError,
                     anyio.EndOfStream, OSError)

# The SDK warns on stderr when it cannot end a session on a server that has died; we
# report that through `status`, so the warning would only be noise in the CLI.
logging.getLogger("mcp.client.streamable_http").setLevel(logging.ERROR)


def _check_url(url: str) -> str:
    parts = urllib.parse.urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise McpConnectError(f"the URL must start with http:// or https:// and name a host "
                              f"(got {clean(url, 80)!r})")
    return url.strip()


class McpConnection:
    """One connection to one MCP server at a time; reusable after `disconnect`."""

    def __init__(self, *, client_name: str = "roundtable-desktop",
                 kept_chars: int = DEFAULT_KEPT_CHARS) -> None:
        self._client_name = client_name
        self.kept_chars = kept_chars  # at most this much of a tool's answer is kept
        self._url = ""
        self._status = "not connected"
        self._tools: list[ToolInfo] = []
        self._session: ClientSession | None = None
        self._owner: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._lock = asyncio.Lock()
        self._listeners: list[Callable[[], None]] = []
        self.server_name = ""  # what the server calls itself (its initialize answer)

    # -- what the window and the meeting read --------------------------------------------
    @property
    def status(self) -> str:
        return self._status

    @property
    def url(self) -> str:
        """The URL as shown (no credentials), or "" when never connected."""
        return self._url

    @property
    def connected(self) -> bool:
        return self._session is not None

    @property
    def tools(self) -> list[ToolInfo]:
        return [t.model_copy() for t in self._tools] if self.connected else []

    @property
    def tool_names(self) -> list[str]:
        return [t.name for t in self.tools]

    def has_tool(self, name: str) -> bool:
        return name in self.tool_names

    def add_listener(self, listener: Callable[[], None]) -> None:
        """`listener()` runs after every status change (connected, lost, disconnected)."""
        self._listeners.append(listener)

    def remove_listener(self, listener: Callable[[], None]) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    # -- connect and disconnect -----------------------------------------------------------
    async def connect(self, url: str, timeout: float = DEFAULT_CONNECT_TIMEOUT_S) -> None:
        """Connect and list the tools; McpConnectError with a clear message otherwise.
        A `disconnect()` meanwhile waits for this attempt to end (at most `timeout`);
        cancelling the task that awaits this closes the attempt cleanly."""
        async with self._lock:
            await self._close_owner()
            try:
                target = self._check_target(url)
            except McpConnectError as error:
                self._url, self._tools = "", []
                self._set_status(f"connection failed: {error.reason}")
                raise
            shown = self._display(target)
            self._url, self._tools = shown, []
            self._set_status(f"connecting to {shown}")
            ready: asyncio.Future[list[ToolInfo]] = asyncio.get_running_loop().create_future()
            self._stop = asyncio.Event()
            self._owner = asyncio.create_task(self._own(target, shown, ready, timeout),
                                              name=f"mcp connection {shown}")
            try:
                tools = await asyncio.wait_for(asyncio.shield(ready), timeout)
            except TimeoutError:
                await self._close_owner(cancel=True)
                if ready.done() and not ready.cancelled():
                    ready.exception()  # raced with a failure: mark it retrieved
                silent = McpConnectError(f"no MCP answer from {shown} within {timeout:g} s",
                                         "check that the server is running and the URL")
                self._set_status(f"connection failed: {silent.reason}")
                raise silent from None
            except McpConnectError as error:
                await self._close_owner()
                self._set_status(f"connection failed: {error.reason}")
                raise
            except asyncio.CancelledError:
                await self._close_owner(cancel=True)
                self._set_status("not connected")
                raise
            self._tools = tools
            count = f"{len(tools)} tool{'' if len(tools) == 1 else 's'}"
            self._set_status(f"connected to {shown} ({count})")

    async def disconnect(self) -> None:
        async with self._lock:
            await self._close_owner()
            self._tools = []
            self._set_status("not connected")

    async def _own(
        self, url: str, shown: str, ready: asyncio.Future[list[ToolInfo]], timeout: float
    ) -> None:
        """The owner task: opens everything, waits for `_stop`, closes everything."""
        failure: Exception | None = None
        try:
            async with self._transport(url, timeout) as (read, write), \
                    ClientSession(read, write, client_info=Implementation(
                        name=self._client_name, version=__version__)) as session:
                started = await session.initialize()
                self.server_name = clean(started.server_info.name, 64)
                tools = await _list_tools(session)
                self._session = session
                ready.set_result(tools)
                await self._stop.wait()
        except Exception as exc:  # ExceptionGroup from the SDK's task groups included
            failure = exc
        finally:
            self._session = None
            if not ready.done():
                if failure is None:
                    ready.cancel()
                else:
                    ready.set_exception(McpConnectError(
                        _connect_reason(shown, failure),
                        nothing_listening=_nothing_listening(failure),
                    ))
            elif failure is not None and not self._stop.is_set():
                self._lose(_lost_reason(failure), asyncio.current_task())

    @contextlib.asynccontextmanager
    async def _transport(self, url: str, timeout: float) -> AsyncIterator[tuple[Any, Any]]:
        """The streams to the server; a subclass connects another way (mcp_stdio.py)."""
        host = urllib.parse.urlsplit(url).hostname or ""
        # A proxy from the environment must not swallow requests to this machine.
        async with httpx2.AsyncClient(timeout=httpx2.Timeout(timeout, read=300.0),
                                      trust_env=host not in _LOOPBACK) as http, \
                streamable_http_client(url, http_client=http) as (read, write):
            yield read, write

    def _display(self, target: str) -> str:
        """The target as messages and the status show it (no credentials)."""
        return display_url(target)

    def _check_target(self, target: str) -> str:
        """The target as connect() uses it; McpConnectError if it cannot be one."""
        return _check_url(target)

    async def _close_owner(self, *, cancel: bool = False) -> None:
        """Let the owner task close its session (or cancel it while it is still opening)."""
        owner, self._owner = self._owner, None
        self._session = None
        self._stop.set()
        if owner is None or owner.done():
            return
        if not cancel:
            await asyncio.wait({owner}, timeout=_CLOSE_TIMEOUT_S)
        if not owner.done():  # stuck closing (a server that stopped mid-response)
            owner.cancel()
            await asyncio.wait({owner})

    def _lose(self, reason: str, owner: asyncio.Task[None] | None) -> None:
        """Mark the connection of `owner` lost, unless it was closed or replaced meanwhile."""
        if owner is None or owner is not self._owner or self._status.startswith("connection lost"):
            return
        self._session = None
        self._stop.set()  # the owner task closes the session in its own task
        self._set_status(f"connection lost: {reason}")

    def _set_status(self, status: str) -> None:
        self._status = status
        for listener in list(self._listeners):
            try:
                listener()
            except Exception:  # a broken listener must not break the connection
                logging.getLogger(__name__).exception("MCP status listener failed")

    # -- calls ----------------------------------------------------------------------------
    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        timeout: float = DEFAULT_CALL_TIMEOUT_S,
    ) -> ToolOutput:
        """Call tool `name`; McpError subclasses say what went wrong, never a hang."""
        session, owner = self._session, self._owner
        if session is None or owner is None:
            raise McpNotConnected(f"MCP is not connected ({self._status}); connect first.")
        shown = clean(name, 60)
        # Arguments a model wrote go to a third party: no known key, in disguise or not.
        call = asyncio.ensure_future(session.call_tool(
            name, scrub_value(arguments or {}), read_timeout_seconds=timeout))
        try:
            done, _ = await asyncio.wait({call, owner}, timeout=timeout + _GRACE_S,
                                         return_when=asyncio.FIRST_COMPLETED)
        finally:
            if not call.done():
                call.cancel()
                await asyncio.wait({call})
        if call not in done or call.cancelled():
            if owner in done:
                raise McpConnectionLost(f"The MCP connection was lost during {shown} "
                                        f"({self._status}).")
            raise await self._timed_out(session, owner, shown, timeout)
        try:
            result = call.result()
        except MCPError as error:
            if error.code == REQUEST_TIMEOUT:
                raise await self._timed_out(session, owner, shown, timeout) from None
            if error.code == CONNECTION_CLOSED:
                self._lose(f"the server closed the connection during {shown}", owner)
                raise McpConnectionLost(f"The MCP server closed the connection during {shown}; "
                                        "reconnect when it is back.") from None
            raise McpError(f"The MCP server refused {shown}: "
                           f"{clean(error.message, 200)}.") from None
        except _TRANSPORT_ERRORS as error:
            self._lose(f"{type(error).__name__} during {shown}", owner)
            raise McpConnectionLost(f"The MCP connection failed during {shown} "
                                    f"({type(error).__name__}); reconnect.") from None
        except Exception as error:  # an answer the SDK could not validate, and the like
            raise McpError(f"The MCP server's answer to {shown} could not be read "
                           f"({type(error).__name__}).") from None
        # Kept bounded at once (size and hash of the whole), and nothing else of the
        # answer held on to.
        output = kept_output((str(getattr(block, "text", "")) for block in result.content
                              if getattr(block, "type", "") == "text"),
                             result.structured_content, max_chars=self.kept_chars)
        failed = result.is_error
        del result, call  # the whole answer, whatever its size, is not held on to
        if failed:
            detail = " ".join(output.texts)
            # The SDK prefixes a tool's own error text with this; the message names the tool.
            detail = detail.removeprefix(f"Error executing tool {name}: ")
            detail = clean(detail, 300) or "no details"
            raise McpToolError(f"The MCP tool {shown} failed: {detail}")
        return output

    async def check(self, timeout: float = _PING_TIMEOUT_S) -> bool:
        """Ping the server; a server that died while idle is only noticed this way or by
        the next call. Marks the connection lost (listeners hear it) and returns False."""
        session, owner = self._session, self._owner
        if session is None:
            return False
        try:
            await asyncio.wait_for(session.send_ping(), timeout)
        except Exception:
            self._lose("the server stopped answering", owner)
            return False
        return True

    async def _timed_out(
        self, session: ClientSession, owner: asyncio.Task[None], shown: str, timeout: float
    ) -> McpError:
        """A timeout, or a lost connection if the server no longer answers a ping."""
        try:
            await asyncio.wait_for(session.send_ping(), _PING_TIMEOUT_S)
        except Exception:
            self._lose(f"the server stopped answering during {shown}", owner)
            return McpConnectionLost(f"The MCP server stopped answering during {shown}; "
                                     "reconnect when it is back.")
        return McpTimeout(f"The MCP tool {shown} did not answer within {timeout:g} s; try "
                          "again or raise the timeout.")


async def _list_tools(session: ClientSession) -> list[ToolInfo]:
    tools: list[ToolInfo] = []
    cursor: str | None = None
    for _ in range(_MAX_TOOL_PAGES):
        params = PaginatedRequestParams(cursor=cursor) if cursor else None
        listed = await session.list_tools(params=params)
        for tool in listed.tools:
            if _TOOL_NAME.fullmatch(tool.name or "") and tool.name not in [t.name for t in tools]:
                tools.append(ToolInfo(name=tool.name,
                                      description=clean(tool.description or "", 500),
                                      input_schema=_clean_schema(tool.input_schema)))
        cursor = getattr(listed, "next_cursor", None)
        if not cursor:
            break
    return sorted(tools, key=lambda t: t.name)


def _clean_schema(schema: Any, depth: int = 0) -> Any:
    """A tool's input schema with every string cleaned and bounded, nested at most 8
    deep and 64 keys wide: the server's text, shown to a model as JSON."""
    if depth > 8:
        return {}
    if isinstance(schema, dict):
        return {clean(str(k), 64): _clean_schema(v, depth + 1)
                for k, v in list(schema.items())[:64]}
    if isinstance(schema, list):
        return [_clean_schema(v, depth + 1) for v in schema[:64]]
    if isinstance(schema, str):
        return clean(schema, 300)
    return schema if isinstance(schema, int | float | bool) or schema is None else {}


def _leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]
    return [exc]


def _nothing_listening(failure: Exception) -> bool:
    return any(isinstance(leaf, httpx2.ConnectError) for leaf in _leaves(failure))


def _connect_reason(shown: str, failure: Exception) -> str:
    for leaf in _leaves(failure):
        if isinstance(leaf, httpx2.ConnectTimeout | httpx2.PoolTimeout):
            return f"no answer from {shown} in time"
        if isinstance(leaf, httpx2.ConnectError):
            return f"nothing is listening at {shown} (is the MCP server running?)"
        if isinstance(leaf, httpx2.HTTPStatusError):
            return (f"{shown} answered HTTP {leaf.response.status_code}: not an MCP endpoint "
                    "(the bundled server serves /mcp)")
        if isinstance(leaf, httpx2.TimeoutException):
            return f"no answer from {shown} in time"
        if isinstance(leaf, MCPError) and leaf.message in _HTTP_STAND_INS:
            # The SDK's stand-in for an HTTP error status: a web server, not MCP.
            return (f"{shown} is not an MCP endpoint (it answered {leaf.message!r}); check the "
                    "URL (the bundled server serves /mcp)")
        if isinstance(leaf, MCPError):
            return f"{shown} refused the MCP handshake ({clean(leaf.message, 120)})"
    kinds = ", ".join(sorted({type(leaf).__name__ for leaf in _leaves(failure)}))
    return f"{shown} did not answer as an MCP server ({kinds})"


def _lost_reason(failure: Exception) -> str:
    kinds = ", ".join(sorted({type(leaf).__name__ for leaf in _leaves(failure)}))
    return f"the transport failed ({kinds})"
