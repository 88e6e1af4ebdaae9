"""Non-secret application settings, kept with QSettings in an INI file in the config dir.

Holds the provider, base URL, model, the offline model's seed, the MCP bridge URL, the
MCP servers (each with the names of its environment variables, never their values), the
X API's address (published to sources/endpoints.py as it is read or set), and whatever
the window saves (geometry, dock layout). API keys and environment values never pass
through here: they go to the OS keyring via llm/keys.py, and `set_value` refuses names
that look like secrets. The file lives under `paths.config_dir()`, so tests that redirect
ROUNDTABLE_HOME isolate it.

A file that is not a settings file (binary, notes, a cut section header: Qt would read
what it could and silently write over the rest) is copied to `settings.ini.bad` and
started afresh, and `warning` says so for the window to show.
Must not hold keys, talk to the network, or build clients.
"""

from __future__ import annotations

import json
import logging
import math
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings

from roundtable_desktop.llm.providers import MAX_SEED, PRESETS, ModelSettings
from roundtable_desktop.paths import config_dir
from roundtable_desktop.sources.endpoints import X_API, use_setting
from roundtable_desktop.sources.mcp_model import DEFAULT_MCP_URL
from roundtable_desktop.sources.mcp_servers_config import McpServerSetting

log = logging.getLogger(__name__)

SETTINGS_FILE = "settings.ini"
_MCP_SERVERS = "mcp/servers"  # a JSON list of McpServerSetting
_SECRET_WORDS = ("key", "secret", "token", "password")
_MODEL = "model"
_X_BASE_URL = "sources/x_base_url"


class SecretInSettings(ValueError):
    """A caller tried to put a secret-looking value in the settings file."""


class AppSettings:
    """Typed access to the settings file. One instance per application."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or config_dir() / SETTINGS_FILE
        # Said once, when a damaged file was set aside; the window shows it.
        self.warning: str | None = self._set_aside_if_damaged()
        self.qsettings = QSettings(str(self.path), QSettings.Format.IniFormat)
        # The engine reads where outside APIs are from sources/endpoints.py.
        use_setting(X_API, self.x_base_url)

    def _set_aside_if_damaged(self) -> str | None:
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            return (f"The settings file {self.path} cannot be read ({exc.strerror}): "
                    "the defaults are used.")
        why = _damage(raw)
        if why is None:
            return None
        bad = self.path.with_name(self.path.name + ".bad")
        try:
            bad.write_bytes(raw)
            self.path.unlink()
        except OSError as exc:
            log.warning("could not set the damaged settings file aside: %s", exc)
            return (f"The settings file {self.path} is damaged ({why}) and could not be "
                    f"set aside as {bad.name} ({exc.strerror}): the defaults are used.")
        log.warning("settings file %s is damaged (%s); kept as %s", self.path, why, bad)
        return (f"The settings file {self.path} was damaged ({why}): it was kept as "
                f"{bad.name} and the defaults are used.")

    # -- model -------------------------------------------------------------------------
    def model_settings(self) -> ModelSettings:
        default = ModelSettings()
        provider = str(self.qsettings.value(f"{_MODEL}/provider", default.provider))
        if provider not in PRESETS:
            provider = default.provider
        return ModelSettings(
            provider=provider,
            base_url=str(self.qsettings.value(f"{_MODEL}/base_url", default.base_url)),
            model=str(self.qsettings.value(f"{_MODEL}/model", default.model)),
            offline_delay_s=_float(self.qsettings.value(f"{_MODEL}/offline_delay_s"),
                                   default.offline_delay_s),
            offline_seed=_seed(self.qsettings.value(f"{_MODEL}/offline_seed")),
            connect_timeout_s=_float(self.qsettings.value(f"{_MODEL}/connect_timeout_s"),
                                     default.connect_timeout_s),
            read_timeout_s=_float(self.qsettings.value(f"{_MODEL}/read_timeout_s"),
                                  default.read_timeout_s),
            parallel_calls=min(32, max(1, int(_float(
                self.qsettings.value(f"{_MODEL}/parallel_calls"), default.parallel_calls)))),
        )

    def set_model_settings(self, settings: ModelSettings) -> None:
        for name, value in settings.model_dump().items():
            self.qsettings.setValue(f"{_MODEL}/{name}", value)
        self.qsettings.sync()

    # -- MCP ---------------------------------------------------------------------------
    @property
    def mcp_url(self) -> str:
        return str(self.qsettings.value("mcp/url", DEFAULT_MCP_URL)) or DEFAULT_MCP_URL

    @mcp_url.setter
    def mcp_url(self, url: str) -> None:
        self.qsettings.setValue("mcp/url", url.strip() or DEFAULT_MCP_URL)
        self.qsettings.sync()

    @property
    def mcp_servers(self) -> list[McpServerSetting]:
        """The MCP servers of Settings, in their order; an entry that cannot be read is
        left out (and logged), never the whole list."""
        raw = self.qsettings.value(_MCP_SERVERS, "")
        try:
            entries = json.loads(str(raw)) if raw else []
        except ValueError:
            log.warning("the MCP servers in %s are not JSON: none are used", self.path)
            return []
        servers = []
        for entry in entries if isinstance(entries, list) else []:
            try:
                servers.append(McpServerSetting.model_validate(entry))
            except ValueError:
                log.warning("an MCP server in %s cannot be read: left out", self.path)
        return servers

    def set_mcp_servers(self, servers: list[McpServerSetting]) -> None:
        data = [s.model_dump(mode="json") for s in servers]
        self.qsettings.setValue(_MCP_SERVERS, json.dumps(data, ensure_ascii=False))
        self.qsettings.sync()

    # -- where outside APIs are (sources/endpoints.py) ---------------------------------
    @property
    def x_base_url(self) -> str:
        """The X API's address for persona cards; empty: X's own."""
        return str(self.qsettings.value(_X_BASE_URL, "") or "").strip()

    @x_base_url.setter
    def x_base_url(self, url: str) -> None:
        self.qsettings.setValue(_X_BASE_URL, url.strip())
        self.qsettings.sync()
        use_setting(X_API, url)

    # -- anything else the window keeps (layout, geometry, presenter mode) -------------
    def value(self, name: str, default: Any = None) -> Any:
        return self.qsettings.value(name, default)

    def set_value(self, name: str, value: Any) -> None:
        lowered = name.lower()
        if any(word in lowered for word in _SECRET_WORDS):
            raise SecretInSettings(
                f"{name!r} looks like a secret; keys go to the OS keyring, never the settings file."
            )
        self.qsettings.setValue(name, value)

    def sync(self) -> None:
        self.qsettings.sync()


def _damage(raw: bytes) -> str | None:
    """Why `raw` is not a settings file Qt wrote, or None when it is one.

    Qt writes UTF-8 text of `[section]` headers, `key=value` lines (values escaped, so
    no control characters) and comments; anything else was not written by us.
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return "it is not text"
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith((";", "#")):
            continue
        if any(ch < " " and ch != "\t" for ch in stripped):
            return "it holds control characters"
        if stripped.startswith("["):
            if not stripped.endswith("]"):
                return "a section header is cut short"
        elif "=" not in stripped:
            return "a line is neither a section nor a setting"
    return None


def _float(value: Any, default: float) -> float:
    try:
        return float(value) if value is not None else default
    except (TypeError, ValueError):
        return default


def _seed(value: Any) -> int:
    """A stored seed as a seed: 0 for anything that is not a finite number, clamped."""
    number = _float(value, 0.0)
    return min(MAX_SEED, max(0, int(number))) if math.isfinite(number) else 0
