"""Start or reopen a session of any kind, wired to its event bus and the store.

The window and the CLI both go through here, so a session runs the same everywhere. The
kind comes from the registry (protocols/kinds.py); nothing here names a kind.
Must not import Qt or print; callers subscribe to `handle.bus` for output.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from roundtable_desktop.domain.events import SessionStarted
from roundtable_desktop.llm.client import ChatClient
from roundtable_desktop.protocols.base import SessionProtocol
from roundtable_desktop.protocols.bus import EventBus
from roundtable_desktop.protocols.kinds import (
    PLANNED_KINDS,
    SessionContext,
    UnknownKind,
    kind_names,
    kind_spec,
)
from roundtable_desktop.protocols.model_calls import DEFAULT_PARALLEL
from roundtable_desktop.sources.base import CandidateSource
from roundtable_desktop.store.database import SessionStore
from roundtable_desktop.store.recorder import SessionRecorder

__all__ = ["PLANNED_KINDS", "SessionHandle", "UnknownKind", "kind_names", "reopen_session",
           "start_session"]


@dataclass
class SessionHandle:
    session: SessionProtocol
    session_id: str
    store: SessionStore
    bus: EventBus
    recorder: SessionRecorder
    kind: str = ""


def _wire(session: SessionProtocol, store: SessionStore, session_id: str,
          kind: str) -> SessionHandle:
    recorder = SessionRecorder(store, session_id, session.state_json)
    # The recorder listens first so a request row is on disk before the request is sent.
    session.bus.subscribe(recorder, first=True)
    return SessionHandle(session, session_id, store, session.bus, recorder, kind)


async def start_session(
    kind: str,
    *,
    store: SessionStore,
    client: ChatClient,
    model: str,
    provider: str,
    source: CandidateSource | None = None,
    scenario: str = "default",
    bus: EventBus | None = None,
    parallel: int = DEFAULT_PARALLEL,
    **options: Any,
) -> SessionHandle:
    spec = kind_spec(kind)
    ctx = SessionContext(client=client, model=model, provider=provider, source=source,
                         bus=bus, parallel=parallel, options=options)
    session = await spec.create(ctx, scenario)
    title = session.title
    session_id = store.create_session(kind, scenario, title, session.state_json(),
                                      meta={"model": model, "provider": provider,
                                            "endpoint": client.endpoint})
    handle = _wire(session, store, session_id, kind)
    session.emit(SessionStarted(kind=kind, scenario=scenario, title=title))
    return handle


def reopen_session(
    session_id: str,
    *,
    store: SessionStore,
    client: ChatClient,
    source: CandidateSource | None = None,
    bus: EventBus | None = None,
    parallel: int = DEFAULT_PARALLEL,
    **options: Any,
) -> SessionHandle:
    record = store.reopen_session(session_id)  # pending calls of a killed run: interrupted
    spec = kind_spec(record.kind)
    meta = record.meta
    ctx = SessionContext(client=client, model=str(meta.get("model", "")),
                         provider=str(meta.get("provider", "")), source=source, bus=bus,
                         parallel=parallel, options=options)
    session = spec.restore(ctx, record.state)
    return _wire(session, store, session_id, record.kind)
