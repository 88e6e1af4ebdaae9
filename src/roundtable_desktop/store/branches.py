"""Branches and comparisons in the session store: which session a branch left from and at
which step, what was changed before its first own step, one checkpoint read alone, the
calls a session had made by a step, and comparisons (two branches of one step run
together, with the calls each side made per step).

`BranchRecords` holds these methods of SessionStore (the store inherits them). A step is
a checkpoint's position (one per finished action, from 1). Reading a branch's start reads
one checkpoint, never the history. Must not know kinds or the engine, and must not
decide what a step means beyond a checkpoint's position.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from roundtable_desktop.store.errors import SessionNotFound, StoreError
from roundtable_desktop.store.reading import (
    Warn,
    call_records,
    checkpoint_records,
    json_object,
    short_id,
)
from roundtable_desktop.store.records import CallRecord, Checkpoint, SessionRecord
from roundtable_desktop.store.redaction import storable_json


class BranchOrigin(BaseModel):
    """Where a branch left from: its parent session, the parent's step (checkpoint), and
    what was changed before its first own step, each change one readable sentence."""

    parent_id: str
    step: int
    changes: list[str] = Field(default_factory=list)


class ComparedStep(BaseModel):
    """One step run on both sides: the ids of the calls each side made in it, and
    whether the side had ended (or had nothing to do) instead."""

    left_calls: list[str] = Field(default_factory=list)
    right_calls: list[str] = Field(default_factory=list)
    left_note: str = ""
    right_note: str = ""


class ComparisonRecord(BaseModel):
    id: str
    parent_id: str
    step: int
    left_id: str
    right_id: str
    created_at: float
    steps: list[ComparedStep] = Field(default_factory=list)


class BranchRecords:
    """SessionStore's readers and writers of branches and comparisons."""

    _db: sqlite3.Connection
    _clock: Callable[[], float]

    if TYPE_CHECKING:  # provided by SessionStore
        def _guard(self, doing: str, session_id: str | None = None, *,
                   write: bool = False) -> AbstractContextManager[None]: ...

        def _transaction(self) -> AbstractContextManager[None]: ...

        def _warn(self, message: str) -> None: ...

    # -- steps ----------------------------------------------------------------------
    def step_count(self, session_id: str) -> int:
        """How many checkpoints (steps) the session has of its own."""
        with self._guard("count the steps"):
            row = self._db.execute("SELECT COUNT(*) FROM checkpoints WHERE session_id = ?",
                                   (session_id,)).fetchone()
        return int(row[0])

    def checkpoint_at(self, session_id: str, step: int) -> Checkpoint:
        """The state after step `step` (from 1) of the session's own steps: one row read.
        A step it does not have, or a damaged one, is a StoreError saying which."""
        with self._guard("read the checkpoint"):
            row = self._db.execute(
                "SELECT * FROM checkpoints WHERE session_id = ? AND seq = ?",
                (session_id, step)).fetchone()
            found = checkpoint_records(self._db, [row], self._warn) if row is not None else []
        if row is None:
            count = self.step_count(session_id)
            raise StoreError(
                f"Session {short_id(session_id)} has no step {step}: it has "
                + (f"steps 1 to {count}." if count else "no steps yet."))
        if not found:
            raise StoreError(f"Step {step} of session {short_id(session_id)} is damaged in "
                             "the store; choose another step.")
        return found[0]

    def calls_until_step(self, session_id: str, step: int) -> list[CallRecord]:
        """The session's own calls started before its step `step` was recorded, in order."""
        with self._guard("read the calls"):
            row = self._db.execute(
                "SELECT ts FROM checkpoints WHERE session_id = ? AND seq = ?",
                (session_id, step)).fetchone()
            if row is None:
                return []
            rows = self._db.execute(
                "SELECT * FROM calls WHERE session_id = ? AND started_at <= ? ORDER BY seq",
                (session_id, row["ts"])).fetchall()
            warn: Warn = self._warn
            return call_records(self._db, rows, warn)

    # -- branches -------------------------------------------------------------------
    def set_branch_origin(self, session_id: str, origin: BranchOrigin) -> None:
        with self._guard("record the branch", session_id, write=True), self._transaction():
            cur = self._db.execute(
                "UPDATE sessions SET parent_id = ?, parent_step = ?, branch_changes = ?"
                " WHERE id = ?",
                (origin.parent_id, origin.step, storable_json(origin.changes), session_id))
            if cur.rowcount == 0:
                raise SessionNotFound(f"There is no stored session {session_id}.")

    def set_branch_changes(self, session_id: str, changes: Sequence[str]) -> None:
        with self._guard("record the branch's changes", session_id, write=True), \
                self._transaction():
            self._db.execute("UPDATE sessions SET branch_changes = ? WHERE id = ?",
                             (storable_json(list(changes)), session_id))

    def add_meta(self, session_id: str, values: dict[str, Any]) -> None:
        """Add `values` to the session's meta (its model, provider, seed ...)."""
        with self._guard("record the session's details", session_id, write=True), \
                self._transaction():
            row = self._db.execute("SELECT meta_json FROM sessions WHERE id = ?",
                                   (session_id,)).fetchone()
            if row is None:
                raise SessionNotFound(f"There is no stored session {session_id}.")
            meta = json_object(row["meta_json"]) or {}
            self._db.execute("UPDATE sessions SET meta_json = ? WHERE id = ?",
                             (storable_json({**meta, **values}), session_id))

    def session_header(self, session_id: str) -> SessionRecord:
        """The session without its state (`state` is empty): kind, scenario, title, meta.
        What a branch needs of its parent beyond one checkpoint."""
        with self._guard("read the session"):
            row = self._db.execute(
                "SELECT id, kind, scenario, title, status, created_at, updated_at, meta_json"
                " FROM sessions WHERE id = ?", (session_id,)).fetchone()
        if row is None:
            raise SessionNotFound(f"There is no stored session {session_id}.")
        return SessionRecord(id=row["id"], kind=row["kind"], scenario=row["scenario"],
                             title=row["title"], status=row["status"],
                             created_at=row["created_at"], updated_at=row["updated_at"],
                             meta=json_object(row["meta_json"]) or {})

    def branch_origin(self, session_id: str) -> BranchOrigin | None:
        """Where the session branched from, or None when it is no branch."""
        with self._guard("read the branch"):
            row = self._db.execute(
                "SELECT parent_id, parent_step, branch_changes FROM sessions WHERE id = ?",
                (session_id,)).fetchone()
        return _origin(row) if row is not None else None

    def branch_origins(self) -> dict[str, BranchOrigin]:
        """Every branch's origin, by the branch's id (the session list's tree)."""
        with self._guard("read the branches"):
            rows = self._db.execute(
                "SELECT id, parent_id, parent_step, branch_changes FROM sessions"
                " WHERE parent_id IS NOT NULL").fetchall()
        return {row["id"]: origin for row in rows if (origin := _origin(row)) is not None}

    # -- comparisons ----------------------------------------------------------------
    def create_comparison(self, parent_id: str, step: int, left_id: str,
                          right_id: str) -> str:
        comparison_id = uuid.uuid4().hex
        with self._guard("record the comparison", write=True), self._transaction():
            self._db.execute(
                "INSERT INTO comparisons (id, parent_id, parent_step, left_id, right_id,"
                " created_at) VALUES (?, ?, ?, ?, ?, ?)",
                (comparison_id, parent_id, step, left_id, right_id, self._clock()))
        return comparison_id

    def set_comparison_steps(self, comparison_id: str, steps: Sequence[ComparedStep]) -> None:
        text = json.dumps([s.model_dump() for s in steps], ensure_ascii=False)
        with self._guard("record the comparison", write=True), self._transaction():
            self._db.execute("UPDATE comparisons SET steps_json = ? WHERE id = ?",
                             (text, comparison_id))

    def comparison(self, comparison_id: str) -> ComparisonRecord:
        with self._guard("read the comparison"):
            row = self._db.execute(
                "SELECT * FROM comparisons WHERE id = ? OR substr(id, 1, ?) = ?"
                " ORDER BY id LIMIT 2",
                (comparison_id, len(comparison_id), comparison_id)).fetchall()
        if len(row) != 1:
            raise StoreError(f"No one comparison's id starts with {comparison_id!r}.")
        return _comparison(row[0])

    def comparisons(self) -> list[ComparisonRecord]:
        with self._guard("read the comparisons"):
            rows = self._db.execute(
                "SELECT * FROM comparisons ORDER BY created_at DESC").fetchall()
        return [_comparison(row) for row in rows]


def _origin(row: sqlite3.Row) -> BranchOrigin | None:
    if row["parent_id"] is None:
        return None
    try:
        changes = json.loads(row["branch_changes"] or "[]")
    except ValueError:
        changes = []
    return BranchOrigin(parent_id=row["parent_id"], step=int(row["parent_step"] or 0),
                        changes=[str(c) for c in changes] if isinstance(changes, list) else [])


def _comparison(row: sqlite3.Row) -> ComparisonRecord:
    try:
        raw: Any = json.loads(row["steps_json"] or "[]")
    except ValueError:
        raw = []
    steps = [ComparedStep.model_validate(s) for s in raw if isinstance(s, dict)] \
        if isinstance(raw, list) else []
    return ComparisonRecord(id=row["id"], parent_id=row["parent_id"], step=row["parent_step"],
                            left_id=row["left_id"], right_id=row["right_id"],
                            created_at=row["created_at"], steps=steps)


__all__ = ["BranchOrigin", "BranchRecords", "ComparedStep", "ComparisonRecord"]
