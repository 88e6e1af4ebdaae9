"""API keys: the OS keyring only, allow-listed backends, with an in-memory fallback.

Keys are read from the keyring (or, for the CLI, an environment variable) and never
written anywhere else. Backends that drop keys (null) or write them to a plain file
(keyrings.alt) are refused; where no usable backend exists the key is kept in memory for
this run only and `KeyStore.status()` says so. Every key read or written is remembered
as a secret (domain/secrets.py), so text that echoes it is scrubbed wherever it is stored
or shown. The values of MCP servers' environment variables (Settings) are keys too, one
entry per server and variable (`mcp_env_key`). Must never log or return a key in a message.
"""

from __future__ import annotations

import contextlib
import os

import keyring
import keyring.errors

from roundtable_desktop.domain.secrets import remember_secret

SERVICE = "roundtable-desktop"
LLM_KEY = "llm-api-key"
YOUTUBE_KEY = "youtube-api-key"
# The X API v2 bearer token (kinds/debate/persona_build/sources/x.py X_TOKEN_SLOT).
X_KEY = "x-bearer-token"
ENV_VARS = {LLM_KEY: "ROUNDTABLE_API_KEY", YOUTUBE_KEY: "ROUNDTABLE_YOUTUBE_KEY",
            X_KEY: "ROUNDTABLE_X_TOKEN"}

_REFUSED_MODULES = ("keyring.backends.fail", "keyring.backends.null", "keyrings.alt")


def backend_name() -> str:
    backend = keyring.get_keyring()
    return f"{type(backend).__module__}.{type(backend).__name__}"


def backend_usable() -> bool:
    name = backend_name()
    return not any(name.startswith(mod) for mod in _REFUSED_MODULES)


class KeyStore:
    """Reads and writes keys; remembers keys in memory when the keyring is unusable."""

    def __init__(self, service: str = SERVICE) -> None:
        self.service = service
        self._memory: dict[str, str] = {}

    def status(self) -> str:
        if backend_usable():
            return f"Keys are stored in the OS keyring ({type(keyring.get_keyring()).__name__})."
        return ("No usable OS keyring was found; keys are kept in memory for this run only "
                "and are never written to a file.")

    def get(self, name: str, *, env: bool = True) -> str | None:
        value = self._read(name, env=env)
        remember_secret(value)
        return value

    def _read(self, name: str, *, env: bool) -> str | None:
        if name in self._memory:
            return self._memory[name]
        if backend_usable():
            try:
                value = keyring.get_password(self.service, name)
            except keyring.errors.KeyringError:
                value = None
            if value:
                return value
        if env and ENV_VARS.get(name):
            return os.environ.get(ENV_VARS[name]) or None
        return None

    def set(self, name: str, value: str) -> bool:
        """Store a key; True if it is in the OS keyring, False if only in memory."""
        if not value:
            self.delete(name)
            return True
        remember_secret(value)
        if backend_usable():
            try:
                keyring.set_password(self.service, name, value)
                if keyring.get_password(self.service, name) == value:
                    self._memory.pop(name, None)
                    return True
            except keyring.errors.KeyringError:
                pass
        self._memory[name] = value
        return False

    def delete(self, name: str) -> None:
        self._memory.pop(name, None)
        if backend_usable():
            with contextlib.suppress(keyring.errors.KeyringError):
                keyring.delete_password(self.service, name)


def mcp_env_key(server: str, variable: str) -> str:
    """The keyring entry of one environment variable of one MCP server from Settings."""
    return f"mcp-env:{server}:{variable}"


def remember_known_keys(keys: KeyStore | None = None) -> None:
    """Remember as secrets every key the keyring and the environment hold now, both where
    both are set, so text written before this process read them (an older store, an
    export) is scrubbed of them too."""
    keys = keys or KeyStore()
    for name, variable in ENV_VARS.items():
        keys.get(name, env=False)
        remember_secret(os.environ.get(variable))
