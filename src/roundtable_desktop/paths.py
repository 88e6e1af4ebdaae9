"""Where things live: bundled prompts and resources, and the user's data and config.

One function finds the bundled files from a source checkout and from a PyInstaller
bundle alike. The user's data and config folders are the ones platformdirs names for
each platform (Linux: $XDG_DATA_HOME and $XDG_CONFIG_HOME, by default ~/.local/share and
~/.config; macOS: ~/Library/Application Support for both, never ~/Library/Preferences,
which is for plists; Windows: the roaming AppData), and ROUNDTABLE_HOME redirects both
(tests use it so they never touch the real user's files).
Must not create or read anything besides directories.
"""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path

import platformdirs
from platformdirs.api import PlatformDirsABC

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
    return _checkout_root()


@functools.cache
def _checkout_root() -> Path:
    # Resolved once: offline text banks ask for their folder on every reply, and
    # resolving a path is a system call per component.
    return Path(__file__).resolve().parents[2]


def prompts_dir() -> Path:
    return bundle_root() / "prompts"


def resources_dir() -> Path:
    return bundle_root() / "resources"


def _user_dirs() -> PlatformDirsABC:
    # Roaming on Windows, where the settings and sessions of earlier versions are.
    return platformdirs.PlatformDirs(APP_DIR_NAME, appauthor=False, roaming=True)


def data_dir() -> Path:
    """Sessions database and exports."""
    override = os.environ.get("ROUNDTABLE_HOME")
    path = Path(override) / "data" if override else _user_dirs().user_data_path
    path.mkdir(parents=True, exist_ok=True)
    return path


def config_dir() -> Path:
    """Non-secret settings (price table, window layout). Keys live in the keyring."""
    override = os.environ.get("ROUNDTABLE_HOME")
    path = Path(override) / "config" if override else _user_dirs().user_config_path
    path.mkdir(parents=True, exist_ok=True)
    return path


def default_db_path() -> Path:
    return data_dir() / "sessions.sqlite3"
