"""Start or reopen a session of any kind, wired to its event bus and the store.

The window and the CLI both go through here, so a session runs the same everywhere. The
kind comes from the registry (engine/registry.py); nothing here names a kind.

The process that starts or reopens a session holds its lock until `handle.close()` (or
the store is closed): a second process is refused, naming this one, before it writes
anything (reopening marks a killed run's pending calls interrupted, which must never
happen to a run that is alive). A session's seed (the offline model's, and the kind's own
draws) is chosen when it starts (`seed`, else a `seed` option, else the client's) and
stored in its meta; continuing it gives the client that seed again, so the same seed
plays the same session. The recorder is the bus's first and critical listener:
a store write that fails stops the action with that StoreError. A stored state the kind
cannot read is a StoreError too, not a traceback, and quotes none of it.
Must not import Qt or print; callers subscribe to `handle.bus` for output.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from roundtable_desktop.domain.events import SessionStarted
from roundtable_desktop.engine.base import SessionProtocol
from roundtable_desktop.engine.bus import EventBus
from roundtable_desktop.engine.model_calls import DEFAULT_PARALLEL
from roundtable_desktop.engine.registry import (
    SessionContext,
    UnknownKind,
    kind_names,
    kind_spec,
)
from roundtable_desktop.engine.session_settings import SettingsClient, stored_settings
from roundtable_desktop.llm.client import ChatClient
from roundtable_desktop.store.database import SessionStore, StoreError
from roundtable_desktop.store.recorder import SessionRecorder

__all__ = ["SessionHandle", "UnknownKind", "kind_names", "record_session", "reopen_session",
           "start_session", "stored_seed"]

SEED = "seed"  # the meta key (and the session option) that holds a session's seed


@dataclass
class SessionHandle:
    session: SessionProtocol
    session_id: str
    store: SessionStore
    bus: EventBus
    recorder: SessionRecorder
    kind: str = ""
    seed: int = 0
    _locked: bool = True

    def close(self) -> None:
        """Give up the session's lock (another process may then continue it)."""
        if self._locked:
            self._locked = False
            self.store.unlock_session(self.session_id)


def _wire(session: SessionProtocol, store: SessionStore, session_id: str,
          kind: str, seed: int) -> SessionHandle:
    recorder = SessionRecorder(store, session_id, session.stored_state)
    # The recorder listens first so a request row is on disk before the request is sent,
    # and critically: a write that fails is raised to the protocol, which stops.
    session.bus.subscribe(recorder, first=True, critical=True)
    return SessionHandle(session, session_id, store, session.bus, recorder, kind, seed)


def _client_seed(client: ChatClient) -> int:
    seed = getattr(client, "seed", 0)
    return seed if isinstance(seed, int) and not isinstance(seed, bool) else 0


def stored_seed(meta: dict[str, Any]) -> int:
    """The seed a stored session was made with (0 for one stored before seeds were
    stored, when every session had seed 0; and for a value that is not a seed)."""
    seed = meta.get(SEED, 0)
    return seed if isinstance(seed, int) and not isinstance(seed, bool) and seed >= 0 else 0


async def start_session(
    kind: str,
    *,
    store: SessionStore,
    client: ChatClient,
    model: str,
    provider: str,
    scenario: str = "default",
    bus: EventBus | None = None,
    parallel: int = DEFAULT_PARALLEL,
    seed: int | None = None,
    **options: Any,
) -> SessionHandle:
    """A new session of `kind`, stored and locked. `seed` (else a `seed` option, else the
    client's own) is the session's: its client answers by it and the kind sees it as the
    `seed` option."""
    spec = kind_spec(kind)
    if seed is None:
        given = options.get(SEED)
        seed = given if isinstance(given, int) and not isinstance(given, bool) \
            else _client_seed(client)
    client = client.with_seed(seed)
    ctx = SessionContext(client=client, model=model, provider=provider, bus=bus,
                         parallel=parallel, options={**options, SEED: seed})
    session = await spec.create(ctx, scenario)
    return record_session(session, kind=kind, store=store, client=client, model=model,
                          provider=provider, scenario=scenario, seed=seed)


def record_session(session: SessionProtocol, *, kind: str, store: SessionStore,
                   client: ChatClient, model: str, provider: str,
                   scenario: str = "default", seed: int | None = None) -> SessionHandle:
    """Store a session made by the caller (a registered kind's, or a build that is never
    opened live), lock it, and wire its recorder to its bus. `seed` (else the client's)
    is stored in its meta."""
    title = session.title
    seed = _client_seed(client) if seed is None else seed
    session_id = store.create_session(kind, scenario, title, session.stored_state(),
                                      meta={"model": model, "provider": provider,
                                            "endpoint": client.endpoint, SEED: seed})
    store.lock_session(session_id)
    handle = _wire(session, store, session_id, kind, seed)
    session.emit(SessionStarted(kind=kind, scenario=scenario, title=title))
    return handle


def reopen_session(
    session_id: str,
    *,
    store: SessionStore,
    client: ChatClient,
    bus: EventBus | None = None,
    parallel: int = DEFAULT_PARALLEL,
    **options: Any,
) -> SessionHandle:
    store.lock_session(session_id)  # before any write: another live run is refused here
    try:
        record = store.get_session(session_id)
        spec = kind_spec(record.kind)
        meta = record.meta
        seed = stored_seed(meta)
        client = client.with_seed(seed)  # the seed it was made with, whatever is set now
        client = SettingsClient.wrap(client, stored_settings(meta))  # a branch's model
        ctx = SessionContext(client=client, model=str(meta.get("model", "")),
                             provider=str(meta.get("provider", "")), bus=bus,
                             parallel=parallel, options=options)
        try:
            session = spec.restore(ctx, record.state)
        except (KeyError, TypeError, ValueError) as exc:  # ValidationError is a ValueError
            # The message names the kind of damage only: a stored value is never quoted.
            raise StoreError(
                f"The saved state of session {session_id[:8]} does not read as a "
                f"{record.kind} session ({type(exc).__name__}), so it cannot be continued. "
                f"Export it to keep what is readable (roundtable export {session_id[:8]})."
            ) from None
        store.mark_interrupted_calls(session_id)  # a killed run's pending calls
        return _wire(session, store, session_id, record.kind, seed)
    except BaseException:
        store.unlock_session(session_id)
        raise
