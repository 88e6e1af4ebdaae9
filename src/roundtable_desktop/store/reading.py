"""Reads stored rows back as records; a damaged row is skipped with a warning naming it.

`SessionReads` holds SessionStore's readers (the store inherits them); the functions
below turn rows into records.

A row is damaged when its stored text is missing, cut short, not UTF-8 or not a JSON
object, or when it does not make a valid record (a damaged page, a bit flip, a version
that wrote what this one cannot read). One damaged row never makes a session unreadable:
it is skipped and `warn` is told which one (what kind of row, its position, the session),
never what it holds, since a warning is shown, logged and may be exported.
Must not write (every statement here is a SELECT), and must not know how texts are cut
into chunks (store/blobs.py reads them).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from roundtable_desktop.domain.events import Event, event_from_data, event_from_json
from roundtable_desktop.store.blobs import read_texts_or_none
from roundtable_desktop.store.encoding import call_record
from roundtable_desktop.store.errors import SessionNotFound, StoreError
from roundtable_desktop.store.records import CallRecord, Checkpoint, SessionInfo, SessionRecord

Warn = Callable[[str], None]

# What building a record from a damaged row may raise: bad JSON or a wrong shape
# (ValueError, pydantic's ValidationError included), a missing key, runaway nesting.
DAMAGE = (ValueError, TypeError, KeyError, RecursionError)


def json_object(text: object) -> dict[str, Any] | None:
    """`text` parsed as a JSON object, or None when it is not one (or not text at all)."""
    if not isinstance(text, str):
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def short_id(session_id: object) -> str:
    return str(session_id)[:8] if isinstance(session_id, str) else "?"


def skipped(what: str, row: sqlite3.Row, why: str = "it is damaged in the store", *,
            position: str | None = None) -> str:
    """The warning for a skipped row (or the part of it at `position`): which one, never
    what it holds."""
    if position is None:
        seq = row["seq"]
        position = str(seq) if isinstance(seq, int) else "?"
    return f"Skipped {what} {position} of session {short_id(row['session_id'])}: {why}."


def session_infos(rows: Sequence[sqlite3.Row], warn: Warn) -> list[SessionInfo]:
    found: list[SessionInfo] = []
    for row in rows:
        try:
            found.append(SessionInfo(**dict(row)))
        except DAMAGE:
            warn(f"Skipped session {short_id(row['id'])} in the list: it is damaged in the "
                 "store.")
    return found


def call_records(db: sqlite3.Connection, rows: Sequence[sqlite3.Row],
                 warn: Warn) -> list[CallRecord]:
    manifests = [m for row in rows for m in (row["request_manifest"], row["layers_manifest"])]
    texts = iter(read_texts_or_none(db, manifests))
    found: list[CallRecord] = []
    for row in rows:
        request, layers = next(texts), next(texts)
        try:
            if request is None or layers is None:
                raise ValueError("a stored text is damaged")
            found.append(call_record(row, request, layers))
        except DAMAGE:
            warn(skipped("call", row))
    return found


def checkpoint_records(db: sqlite3.Connection, rows: Sequence[sqlite3.Row],
                       warn: Warn) -> list[Checkpoint]:
    states = read_texts_or_none(db, [row["state_manifest"] for row in rows])
    found: list[Checkpoint] = []
    for row, text in zip(rows, states, strict=True):
        state = json_object(text)
        try:
            if state is None:
                raise ValueError("the stored state is damaged")
            found.append(Checkpoint(session_id=row["session_id"], seq=row["seq"],
                                    action=row["action"], state=state, ts=row["ts"]))
        except DAMAGE:
            warn(skipped("checkpoint", row, "its saved state is damaged in the store"))
    return found


_UNREADABLE_EVENT = ("this version cannot read it (it is damaged, or was written by a "
                     "newer version)")


def event_records(rows: Sequence[sqlite3.Row], warn: Warn) -> list[Event]:
    """The events of the rows in order. A row may hold several (store/migrations.py, 5):
    a list that cannot be read is skipped whole, an event in it that cannot be read alone."""
    found: list[Event] = []
    for row in rows:
        count = row["count"]
        if count == 1:
            try:
                found.append(event_from_json(row["json"]))
            except DAMAGE:
                warn(skipped("event", row, _UNREADABLE_EVENT))
            continue
        try:
            items = json.loads(row["json"])
            if not isinstance(items, list) or len(items) != count:
                raise ValueError("not the list of events its row says")
        except DAMAGE:
            seq = row["seq"]
            span = f"{seq}–{seq + count - 1}" if isinstance(seq, int) and isinstance(
                count, int) else "?"
            warn(skipped("events", row, "they are damaged in the store", position=span))
            continue
        for offset, item in enumerate(items):
            try:
                found.append(event_from_data(item))
            except DAMAGE:
                warn(skipped("event", row, _UNREADABLE_EVENT,
                             position=str(row["seq"] + offset)))
    return found


class SessionReads:
    """Sessions, calls, events and checkpoints read back (SessionStore's readers)."""

    _db: sqlite3.Connection
    path: Path

    if TYPE_CHECKING:  # provided by SessionStore
        def _guard(self, doing: str, session_id: str | None = None, *,
                   write: bool = False) -> AbstractContextManager[None]: ...

        def _warn(self, message: str) -> None: ...

    def list_sessions(self, limit: int = 50, *, with_empty: bool = False) -> list[SessionInfo]:
        """Sessions, most recently active first. A session nothing was done in yet (no
        action recorded, no call: a window opened and closed) is not listed unless
        `with_empty`: a launch is not a session."""
        used = "" if with_empty else (
            " WHERE EXISTS (SELECT 1 FROM checkpoints k WHERE k.session_id = s.id)"
            " OR EXISTS (SELECT 1 FROM calls c WHERE c.session_id = s.id)"
            " OR s.parent_id IS NOT NULL")  # a branch is made on purpose, even unused
        with self._guard("list sessions"):
            rows = self._db.execute(
                "SELECT s.id, s.kind, s.scenario, s.title, s.status, s.created_at,"
                " s.updated_at, (SELECT COUNT(*) FROM calls c WHERE c.session_id = s.id)"
                f" AS call_count FROM sessions s{used}"
                " ORDER BY s.updated_at DESC, s.rowid DESC LIMIT ?",
                (limit,),
            ).fetchall()
        return session_infos(rows, self._warn)

    def session_used(self, session_id: str) -> bool:
        """Whether anything was done in the session: an action recorded or a call made."""
        with self._guard("read the session"):
            row = self._db.execute(
                "SELECT EXISTS (SELECT 1 FROM checkpoints WHERE session_id = ?)"
                " OR EXISTS (SELECT 1 FROM calls WHERE session_id = ?)"
                " OR EXISTS (SELECT 1 FROM sessions WHERE id = ? AND parent_id IS NOT NULL)",
                (session_id, session_id, session_id)).fetchone()
        return bool(row[0])

    def latest_session_id(self) -> str | None:
        found = self.list_sessions(limit=1)
        return found[0].id if found else None

    def get_session(self, session_id: str, *, damaged_ok: bool = False) -> SessionRecord:
        """A session and its latest state. A damaged state is a StoreError (it cannot be
        continued), or with `damaged_ok` (to show or export it) the state of the last
        readable checkpoint, with a warning."""
        with self._guard("read the session"):
            row = self._db.execute("SELECT * FROM sessions WHERE id = ?", (session_id,)).fetchone()
            if row is None:
                raise SessionNotFound(f"There is no stored session {session_id}.")
            (text,) = read_texts_or_none(self._db, [row["state_manifest"]])
        short = short_id(session_id)
        state = json_object(text)
        if state is None:
            if not damaged_ok:
                raise StoreError(
                    f"The saved state of session {short} is damaged in the session store "
                    f"{self.path}, so it cannot be continued. Export it to keep what is "
                    f"readable (roundtable export {short})."
                )
            state = self._last_readable_state(session_id)
        meta = json_object(row["meta_json"])
        if meta is None:
            self._warn(f"The details of session {short} (model, provider) are damaged in the "
                       "store: it is shown without them.")
        try:
            return SessionRecord(
                id=row["id"], kind=row["kind"], scenario=row["scenario"], title=row["title"],
                status=row["status"], created_at=row["created_at"],
                updated_at=row["updated_at"], state=state, meta=meta or {},
            )
        except DAMAGE:
            raise StoreError(f"Session {short} is damaged in the session store {self.path} "
                             "and cannot be read.") from None

    def _last_readable_state(self, session_id: str) -> dict[str, Any]:
        with self._guard("read the checkpoints"):
            rows = self._db.execute(
                "SELECT seq, state_manifest FROM checkpoints WHERE session_id = ?"
                " ORDER BY seq DESC", (session_id,)
            ).fetchall()
            for row in rows:
                state = json_object(read_texts_or_none(self._db, [row["state_manifest"]])[0])
                if state is not None:
                    self._warn(f"The latest state of session {short_id(session_id)} is "
                               f"damaged in the store: it is shown as it was after checkpoint "
                               f"{row['seq']}.")
                    return state
        self._warn(f"The latest state of session {short_id(session_id)} is damaged in the "
                   "store and no earlier one is readable: it is shown without it.")
        return {}

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
        ids: list[str] = [row["id"] for row in rows]
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
        """The session's calls in order; a damaged one is skipped with a warning."""
        with self._guard("read the calls"):
            rows = self._db.execute(
                "SELECT * FROM calls WHERE session_id = ? ORDER BY seq", (session_id,)
            ).fetchall()
            return call_records(self._db, rows, self._warn)

    def call(self, call_id: str) -> CallRecord:
        with self._guard("read the call"):
            row = self._db.execute("SELECT * FROM calls WHERE id = ?", (call_id,)).fetchone()
            if row is None:
                raise StoreError(f"No call {call_id} is stored in this session store.")
            found = call_records(self._db, [row], self._warn)
        if not found:
            raise StoreError(f"The call {call_id} is damaged in the session store {self.path} "
                             "and cannot be read.")
        return found[0]

    def events(self, session_id: str) -> list[Event]:
        """The session's events in order. An event this version cannot read is skipped."""
        with self._guard("read the events"):
            rows = self._db.execute(
                "SELECT session_id, seq, count, json FROM events WHERE session_id = ?"
                " ORDER BY seq",
                (session_id,),
            ).fetchall()
        return event_records(rows, self._warn)

    def checkpoints(self, session_id: str) -> list[Checkpoint]:
        """The state after each action, in order; a damaged one is skipped with a warning."""
        with self._guard("read the checkpoints"):
            rows = self._db.execute(
                "SELECT * FROM checkpoints WHERE session_id = ? ORDER BY seq", (session_id,)
            ).fetchall()
            return checkpoint_records(self._db, rows, self._warn)
