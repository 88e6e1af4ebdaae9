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
A bad file is refused with the entry and the field named.
`McpServerSetting` is a server as the Settings dialog keeps it (the names of its
environment variables only: their values are secrets the window keeps in the keyring);
`import_servers` reads an `mcpServers` text into settings, renaming a name already taken.
Must not start or connect anything, must not import the MCP SDK, and must not store
an environment's values.
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


# -- servers as the Settings dialog keeps them ----------------------------------------------
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")
HTTP, STDIO = "http", "stdio"


class McpServerSetting(BaseModel):
    """One server as the settings file keeps it: the names of its environment variables,
    never their values (those are secrets, kept in the OS keyring by the window)."""

    model_config = ConfigDict(extra="ignore")

    name: str
    transport: str = STDIO  # HTTP or STDIO
    url: str = ""
    command: str = ""
    args: list[str] = Field(default_factory=list)
    env_names: list[str] = Field(default_factory=list)
    enabled: bool = True

    def problem(self) -> str | None:
        """What makes this server unusable, naming the field; None when it is usable."""
        where = f"MCP server {self.name or '(unnamed)'}"
        if not _SERVER_NAME.match(self.name):
            return (f"{where}: the name is 1-40 letters, digits, '-' or '_' (it prefixes "
                    "the tool names).")
        if self.transport == HTTP:
            if not self.url.strip().startswith(("http://", "https://")):
                return f"{where}: the URL must start with http:// or https://."
        elif self.transport == STDIO:
            if not self.command.strip():
                return f"{where}: the command is empty."
        else:
            return f"{where}: the type must be {HTTP!r} or {STDIO!r}."
        bad = next((n for n in self.env_names if not _ENV_NAME.match(n)), None)
        if bad is not None:
            return (f"{where}: the environment variable {bad[:40]!r} is not a valid name "
                    "(letters, digits and '_', not starting with a digit).")
        return None

    def config(self, env: Mapping[str, str]) -> ServerConfig:
        """The configuration to connect with, given the values of its variables."""
        if self.transport == HTTP:
            return HttpServerConfig(name=self.name, url=self.url.strip())
        values = {n: env[n] for n in self.env_names if n in env}
        return StdioServerConfig(name=self.name, command=self.command.strip(),
                                 args=list(self.args), env=values)


def setting_of(config: ServerConfig) -> tuple[McpServerSetting, dict[str, str]]:
    """A parsed `mcpServers` entry as a setting, and its environment's values apart."""
    if isinstance(config, HttpServerConfig):
        return McpServerSetting(name=config.name, transport=HTTP, url=config.url), {}
    setting = McpServerSetting(name=config.name, transport=STDIO, command=config.command,
                               args=list(config.args), env_names=list(config.env))
    return setting, dict(config.env)


def unique_name(name: str, taken: Sequence[str]) -> str:
    """`name`, or `name2`, `name3`... the first one not in `taken`."""
    unique, n = name, 1
    while unique in taken:
        n += 1
        unique = f"{name[:38]}{n}"
    return unique


def import_servers(text: str, taken: Sequence[str], *, where: str = "the file"
                   ) -> tuple[list[tuple[McpServerSetting, dict[str, str]]], list[str]]:
    """The servers of an `mcpServers` JSON text (each with its environment's values), a
    name already in `taken` renamed `name2`...; and one sentence per renaming.
    McpConfigError names the entry and the field of a bad file."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise McpConfigError(f"{where} is not JSON ({exc}).") from None
    found: list[tuple[McpServerSetting, dict[str, str]]] = []
    renamed: list[str] = []
    names = list(taken)
    for config in parse_servers(data, where=where):
        setting, env = setting_of(config)
        bad = setting.problem()
        if bad is not None:
            raise McpConfigError(f"{where}: {bad}")
        name = unique_name(setting.name, names)
        if name != setting.name:
            renamed.append(f"{setting.name} is already in the list: imported as {name}.")
            setting = setting.model_copy(update={"name": name})
        names.append(name)
        found.append((setting, env))
    return found, renamed
