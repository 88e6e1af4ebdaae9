"""Where things live: bundled prompts and resources, and the user's data and config.

One function finds the bundled files from a source checkout and from a PyInstaller
bundle alike. User directories follow each platform's conventions and can be redirected
with ROUNDTABLE_HOME (tests use it so they never touch the real user's files).
Must not create or read anything besides directories.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

APP_DIR_NAME = "roundtable-desktop"


def bundle_root() -> Path:
    """The directory that holds `prompts/` and `resources/`.

    ROUNDTABLE_BUNDLE_ROOT overrides; a frozen app uses the PyInstaller bundle directory;
    otherwise the source checkout (two levels above this package).
    """
    override = os.environ.get("ROUNDTABLE_BUNDLE_ROOT")
    if override:
        return Path(override)
    frozen_dir = getattr(sys, "_MEIPASS", None)
    if getattr(sys, "frozen", False) and frozen_dir:
        return Path(frozen_dir)
    return Path(__file__).resolve().parents[2]


def prompts_dir() -> Path:
    return bundle_root() / "prompts"


def resources_dir() -> Path:
    return bundle_root() / "resources"


def _platform_base(kind: str) -> Path:
    home = Path.home()
    if sys.platform == "win32":
        base = os.environ.get("APPDATA") or str(home / "AppData" / "Roaming")
        return Path(base)
    if sys.platform == "darwin":
        return home / "Library" / ("Preferences" if kind == "config" else "Application Support")
    env = "XDG_CONFIG_HOME" if kind == "config" else "XDG_DATA_HOME"
    default = home / (".config" if kind == "config" else ".local/share")
    return Path(os.environ.get(env) or default)


def data_dir() -> Path:
    """Sessions database and exports."""
    override = os.environ.get("ROUNDTABLE_HOME")
    path = Path(override) / "data" if override else _platform_base("data") / APP_DIR_NAME
    path.mkdir(parents=True, exist_ok=True)
    return path


def config_dir() -> Path:
    """Non-secret settings (price table, window layout). Keys live in the keyring."""
    override = os.environ.get("ROUNDTABLE_HOME")
    path = Path(override) / "config" if override else _platform_base("config") / APP_DIR_NAME
    path.mkdir(parents=True, exist_ok=True)
    return path


def default_db_path() -> Path:
    return data_dir() / "sessions.sqlite3"
