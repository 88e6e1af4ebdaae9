"""The session store's schema, as an ordered list of migrations (after simonw/llm).

Migration N (1-based position in `MIGRATIONS`) takes a database from schema version
N-1 to N; the version reached is kept in `PRAGMA user_version`, written in the same
transaction as the migration, so a crash never leaves a half-applied step. Opening an
older store applies the missing steps; a store written by a newer application is
refused. Append new migrations at the end; never edit or reorder a released one.
Must not open files or know paths: the caller hands in a connection.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from roundtable_desktop.store.blobs import put_chunks
from roundtable_desktop.store.errors import StoreError
from roundtable_desktop.store.redaction import storable_text

Migration = Callable[[sqlite3.Connection], None]

# "RTDB" in the SQLite header marks the file as ours, so another program's file is refused.
APPLICATION_ID = 0x52544442


def m001_sessions_and_events(db: sqlite3.Connection) -> None:
    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    db.execute(
        """
        CREATE TABLE sessions (
            id TEXT PRIMARY KEY,
            kind TEXT NOT NULL,
            scenario TEXT NOT NULL,
            title TEXT NOT NULL,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL,
            status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'ended')),
            state_json TEXT NOT NULL DEFAULT '{}',
            prompt_snapshot_json TEXT NOT NULL DEFAULT '{}',
            meta_json TEXT NOT NULL DEFAULT '{}'
        )
        """
    )
    db.execute("CREATE INDEX idx_sessions_updated_at ON sessions (updated_at)")
    db.execute(
        """
        CREATE TABLE events (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            ts REAL NOT NULL,
            type TEXT NOT NULL,
            json TEXT NOT NULL
        )
        """
    )
    db.execute("CREATE UNIQUE INDEX idx_events_session_seq ON events (session_id, seq)")


def m002_calls(db: sqlite3.Connection) -> None:
    db.execute(
        """
        CREATE TABLE calls (
            id TEXT PRIMARY KEY,
            session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            actor_id TEXT,
            model TEXT NOT NULL,
            endpoint TEXT NOT NULL,
            request_json TEXT NOT NULL,
            response_text TEXT NOT NULL DEFAULT '',
            status TEXT NOT NULL,
            error TEXT,
            prompt_tokens INTEGER,
            completion_tokens INTEGER,
            usage_estimated INTEGER,
            latency_ms REAL,
            first_token_ms REAL,
            cost_usd REAL,
            finish_reason TEXT,
            started_at REAL NOT NULL,
            finished_at REAL
        )
        """
    )
    db.execute("CREATE INDEX idx_calls_session_seq ON calls (session_id, seq)")


def m003_checkpoints(db: sqlite3.Connection) -> None:
    # One row per finished action: the state after it, so replay can step turn by turn.
    db.execute(
        """
        CREATE TABLE checkpoints (
            session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            action TEXT NOT NULL,
            state_json TEXT NOT NULL,
            ts REAL NOT NULL,
            PRIMARY KEY (session_id, seq)
        )
        """
    )


def m004_content_addressed_texts(db: sqlite3.Connection) -> None:
    """States and request bodies become manifests of a session's chunks; calls say what
    they are for (purpose, label) and keep their prompt layers; the never-used prompt
    snapshot column goes."""
    _require_drop_column(db)
    # A chunk of a session's UTF-8 text, keyed by a salted 16-byte SHA-256 prefix
    # (store/blobs.py); deleted with its session.
    db.execute(
        """
        CREATE TABLE blobs (
            hash BLOB PRIMARY KEY,
            session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
            data BLOB NOT NULL
        )
        """
    )
    db.execute("CREATE INDEX idx_blobs_session ON blobs (session_id)")
    db.execute("ALTER TABLE sessions ADD COLUMN state_manifest BLOB NOT NULL DEFAULT x''")
    db.execute("ALTER TABLE checkpoints ADD COLUMN state_manifest BLOB NOT NULL DEFAULT x''")
    db.execute("ALTER TABLE calls ADD COLUMN request_manifest BLOB NOT NULL DEFAULT x''")
    db.execute("ALTER TABLE calls ADD COLUMN layers_manifest BLOB NOT NULL DEFAULT x''")
    db.execute("ALTER TABLE calls ADD COLUMN purpose TEXT NOT NULL DEFAULT 'reply'")
    db.execute("ALTER TABLE calls ADD COLUMN label TEXT NOT NULL DEFAULT ''")
    _move_into_blobs(db, "sessions", "id", "state_json", "state_manifest")
    _move_into_blobs(db, "checkpoints", "session_id", "state_json", "state_manifest")
    _move_into_blobs(db, "calls", "session_id", "request_json", "request_manifest")
    for table, column in (
        ("sessions", "state_json"),
        ("sessions", "prompt_snapshot_json"),
        ("checkpoints", "state_json"),
        ("calls", "request_json"),
    ):
        db.execute(f"ALTER TABLE {table} DROP COLUMN {column}")


def m005_event_rows_per_write(db: sqlite3.Connection) -> None:
    """An events row may hold the several events one write recorded (an action's, in
    order): `count` says how many, and `seq` is the position of the first. A row of one
    event is as before."""
    db.execute("ALTER TABLE events ADD COLUMN count INTEGER NOT NULL DEFAULT 1")


def m006_session_branches(db: sqlite3.Connection) -> None:
    """A session may be a branch of another: its parent, the parent's checkpoint it
    started from (`parent_step`), and what was changed before its first own step (a JSON
    list of sentences). A comparison keeps two branches of the same step and, per step
    they were run together, which calls each side made (store/branches.py)."""
    db.execute("ALTER TABLE sessions ADD COLUMN parent_id TEXT")
    db.execute("ALTER TABLE sessions ADD COLUMN parent_step INTEGER")
    db.execute("ALTER TABLE sessions ADD COLUMN branch_changes TEXT NOT NULL DEFAULT '[]'")
    db.execute("CREATE INDEX idx_sessions_parent ON sessions (parent_id)")
    db.execute(
        """
        CREATE TABLE comparisons (
            id TEXT PRIMARY KEY,
            parent_id TEXT NOT NULL,
            parent_step INTEGER NOT NULL,
            left_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
            right_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
            created_at REAL NOT NULL,
            steps_json TEXT NOT NULL DEFAULT '[]'
        )
        """
    )


def _move_into_blobs(
    db: sqlite3.Connection, table: str, session: str, source: str, target: str
) -> None:
    # One row at a time: an old store's texts may not fit in memory together.
    rowids = [r[0] for r in db.execute(f"SELECT rowid FROM {table} ORDER BY rowid")]
    for rowid in rowids:
        session_id, text = db.execute(
            f"SELECT {session}, {source} FROM {table} WHERE rowid = ?", (rowid,)
        ).fetchone()
        manifest = put_chunks(db, session_id, storable_text(text or "").encode("utf-8"))
        db.execute(f"UPDATE {table} SET {target} = ? WHERE rowid = ?", (manifest, rowid))


def _require_drop_column(db: sqlite3.Connection) -> None:
    version = tuple(int(n) for n in sqlite3.sqlite_version.split(".")[:2])
    if version < (3, 35):
        raise StoreError(
            f"This session store needs an update that SQLite {sqlite3.sqlite_version} "
            "cannot make (it needs 3.35 or newer). Install a Python built with a newer "
            "SQLite, or keep using the previous version of roundtable with this store."
        )


MIGRATIONS: tuple[Migration, ...] = (
    m001_sessions_and_events,
    m002_calls,
    m003_checkpoints,
    m004_content_addressed_texts,
    m005_event_rows_per_write,
    m006_session_branches,
)

LATEST_VERSION = len(MIGRATIONS)


def schema_version(db: sqlite3.Connection) -> int:
    return int(db.execute("PRAGMA user_version").fetchone()[0])


def migrate(db: sqlite3.Connection, *, target: int | None = None, where: str = "") -> list[int]:
    """Apply the missing migrations up to `target` (default: all); return the versions applied.

    `db` must be in autocommit mode (isolation_level=None) so each step is its own
    explicit transaction. `where` names the database in error messages.
    """
    goal = LATEST_VERSION if target is None else target
    current = schema_version(db)
    if current > LATEST_VERSION:
        raise StoreError(
            f"The session store {where or 'database'} was written by a newer version of "
            f"roundtable (schema {current}; this version knows up to {LATEST_VERSION}). "
            "Update the application, or choose another session store."
        )
    applied: list[int] = []
    while True:
        # Re-read the version inside the write lock: another process may have migrated
        # the same file between our first look and now.
        db.execute("BEGIN IMMEDIATE")
        try:
            version = schema_version(db) + 1
            if version > goal:
                db.execute("COMMIT")
                return applied
            MIGRATIONS[version - 1](db)
            # PRAGMA takes no parameters; `version` is our own int.
            db.execute(f"PRAGMA user_version = {int(version)}")
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        applied.append(version)
