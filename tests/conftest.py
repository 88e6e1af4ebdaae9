"""Shared fixtures. Autouse: every test runs with its own home and an in-memory keyring,
offscreen Qt, and no real user files."""

from __future__ import annotations

import importlib.util
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QTWEBENGINE_DISABLE_SANDBOX", "1")
os.environ.setdefault("QTWEBENGINE_CHROMIUM_FLAGS", "--no-sandbox --disable-gpu")

import keyring
import pytest

from roundtable_desktop.domain.secrets import forget_secrets
from roundtable_desktop.kinds.built import register_built_kinds
from roundtable_desktop.llm.keys import ENV_VARS as KEY_ENV_VARS
from tests.fakes.memory_keyring import MemoryKeyring

# The tests stand where a composition root stands (app.py, the CLI): the built kinds are
# registered once, and their window half where Qt is installed (the engine's tests run
# without it), so a window test reads the window specs before any window is composed.
register_built_kinds()
if importlib.util.find_spec("PySide6") is not None:
    from roundtable_desktop.ui.kinds.built import register_built_window_kinds

    register_built_window_kinds()


pytest_plugins = ["tests.engine_fixtures", "tests.fakes.openai_fixture"]


@pytest.fixture(autouse=True)
def isolated_home(tmp_path, monkeypatch):
    """Point user data, config and HOME at tmp_path; no test touches the real user's files."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("ROUNDTABLE_HOME", str(home / "roundtable"))
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    for name in KEY_ENV_VARS.values():  # every key the app would read from the environment
        monkeypatch.delenv(name, raising=False)
    return home


@pytest.fixture(autouse=True)
def no_remembered_secrets():
    """Each test starts with no known secrets: a key one test used is not scrubbed in the
    next (domain/secrets.py remembers keys for the whole process)."""
    forget_secrets()
    yield
    forget_secrets()


@pytest.fixture(autouse=True)
def memory_keyring():
    """An in-memory keyring backend for every test; the real keyring is never used."""
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


@pytest.fixture
def make_window(qtbot, qapp):  # type: ignore[no-untyped-def]
    """`make(client_factory=None, start=True)`: the real MainWindow on a running qasync
    loop, offscreen (tests/fakes/window_harness.py); closed and deleted afterwards."""
    # Imported here, not above: the engine's tests run where Qt is not installed.
    from tests.fakes.window_harness import running_qasync_loop, window_maker

    with running_qasync_loop(qapp), window_maker(qtbot) as make:
        yield make
