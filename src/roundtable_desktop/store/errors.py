"""The store's error types, and how a sqlite error becomes one a user can act on.

Callers never see raw sqlite errors: messages name the database path and say what to
do. Must not include anything from a request body (a message is shown and may be
logged).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path


class StoreError(Exception):
    """The session store could not do what was asked; `message` says why and what to do."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class SessionNotFound(StoreError):
    """No stored session has the id (or id prefix) that was asked for."""


class NoStore(StoreError):
    """A read-only open found no session store at the path (nothing was created)."""


class SessionLocked(StoreError):
    """Another process (or another store in this one) is writing the session."""


def sqlite_error(exc: sqlite3.Error, path: Path, doing: str) -> StoreError:
    """A StoreError for a sqlite error: what went wrong and what to do."""
    text = str(exc).lower()
    if "not a database" in text or "malformed" in text or "corrupt" in text:
        return StoreError(
            f"{path} is not a roundtable session store (the file is corrupt or in another "
            "format). Move it aside to start fresh."
        )
    if "locked" in text or "busy" in text:
        return StoreError(
            f"Could not {doing}: the session store {path} is busy in another program. "
            "Close other roundtable windows and try again."
        )
    if "readonly" in text or "read-only" in text or "unable to open" in text:
        return StoreError(
            f"Could not {doing}: the session store {path} cannot be opened for writing. "
            "Check that the file and its folder are writable."
        )
    if "full" in text or "disk i/o" in text:
        return StoreError(
            f"Could not {doing}: writing the session store {path} failed ({exc}). "
            "Free some disk space and try again."
        )
    return StoreError(f"Could not {doing} in the session store {path} ({exc}).")
