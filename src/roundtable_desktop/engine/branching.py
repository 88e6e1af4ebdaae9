"""Branch any stored session at any step: a new live session whose state is the checkpoint
after that step, whatever its kind, with nothing of the parent sent again.

Steps are numbered along a session's whole history: a branch made at step 6 inherits
steps 1-6 (its parent's, read-only) and its own first step is 7. `branch_session` reads
one checkpoint (never the history), restores it with the kind's own `restore`, stores it
as a new session with its parent and step, and hands it back live with zero calls of
its own. Before its first own step anything the user could change live may be changed:
the session's model and sampling (engine/session_settings.py), and the kind's own edits
through `SessionProtocol.edit()` (the one way state changes); each change is recorded as
one readable sentence with the branch (`ChangeLog`, which also hears the window's editors
until the first call). `session_history` gives a session's calls with the inherited ones
first, each marked with the session it was made in (`inherited_parts`: the same as chunk
lists, for the exports that reference chunks).
Must not import Qt, must not name a kind, and must not write to the parent.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from roundtable_desktop.domain.events import (
    ActionFinished,
    ActionStarted,
    CallStarted,
    Event,
    StateChanged,
)
from roundtable_desktop.domain.refusal import Refusal
from roundtable_desktop.engine.base import Edit, SessionProtocol
from roundtable_desktop.engine.bus import EventBus
from roundtable_desktop.engine.launch import SEED, SessionHandle, record_session, stored_seed
from roundtable_desktop.engine.model_calls import DEFAULT_PARALLEL
from roundtable_desktop.engine.registry import SessionContext, kind_spec
from roundtable_desktop.engine.session_settings import (
    SETTINGS_META,
    SessionSettings,
    SettingsClient,
    stored_settings,
)
from roundtable_desktop.llm.client import ChatClient
from roundtable_desktop.store.branches import BranchOrigin
from roundtable_desktop.store.chunk_reads import StoredCall, StoredCheckpoint
from roundtable_desktop.store.database import SessionStore, StoreError
from roundtable_desktop.store.export import SessionExport
from roundtable_desktop.store.records import CallRecord

MAX_DEPTH = 64  # branches of branches followed at most (a loop in a damaged store ends)


class BranchRefused(Refusal):
    """The branch cannot be made as asked; the message says why (nothing was written)."""


# -- steps along a history -------------------------------------------------------------
def step_offset(store: SessionStore, session_id: str) -> int:
    """The steps a session inherited (0 for one that is no branch)."""
    origin = store.branch_origin(session_id)
    return origin.step if origin is not None else 0


def last_step(store: SessionStore, session_id: str) -> int:
    """The number of the session's last step along its whole history."""
    return step_offset(store, session_id) + store.step_count(session_id)


def locate_step(store: SessionStore, session_id: str, at: int) -> tuple[str, int]:
    """The session that recorded step `at` of `session_id`'s history, and the step's
    position among that session's own checkpoints."""
    if at < 1:
        raise BranchRefused(f"Steps are numbered from 1 (got {at}).")
    owner = session_id
    for _ in range(MAX_DEPTH):
        origin = store.branch_origin(owner)
        offset = origin.step if origin is not None else 0
        if at > offset or origin is None:
            last = offset + store.step_count(owner)
            if at > last:
                raise BranchRefused(
                    f"Session {session_id[:8]} has no step {at}: its steps are 1 to {last}."
                    if last else f"Session {session_id[:8]} has no steps yet.")
            return owner, at - offset
        owner = origin.parent_id
    raise BranchRefused(f"Session {session_id[:8]} branches too deep to follow.")


# -- what changed before the first own step ----------------------------------------------
class ChangeLog:
    """A bus listener that records each edit made before the branch's first call as one
    sentence in the store (`sessions.branch_changes`), then stops listening."""

    def __init__(self, store: SessionStore, session_id: str, session: SessionProtocol,
                 changes: Sequence[str] = ()) -> None:
        self.store = store
        self.session_id = session_id
        self.session = session
        self.changes = list(changes)
        self._labels = {spec.id: spec.label for spec in session.edit_specs()}
        self._details: list[str] = []  # what the edit under way said it changed
        self._unsubscribe = session.bus.subscribe(self)

    def __call__(self, event: Event) -> None:
        if isinstance(event, CallStarted):
            self._unsubscribe()
        elif isinstance(event, ActionStarted):
            self._details = []
        elif isinstance(event, StateChanged) and event.detail:
            self._details.append(event.detail)
        elif isinstance(event, ActionFinished) and event.ok and event.action in self._labels:
            label = self._labels[event.action]
            said = event.message or ", ".join(self._details)
            self.add(f"{label}: {said}" if said else label)

    def add(self, sentence: str) -> None:
        self.changes.append(" ".join(sentence.split()))
        self.store.set_branch_changes(self.session_id, self.changes)


def parse_edit(raw: str) -> Edit:
    """`ID` or `ID=JSON-object` (the edit's params), as typed after --edit."""
    edit_id, sep, params = raw.partition("=")
    edit_id = edit_id.strip()
    if not edit_id:
        raise ValueError("an edit is ID or ID={...json params...}")
    value: Any = json.loads(params) if sep else {}
    if not isinstance(value, dict):
        raise ValueError("an edit's params are a JSON object, e.g. set_flow={\"flow\": \"auto\"}")
    return Edit(id=edit_id, params=value)


# -- making the branch -------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class BranchRequest:
    """What to branch and what to change: `at` is a step of the parent's history."""

    parent_id: str
    at: int
    settings: SessionSettings = field(default_factory=SessionSettings)
    edits: tuple[Edit, ...] = ()
    seed: int | None = None  # None: the parent's


def branch_session(
    request: BranchRequest, *, store: SessionStore, client: ChatClient,
    provider: str = "", bus: EventBus | None = None, parallel: int = DEFAULT_PARALLEL,
) -> SessionHandle:
    """A new live branch (stored, locked, recorded) whose state is the checkpoint after
    step `request.at`; no call is made. An edit the kind refuses is a BranchRefused naming
    it, after which the branch is deleted again: nothing half made is kept."""
    owner, own_step = locate_step(store, request.parent_id, request.at)
    record = store.session_header(owner)  # not its latest state: one checkpoint only
    checkpoint = store.checkpoint_at(owner, own_step)
    spec = kind_spec(record.kind)
    meta = record.meta
    parent_seed = stored_seed(meta)
    seed = parent_seed if request.seed is None else request.seed
    settings = _merged(stored_settings(meta), request.settings)
    model = settings.model or str(meta.get("model", ""))
    client = SettingsClient.wrap(client.with_seed(seed), settings)
    ctx = SessionContext(client=client, model=model,
                         provider=provider or str(meta.get("provider", "")), bus=bus,
                         parallel=parallel, options={SEED: seed})
    try:
        session = spec.restore(ctx, checkpoint.state)
    except (KeyError, TypeError, ValueError):
        raise StoreError(f"Step {request.at} of session {owner[:8]} does not read as a "
                         f"{record.kind} session, so it cannot be branched.") from None
    session.detach_mcp()
    handle = record_session(session, kind=record.kind, store=store, client=client,
                            model=model, provider=ctx.provider, scenario=record.scenario,
                            seed=seed)
    try:
        if not settings.is_empty():
            store.add_meta(handle.session_id, {SETTINGS_META: settings.model_dump(
                exclude_none=True)})
        store.set_branch_origin(handle.session_id, BranchOrigin(parent_id=owner,
                                                                step=request.at))
        changes = ChangeLog(store, handle.session_id, session,
                            _setting_changes(meta, request.settings, parent_seed, seed))
        store.set_branch_changes(handle.session_id, changes.changes)
        for edit in request.edits:
            try:
                session.edit(edit)
            except Refusal as exc:
                raise BranchRefused(f"The edit {edit.id!r} was refused: {exc.message}") \
                    from None
    except BaseException:
        handle.close()
        store.delete_session(handle.session_id)
        raise
    return handle


def _merged(stored: SessionSettings, given: SessionSettings) -> SessionSettings:
    return SessionSettings.model_validate({**stored.model_dump(exclude_none=True),
                                           **given.model_dump(exclude_none=True)})


def _setting_changes(meta: dict[str, Any], given: SessionSettings, parent_seed: int,
                     seed: int) -> list[str]:
    found = []
    if given.model and given.model != meta.get("model"):
        found.append(f"Model: {meta.get('model') or '(the kind’s)'} → {given.model}")
    found += [f"Sampling: {name} = {value}" for name, value in given.sampling().items()]
    if seed != parent_seed:
        found.append(f"Seed: {parent_seed} → {seed}")
    return found


# -- a session's whole history -----------------------------------------------------------
@dataclass(frozen=True, slots=True)
class HistoryCall:
    """One call of a session's history; `inherited_from` is the session that made it when
    that is an ancestor (the call is then read-only here), else None."""

    call: CallRecord
    inherited_from: str | None = None


def _ancestry(store: SessionStore, session_id: str) -> list[tuple[str, int]]:
    """(ancestor, own steps inherited from it) for each ancestor, oldest first."""
    chain: list[tuple[str, int]] = []
    current = session_id
    for _ in range(MAX_DEPTH):
        origin = store.branch_origin(current)
        if origin is None:
            break
        chain.append((origin.parent_id, origin.step - step_offset(store, origin.parent_id)))
        current = origin.parent_id
    return chain[::-1]


def inherited_calls(store: SessionStore, session_id: str) -> list[HistoryCall]:
    """The calls a branch inherited (its ancestors', up to the step it left at), in
    order; none for a session that is no branch."""
    found: list[HistoryCall] = []
    for ancestor, steps in _ancestry(store, session_id):
        found += [HistoryCall(call, ancestor)
                  for call in store.calls_until_step(ancestor, steps)]
    return found


@dataclass(frozen=True, slots=True)
class InheritedPart:
    """What a branch inherited from one ancestor, as chunk lists (no text joined): the
    ancestor's calls up to the step the branch left at, and its checkpoints that far."""

    session_id: str
    calls: list[StoredCall]
    checkpoints: list[StoredCheckpoint]

    def digests(self) -> set[bytes]:
        """Every chunk the part's texts use (to read the ancestor's chunks it needs)."""
        found: set[bytes] = set()
        for call in self.calls:
            found.update(call.request_chunks, call.layers_chunks)
        for checkpoint in self.checkpoints:
            found.update(checkpoint.state_chunks)
        return found


def inherited_parts(store: SessionStore, session_id: str) -> list[InheritedPart]:
    """`inherited_calls` as chunk lists, one part per ancestor, oldest first: what the
    exports that reference chunks (JSON, replay) read; none for a session that is no
    branch."""
    parts: list[InheritedPart] = []
    for ancestor, steps in _ancestry(store, session_id):
        ends = [ts for seq, _, ts in store.checkpoint_marks(ancestor) if seq == steps]
        calls = [call for call in store.stored_calls(ancestor)
                 if ends and call.record.started_at <= ends[0]]
        checkpoints = [cp for cp in store.stored_checkpoints(ancestor) if cp.seq <= steps]
        parts.append(InheritedPart(ancestor, calls, checkpoints))
    return parts


def session_history(store: SessionStore, session_id: str) -> list[HistoryCall]:
    """Every call of the session's history: inherited ones (marked) then its own."""
    return [*inherited_calls(store, session_id),
            *(HistoryCall(call) for call in store.calls(session_id))]


def with_inherited_calls(store: SessionStore, data: SessionExport) -> None:
    """A branch's export: its origin, and the inherited calls first, marked."""
    session_id = data.session.id
    data.branch = store.branch_origin(session_id)
    if data.branch is None:
        return
    inherited = inherited_calls(store, session_id)
    data.inherited_from = {h.call.id: h.inherited_from or "" for h in inherited}
    data.calls = [h.call for h in inherited] + data.calls
