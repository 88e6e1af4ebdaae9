"""The SQLite session store: sessions, their events, every model call, and checkpoints.

One connection per store, in autocommit mode: every write is committed when its method
returns, so a request row is on disk before the request is sent, and killing the process
loses at most the call in flight (DESIGN invariant 5). WAL mode lets a second reader
(another window, the CLI) see committed rows while this one writes. Every sqlite error
becomes a `StoreError` whose message names the file and what to do.

States, request bodies and prompt layers are stored content-addressed (store/blobs.py):
a row keeps a manifest of shared chunks, so a turn writes only the parts that changed.
Readers hand back the same records as ever: `SessionRecord.state`, `CallRecord.request`
and `Checkpoint.state` are the dicts that were written.

Must not hold secrets: request bodies and events are stripped of credential-looking
fields before they are written (invariant 6), as a second line of defence. Must not
import Qt, protocols or llm.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any

from pydantic import ValidationError

from roundtable_desktop.domain.calls import CallOutcome, CallStatus
from roundtable_desktop.domain.events import Event, event_from_json
from roundtable_desktop.domain.prompts import LayerText
from roundtable_desktop.store.blobs import BlobWriter, read_texts
from roundtable_desktop.store.chunking import JSON_LINE, JSON_OBJECT
from roundtable_desktop.store.connection import open_connection
from roundtable_desktop.store.encoding import call_record, layers_bytes, request_bytes, state_bytes
from roundtable_desktop.store.errors import SessionNotFound, StoreError, sqlite_error
from roundtable_desktop.store.records import (
    CallRecord,
    Checkpoint,
    SessionInfo,
    SessionRecord,
)
from roundtable_desktop.store.redaction import (
    storable_json,
    storable_model_json,
    storable_text,
    without_secret_fields,
)

__all__ = ["SessionStore", "StoreError", "without_secret_fields"]

log = logging.getLogger(__name__)

SESSION_STATUSES = ("active", "ended")


class SessionStore:
    """Sessions, events, calls and checkpoints in one SQLite file. Use `SessionStore.open`."""

    def __init__(
        self, db: sqlite3.Connection, path: Path, *, clock: Callable[[], float] = time.time
    ) -> None:
        self._db = db
        self._db.row_factory = sqlite3.Row
        self.path = path
        self._clock = clock
        self._blobs = BlobWriter(db)

    # -- opening and closing --------------------------------------------------------
    @classmethod
    def open(cls, path: Path, *, clock: Callable[[], float] = time.time) -> SessionStore:
        """Open (creating if needed) the store at `path` and bring its schema up to date."""
        path = Path(path)
        return cls(open_connection(path), path, clock=clock)

    def close(self) -> None:
        self._db.close()

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
    def _guard(self, doing: str, session_id: str | None = None) -> Iterator[None]:
        try:
            yield
        except sqlite3.IntegrityError as exc:
            if session_id is not None and "FOREIGN KEY" in str(exc):
                raise SessionNotFound(f"There is no stored session {session_id}.") from None
            raise StoreError(f"Could not {doing}: {exc}.") from None
        except sqlite3.Error as exc:
            raise sqlite_error(exc, self.path, doing) from None

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
        state: dict[str, Any] | str | bytes,
        meta: dict[str, Any] | None = None,
    ) -> str:
        """A new active session; `state` may come already encoded as JSON (str or bytes)."""
        session_id = uuid.uuid4().hex
        now = self._clock()
        with self._guard("create a session"), self._transaction():
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
        self, session_id: str, state: dict[str, Any] | str | bytes, status: str | None = None
    ) -> None:
        _check_status(status)
        with self._guard("save the session state", session_id), self._transaction():
            self._update_state(session_id, self._put_state(session_id, state), status,
                               self._clock())

    def delete_session(self, session_id: str) -> None:
        """Delete a session with its events, calls, checkpoints and stored text."""
        with self._guard("delete the session", session_id), self._transaction():
            cur = self._db.execute("DELETE FROM sessions WHERE id = ?", (session_id,))
            _require_row(cur, session_id)
            self._blobs.forget()

    def append_event(self, session_id: str, event: Event) -> int:
        """Record one event; returns its position (1-based) in the session."""
        with self._guard("record an event", session_id), self._transaction():
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
        state: dict[str, Any] | str | bytes,
        events: list[Event],
        status: str | None = None,
    ) -> None:
        """After an action: its events, the new state and a checkpoint in one transaction.

        `state` may come already encoded as JSON (a protocol's own fast dump, str or
        UTF-8 bytes); it is stored once, as chunks the previous state shares, and both
        the session row and the checkpoint keep its manifest.
        """
        _check_status(status)
        now = self._clock()
        with self._guard("save the session state", session_id), self._transaction():
            self._insert_events(session_id, events)
            manifest = self._put_state(session_id, state)
            self._update_state(session_id, manifest, status, now)
            self._insert_checkpoint(session_id, action, manifest, now)

    def append_events(self, session_id: str, events: list[Event]) -> None:
        """Record several events in one transaction."""
        if not events:
            return
        with self._guard("record events", session_id), self._transaction():
            self._insert_events(session_id, events)

    def add_checkpoint(
        self, session_id: str, action: str, state: dict[str, Any] | str | bytes
    ) -> int:
        """Record the state after an action; returns the checkpoint's position."""
        with self._guard("save a checkpoint", session_id), self._transaction():
            return self._insert_checkpoint(session_id, action,
                                           self._put_state(session_id, state), self._clock())

    # The statements below run inside the caller's guard and transaction.
    def _put_state(self, session_id: str, state: dict[str, Any] | str | bytes) -> bytes:
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
        seq = self._next_seq("checkpoints", session_id)
        self._db.execute(
            "INSERT INTO checkpoints (session_id, seq, action, state_manifest, ts)"
            " VALUES (?, ?, ?, ?, ?)",
            (session_id, seq, action, manifest, now),
        )
        return seq

    def _insert_events(self, session_id: str, events: list[Event]) -> int:
        """Insert events in order; returns the position of the first."""
        seq = self._next_seq("events", session_id)
        rows = [
            (session_id, seq + i, e.ts, e.type, storable_model_json(e))
            for i, e in enumerate(events)
        ]
        self._db.executemany(
            "INSERT INTO events (session_id, seq, ts, type, json) VALUES (?, ?, ?, ?, ?)", rows
        )
        return seq

    def _next_seq(self, table: str, session_id: str) -> int:
        # `table` is one of our own table names, never user input.
        row = self._db.execute(
            f"SELECT COALESCE(MAX(seq), 0) + 1 FROM {table} WHERE session_id = ?",
            (session_id,),
        ).fetchone()
        return int(row[0])

    # -- calls ----------------------------------------------------------------------
    def begin_call(
        self,
        session_id: str,
        call_id: str,
        actor_id: str | None,
        model: str,
        endpoint: str,
        request: dict[str, Any],
        *,
        purpose: str = "reply",
        label: str = "",
        layers: Sequence[LayerText] = (),
    ) -> None:
        """Record a request as pending. Committed on return: call it before sending.

        The body is cut against the same actor's previous request (or else the
        session's), so a turn stores the sections that changed, not the whole window.
        """
        body, layer_list = request_bytes(request), layers_bytes(layers)
        with self._guard("record the request", session_id), self._transaction():
            request_manifest = self._blobs.put(
                session_id, body, [("request", session_id, actor_id), ("request", session_id)],
                JSON_LINE,
            )
            layers_manifest = self._blobs.put(
                session_id, layer_list, [("layers", session_id, actor_id)], JSON_LINE
            )
            self._db.execute(
                "INSERT INTO calls (id, session_id, seq, actor_id, model, endpoint,"
                " request_manifest, layers_manifest, purpose, label, response_text, status,"
                " started_at) VALUES"
                " (?, ?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM calls WHERE session_id = ?),"
                " ?, ?, ?, ?, ?, ?, ?, '', ?, ?)",
                (
                    call_id,
                    session_id,
                    session_id,
                    actor_id,
                    model,
                    endpoint,
                    request_manifest,
                    layers_manifest,
                    storable_text(purpose),
                    storable_text(label),
                    CallStatus.PENDING.value,
                    self._clock(),
                ),
            )

    def update_call_text(self, call_id: str, text: str) -> None:
        """Keep the text streamed so far; ignored once the call has finished."""
        with self._guard("save the streamed text"):
            self._db.execute(
                "UPDATE calls SET response_text = ? WHERE id = ? AND status = ?",
                (storable_text(text), call_id, CallStatus.PENDING.value),
            )

    def finish_call(self, call_id: str, outcome: CallOutcome) -> None:
        with self._guard("record the response"):
            cur = self._db.execute(
                "UPDATE calls SET response_text = ?, status = ?, error = ?,"
                " prompt_tokens = ?, completion_tokens = ?, usage_estimated = ?,"
                " latency_ms = ?, first_token_ms = ?, cost_usd = ?, finish_reason = ?,"
                " finished_at = ? WHERE id = ?",
                (
                    storable_text(outcome.text),
                    outcome.status.value,
                    storable_text(outcome.error) if outcome.error is not None else None,
                    outcome.usage.prompt_tokens,
                    outcome.usage.completion_tokens,
                    int(outcome.usage.estimated),
                    outcome.latency_ms,
                    outcome.first_token_ms,
                    outcome.cost_usd,
                    outcome.finish_reason,
                    self._clock(),
                    call_id,
                ),
            )
        if cur.rowcount == 0:
            raise StoreError(f"No call {call_id} was started in this session store.")

    def mark_interrupted_calls(self, session_id: str) -> int:
        """Mark calls a killed process left pending as interrupted, keeping their text."""
        with self._guard("mark interrupted calls", session_id):
            cur = self._db.execute(
                "UPDATE calls SET status = ?, error = COALESCE(error, ?)"
                " WHERE session_id = ? AND status = ?",
                (
                    CallStatus.INTERRUPTED.value,
                    "The application stopped before this call finished;"
                    " the text received until then is kept.",
                    session_id,
                    CallStatus.PENDING.value,
                ),
            )
        return cur.rowcount

    def reopen_session(self, session_id: str) -> SessionRecord:
        """Load a session to continue it, first closing calls a killed process left open."""
        self.mark_interrupted_calls(session_id)
        return self.get_session(session_id)

    # -- readers --------------------------------------------------------------------
    def list_sessions(self, limit: int = 50) -> list[SessionInfo]:
        """Sessions, most recently active first."""
        with self._guard("list sessions"):
            rows = self._db.execute(
                "SELECT s.id, s.kind, s.scenario, s.title, s.status, s.created_at,"
                " s.updated_at, (SELECT COUNT(*) FROM calls c WHERE c.session_id = s.id)"
                " AS call_count FROM sessions s"
                " ORDER BY s.updated_at DESC, s.rowid DESC LIMIT ?",
                (limit,),
            ).fetchall()
        return [SessionInfo(**dict(row)) for row in rows]

    def latest_session_id(self) -> str | None:
        found = self.list_sessions(limit=1)
        return found[0].id if found else None

    def get_session(self, session_id: str) -> SessionRecord:
        with self._guard("read the session"):
            row = self._db.execute("SELECT * FROM sessions WHERE id = ?", (session_id,)).fetchone()
            if row is None:
                raise SessionNotFound(f"There is no stored session {session_id}.")
            (state,) = read_texts(self._db, [row["state_manifest"]])
        return SessionRecord(
            id=row["id"],
            kind=row["kind"],
            scenario=row["scenario"],
            title=row["title"],
            status=row["status"],
            created_at=row["created_at"],
            updated_at=row["updated_at"],
            state=json.loads(state),
            meta=json.loads(row["meta_json"]),
        )

    def resolve_session(self, prefix: str) -> str:
        """The id of the one session whose id starts with `prefix`."""
        prefix = prefix.strip().lower()
        if not prefix:
            raise SessionNotFound("Give a session id (or the first few characters of one).")
        with self._guard("find the session"):
            rows = self._db.execute(
                "SELECT id FROM sessions WHERE substr(id, 1, ?) = ? ORDER BY id LIMIT 6",
                (len(prefix), prefix),
            ).fetchall()
        ids = [row["id"] for row in rows]
        if prefix in ids:
            return prefix
        if not ids:
            raise SessionNotFound(
                f"No stored session id starts with {prefix!r}. List sessions to see the ids."
            )
        if len(ids) > 1:
            shown = ", ".join(i[: len(prefix) + 4] for i in ids[:5])
            raise StoreError(
                f"More than one session id starts with {prefix!r} ({shown}, ...). "
                "Type more characters of the id."
            )
        return ids[0]

    def calls(self, session_id: str) -> list[CallRecord]:
        with self._guard("read the calls"):
            rows = self._db.execute(
                "SELECT * FROM calls WHERE session_id = ? ORDER BY seq", (session_id,)
            ).fetchall()
            return self._call_records(rows)

    def call(self, call_id: str) -> CallRecord:
        with self._guard("read the call"):
            row = self._db.execute("SELECT * FROM calls WHERE id = ?", (call_id,)).fetchone()
            if row is None:
                raise StoreError(f"No call {call_id} is stored in this session store.")
            return self._call_records([row])[0]

    def _call_records(self, rows: list[sqlite3.Row]) -> list[CallRecord]:
        manifests = [m for row in rows for m in (row["request_manifest"], row["layers_manifest"])]
        texts = iter(read_texts(self._db, manifests))
        return [call_record(row, next(texts), next(texts)) for row in rows]

    def events(self, session_id: str) -> list[Event]:
        """The session's events in order. An event this version cannot read is skipped."""
        with self._guard("read the events"):
            rows = self._db.execute(
                "SELECT id, json FROM events WHERE session_id = ? ORDER BY seq", (session_id,)
            ).fetchall()
        found: list[Event] = []
        for row in rows:
            try:
                found.append(event_from_json(row["json"]))
            except ValidationError:
                log.warning("skipping unreadable event %s in session %s", row["id"], session_id)
        return found

    def checkpoints(self, session_id: str) -> list[Checkpoint]:
        with self._guard("read the checkpoints"):
            rows = self._db.execute(
                "SELECT * FROM checkpoints WHERE session_id = ? ORDER BY seq", (session_id,)
            ).fetchall()
            states = read_texts(self._db, [row["state_manifest"] for row in rows])
        return [
            Checkpoint(
                session_id=row["session_id"],
                seq=row["seq"],
                action=row["action"],
                state=json.loads(state),
                ts=row["ts"],
            )
            for row, state in zip(rows, states, strict=True)
        ]


def _check_status(status: str | None) -> None:
    if status is not None and status not in SESSION_STATUSES:
        raise StoreError(f"A session's status is 'active' or 'ended', not {status!r}.")


def _require_row(cur: sqlite3.Cursor, session_id: str) -> None:
    if cur.rowcount == 0:
        raise SessionNotFound(f"There is no stored session {session_id}.")
