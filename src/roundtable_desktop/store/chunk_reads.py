"""Reads a session's calls and checkpoints as the store keeps them: rows with the chunk
lists (manifests) of their texts, and the session's chunks, without joining any text.

A long session's requests repeat each other: joined, a 1,000-turn meeting's requests are
~1 GB; as chunks they are what the store holds. The exports (JSON, replay page) and the
window's lists read through here so they grow with the store, not with the square of
the session's length. `call_summaries` gives the calls without their request bodies (the
lists need only their model, tokens, latency and cost; a view reads the one it shows with
`SessionStore.call`).

`ChunkReads` is a mixin of SessionStore (it reads through the store's connection and its
guard). A damaged row is skipped with a warning, as store/reading.py does.
Must not write (every statement is a SELECT) and must not decode what chunks hold beyond
what it is asked for.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from roundtable_desktop.store.blobs import DIGEST_SIZE, read_texts_or_none
from roundtable_desktop.store.reading import DAMAGE, json_object, short_id, skipped
from roundtable_desktop.store.records import CallRecord

# Columns of a calls row that are not the texts' manifests.
_CALL_COLUMNS = (
    "id, session_id, seq, actor_id, model, endpoint, purpose, label, response_text, status,"
    " error, prompt_tokens, completion_tokens, usage_estimated, latency_ms, first_token_ms,"
    " cost_usd, finish_reason, started_at, finished_at"
)


@dataclass(frozen=True)
class StoredCall:
    """A call without its texts, and the chunk hashes of its request and its layers."""

    record: CallRecord  # its `request` is {} and its `layers` []: see `request_chunks`
    request_chunks: list[bytes]
    layers_chunks: list[bytes]


@dataclass(frozen=True)
class StoredCheckpoint:
    seq: int
    action: str
    ts: float
    state_chunks: list[bytes]


def manifest_digests(manifest: object) -> list[bytes] | None:
    """The chunk hashes a manifest lists, or None when it is damaged."""
    if not isinstance(manifest, bytes) or len(manifest) % DIGEST_SIZE:
        return None
    return [manifest[i : i + DIGEST_SIZE] for i in range(0, len(manifest), DIGEST_SIZE)]


def _summary(row: sqlite3.Row) -> CallRecord:
    data = dict(row)
    data["response_text"] = data["response_text"] or ""
    if data["usage_estimated"] is not None:
        data["usage_estimated"] = bool(data["usage_estimated"])
    data.pop("request_manifest", None)
    data.pop("layers_manifest", None)
    return CallRecord(request={}, **data)


class ChunkReads:
    """Calls and checkpoints as chunk lists, and the chunks (SessionStore's readers)."""

    _db: sqlite3.Connection

    if TYPE_CHECKING:  # provided by SessionStore
        def _guard(self, doing: str, session_id: str | None = None, *,
                   write: bool = False) -> AbstractContextManager[None]: ...

        def _warn(self, message: str) -> None: ...

    def note_damage(self, what: str, seq: int, session_id: str) -> None:
        """Warn that a row was found damaged by a reader outside the store (an export
        checking a text's chunks): which one, never what it holds."""
        self._warn(f"Skipped {what} {seq} of session {short_id(session_id)}: it is damaged "
                   "in the store.")

    def call_summaries(self, session_id: str) -> list[CallRecord]:
        """The session's calls in order, each without its request body and layers."""
        with self._guard("read the calls"):
            rows = self._db.execute(
                f"SELECT {_CALL_COLUMNS} FROM calls WHERE session_id = ? ORDER BY seq",
                (session_id,)).fetchall()
        found: list[CallRecord] = []
        for row in rows:
            try:
                found.append(_summary(row))
            except DAMAGE:
                self._warn(skipped("call", row))
        return found

    def stored_calls(self, session_id: str) -> list[StoredCall]:
        """The session's calls in order with their texts' chunk lists."""
        with self._guard("read the calls"):
            rows = self._db.execute(
                f"SELECT {_CALL_COLUMNS}, request_manifest, layers_manifest FROM calls"
                " WHERE session_id = ? ORDER BY seq", (session_id,)).fetchall()
        found: list[StoredCall] = []
        for row in rows:
            request = manifest_digests(row["request_manifest"])
            layers = manifest_digests(row["layers_manifest"])
            try:
                if request is None or layers is None:
                    raise ValueError("a stored text is damaged")
                found.append(StoredCall(_summary(row), request, layers))
            except DAMAGE:
                self._warn(skipped("call", row))
        return found

    def stored_checkpoints(self, session_id: str) -> list[StoredCheckpoint]:
        """The state after each action, as chunk lists, in order."""
        with self._guard("read the checkpoints"):
            rows = self._db.execute(
                "SELECT session_id, seq, action, ts, state_manifest FROM checkpoints"
                " WHERE session_id = ? ORDER BY seq", (session_id,)).fetchall()
        found: list[StoredCheckpoint] = []
        for row in rows:
            state = manifest_digests(row["state_manifest"])
            if state is None or not isinstance(row["seq"], int):
                self._warn(skipped("checkpoint", row, "its saved state is damaged in the store"))
                continue
            found.append(StoredCheckpoint(row["seq"], str(row["action"]), float(row["ts"]),
                                          state))
        return found

    def checkpoint_state(self, session_id: str, seq: int) -> dict[str, Any] | None:
        """The state saved at one checkpoint, or None when it is missing or damaged (with
        a warning)."""
        with self._guard("read the checkpoint"):
            row = self._db.execute(
                "SELECT session_id, seq, state_manifest FROM checkpoints"
                " WHERE session_id = ? AND seq = ?", (session_id, seq)).fetchone()
            if row is None:
                return None
            (text,) = read_texts_or_none(self._db, [row["state_manifest"]])
        state = json_object(text)
        if state is None:
            self._warn(skipped("checkpoint", row, "its saved state is damaged in the store"))
        return state

    def call_count(self, session_id: str) -> int:
        with self._guard("count the calls"):
            row = self._db.execute("SELECT COUNT(*) FROM calls WHERE session_id = ?",
                                   (session_id,)).fetchone()
        return int(row[0])

    def checkpoint_marks(self, session_id: str) -> list[tuple[int, str, float]]:
        """(seq, action, ts) of each checkpoint, in order: no state is read."""
        with self._guard("read the checkpoints"):
            rows = self._db.execute(
                "SELECT seq, action, ts FROM checkpoints WHERE session_id = ? ORDER BY seq",
                (session_id,)).fetchall()
        return [(int(r[0]), str(r[1]), float(r[2])) for r in rows]

    def call_checkpoint_order(self, session_id: str) -> tuple[dict[str, int], int]:
        """Call id -> how many actions had closed (ActionFinished, SessionEnded) when it
        started, and how many closed in all: read from the stored events as JSON, without
        building them (replay matches steps to checkpoints with it)."""
        with self._guard("read the events"):
            rows = self._db.execute(
                "SELECT count, json FROM events WHERE session_id = ? ORDER BY seq",
                (session_id,)).fetchall()
        after: dict[str, int] = {}
        closed = 0
        for count, text in rows:
            try:
                found = json.loads(text)
            except (ValueError, TypeError, RecursionError):
                continue
            for event in ([found] if count == 1 else found if isinstance(found, list) else []):
                kind = event.get("type") if isinstance(event, dict) else None
                if kind == "call_started":
                    after[str(event.get("call_id"))] = closed
                elif kind in ("action_finished", "session_ended"):
                    closed += 1
        return after, closed

    def session_chunks(self, session_id: str, wanted: Iterable[bytes] = ()) -> dict[bytes, bytes]:
        """The session's chunks by hash (all of them, or only `wanted` when given)."""
        want = set(wanted)
        found: dict[bytes, bytes] = {}
        with self._guard("read the stored texts"):
            rows = self._db.execute("SELECT hash, data FROM blobs WHERE session_id = ?",
                                    (session_id,))
            for digest, data in rows:
                key = bytes(digest)
                if not want or key in want:
                    found[key] = bytes(data)
        return found
