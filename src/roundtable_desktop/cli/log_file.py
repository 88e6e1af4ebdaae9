"""Where the command line's log records go: the application's log file, never the terminal.

A library (the MCP SDK reading a server that prints garbage) or the store (a busy store,
a full disk while folding its log) logs warnings with their tracebacks; with no handler,
Python's last resort prints them on stderr, under the CLI's own one-line message, and a
warning the CLI also prints itself appears twice. `logging_to_file()` sends every record,
traceback and all, to `logs/roundtable.log` in the data folder (the file the window
writes), with known secrets scrubbed; Python warnings, an exception in a thread and one
raised where it cannot be (a `__del__`) go there too. When the file cannot be opened the
records are dropped: the terminal only ever gets the CLI's own lines. Everything is put
back as it was when the block ends (a test calls `main` many times in one process).
Must not print and must not import Qt.
"""

from __future__ import annotations

import logging
import logging.handlers
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from roundtable_desktop.domain.secrets import scrub
from roundtable_desktop.paths import data_dir

LOG_NAME = "roundtable.log"
_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
log = logging.getLogger("roundtable_desktop.cli")


class _ScrubbingFormatter(logging.Formatter):
    """A record as the file keeps it: no known key, not in its traceback either."""

    def format(self, record: logging.LogRecord) -> str:
        return scrub(super().format(record))


def log_path() -> Path:
    return data_dir() / "logs" / LOG_NAME


def _file_handler() -> tuple[logging.Handler, Path | None]:
    try:
        path = log_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        handler: logging.Handler = logging.handlers.RotatingFileHandler(
            path, maxBytes=1_000_000, backupCount=3, encoding="utf-8", delay=True)
    except OSError:
        return logging.NullHandler(), None
    handler.setFormatter(_ScrubbingFormatter(_FORMAT))
    return handler, path


@contextmanager
def logging_to_file() -> Iterator[Path | None]:
    """Log to the file (or nowhere) inside the block; yields the file's path, or None."""
    root = logging.getLogger()
    handler, path = _file_handler()
    saved: dict[str, Any] = {
        "level": root.level, "last_resort": logging.lastResort,
        "thread_hook": threading.excepthook, "unraisable_hook": sys.unraisablehook,
    }
    root.addHandler(handler)
    if root.level == logging.NOTSET or root.level > logging.INFO:
        root.setLevel(logging.INFO)
    logging.lastResort = None  # a record no handler takes is dropped, not printed
    logging.captureWarnings(True)
    threading.excepthook = _log_thread_exception
    sys.unraisablehook = _log_unraisable
    try:
        yield path
    finally:
        threading.excepthook = saved["thread_hook"]
        sys.unraisablehook = saved["unraisable_hook"]
        logging.captureWarnings(False)
        logging.lastResort = saved["last_resort"]
        root.setLevel(saved["level"])
        root.removeHandler(handler)
        handler.close()


def _log_thread_exception(args: threading.ExceptHookArgs) -> None:
    if args.exc_type is SystemExit:
        return
    log.error("an exception in thread %s", getattr(args.thread, "name", "?"),
              exc_info=args.exc_value or True)


def _log_unraisable(unraisable: Any) -> None:
    log.error("an exception that could not be raised (%s)", unraisable.err_msg or "ignored",
              exc_info=unraisable.exc_value or True)
