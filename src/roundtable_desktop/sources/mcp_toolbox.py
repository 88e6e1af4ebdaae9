"""Several MCP servers at once, their tools namespaced `server.tool`.

`McpToolbox.connect_all(configs)` starts or connects every configured server (stdio by
command line, streamable HTTP by URL) concurrently; a server that fails is reported and
left out, the rest are used. A server given by URL alone takes the name it gives itself.
`tool_specs()` lists every tool as a model sees it (namespaced name, description, input
schema); `call_text()` runs one by its namespaced name (or a bare name that only one
server has) and returns its output as text, raising McpError (never hanging: every call
has a deadline); `call_kept()` also gives the whole answer's size and hash. At most
`kept_chars` characters of an answer are kept (sources/tool_results.py). The toolbox
also reads like one connection (status, tool_names, has_tool, call_tool, listeners), so a
kind written for one connection can take it.
Everything a server says is untrusted text: cleaned by the client before it gets here.
Must not import the MCP SDK at module level (loaded only when connecting) and must not
know any session kind.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from roundtable_desktop.sources.mcp_model import (
    DEFAULT_CALL_TIMEOUT_S,
    DEFAULT_CONNECT_TIMEOUT_S,
    McpError,
    McpNotConnected,
    ToolInfo,
    ToolOutput,
    ToolText,
)
from roundtable_desktop.sources.mcp_servers_config import HttpServerConfig, ServerConfig
from roundtable_desktop.sources.tool_results import DEFAULT_KEPT_CHARS, tool_text, whole_text

if TYPE_CHECKING:
    from roundtable_desktop.sources.mcp_client import McpConnection

_SAFE_NAME = re.compile(r"[^A-Za-z0-9_-]+")


class Connection(Protocol):
    """What the toolbox needs of one connection (McpConnection and its stdio variant)."""

    @property
    def status(self) -> str: ...
    @property
    def connected(self) -> bool: ...
    @property
    def tools(self) -> list[ToolInfo]: ...
    def add_listener(self, listener: Callable[[], None]) -> None: ...
    def remove_listener(self, listener: Callable[[], None]) -> None: ...
    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None,
                        timeout: float = ...) -> ToolOutput: ...
    async def disconnect(self) -> None: ...


def output_text(output: ToolOutput) -> str:
    """A tool's answer as one text: its structured content as JSON (a lone `result` is
    unwrapped, as the SDK wraps plain return values), else its text blocks."""
    return whole_text(output)


class McpToolbox:
    """Named connections; owns (and closes) the ones it connected itself."""

    def __init__(self, *, kept_chars: int = DEFAULT_KEPT_CHARS) -> None:
        self._servers: dict[str, Connection] = {}
        self._owned: set[str] = set()
        self.failures: list[str] = []  # one sentence per server that could not be used
        # How much of a tool's answer is kept (each connection it starts keeps as much).
        self.kept_chars = kept_chars

    # -- adding servers -----------------------------------------------------------------
    def add(self, name: str, connection: Connection, *, owned: bool = False) -> str:
        """Use `connection` under `name` (made unique); returns the name used."""
        base = _SAFE_NAME.sub("_", name).strip("_")[:40] or "mcp"
        unique, n = base, 1
        while unique in self._servers:
            n += 1
            unique = f"{base}{n}"
        self._servers[unique] = connection
        if owned:
            self._owned.add(unique)
        return unique

    async def connect_all(self, configs: Sequence[ServerConfig],
                          timeout: float = DEFAULT_CONNECT_TIMEOUT_S) -> list[str]:
        """Connect every server at once; returns the names in use. Failures are kept in
        `failures` (and the server left out)."""
        results = await asyncio.gather(*(self._connect(c, timeout) for c in configs))
        return [name for name in results if name is not None]

    async def _connect(self, config: ServerConfig, timeout: float) -> str | None:
        from roundtable_desktop.sources.mcp_client import McpConnection
        from roundtable_desktop.sources.mcp_stdio import McpStdioConnection

        connection: McpConnection
        try:
            if isinstance(config, HttpServerConfig):
                connection = McpConnection(kept_chars=self.kept_chars)
                await connection.connect(config.url, timeout)
                name = connection.server_name if config.name.startswith("mcp") and \
                    connection.server_name else config.name
            else:
                connection = McpStdioConnection(config.command, config.args, config.env,
                                                kept_chars=self.kept_chars)
                await connection.start(timeout)
                name = config.name
        except McpError as exc:
            self.failures.append(f"MCP server {config.name}: {exc}")
            return None
        return self.add(name, connection, owned=True)

    async def close(self) -> None:
        """Disconnect the servers this toolbox connected (stdio children are stopped)."""
        owned = [self._servers[n] for n in self._owned if n in self._servers]
        self._owned.clear()
        await asyncio.gather(*(c.disconnect() for c in owned), return_exceptions=True)

    def drop_unowned(self) -> None:
        """Stop using the connections others own (theirs to close)."""
        for name in [n for n in self._servers if n not in self._owned]:
            del self._servers[name]

    async def disconnect(self) -> None:
        """`close()`, under the name one connection uses."""
        await self.close()

    # -- what a model sees ----------------------------------------------------------------
    @property
    def servers(self) -> dict[str, Connection]:
        return dict(self._servers)

    def tool_specs(self) -> list[dict[str, Any]]:
        """Every usable tool: {"name": "server.tool", "description", "inputSchema"}."""
        specs = []
        for server, connection in self._servers.items():
            if not connection.connected:
                continue
            for tool in connection.tools:
                specs.append({"name": f"{server}.{tool.name}", "description": tool.description,
                              "inputSchema": tool.input_schema or {"type": "object"}})
        return specs

    def resolve(self, name: str) -> tuple[Connection, str]:
        """The connection and tool a namespaced (or unambiguous bare) name means."""
        server, dot, tool = name.partition(".")
        if dot and server in self._servers:
            connection = self._servers[server]
            if any(t.name == tool for t in connection.tools):
                return connection, tool
        matches = [(c, t.name) for c in self._servers.values() for t in c.tools
                   if t.name == name]
        if len(matches) == 1:
            return matches[0]
        known = ", ".join(s["name"] for s in self.tool_specs()) or "none"
        if len(matches) > 1:
            raise McpError(f"The tool name {name[:80]!r} is ambiguous; use server.tool "
                           f"(tools: {known}).")
        raise McpError(f"There is no tool {name[:80]!r} (tools: {known}).")

    async def call_text(self, name: str, arguments: dict[str, Any] | None = None,
                        timeout: float = DEFAULT_CALL_TIMEOUT_S) -> str:
        return (await self.call_kept(name, arguments, timeout)).text

    async def call_kept(self, name: str, arguments: dict[str, Any] | None = None,
                        timeout: float = DEFAULT_CALL_TIMEOUT_S) -> ToolText:
        """Run a tool; its answer as one text of at most `kept_chars` characters, with the
        whole answer's size and hash."""
        connection, tool = self.resolve(name)
        output = await connection.call_tool(tool, arguments or {}, timeout)
        return tool_text(output, max_chars=self.kept_chars)

    # -- read like one connection -----------------------------------------------------------
    @property
    def status(self) -> str:
        if not self._servers:
            return "not connected"
        return "; ".join(f"{n}: {c.status}" for n, c in self._servers.items())

    @property
    def connected(self) -> bool:
        return any(c.connected for c in self._servers.values())

    @property
    def tool_names(self) -> list[str]:
        return [s["name"] for s in self.tool_specs()]

    def has_tool(self, name: str) -> bool:
        try:
            self.resolve(name)
        except McpError:
            return False
        return True

    def add_listener(self, listener: Callable[[], None]) -> None:
        for connection in self._servers.values():
            connection.add_listener(listener)

    def remove_listener(self, listener: Callable[[], None]) -> None:
        for connection in self._servers.values():
            connection.remove_listener(listener)

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None,
                        timeout: float = DEFAULT_CALL_TIMEOUT_S) -> ToolOutput:
        if not self._servers:
            raise McpNotConnected("MCP is not connected; connect first.")
        connection, tool = self.resolve(name)
        return await connection.call_tool(tool, arguments or {}, timeout)
