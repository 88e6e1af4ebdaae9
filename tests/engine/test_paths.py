"""Where the user's data and config live (paths.py): platformdirs' folders for each
platform, redirected by ROUNDTABLE_HOME, and by the XDG variables on Linux."""

from __future__ import annotations

import sys
from pathlib import Path

import platformdirs
import pytest
from platformdirs.macos import MacOS

from roundtable_desktop import paths


def test_roundtable_home_holds_the_data_and_the_config_apart(isolated_home):
    home = isolated_home / "roundtable"
    assert paths.data_dir() == home / "data" and paths.data_dir().is_dir()
    assert paths.config_dir() == home / "config" and paths.config_dir().is_dir()
    assert paths.default_db_path() == home / "data" / "sessions.sqlite3"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="XDG is Linux's")
def test_without_roundtable_home_linux_follows_the_xdg_variables(isolated_home, monkeypatch):
    monkeypatch.delenv("ROUNDTABLE_HOME")
    assert paths.data_dir() == isolated_home / ".local" / "share" / paths.APP_DIR_NAME
    assert paths.config_dir() == isolated_home / ".config" / paths.APP_DIR_NAME


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="XDG is Linux's")
def test_without_the_xdg_variables_linux_uses_their_defaults_under_home(isolated_home,
                                                                        monkeypatch):
    for name in ("ROUNDTABLE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(name)
    assert paths.data_dir() == Path.home() / ".local" / "share" / paths.APP_DIR_NAME
    assert paths.config_dir() == Path.home() / ".config" / paths.APP_DIR_NAME


def test_on_macos_the_config_is_in_application_support_not_preferences(isolated_home,
                                                                       monkeypatch):
    for name in ("ROUNDTABLE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(name)
    monkeypatch.setattr(platformdirs, "PlatformDirs", MacOS)
    support = Path.home() / "Library" / "Application Support" / paths.APP_DIR_NAME
    assert paths.config_dir() == support
    assert paths.data_dir() == support
    assert "Preferences" not in paths.config_dir().parts
