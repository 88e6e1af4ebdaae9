"""Opens a session-store file: its folder, the SQLite settings, the schema, or a refusal.

A store opened for writing gets one connection in autocommit mode (every write is its
own transaction, or an explicit BEGIN IMMEDIATE ... COMMIT), WAL so another reader sees
committed rows while this one writes, and NORMAL sync (a killed process loses nothing
committed); its log is folded into the file by store/checkpointer.py, not inside a
commit (unless the log outgrows BACKSTOP_PAGES). A file that belongs to another program
is refused before anything is written to it (its journal mode included); an older store
is migrated.

A store opened read-only (`open_readonly`) is never created, migrated or changed, and no
file appears next to it: with no `-wal` file beside it no process has it open, and it is
read as an immutable file (SQLite then makes no `-wal`/`-shm`); the file is watched, and
a read during which another process changed it is refused (`FileWatch`). With a `-wal`
file, a writer has it open, and it is read through the files that writer made.

`page_warnings` runs SQLite's quick check (about 1 ms per MB) so a store with damaged pages
is reported when it is opened, not when a session in it cannot be read.
Must not read or write sessions: store/database.py does, on the connection returned.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from urllib.parse import quote

from roundtable_desktop.store.errors import NoStore, StoreError, sqlite_error
from roundtable_desktop.store.migrations import APPLICATION_ID, LATEST_VERSION, migrate

BUSY_TIMEOUT_MS = 5000
# The log's length at which a commit checkpoints after all (see store/checkpointer.py),
# and the size the log file is cut back to once it starts over.
BACKSTOP_PAGES = 10_000
JOURNAL_LIMIT_BYTES = 8 * 1024**2
# Above this size the quick check would make opening slow (about a second per GB).
QUICK_CHECK_MAX_BYTES = 2 * 1024**3
# How many of the quick check's findings to count (it stops there).
_CHECK_LIMIT = 100


def open_connection(path: Path, *, busy_timeout_s: float = BUSY_TIMEOUT_MS / 1000
                    ) -> sqlite3.Connection:
    """A connection to the store at `path` (created if needed), its schema up to date."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(
            f"Cannot create the folder {path.parent} for the session store "
            f"({exc.strerror}). Choose a location you can write to."
        ) from None
    _refuse_folder(path)
    try:
        db = sqlite3.connect(str(path), isolation_level=None, timeout=busy_timeout_s)
    except sqlite3.Error as exc:
        raise sqlite_error(exc, path, "open the session store") from None
    try:
        db.execute(f"PRAGMA busy_timeout = {int(busy_timeout_s * 1000)}")
        # Before anything is written: another program's file stays as it was.
        _refuse_foreign(db, path)
        db.execute("PRAGMA journal_mode = WAL")
        # In WAL mode NORMAL survives a killed process (only power loss can undo the
        # last commits), and keeps streamed-text flushes cheap.
        db.execute("PRAGMA synchronous = NORMAL")
        # No checkpoint inside a commit: store/checkpointer.py folds the log in on a thread.
        # Only a writer that never pauses outruns it; past this many pages the commit
        # folds the log in itself, as SQLite does by default at 1000.
        db.execute(f"PRAGMA wal_autocheckpoint = {BACKSTOP_PAGES}")
        db.execute(f"PRAGMA journal_size_limit = {JOURNAL_LIMIT_BYTES}")
        db.execute("PRAGMA foreign_keys = ON")
        migrate(db, where=str(path))
    except StoreError:
        db.close()
        raise
    except sqlite3.Error as exc:
        db.close()
        raise sqlite_error(exc, path, "open the session store") from None
    return db


def open_readonly(path: Path) -> tuple[sqlite3.Connection, FileWatch | None]:
    """A read-only connection to an existing, up-to-date store, and the watch to check
    after each read (None when a writer has the store open: SQLite then keeps reads
    consistent itself). Creates, migrates and changes nothing."""
    if not path.exists():
        raise NoStore(f"There is no session store at {path}.")
    _refuse_folder(path)
    watch = None if Path(f"{path}-wal").exists() else FileWatch(path)
    uri = f"file:{quote(str(path.absolute()))}?mode=ro" + ("&immutable=1" if watch else "")
    try:
        db = sqlite3.connect(uri, uri=True, isolation_level=None,
                             timeout=BUSY_TIMEOUT_MS / 1000)
    except sqlite3.Error as exc:
        raise sqlite_error(exc, path, "open the session store") from None
    try:
        _refuse_foreign(db, path)
        _require_current(db, path)
    except StoreError:
        db.close()
        raise
    except sqlite3.Error as exc:
        db.close()
        raise sqlite_error(exc, path, "open the session store") from None
    return db, watch


class FileWatch:
    """Whether a file read as immutable was changed by another process since it was opened."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._seen = self._look()

    def _look(self) -> tuple[int, int] | None:
        try:
            stat = os.stat(self.path)
        except OSError:
            return None
        return stat.st_size, stat.st_mtime_ns

    def check(self) -> None:
        if self._look() != self._seen:
            raise StoreError(
                f"The session store {self.path} was changed by another program while it was "
                "being read. Run the command again."
            )


def page_warnings(db: sqlite3.Connection, path: Path) -> list[str]:
    """What SQLite's quick check finds wrong with the file's pages, as one warning (none
    when it is sound, or too large to check quickly)."""
    try:
        if path.stat().st_size > QUICK_CHECK_MAX_BYTES:
            return []
        rows = db.execute(f"PRAGMA quick_check({_CHECK_LIMIT})").fetchall()
    except (OSError, sqlite3.Error):
        rows = [("unreadable",)]
    problems = [str(r[0]) for r in rows if r and r[0] != "ok"]
    if not problems:
        return []
    count = f"{len(problems)}+" if len(problems) >= _CHECK_LIMIT else str(len(problems))
    return [
        f"The session store {path} is damaged ({count} problem(s) found in its pages): "
        "some sessions in it may not read back whole. Export what you need, then move the "
        "file aside to start a fresh store."
    ]


def _refuse_folder(path: Path) -> None:
    if path.is_dir():
        raise StoreError(f"The session store path {path} is a folder. Give the path of a file.")


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


def _require_current(db: sqlite3.Connection, path: Path) -> None:
    """A read-only open cannot migrate: an empty, older or newer store is refused."""
    version = int(db.execute("PRAGMA user_version").fetchone()[0])
    if version == 0:
        raise NoStore(f"There is no session store at {path} (the file is empty).")
    if version < LATEST_VERSION:
        raise StoreError(
            f"The session store {path} was written by an older version of roundtable and "
            "must be updated before it can be read: open it once in the app, or with "
            f"`roundtable run --db {path}`, then try again."
        )
    if version > LATEST_VERSION:
        raise StoreError(
            f"The session store {path} was written by a newer version of roundtable "
            f"(schema {version}; this version knows up to {LATEST_VERSION}). "
            "Update the application, or choose another session store."
        )
