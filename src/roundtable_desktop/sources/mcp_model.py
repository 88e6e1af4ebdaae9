"""The plain parts of the MCP client: its errors, what a tool and a tool answer look like,
default timeouts, and the URL as it may be shown.

Kept apart from mcp_client.py so code that only handles results or errors (the video
search, the meeting wiring, the CLI) does not import the MCP SDK, which takes a second
to load. Must not import the SDK.
"""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field

from roundtable_desktop.sources.errors import SourceError
from roundtable_desktop.sources.outside_text import clean

DEFAULT_MCP_URL = "http://127.0.0.1:8081/mcp"  # where `roundtable serve-mcp` listens
DEFAULT_CONNECT_TIMEOUT_S = 10.0
DEFAULT_CALL_TIMEOUT_S = 30.0


class McpError(SourceError):
    """An MCP failure; the message is one sentence for the user."""


class McpConnectError(McpError):
    """Could not connect: nothing listening, not an MCP server, no answer in time.
    `reason` is the short form the status line shows."""

    def __init__(self, reason: str, advice: str = "", *, nothing_listening: bool = False) -> None:
        self.reason = reason
        self.nothing_listening = nothing_listening  # the port is closed: offer to start one
        super().__init__(f"Could not connect to MCP: {reason}{'; ' + advice if advice else ''}.")


class McpNotConnected(McpError):
    pass


class McpConnectionLost(McpError):
    pass


class McpTimeout(McpError):
    pass


class McpToolError(McpError):
    """The server ran the tool and it reported an error (`is_error`)."""


class ToolInfo(BaseModel):
    """A tool the server offers. `description` and `input_schema` are the server's
    untrusted text (cleaned and bounded by the client)."""

    name: str
    description: str = ""
    input_schema: dict[str, Any] = Field(default_factory=dict)


class ToolOutput(BaseModel):
    """What a successful call returned: structured content and/or text blocks, as much of
    them as is kept (sources/tool_results.py), with the whole answer's size in characters
    and its SHA-256 (of the text `output_text` would give for the whole answer; None and
    "" when the output was made here, whole)."""

    structured: Any = None
    texts: list[str] = Field(default_factory=list)
    original_chars: int | None = None
    sha256: str = ""


@dataclass(frozen=True, slots=True)
class ToolText:
    """A tool's answer as one bounded text, with the whole answer's size and hash."""

    text: str
    original_chars: int
    sha256: str


def display_url(url: str) -> str:
    """`url` without user, password, query or fragment: safe to show and to put in a payload."""
    parts = urllib.parse.urlsplit(url.strip())
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    try:
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        port = ""
    return clean(f"{parts.scheme}://{host}{port}{parts.path}", 300)


