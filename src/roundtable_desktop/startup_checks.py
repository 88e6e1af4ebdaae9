"""What is checked before Qt starts: the system libraries the window needs on Linux, and
Chromium's refusal to run as root.

Without these, a bare Debian machine aborts inside Qt's xcb platform plugin (exit 250,
after naming one library of the several missing), and a root user gets only Chromium's
own "Running as root without --no-sandbox" line and an empty log. Here each says what to
do, in words, before anything starts:

- `missing_libraries(system, env, found)`: the libraries the window needs that `found`
  lacks. Pure; `found=None` means the loader could not be asked and never blocks.
- `libraries_message(missing, euid)`: which are missing and the one `apt-get install` line.
- `sandbox_choice(euid, env, no_sandbox)`: whether the window may start, whether to turn
  Chromium's sandbox off for this run (only when `--no-sandbox` was passed) and what to log.
- `system_libraries(env)` and `current_euid()`: what the pure functions are given.

Standard library only: dev.py loads this file by its path with the system Python before
the project's environment exists (hence dataclasses, not pydantic). Must not import Qt or
the rest of the package, must not print or exit (callers do), and must never turn the
sandbox off unless the caller asked for it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Collection, Mapping, MutableMapping
from dataclasses import dataclass
from pathlib import Path

NO_SANDBOX_OPTION = "--no-sandbox"
DISABLE_SANDBOX_ENV = "QTWEBENGINE_DISABLE_SANDBOX"
CHROMIUM_FLAGS_ENV = "QTWEBENGINE_CHROMIUM_FLAGS"
SKIP_LIBRARY_CHECK_ENV = "ROUNDTABLE_SKIP_LIBRARY_CHECK"
# sysexits.h codes, so a script can tell the two refusals apart from a crash.
MISSING_LIBRARIES_EXIT = 69  # EX_UNAVAILABLE
ROOT_REFUSED_EXIT = 77  # EX_NOPERM

ROOT_MESSAGE = (
    "Chromium, which draws the window's pages, refuses to run as root with its sandbox "
    f"on: run roundtable as a normal user, or pass {NO_SANDBOX_OPTION} to start it this "
    "once with the sandbox off."
)


@dataclass(frozen=True)
class Library:
    soname: str  # what the dynamic loader looks for
    package: str  # the Debian/Ubuntu package that installs it
    window_only: bool  # needed only by the xcb platform plugin (an on-screen X11 window)


def _libraries(window_only: bool, pairs: str) -> list[Library]:
    return [Library(soname, package, window_only)
            for soname, package in (pair.split("=") for pair in pairs.split())]


# The system libraries PySide6 6.11's wheels link but do not ship (objdump -p, NEEDED):
# the xcb platform plugin (libqxcb.so, libQt6XcbQpa) for a window on X11, and QtGui,
# QtNetwork, QtDBus and QtWebEngineCore for any window at all, offscreen included. The C
# and C++ runtimes, zlib and zstd are left out: Python itself cannot run without them.
LIBRARIES: tuple[Library, ...] = (
    *_libraries(True, """
        libxcb-cursor.so.0=libxcb-cursor0 libxcb-icccm.so.4=libxcb-icccm4
        libxcb-keysyms.so.1=libxcb-keysyms1 libxcb-image.so.0=libxcb-image0
        libxcb-util.so.1=libxcb-util1 libxcb-randr.so.0=libxcb-randr0
        libxcb-render-util.so.0=libxcb-render-util0 libxcb-render.so.0=libxcb-render0
        libxcb-shape.so.0=libxcb-shape0 libxcb-shm.so.0=libxcb-shm0
        libxcb-sync.so.1=libxcb-sync1 libxcb-xfixes.so.0=libxcb-xfixes0
        libxcb-xkb.so.1=libxcb-xkb1 libX11-xcb.so.1=libx11-xcb1
        libxkbcommon-x11.so.0=libxkbcommon-x11-0
    """),
    *_libraries(False, """
        libGL.so.1=libgl1 libEGL.so.1=libegl1 libfontconfig.so.1=libfontconfig1
        libfreetype.so.6=libfreetype6 libglib-2.0.so.0=libglib2.0-0
        libxkbcommon.so.0=libxkbcommon0 libX11.so.6=libx11-6 libxcb.so.1=libxcb1
        libdbus-1.so.3=libdbus-1-3 libgssapi_krb5.so.2=libgssapi-krb5-2
        libbrotlidec.so.1=libbrotli1 libnss3.so=libnss3 libnspr4.so=libnspr4
        libasound.so.2=libasound2 libgbm.so.1=libgbm1 libudev.so.1=libudev1
        libexpat.so.1=libexpat1 libxkbfile.so.1=libxkbfile1 libXcomposite.so.1=libxcomposite1
        libXdamage.so.1=libxdamage1 libXext.so.6=libxext6 libXfixes.so.3=libxfixes3
        libXrandr.so.2=libxrandr2 libXtst.so.6=libxtst6 libxcb-dri3.so.0=libxcb-dri3-0
    """),
)


# -- system libraries --------------------------------------------------------------------
def qt_platform(env: Mapping[str, str]) -> str:
    """The platform plugin Qt tries first: QT_QPA_PLATFORM's first entry (without its
    options), else wayland in a Wayland session, else xcb."""
    wanted = env.get("QT_QPA_PLATFORM", "").split(";")[0].split(":")[0].strip()
    if wanted:
        return wanted
    return "wayland" if env.get("XDG_SESSION_TYPE") == "wayland" else "xcb"


def missing_libraries(system: str, env: Mapping[str, str],
                      found: Collection[str] | None) -> list[Library]:
    """The libraries the window needs on `system` (a sys.platform value) that `found`
    lacks; those of the xcb plugin only when Qt will load it. Empty when there is nothing
    to check: not Linux, the loader could not be asked (`found` is None), or the user set
    ROUNDTABLE_SKIP_LIBRARY_CHECK."""
    if not system.startswith("linux") or found is None or env.get(SKIP_LIBRARY_CHECK_ENV):
        return []
    window = qt_platform(env) == "xcb"
    return [lib for lib in LIBRARIES
            if (window or not lib.window_only) and lib.soname not in found]


def install_command(packages: Collection[str], euid: int | None) -> str:
    prefix = "" if euid == 0 else "sudo "  # root may have no sudo (a container)
    return f"{prefix}apt-get install {' '.join(sorted(set(packages)))}"


def libraries_message(missing: Collection[Library], euid: int | None) -> str:
    """Which libraries are missing, then the one line that installs them."""
    names = ", ".join(lib.soname for lib in missing)
    return (f"The window needs system libraries this machine does not have: {names}.\n"
            "Install them with (Debian and Ubuntu package names):\n"
            f"  {install_command([lib.package for lib in missing], euid)}")


def system_libraries(env: Mapping[str, str]) -> frozenset[str] | None:
    """The library file names the dynamic loader can find: its cache (ldconfig -p), the
    LD_LIBRARY_PATH folders, and the folders of libraries this process has loaded (a
    frozen bundle or a conda environment keeps its own there). None when ldconfig cannot
    be run, so an unknown system is never refused."""
    ldconfig = shutil.which("ldconfig") or next(
        (p for p in ("/usr/sbin/ldconfig", "/sbin/ldconfig") if os.access(p, os.X_OK)), None)
    if ldconfig is None:
        return None
    try:
        done = subprocess.run([ldconfig, "-p"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    # "\tlibxcb.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libxcb.so.1"
    names = {line.split()[0] for line in done.stdout.splitlines() if line.startswith("\t")}
    folders = {f for f in env.get("LD_LIBRARY_PATH", "").split(os.pathsep) if f}
    folders |= _loaded_library_folders()
    for folder in folders:
        try:
            names.update(entry for entry in os.listdir(folder) if ".so" in entry)
        except OSError:
            continue
    return frozenset(names)


def _loaded_library_folders() -> set[str]:
    try:
        maps = Path("/proc/self/maps").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return set()
    paths = (line.split(None, 5)[-1] for line in maps.splitlines() if ".so" in line)
    return {str(Path(path).parent) for path in paths if path.startswith("/")}


# -- Chromium's sandbox ------------------------------------------------------------------
@dataclass(frozen=True)
class SandboxChoice:
    start: bool  # may the window start
    disable_sandbox: bool  # set QTWEBENGINE_DISABLE_SANDBOX=1 for this run
    log: str = ""  # one line for the log; empty when there is nothing to say
    message: str = ""  # what the user is told when the window may not start


NO_DISPLAY_EXIT = 78  # EX_CONFIG
NO_DISPLAY_MESSAGE = (
    "roundtable: there is no display to open the window on (DISPLAY and WAYLAND_DISPLAY "
    "are not set): run it on a desktop session, or headless with `roundtable run "
    "--offline` (`roundtable rehearse` draws offscreen by itself).")


def no_display(system: str, env: Mapping[str, str]) -> bool:
    """True on Linux when Qt would look for an X11 or Wayland display and none is set:
    Qt's xcb plugin then aborts blaming a library ("xcb-cursor0 is needed")."""
    if not system.startswith("linux") or env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"):
        return False
    return qt_platform(env) in ("", "xcb", "wayland")


def current_euid() -> int | None:
    """The effective user id on Linux, else None (only Linux's Chromium refuses root)."""
    if sys.platform.startswith("linux") and hasattr(os, "geteuid"):
        return os.geteuid()
    return None


def sandbox_off_by_environment(env: Mapping[str, str]) -> str:
    """How the environment already turned Chromium's sandbox off, or "" if it did not.
    QtWebEngine honours QTWEBENGINE_DISABLE_SANDBOX when it is set at all."""
    if DISABLE_SANDBOX_ENV in env:
        return f"{DISABLE_SANDBOX_ENV} is set"
    if NO_SANDBOX_OPTION in env.get(CHROMIUM_FLAGS_ENV, "").split():
        return f"{CHROMIUM_FLAGS_ENV} has {NO_SANDBOX_OPTION}"
    return ""


def sandbox_choice(euid: int | None, env: Mapping[str, str], no_sandbox: bool) -> SandboxChoice:
    """Start or not, and why. Only `no_sandbox` (our explicit option) turns the sandbox
    off; as root without it, the window starts only if the environment already chose to
    run without the sandbox (tests, CI and the self-test do), and the log says so."""
    if no_sandbox:
        return SandboxChoice(True, True, f"Chromium's sandbox is off for this run: "
                                         f"{NO_SANDBOX_OPTION} was passed.")
    if euid != 0:
        return SandboxChoice(True, False)
    preset = sandbox_off_by_environment(env)
    if preset:
        return SandboxChoice(True, False, "Running as root with Chromium's sandbox off, "
                                          f"as the environment chose ({preset}).")
    return SandboxChoice(False, False, f"Refused to start as root: {ROOT_MESSAGE}",
                         ROOT_MESSAGE)


def apply_sandbox_choice(choice: SandboxChoice, env: MutableMapping[str, str]) -> None:
    """Turn the sandbox off in `env` (this process and its children) if the choice says
    so; the variable is never written anywhere that outlives the run."""
    if choice.disable_sandbox:
        env[DISABLE_SANDBOX_ENV] = "1"
