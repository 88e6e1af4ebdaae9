"""The SQLite session store: sessions, their events, every model call, and checkpoints.

One connection per store, in autocommit mode: every write is committed when its method
returns, so a request row is on disk before the request is sent, and killing the process
loses at most the call in flight (DESIGN invariant 5). WAL mode lets a second reader
(another window, the CLI) see committed rows while this one writes. Every sqlite error
becomes a `StoreError` whose message names the file and what to do. The store's readers
are in store/reading.py and its model-call writers in store/call_writes.py (it inherits
both); this module opens and closes it and writes sessions, events and checkpoints.

States, request bodies and prompt layers are stored content-addressed (store/blobs.py):
a row keeps a manifest of shared chunks, so a turn writes only the parts that changed.
Readers hand back the same records as ever: `SessionRecord.state`, `CallRecord.request`
and `Checkpoint.state` are the dicts that were written.

A store opened `readonly` (the `sessions` and `export` commands) creates, migrates and
changes nothing (store/connection.py) and refuses every write. A process that writes a
session holds its lock (`lock_session`, store/session_lock.py), so a second process is
refused rather than interleave two timelines.

Readers never let one damaged row make a session unreadable: a call, checkpoint or event
whose stored text is missing, cut short, not UTF-8 or not a valid record is skipped, and
a warning naming it (never quoting what is stored) waits in `take_warnings()` for the
caller to show, with any warning from opening (damaged pages). A damaged latest state is
a clear StoreError where a session is continued (`get_session`), and the last readable
checkpoint's state where it is only shown (`get_session(..., damaged_ok=True)`).

Must not hold secrets: request bodies and events are stripped of credential-looking
fields before they are written (invariant 6), as a second line of defence. Must not
import Qt, protocols or llm.
"""

from __future__ import annotations

import logging
import sqlite3
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any

from roundtable_desktop.domain.events import Event
from roundtable_desktop.store.blobs import BlobWriter
from roundtable_desktop.store.branches import BranchRecords
from roundtable_desktop.store.call_writes import CallWrites
from roundtable_desktop.store.checkpointer import WalCheckpointer
from roundtable_desktop.store.chunk_reads import ChunkReads
from roundtable_desktop.store.chunking import JSON_OBJECT
from roundtable_desktop.store.connection import (
    BUSY_TIMEOUT_MS,
    FileWatch,
    open_connection,
    open_readonly,
    page_warnings,
)
from roundtable_desktop.store.encoding import StoredState, state_bytes
from roundtable_desktop.store.errors import SessionNotFound, StoreError, sqlite_error
from roundtable_desktop.store.reading import SessionReads
from roundtable_desktop.store.records import SessionRecord
from roundtable_desktop.store.redaction import (
    storable_json,
    storable_model_json,
    storable_text,
    without_secret_fields,
)
from roundtable_desktop.store.session_lock import SessionLock, lock_session

__all__ = ["SessionStore", "StoreError", "without_secret_fields"]

log = logging.getLogger(__name__)

SESSION_STATUSES = ("active", "ended")
# The `type` of an events row that holds several events (its `json` is their list).
EVENT_BATCH = "batch"
# Warnings kept for the caller at most (a store with thousands of damaged rows).
MAX_WARNINGS = 200


class SessionStore(SessionReads, ChunkReads, CallWrites, BranchRecords):
    """Sessions, events, calls and checkpoints in one SQLite file. Use `SessionStore.open`."""

    def __init__(
        self, db: sqlite3.Connection, path: Path, *, clock: Callable[[], float] = time.time,
        readonly: bool = False, watch: FileWatch | None = None,
    ) -> None:
        self._db = db
        self._db.row_factory = sqlite3.Row
        self.path = path
        self.readonly = readonly
        self._watch = watch
        self._clock = clock
        self._blobs = BlobWriter(db)
        self._warnings: dict[str, None] = {}  # ordered, without repeats
        self._notes: list[list[str]] = []  # lists noting_warnings() hands out
        self._locks: dict[str, SessionLock] = {}
        self._lock_counts: Counter[str] = Counter()
        # A store open for writing folds its log in on a thread (store/checkpointer.py).
        self._checkpointer = None if readonly else WalCheckpointer(path)

    # -- opening and closing --------------------------------------------------------
    @classmethod
    def open(
        cls, path: Path, *, clock: Callable[[], float] = time.time, readonly: bool = False,
        busy_timeout_s: float = BUSY_TIMEOUT_MS / 1000,
    ) -> SessionStore:
        """Open the store at `path`. For writing it is created if needed and its schema
        brought up to date; `readonly` creates and changes nothing (NoStore when there is
        none). Damaged pages found on opening wait in `take_warnings()`."""
        path = Path(path)
        if readonly:
            db, watch = open_readonly(path)
            store = cls(db, path, clock=clock, readonly=True, watch=watch)
        else:
            store = cls(open_connection(path, busy_timeout_s=busy_timeout_s), path, clock=clock)
        for warning in page_warnings(store._db, path):
            store._warn(warning)
        return store

    def close(self) -> None:
        """Close the connection and release every session lock this store holds."""
        for lock in self._locks.values():
            lock.release()
        self._locks.clear()
        self._lock_counts.clear()
        if self._checkpointer is not None:
            self._checkpointer.close()  # first: closing the last connection folds the rest
        self._db.close()

    def wait_checkpointed(self, timeout: float = 5.0) -> bool:
        """Wait until the checkpoint thread has folded in every commit so far (a caller
        about to measure or copy the file); True when it has, or there is none."""
        return self._checkpointer is None or self._checkpointer.wait_idle(timeout)

    # -- warnings for the caller ----------------------------------------------------
    def take_warnings(self) -> list[str]:
        """What the store found damaged since the last call (opening included), in order."""
        found, self._warnings = list(self._warnings), {}
        return found

    @contextmanager
    def noting_warnings(self) -> Iterator[list[str]]:
        """A list that receives every warning given inside the block (repeats included)."""
        found: list[str] = []
        self._notes.append(found)
        try:
            yield found
        finally:
            self._notes.remove(found)

    def _warn(self, message: str) -> None:
        log.warning("%s", message)
        if len(self._warnings) < MAX_WARNINGS:
            self._warnings[message] = None
        for found in self._notes:
            found.append(message)

    # -- one writer per session -----------------------------------------------------
    def lock_session(self, session_id: str) -> None:
        """Hold the session for this store: another process (or store) asking for it is
        refused with SessionLocked naming this one. Taking it again is counted."""
        if self.readonly:
            raise StoreError(f"The session store {self.path} is open read-only: "
                             "it cannot hold a session to write it.")
        if session_id not in self._locks:
            self._locks[session_id] = lock_session(self.path, session_id,
                                                   short_id=session_id[:8])
        self._lock_counts[session_id] += 1

    def unlock_session(self, session_id: str) -> None:
        """Give back one `lock_session`; the last one releases the lock."""
        self._lock_counts[session_id] -= 1
        if self._lock_counts[session_id] <= 0:
            del self._lock_counts[session_id]
            lock = self._locks.pop(session_id, None)
            if lock is not None:
                lock.release()

    def __enter__(self) -> SessionStore:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @contextmanager
    def _guard(
        self, doing: str, session_id: str | None = None, *, write: bool = False
    ) -> Iterator[None]:
        if write and self.readonly:
            raise StoreError(f"Could not {doing}: the session store {self.path} is open "
                             "read-only.")
        try:
            yield
        except sqlite3.IntegrityError as exc:
            if session_id is not None and "FOREIGN KEY" in str(exc):
                raise SessionNotFound(f"There is no stored session {session_id}.") from None
            raise StoreError(f"Could not {doing}: {exc}.") from None
        except sqlite3.Error as exc:
            raise sqlite_error(exc, self.path, doing) from None
        if write and self._checkpointer is not None:
            self._checkpointer.committed()
        if self._watch is not None:
            self._watch.check()  # read as immutable: refuse what another process changed

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            # Chunks written in this transaction are gone: never cut against them again.
            self._blobs.forget()
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    # -- sessions -------------------------------------------------------------------
    def create_session(
        self,
        kind: str,
        scenario: str,
        title: str,
        state: StoredState,
        meta: dict[str, Any] | None = None,
    ) -> str:
        """A new active session; `state` may come already encoded as JSON (str, bytes or
        pieces, see StoredState)."""
        session_id = uuid.uuid4().hex
        now = self._clock()
        with self._guard("create a session", write=True), self._transaction():
            self._db.execute(
                "INSERT INTO sessions (id, kind, scenario, title, created_at, updated_at,"
                " status, meta_json) VALUES (?, ?, ?, ?, ?, ?, 'active', ?)",
                (session_id, kind, scenario, storable_text(title), now, now,
                 storable_json(meta or {})),
            )
            # The row first: the state's chunks belong to it.
            self._update_state(session_id, self._put_state(session_id, state), None, now)
        return session_id

    def save_state(
        self, session_id: str, state: StoredState, status: str | None = None
    ) -> None:
        _check_status(status)
        with self._guard("save the session state", session_id, write=True), self._transaction():
            self._update_state(session_id, self._put_state(session_id, state), status,
                               self._clock())

    def delete_session(self, session_id: str) -> None:
        """Delete a session with its events, calls, checkpoints and stored text."""
        with self._guard("delete the session", session_id, write=True), self._transaction():
            cur = self._db.execute("DELETE FROM sessions WHERE id = ?", (session_id,))
            _require_row(cur, session_id)
            self._blobs.forget()

    def append_event(self, session_id: str, event: Event) -> int:
        """Record one event; returns its position (1-based) in the session."""
        with self._guard("record an event", session_id, write=True), self._transaction():
            seq = self._insert_events(session_id, [event])
            self._db.execute(
                "UPDATE sessions SET updated_at = ? WHERE id = ?", (self._clock(), session_id)
            )
        return seq

    def record_step(
        self,
        session_id: str,
        *,
        action: str,
        state: StoredState,
        events: list[Event],
        status: str | None = None,
    ) -> None:
        """After an action: its events, the new state and a checkpoint in one transaction.

        `state` may come already encoded as JSON (a protocol's own fast dump, str, UTF-8
        bytes or pieces); it is stored once, as chunks the previous state shares, and
        both the session row and the checkpoint keep its manifest.
        """
        _check_status(status)
        now = self._clock()
        with self._guard("save the session state", session_id, write=True), self._transaction():
            self._insert_events(session_id, events)
            manifest = self._put_state(session_id, state)
            self._update_state(session_id, manifest, status, now)
            self._insert_checkpoint(session_id, action, manifest, now)

    def append_events(self, session_id: str, events: list[Event]) -> None:
        """Record several events in one transaction."""
        if not events:
            return
        with self._guard("record events", session_id, write=True), self._transaction():
            self._insert_events(session_id, events)

    def add_checkpoint(
        self, session_id: str, action: str, state: StoredState
    ) -> int:
        """Record the state after an action; returns the checkpoint's position."""
        with self._guard("save a checkpoint", session_id, write=True), self._transaction():
            return self._insert_checkpoint(session_id, action,
                                           self._put_state(session_id, state), self._clock())

    # The statements below run inside the caller's guard and transaction.
    def _put_state(self, session_id: str, state: StoredState) -> bytes:
        return self._blobs.put(session_id, state_bytes(state), [("state", session_id)],
                               JSON_OBJECT)

    def _update_state(
        self, session_id: str, manifest: bytes, status: str | None, now: float
    ) -> None:
        cur = self._db.execute(
            "UPDATE sessions SET state_manifest = ?, status = COALESCE(?, status),"
            " updated_at = ? WHERE id = ?",
            (manifest, status, now, session_id),
        )
        _require_row(cur, session_id)

    def _insert_checkpoint(self, session_id: str, action: str, manifest: bytes, now: float) -> int:
        seq = int(self._db.execute(
            "SELECT COALESCE(MAX(seq), 0) + 1 FROM checkpoints WHERE session_id = ?",
            (session_id,),
        ).fetchone()[0])
        self._db.execute(
            "INSERT INTO checkpoints (session_id, seq, action, state_manifest, ts)"
            " VALUES (?, ?, ?, ?, ?)",
            (session_id, seq, action, manifest, now),
        )
        return seq

    def _insert_events(self, session_id: str, events: list[Event]) -> int:
        """Insert events in order, as one row (see migration 5); returns the position of
        the first. One row, not one per event: an action records ~12 events, and each row
        is an insert into the table and its index."""
        row = self._db.execute(
            "SELECT seq + count FROM events WHERE session_id = ? ORDER BY seq DESC LIMIT 1",
            (session_id,),
        ).fetchone()
        seq = int(row[0]) if row is not None else 1
        if not events:
            return seq
        texts = [storable_model_json(e) for e in events]
        one = len(events) == 1
        self._db.execute(
            "INSERT INTO events (session_id, seq, ts, type, json, count)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (session_id, seq, events[0].ts, events[0].type if one else EVENT_BATCH,
             texts[0] if one else f"[{','.join(texts)}]", len(events)),
        )
        return seq

    def reopen_session(self, session_id: str) -> SessionRecord:
        """Load a session to continue it, first closing calls a killed process left open."""
        self.mark_interrupted_calls(session_id)
        return self.get_session(session_id)

def _check_status(status: str | None) -> None:
    if status is not None and status not in SESSION_STATUSES:
        raise StoreError(f"A session's status is 'active' or 'ended', not {status!r}.")


def _require_row(cur: sqlite3.Cursor, session_id: str) -> None:
    if cur.rowcount == 0:
        raise SessionNotFound(f"There is no stored session {session_id}.")
