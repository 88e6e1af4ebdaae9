"""Writes a session's model calls: the request before it is sent, the streamed text
while it arrives, the outcome when it ends, and calls a killed process left pending.

`CallWrites` holds these methods of SessionStore (the store inherits them), so a request
row is committed before the request goes out and its response when it completes
(DESIGN invariant 5). A request body is stored content-addressed (store/blobs.py), cut
against the same actor's previous request, so a turn stores the sections that changed.
Must not open connections or decide when to commit: every write runs inside the store's
guard (and, for a request, its transaction).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from roundtable_desktop.domain.calls import CallOutcome, CallStatus
from roundtable_desktop.domain.prompts import LayerText
from roundtable_desktop.store.blobs import BlobWriter
from roundtable_desktop.store.chunking import JSON_LINE, LINE
from roundtable_desktop.store.encoding import layers_bytes
from roundtable_desktop.store.errors import StoreError
from roundtable_desktop.store.redaction import storable_text
from roundtable_desktop.store.request_text import request_pieces


class CallWrites:
    """Model calls recorded as they happen (SessionStore's call writers)."""

    _db: sqlite3.Connection
    _blobs: BlobWriter
    _clock: Callable[[], float]

    if TYPE_CHECKING:  # provided by SessionStore
        def _guard(self, doing: str, session_id: str | None = None, *,
                   write: bool = False) -> AbstractContextManager[None]: ...

        def _transaction(self) -> AbstractContextManager[None]: ...

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
        body, layer_list = request_pieces(request), layers_bytes(layers)
        with self._guard("record the request", session_id, write=True), self._transaction():
            request_manifest = self._blobs.put(
                session_id, body, [("request", session_id, actor_id), ("request", session_id)],
                LINE,
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
        with self._guard("save the streamed text", write=True):
            self._db.execute(
                "UPDATE calls SET response_text = ? WHERE id = ? AND status = ?",
                (storable_text(text), call_id, CallStatus.PENDING.value),
            )

    def finish_call(self, call_id: str, outcome: CallOutcome) -> None:
        with self._guard("record the response", write=True):
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
        with self._guard("mark interrupted calls", session_id, write=True):
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
