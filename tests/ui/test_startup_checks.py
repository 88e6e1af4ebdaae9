"""Start-up on a bare machine: before Qt starts, missing system libraries are named with
the one apt-get line (by `python3 dev.py app` and by the app), and root without our
explicit --no-sandbox is refused in one sentence, logged, before Chromium says anything.
The checks are pure functions, table-tested; two processes run the real app as root."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from roundtable_desktop import startup_checks as checks
from roundtable_desktop.startup_checks import (
    LIBRARIES,
    NO_DISPLAY_EXIT,
    NO_DISPLAY_MESSAGE,
    ROOT_MESSAGE,
    ROOT_REFUSED_EXIT,
    Library,
    SandboxChoice,
    apply_sandbox_choice,
    libraries_message,
    missing_libraries,
    no_display,
    qt_platform,
    sandbox_choice,
    system_libraries,
)

ROOT = Path(__file__).resolve().parents[2]
ALL = frozenset(lib.soname for lib in LIBRARIES)
ON_LINUX_AS_ROOT = sys.platform.startswith("linux") and os.geteuid() == 0
SANDBOX_VARIABLES = ("QTWEBENGINE_DISABLE_SANDBOX", "QTWEBENGINE_CHROMIUM_FLAGS")
CHROMIUM_ROOT_LINE = "Running as root without --no-sandbox is not supported"


def _without(*sonames: str) -> frozenset[str]:
    return ALL - set(sonames)


# -- which libraries are missing -------------------------------------------------------------
@pytest.mark.parametrize(("system", "env", "found", "missing"), [
    ("linux", {}, _without("libxcb-icccm.so.4", "libxcb-keysyms.so.1"),
     ["libxcb-icccm.so.4", "libxcb-keysyms.so.1"]),
    ("linux", {"QT_QPA_PLATFORM": "xcb"}, _without("libxcb-cursor.so.0"),
     ["libxcb-cursor.so.0"]),
    ("linux", {"QT_QPA_PLATFORM": "offscreen"}, _without("libxcb-cursor.so.0"), []),
    ("linux", {"QT_QPA_PLATFORM": "minimal"}, _without("libxcb-icccm.so.4"), []),
    ("linux", {"QT_QPA_PLATFORM": "offscreen"}, _without("libnss3.so"), ["libnss3.so"]),
    ("linux", {"XDG_SESSION_TYPE": "wayland"}, _without("libxcb-keysyms.so.1"), []),
    ("linux", {}, ALL, []),
    ("linux", {}, None, []),  # the loader could not be asked: never refuse
    ("linux", {"ROUNDTABLE_SKIP_LIBRARY_CHECK": "1"}, frozenset(), []),
    ("darwin", {}, frozenset(), []),
    ("win32", {}, frozenset(), []),
])
def test_missing_libraries_are_those_the_window_needs_and_the_loader_lacks(
        system, env, found, missing):
    assert [lib.soname for lib in missing_libraries(system, env, found)] == missing


@pytest.mark.parametrize(("env", "platform"), [
    ({}, "xcb"),
    ({"QT_QPA_PLATFORM": "offscreen"}, "offscreen"),
    ({"QT_QPA_PLATFORM": "xcb:no_shm"}, "xcb"),
    ({"QT_QPA_PLATFORM": "wayland;xcb"}, "wayland"),
    ({"XDG_SESSION_TYPE": "wayland"}, "wayland"),
    ({"XDG_SESSION_TYPE": "x11"}, "xcb"),
])
def test_the_platform_is_the_first_one_qt_tries(env, platform):
    assert qt_platform(env) == platform


def test_the_xcb_plugin_libraries_this_issue_met_are_checked():
    packages = {lib.package for lib in LIBRARIES if lib.window_only}

    assert {"libxcb-cursor0", "libxcb-icccm4", "libxcb-keysyms1"} <= packages


def test_the_message_names_each_missing_library_and_one_apt_get_line():
    missing = missing_libraries("linux", {}, _without("libxcb-icccm.so.4",
                                                      "libxcb-keysyms.so.1"))

    message = libraries_message(missing, euid=1000)

    assert "libxcb-icccm.so.4, libxcb-keysyms.so.1" in message
    install = [line.strip() for line in message.splitlines() if "apt-get install" in line]
    assert install == ["sudo apt-get install libxcb-icccm4 libxcb-keysyms1"]


def test_the_apt_get_line_names_each_package_once_in_order():
    missing = [Library("libnss3.so", "libnss3", False), Library("libxcb.so.1", "libxcb1", False),
               Library("libnssutil3.so", "libnss3", False)]

    assert libraries_message(missing, euid=1000).endswith(
        "sudo apt-get install libnss3 libxcb1")


def test_root_is_told_the_apt_get_line_without_sudo():
    missing = [Library("libxcb-icccm.so.4", "libxcb-icccm4", True)]

    assert libraries_message(missing, euid=0).splitlines()[-1].strip() == (
        "apt-get install libxcb-icccm4")


def test_the_loader_knows_the_c_library_and_the_ld_library_path_folders(tmp_path):
    if not sys.platform.startswith("linux"):
        pytest.skip("ldconfig is Linux's")
    (tmp_path / "libroundtable-probe.so.3").write_bytes(b"")

    found = system_libraries({"LD_LIBRARY_PATH": str(tmp_path)})

    assert found is not None
    assert {"libc.so.6", "libroundtable-probe.so.3"} <= found


def test_libraries_this_process_loaded_count_as_found():
    if not sys.platform.startswith("linux"):
        pytest.skip("/proc/self/maps is Linux's")
    import PySide6.QtCore  # noqa: F401 - a library loaded from outside the loader's cache

    found = system_libraries({})

    assert found is not None and "libQt6Core.so.6" in found


# -- Chromium's sandbox as root --------------------------------------------------------------
@pytest.mark.parametrize(("euid", "env", "no_sandbox", "start", "disable", "log"), [
    (1000, {}, False, True, False, ""),
    (None, {}, False, True, False, ""),  # not Linux
    (0, {}, False, False, False, "Refused to start as root"),
    (0, {"QTWEBENGINE_DISABLE_SANDBOX": "1"}, False, True, False,
     "as the environment chose (QTWEBENGINE_DISABLE_SANDBOX is set)"),
    (0, {"QTWEBENGINE_CHROMIUM_FLAGS": "--disable-gpu --no-sandbox"}, False, True, False,
     "as the environment chose (QTWEBENGINE_CHROMIUM_FLAGS has --no-sandbox)"),
    (0, {"QTWEBENGINE_CHROMIUM_FLAGS": "--no-sandboxes"}, False, False, False,
     "Refused to start as root"),
    (0, {}, True, True, True, "--no-sandbox was passed"),
    (1000, {}, True, True, True, "--no-sandbox was passed"),
])
def test_root_starts_only_when_someone_chose_to_run_without_the_sandbox(
        euid, env, no_sandbox, start, disable, log):
    choice = sandbox_choice(euid, env, no_sandbox)

    assert (choice.start, choice.disable_sandbox) == (start, disable)
    assert log in choice.log and bool(choice.log) == bool(log)


def test_the_refusal_is_one_sentence_naming_our_option():
    choice = sandbox_choice(0, {}, no_sandbox=False)

    assert choice.message == ROOT_MESSAGE
    assert ROOT_MESSAGE.count(".") == 1 and ROOT_MESSAGE.endswith(".")
    assert "--no-sandbox" in ROOT_MESSAGE and "normal user" in ROOT_MESSAGE


@pytest.mark.parametrize(("euid", "env"), [(1000, {}), (0, {"QTWEBENGINE_DISABLE_SANDBOX": "1"})])
def test_our_option_is_offered_only_when_root_is_refused(euid, env):
    assert sandbox_choice(euid, env, no_sandbox=False).message == ""


@pytest.mark.parametrize(("choice", "expected"), [
    (SandboxChoice(True, True), {"QTWEBENGINE_DISABLE_SANDBOX": "1"}),
    (SandboxChoice(True, False), {}),
    (SandboxChoice(False, False, "log", "message"), {}),
])
def test_the_sandbox_is_turned_off_only_when_the_choice_says_so(choice, expected):
    env: dict[str, str] = {}

    apply_sandbox_choice(choice, env)

    assert env == expected


# -- dev.py ------------------------------------------------------------------------------
def _load_dev_py():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("dev_under_test", ROOT / "dev.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def dev(monkeypatch):  # type: ignore[no-untyped-def]
    """dev.py as a module, whose venv step fails the test if it is reached."""
    if not sys.platform.startswith("linux"):
        pytest.skip("the library check runs on Linux only")
    module = _load_dev_py()

    def no_install(extras: str) -> None:
        raise AssertionError(f"dev.py went on to install .venv[{extras}]")

    monkeypatch.setattr(module, "ensure_venv", no_install)
    monkeypatch.delenv("ROUNDTABLE_SKIP_LIBRARY_CHECK", raising=False)
    return module


def test_dev_py_app_names_missing_libraries_and_stops_before_installing(dev, monkeypatch, capsys):
    loaded = dev.load_startup_checks()
    monkeypatch.setattr(loaded, "system_libraries",
                        lambda env: _without("libxcb-cursor.so.0", "libxcb-icccm.so.4"))
    monkeypatch.setattr(loaded, "current_euid", lambda: 1000)
    monkeypatch.setenv("QT_QPA_PLATFORM", "xcb")

    code = dev.main(["app"])

    err = capsys.readouterr().err
    assert code == checks.MISSING_LIBRARIES_EXIT
    assert [line.strip() for line in err.splitlines() if "apt-get" in line] == [
        "sudo apt-get install libxcb-cursor0 libxcb-icccm4"]


def test_dev_py_app_goes_on_when_every_library_is_there(dev, monkeypatch):
    monkeypatch.setattr(dev.load_startup_checks(), "system_libraries", lambda env: ALL)
    monkeypatch.setenv("QT_QPA_PLATFORM", "xcb")

    with pytest.raises(AssertionError, match="went on to install"):
        dev.main(["app"])


def test_dev_py_loads_the_checks_with_the_standard_library_alone():
    """-I -S: no site-packages and no project on the path, as before .venv exists."""
    code = ("import runpy; dev = runpy.run_path('dev.py'); c = dev['load_startup_checks'](); "
            "print(c.missing_libraries('linux', {}, frozenset())[0].package)")

    done = subprocess.run([sys.executable, "-I", "-S", "-c", code], cwd=ROOT,
                          capture_output=True, text=True, timeout=30)

    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == LIBRARIES[0].package


# -- the real app, as root -----------------------------------------------------------------
def _app_environment(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in SANDBOX_VARIABLES}
    env.update(QT_QPA_PLATFORM="offscreen", ROUNDTABLE_HOME=str(home))
    return env


@pytest.mark.skipif(not ON_LINUX_AS_ROOT, reason="Chromium refuses only root on Linux")
def test_as_root_the_app_says_why_in_one_sentence_logs_it_and_exits_before_chromium(tmp_path):
    done = subprocess.run([sys.executable, "-m", "roundtable_desktop"], cwd=tmp_path,
                          env=_app_environment(tmp_path / "home"), capture_output=True,
                          text=True, timeout=60)

    assert done.returncode == ROOT_REFUSED_EXIT
    assert done.stderr.strip() == f"roundtable: {ROOT_MESSAGE}"
    assert CHROMIUM_ROOT_LINE not in done.stdout + done.stderr
    log = (tmp_path / "home" / "data" / "logs" / "roundtable.log").read_text("utf-8")
    assert ROOT_MESSAGE in log


@pytest.mark.slow
@pytest.mark.skipif(not ON_LINUX_AS_ROOT, reason="Chromium refuses only root on Linux")
def test_as_root_our_no_sandbox_option_lets_the_window_paint(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "roundtable_desktop", "--no-sandbox", "--self-test=paint"],
        cwd=tmp_path, env=_app_environment(tmp_path / "home"), capture_output=True,
        text=True, timeout=90)

    assert done.returncode == 0, done.stderr[-2000:]
    assert "FIRST_PAINT " in done.stdout
    assert CHROMIUM_ROOT_LINE not in done.stderr
    log = (tmp_path / "home" / "data" / "logs" / "roundtable.log").read_text("utf-8")
    assert "--no-sandbox was passed" in log


def test_the_app_reads_our_option_from_its_command_line():
    from roundtable_desktop.app import parse_options

    assert parse_options(["--presenter", "--no-sandbox"]).no_sandbox
    assert not parse_options(["--presenter"]).no_sandbox


def test_no_display_is_said_in_one_sentence_before_qt_starts():
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    done = subprocess.run([sys.executable, "-m", "roundtable_desktop"], capture_output=True,
                          text=True, timeout=60, env=env)

    assert done.returncode == NO_DISPLAY_EXIT
    assert done.stderr.strip().splitlines() == [NO_DISPLAY_MESSAGE]
    assert "xcb" not in done.stderr and "Reinstalling" not in done.stderr


@pytest.mark.parametrize(("env", "expected"), [
    ({}, True),
    ({"DISPLAY": ":0"}, False),
    ({"WAYLAND_DISPLAY": "wayland-0"}, False),
    ({"QT_QPA_PLATFORM": "offscreen"}, False),
    ({"QT_QPA_PLATFORM": "xcb"}, True),
])
def test_no_display_is_when_qt_would_need_one_and_none_is_set(env, expected):
    assert no_display("linux", env) is expected
    assert no_display("darwin", env) is False
