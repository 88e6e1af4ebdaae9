"""A session-store connection whose disk fills up on demand, and a store over it.

`FullDiskConnection` is a real sqlite3 connection that, while `full` is set, refuses every
statement that would write (INSERT, UPDATE, DELETE) with the error SQLite gives on a full
disk. Reads, BEGIN, COMMIT and ROLLBACK go through, as they do on a full disk. `full_when`
arms it from inside a statement instead (fill the disk at the Nth write of a kind).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from roundtable_desktop.store.database import SessionStore

_WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE")


class FullDiskConnection(sqlite3.Connection):
    full = False
    full_when: Callable[[str], bool] | None = None

    def _check(self, sql: str) -> None:
        if not sql.lstrip().upper().startswith(_WRITES):
            return
        if self.full_when is not None and self.full_when(sql):
            self.full = True
        if self.full:
            raise sqlite3.OperationalError("database or disk is full")

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:  # type: ignore[override]
        self._check(sql)
        return super().execute(sql, *args)

    def executemany(self, sql: str, *args: Any) -> sqlite3.Cursor:  # type: ignore[override]
        self._check(sql)
        return super().executemany(sql, *args)


def full_disk_store(path: Path) -> tuple[SessionStore, FullDiskConnection]:
    """A store at `path` (created and migrated first) whose connection can fill up."""
    SessionStore.open(path).close()
    db = sqlite3.connect(str(path), isolation_level=None, factory=FullDiskConnection)
    db.execute("PRAGMA foreign_keys = ON")
    return SessionStore(db, path), db
