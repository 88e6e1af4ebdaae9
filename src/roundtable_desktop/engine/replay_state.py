"""A stored state as a read-only session, for replay: the kind's own restore, a client
that is never called (the offline model with the session's stored seed, so what it would
answer is what it answered), and a bus nobody records.

Replay shows each step's state through the same objects a live session has, so views
need no second code path. Must not write to the store and must not import Qt.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Any

from roundtable_desktop.engine.base import SessionProtocol
from roundtable_desktop.engine.registry import SessionContext, UnknownKind, kind_spec
from roundtable_desktop.llm.offline import OFFLINE_MODEL, OfflineClient
from roundtable_desktop.store.database import SessionStore


def replay_session(kind: str, state: dict[str, Any],
                   seed: int = 0) -> SessionProtocol | None:
    """The session as it was at a checkpoint, or None when this version cannot read it.
    `seed` is the session's (launch.stored_seed of its meta)."""
    try:
        spec = kind_spec(kind)
        ctx = SessionContext(client=OfflineClient(delay_s=0, seed=seed), model=OFFLINE_MODEL,
                             provider="offline")
        return spec.restore(ctx, state)
    except (UnknownKind, KeyError, TypeError, ValueError):
        return None


class CheckpointMatch:
    """Which checkpoint follows each call of a session: the one the stored events say
    (the actions that had closed when the call started) when they account for every
    checkpoint, else the first checkpoint written after the call started. Replay and the
    replay page step through calls with it; it reads the events once, no state."""

    def __init__(self, store: SessionStore, session_id: str, times: list[float]) -> None:
        order, closed = store.call_checkpoint_order(session_id)
        self._order = order if closed == len(times) else None  # else timestamps decide
        self._times = times  # each checkpoint's ts, in order

    def index_after(self, call_id: str, started_at: float) -> int | None:
        """The index of the checkpoint after the call, None when none follows it."""
        index = self._order.get(call_id) if self._order is not None else None
        if index is None or index >= len(self._times):
            index = bisect_left(self._times, started_at)
        return index if index < len(self._times) else None
