"""Route unhandled exceptions (Qt slots, asyncio tasks and callbacks) to the log and to
one line in the banner, instead of a crash or a storm of dialogs.

qasync delivers exceptions from async slots only to sys.excepthook (PITFALLS), and
asyncio reports orphaned task errors to the loop's exception handler: both end here.
The banner collapses repeats. Must never show a traceback or re-raise into Qt, and
must not recurse if showing the message fails.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Callable
from types import TracebackType
from typing import Any

log = logging.getLogger("roundtable_desktop.unhandled")

ShowFn = Callable[[str, str, str], None]  # level, message, hint
MAX_MESSAGE_CHARS = 200
HINT = "The window still works. The details are in the log; please report them."


def describe(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    if len(text) > MAX_MESSAGE_CHARS:
        text = text[:MAX_MESSAGE_CHARS] + "…"
    what = type(exc).__name__
    return f"Something went wrong inside the app ({what}{': ' + text if text else ''})."


class UnhandledRouter:
    """Installs itself as sys.excepthook and as the loop's exception handler."""

    def __init__(self, show: ShowFn) -> None:
        self._show = show
        self._previous_hook = sys.excepthook
        self._showing = False

    def install(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        sys.excepthook = self.excepthook
        if loop is not None:
            loop.set_exception_handler(self.loop_handler)

    def uninstall(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        if sys.excepthook == self.excepthook:
            sys.excepthook = self._previous_hook
        if loop is not None:
            loop.set_exception_handler(None)

    def excepthook(
        self, exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None
    ) -> None:
        if issubclass(exc_type, KeyboardInterrupt | SystemExit):
            self._previous_hook(exc_type, exc, tb)
            return
        log.error("unhandled exception", exc_info=(exc_type, exc, tb))
        self._report(describe(exc))

    def loop_handler(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        exc = context.get("exception")
        if isinstance(exc, asyncio.CancelledError):
            return
        if isinstance(exc, BaseException):
            log.error("unhandled exception in the event loop: %s", context.get("message", ""),
                      exc_info=(type(exc), exc, exc.__traceback__))
            self._report(describe(exc))
        else:
            log.error("event loop error: %s", context.get("message", context))

    def _report(self, message: str) -> None:
        if self._showing:
            return
        self._showing = True
        try:
            self._show("error", message, HINT)
        except Exception:  # showing must never raise back into Qt
            log.exception("could not show an unhandled exception")
        finally:
            self._showing = False
