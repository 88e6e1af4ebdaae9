"""The `mcpServers` JSON other MCP clients use, read into server configurations.

    {"mcpServers": {"files": {"command": "npx", "args": ["-y", "some-server", "/tmp"],
                              "env": {"TOKEN": "..."}},
                    "search": {"url": "http://127.0.0.1:8081/mcp"}}}

An entry with `command` is a stdio server (command line, args, env); one with `url` is a
streamable HTTP server. The outer `mcpServers` key may be left out. Server names become
the namespace of their tools (`server.tool`), so they are letters, digits, '-' and '_'.
`{name}`s given in `placeholders` are replaced in commands, arguments and URLs (bundled
servers name the resources folder this way), and a command that is exactly `{app}`
runs this app's own command line (`app_command`: the frozen app itself, or this Python
with `-m roundtable_desktop`), so a bundled server works with no Python installed.
A bad file is refused with the entry and the field named. Must not start or connect
anything and must not import the MCP SDK.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from roundtable_desktop.sources.mcp_model import McpError

_SERVER_NAME = re.compile(r"^[A-Za-z0-9_-]{1,40}$")


class McpConfigError(McpError):
    """The configuration cannot be used; the message names the server and field."""


class StdioServerConfig(BaseModel):
    model_config = ConfigDict(extra="ignore")

    name: str
    command: str = Field(min_length=1)
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)


class HttpServerConfig(BaseModel):
    model_config = ConfigDict(extra="ignore")

    name: str
    url: str = Field(min_length=1)


ServerConfig = StdioServerConfig | HttpServerConfig


def _expand(text: str, placeholders: Mapping[str, str]) -> str:
    for key, value in placeholders.items():
        text = text.replace("{" + key + "}", value)
    return text


APP = "{app}"


def parse_servers(data: Any, *, placeholders: Mapping[str, str] | None = None,
                  app_command: Sequence[str] = (),
                  where: str = "the MCP configuration") -> list[ServerConfig]:
    """Server configurations from an `mcpServers` object (with or without that key)."""
    marks = dict(placeholders or {})
    if isinstance(data, dict) and "mcpServers" in data:
        data = data["mcpServers"]
    if not isinstance(data, dict):
        raise McpConfigError(f"{where}: mcpServers must be an object of named servers.")
    servers: list[ServerConfig] = []
    for name, entry in data.items():
        if not _SERVER_NAME.match(str(name)):
            raise McpConfigError(f"{where}: mcpServers.{name}: a server name is 1-40 letters, "
                                 "digits, '-' or '_' (it prefixes the tool names).")
        if not isinstance(entry, dict):
            raise McpConfigError(f"{where}: mcpServers.{name}: must be an object.")
        try:
            if "command" in entry:
                stdio = StdioServerConfig.model_validate({**entry, "name": name})
                command, args = _expand(stdio.command, marks), [
                    _expand(a, marks) for a in stdio.args]
                if stdio.command == APP and app_command:
                    command, args = app_command[0], [*app_command[1:], *args]
                servers.append(stdio.model_copy(update={"command": command, "args": args}))
            elif "url" in entry:
                http = HttpServerConfig.model_validate({**entry, "name": name})
                servers.append(http.model_copy(update={"url": _expand(http.url, marks)}))
            else:
                raise McpConfigError(f"{where}: mcpServers.{name}: needs a 'command' (stdio) "
                                     "or a 'url' (streamable HTTP).")
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join(str(p) for p in err["loc"])
            raise McpConfigError(f"{where}: mcpServers.{name}.{field}: {err['msg']}.") from None
    return servers


def load_servers(path: Path, *, placeholders: Mapping[str, str] | None = None
                 ) -> list[ServerConfig]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise McpConfigError(f"Cannot read the MCP configuration {path} ({exc}).") from None
    return parse_servers(data, placeholders=placeholders, where=str(path))


def server_for_url(url: str, taken: list[str]) -> HttpServerConfig:
    """A server given by URL alone (`--mcp URL`): named `mcp`, `mcp2`, ... until the
    server says its own name on connecting."""
    name = "mcp"
    n = 1
    while name in taken:
        n += 1
        name = f"mcp{n}"
    return HttpServerConfig(name=name, url=url)
