"""An MCP connection to a server started as a command (stdio), as most published MCP
servers are run: the same connection as McpConnection (one owner task, a deadline on
every call, untrusted text cleaned), with the child process as its transport.

The child gets only the SDK's safe default environment (PATH, HOME, ...) plus the `env`
it is given, never this process's keys; a frozen app's library paths are not passed on.
Disconnecting (or the owner task ending) closes the child's stdin and then terminates
it; a child that dies mid-call makes that call fail at once (McpConnectionLost).
Must not know about any session kind.
"""

from __future__ import annotations

import contextlib
import os
import shlex
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from mcp.client.stdio import StdioServerParameters, stdio_client

from roundtable_desktop.sources.mcp_client import McpConnection
from roundtable_desktop.sources.mcp_model import DEFAULT_CONNECT_TIMEOUT_S, McpConnectError
from roundtable_desktop.sources.outside_text import clean
from roundtable_desktop.sources.tool_results import DEFAULT_KEPT_CHARS


class McpStdioConnection(McpConnection):
    """A connection to the server that `command args...` starts."""

    def __init__(self, command: str, args: Sequence[str] = (),
                 env: Mapping[str, str] | None = None, *,
                 client_name: str = "roundtable-desktop",
                 kept_chars: int = DEFAULT_KEPT_CHARS) -> None:
        super().__init__(client_name=client_name, kept_chars=kept_chars)
        self._params = StdioServerParameters(command=command, args=list(args),
                                             env=dict(env) if env else None)

    @property
    def command_line(self) -> str:
        return shlex.join([self._params.command, *self._params.args])

    async def start(self, timeout: float = DEFAULT_CONNECT_TIMEOUT_S) -> None:
        """Start the server and list its tools; McpConnectError otherwise."""
        await self.connect(self.command_line, timeout)

    def _check_target(self, target: str) -> str:
        if not self._params.command.strip():
            raise McpConnectError("the server's command is empty")
        return target

    def _display(self, target: str) -> str:
        return f"stdio: {clean(os.path.basename(self._params.command), 60)}" + (
            f" {clean(' '.join(self._params.args), 120)}" if self._params.args else "")

    @contextlib.asynccontextmanager
    async def _transport(self, url: str, timeout: float) -> AsyncIterator[tuple[Any, Any]]:
        # Server logs would interleave with the session in the CLI: they are dropped.
        with open(os.devnull, "w", encoding="utf-8") as errlog:
            async with stdio_client(self._params, errlog=errlog) as (read, write):
                yield read, write
