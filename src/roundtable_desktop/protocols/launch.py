"""Start or reopen a session of any kind, wired to its event bus and the store.

The window and the CLI both go through here, so a session runs the same everywhere.
Must not import Qt or print; callers subscribe to `handle.bus` for output.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from roundtable_desktop.domain.events import SessionStarted
from roundtable_desktop.llm.client import ChatClient
from roundtable_desktop.protocols.base import SessionProtocol
from roundtable_desktop.protocols.bus import EventBus
from roundtable_desktop.protocols.roundtable import RoundtableSession
from roundtable_desktop.protocols.roundtable_setup import new_meeting_state
from roundtable_desktop.sources.base import CandidateSource
from roundtable_desktop.store.database import SessionStore
from roundtable_desktop.store.recorder import SessionRecorder

KINDS = ("roundtable",)
PLANNED_KINDS = ("negotiation", "legion", "tutor", "debate")


class UnknownKind(ValueError):
    pass


@dataclass
class SessionHandle:
    session: SessionProtocol
    session_id: str
    store: SessionStore
    bus: EventBus
    recorder: SessionRecorder


def _check_kind(kind: str) -> None:
    if kind in PLANNED_KINDS:
        raise UnknownKind(f"The {kind} session kind is not built yet; only roundtable runs now.")
    if kind not in KINDS:
        raise UnknownKind(f"Unknown session kind {kind!r}; choose one of: {', '.join(KINDS)}.")


def _wire(session: SessionProtocol, store: SessionStore, session_id: str) -> SessionHandle:
    recorder = SessionRecorder(store, session_id, session.state_json)
    # The recorder listens first so a request row is on disk before the request is sent.
    session.bus.subscribe(recorder, first=True)
    return SessionHandle(session, session_id, store, session.bus, recorder)


async def start_session(
    kind: str,
    *,
    store: SessionStore,
    client: ChatClient,
    source: CandidateSource,
    model: str,
    provider: str,
    scenario: str = "default",
    bus: EventBus | None = None,
    **options: Any,
) -> SessionHandle:
    _check_kind(kind)
    state = await new_meeting_state(source, scenario=scenario, provider=provider)
    session = RoundtableSession(state, client=client, source=source, bus=bus, model=model,
                                provider=provider, **options)
    session_id = store.create_session(kind, scenario, state.title, session.state_dict(), {},
                                      meta={"model": model, "provider": provider,
                                            "endpoint": client.endpoint})
    handle = _wire(session, store, session_id)
    session.emit(SessionStarted(kind=kind, scenario=scenario, title=state.title))
    return handle


def reopen_session(
    session_id: str,
    *,
    store: SessionStore,
    client: ChatClient,
    source: CandidateSource,
    bus: EventBus | None = None,
    **options: Any,
) -> SessionHandle:
    record = store.reopen_session(session_id)  # pending calls of a killed run: interrupted
    _check_kind(record.kind)
    session = RoundtableSession.restore(record.state, client=client, source=source, bus=bus,
                                        **options)
    return _wire(session, store, session_id)

