"""Opens a session-store file: its folder, the SQLite settings, the schema, or a refusal.

One connection in autocommit mode (every write is its own transaction, or an explicit
BEGIN IMMEDIATE ... COMMIT), WAL so another reader sees committed rows while this one
writes, and NORMAL sync (a killed process loses nothing committed). A file that belongs
to another program is refused rather than given our tables; an older store is migrated.
Must not read or write sessions: store/database.py does, on the connection returned.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from roundtable_desktop.store.errors import StoreError, sqlite_error
from roundtable_desktop.store.migrations import APPLICATION_ID, migrate

BUSY_TIMEOUT_MS = 5000


def open_connection(path: Path) -> sqlite3.Connection:
    """A connection to the store at `path` (created if needed), its schema up to date."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(
            f"Cannot create the folder {path.parent} for the session store "
            f"({exc.strerror}). Choose a location you can write to."
        ) from None
    if path.is_dir():
        raise StoreError(f"The session store path {path} is a folder. Give the path of a file.")
    try:
        db = sqlite3.connect(str(path), isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000)
    except sqlite3.Error as exc:
        raise sqlite_error(exc, path, "open the session store") from None
    try:
        db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        db.execute("PRAGMA journal_mode = WAL")
        # In WAL mode NORMAL survives a killed process (only power loss can undo the
        # last commits), and keeps streamed-text flushes cheap.
        db.execute("PRAGMA synchronous = NORMAL")
        db.execute("PRAGMA foreign_keys = ON")
        _refuse_foreign(db, path)
        migrate(db, where=str(path))
    except StoreError:
        db.close()
        raise
    except sqlite3.Error as exc:
        db.close()
        raise sqlite_error(exc, path, "open the session store") from None
    return db


def _refuse_foreign(db: sqlite3.Connection, path: Path) -> None:
    """Refuse a SQLite file that belongs to another program rather than add our tables."""
    app_id = int(db.execute("PRAGMA application_id").fetchone()[0])
    version = int(db.execute("PRAGMA user_version").fetchone()[0])
    has_tables = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' LIMIT 1").fetchone()
    if app_id not in (0, APPLICATION_ID) or (version == 0 and has_tables):
        raise StoreError(
            f"{path} is not a roundtable session store (it is another program's SQLite "
            "database). Choose another file, or move this one aside to start fresh."
        )
