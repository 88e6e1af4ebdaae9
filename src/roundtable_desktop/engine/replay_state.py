"""A stored state as a read-only session, for replay: the kind's own restore, a client
that is never called (the offline model with the session's stored seed, so what it would
answer is what it answered), and a bus nobody records.

Replay shows each step's state through the same objects a live session has, so views
need no second code path. Must not write to the store and must not import Qt.
"""

from __future__ import annotations

from typing import Any

from roundtable_desktop.engine.base import SessionProtocol
from roundtable_desktop.engine.registry import SessionContext, UnknownKind, kind_spec
from roundtable_desktop.llm.offline import OFFLINE_MODEL, OfflineClient


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
