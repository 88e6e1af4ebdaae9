"""`roundtable --self-test`: run from source in a fresh process with an empty HOME, it
passes every check, prints one line per check and leaves the user's files alone; its
environment set-up turns offscreen and (as root only) Chromium's --no-sandbox on for
itself, and nothing else in the app turns the sandbox off."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from roundtable_desktop.ui import self_test

ROOT = Path(__file__).resolve().parents[2]
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
CHECKS = (
    "ok   window opened in ",
    "ok   context view shows the payload the model gets next",
    "ok   offline session ran to its end: ",
    "ok   session ",
    "ok   keyring backend ",
    "ok   bundled MCP server ",
)


def _fresh_environment(home: Path) -> dict[str, str]:
    """The test run's environment minus what the self-test must arrange by itself."""
    dropped = ("ROUNDTABLE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "DISPLAY",
               "WAYLAND_DISPLAY", "QT_QPA_PLATFORM", "QTWEBENGINE_CHROMIUM_FLAGS")
    env = {k: v for k, v in os.environ.items() if k not in dropped}
    if IS_ROOT:  # the self-test must turn the sandbox off by itself
        env.pop("QTWEBENGINE_DISABLE_SANDBOX", None)
    env["HOME"] = str(home)
    return env


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> tuple[subprocess.CompletedProcess[str], Path]:
    home = tmp_path_factory.mktemp("empty-home")
    done = subprocess.run(
        [sys.executable, "-m", "roundtable_desktop", "--self-test"],
        capture_output=True, text=True, timeout=110, cwd=home, env=_fresh_environment(home),
    )
    return done, home


def _lines(run) -> list[str]:  # type: ignore[no-untyped-def]
    return run[0].stdout.splitlines()


@pytest.mark.slow
def test_self_test_passes_from_source_and_exits_zero(run):
    done, _ = run

    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    assert _lines(run)[-1] == "self-test passed"


@pytest.mark.slow
def test_self_test_prints_one_ok_line_per_check_and_no_failure(run):
    lines = _lines(run)

    for check in CHECKS:
        assert sum(line.startswith(check) for line in lines) == 1, check
    assert not [line for line in lines if line.startswith("FAIL")]


@pytest.mark.slow
def test_self_test_says_when_it_turned_the_sandbox_off_as_root(run):
    said = any("--no-sandbox" in line for line in _lines(run) if line.startswith("note "))

    assert said == IS_ROOT


@pytest.mark.slow
def test_self_test_leaves_the_users_home_untouched(run):
    _, home = run

    assert sorted(p.name for p in home.iterdir()) == []


def test_environment_goes_offscreen_without_a_display(monkeypatch):
    monkeypatch.setattr(sys, "platform", "linux")
    env: dict[str, str] = {}

    notes = self_test.prepare_environment(env)

    assert env["QT_QPA_PLATFORM"] == "offscreen"
    assert any("offscreen" in note for note in notes)
    os.rmdir(env["ROUNDTABLE_HOME"])


def test_environment_keeps_a_display_and_a_chosen_platform(monkeypatch):
    monkeypatch.setattr(sys, "platform", "linux")
    with_display = {"DISPLAY": ":0"}
    chosen = {"QT_QPA_PLATFORM": "minimal"}

    self_test.prepare_environment(with_display)
    self_test.prepare_environment(chosen)

    assert "QT_QPA_PLATFORM" not in with_display
    assert chosen["QT_QPA_PLATFORM"] == "minimal"
    for env in (with_display, chosen):
        os.rmdir(env["ROUNDTABLE_HOME"])


def test_environment_adds_no_sandbox_only_as_root(monkeypatch):
    monkeypatch.setattr(os, "geteuid", lambda: 0, raising=False)
    as_root = {"QTWEBENGINE_CHROMIUM_FLAGS": "--disable-gpu"}
    self_test.prepare_environment(as_root)
    monkeypatch.setattr(os, "geteuid", lambda: 1000, raising=False)
    as_user: dict[str, str] = {}
    self_test.prepare_environment(as_user)

    assert as_root["QTWEBENGINE_CHROMIUM_FLAGS"] == "--disable-gpu --no-sandbox"
    assert "QTWEBENGINE_CHROMIUM_FLAGS" not in as_user
    for env in (as_root, as_user):
        os.rmdir(env["ROUNDTABLE_HOME"])


def test_environment_uses_a_throwaway_home_for_data_and_settings():
    env: dict[str, str] = {"ROUNDTABLE_HOME": "/somewhere/real"}

    self_test.prepare_environment(env)

    home = Path(env["ROUNDTABLE_HOME"])
    assert home.is_dir() and home.name.startswith("roundtable-self-test-")
    home.rmdir()


def test_only_the_self_test_and_our_explicit_option_turn_the_chromium_sandbox_off():
    """The variables that turn it off appear only where it is done: the self-test, and
    startup_checks.py for the user's own --no-sandbox (tests/ui/test_startup_checks.py)."""
    writers = sorted(
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "src").rglob("*.py")
        if "QTWEBENGINE_CHROMIUM_FLAGS" in path.read_text("utf-8")
        or "QTWEBENGINE_DISABLE_SANDBOX" in path.read_text("utf-8")
    )

    assert writers == ["src/roundtable_desktop/startup_checks.py",
                       "src/roundtable_desktop/ui/self_test.py"]


def test_process_age_is_measured_from_a_named_start():
    age, since = self_test.process_age_s()

    assert age >= 0
    assert since in {"the process started", "the self-test module loaded"}


@pytest.mark.slow
def test_the_terminal_gets_no_line_from_chromium_or_qt(run):
    """Chromium's GPU, Vulkan and dbus chatter and Qt's own warnings go to the log file;
    standard error holds nothing else of a run that passed."""
    done, _ = run

    assert done.returncode == 0
    assert done.stderr.strip() == "", done.stderr[-2000:]
