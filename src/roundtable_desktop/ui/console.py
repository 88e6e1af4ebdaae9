"""Keep the terminal for the app's own lines; everything else the window's libraries print
goes to the log file.

Qt's own messages ("This plugin does not support propagateSizeHints()", QtTextToSpeech's
speechd complaints) go through `qInstallMessageHandler` into `logging`. Chromium's child
processes and native libraries (Vulkan, GPU vendor, dbus, pipewire) write straight to
file descriptor 2, which no Python handler sees: `route_native_stderr` points fd 2 at
`native.log` in the log folder, and `sys.stderr` at a copy of the original descriptor, so
the app's own one-line messages still reach the terminal. Chromium is also asked to log
only fatal errors. Call these once, before the QApplication exists. Must not be used by
the tests' in-process windows (they keep pytest's capture).
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import MutableMapping
from pathlib import Path

from PySide6.QtCore import QMessageLogContext, QtMsgType, qInstallMessageHandler

from roundtable_desktop.startup_checks import CHROMIUM_FLAGS_ENV

log = logging.getLogger("qt")
CHROMIUM_QUIET = "--log-level=3"  # fatal errors only
_LEVELS = {
    QtMsgType.QtDebugMsg: logging.DEBUG,
    QtMsgType.QtInfoMsg: logging.INFO,
    QtMsgType.QtWarningMsg: logging.WARNING,
    QtMsgType.QtCriticalMsg: logging.ERROR,
    QtMsgType.QtFatalMsg: logging.CRITICAL,
}


def quiet_chromium(env: MutableMapping[str, str]) -> None:
    flags = env.get(CHROMIUM_FLAGS_ENV, "")
    if not any(flag.startswith("--log-level") for flag in flags.split()):
        env[CHROMIUM_FLAGS_ENV] = f"{flags} {CHROMIUM_QUIET}".strip()


def _on_qt_message(kind: QtMsgType, _context: QMessageLogContext, message: str) -> None:
    log.log(_LEVELS.get(kind, logging.WARNING), "%s", message)


def route_qt_messages() -> None:
    qInstallMessageHandler(_on_qt_message)


def route_native_stderr(log_dir: Path) -> Path | None:
    """Point file descriptor 2 at `log_dir/native.log`, keeping `sys.stderr` on the
    terminal. Returns the file, or None when it could not be opened (then nothing
    changes: noise on the terminal beats losing the app's own lines)."""
    try:
        log_dir.mkdir(parents=True, exist_ok=True)
        path = log_dir / "native.log"
        target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        terminal = os.dup(2)
    except OSError:
        return None
    sys.stderr.flush()
    sys.stderr = open(terminal, "w", buffering=1, encoding="utf-8",  # noqa: SIM115
                      errors="replace", closefd=True)
    os.dup2(target, 2)  # children (QtWebEngineProcess) inherit the log file too
    os.close(target)
    return path
