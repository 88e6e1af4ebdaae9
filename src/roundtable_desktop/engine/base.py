"""The interface every session kind implements, and the lifecycle they all share.

`actions()` says what the user may do now, `perform()` does one action emitting events,
`pending_payloads()` gives the exact request(s) the next model action would send,
`next_step()` says what a user would click next (Auto and the headless driver follow it),
`summary()` gives a kind-neutral account of the session. The window, the CLI, the store
and replay use only this interface.

`perform()` is a template: it emits ActionStarted / ActionFinished around the kind's
`_perform()` (the recorder writes a checkpoint on every ActionFinished, so no kind can
forget to persist), turns a `Refusal` into a Notice and a failed action, and runs Auto
for every kind (a step cap, Stop). An action's arguments beyond text, steps and option
are its `params`, which the kind reads with its own pydantic model (engine/params.py).
Model calls go through `call_model` / `call_many` (model_calls.py): any number in flight
under a per-session limit, Stop cancels them all.

`edit()` is the one way the window's editors change a session's state (an actor's
prompt, a slider, a budget): it checks the edit is offered now (`edits()`, and no call
running unless the edit says `while_running`), lets the kind's `_edit()` validate and
apply it, then announces it as a perform would (ActionStarted, StateChanged,
ActionFinished, so the store checkpoints it). A refused edit changes nothing and emits
nothing: it raises a Refusal saying why.
Must not import Qt and must not special-case a kind.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from roundtable_desktop.context.payload import SectionSize
from roundtable_desktop.context.request_document import render_request, stored_documents
from roundtable_desktop.domain.calls import ChatRequest
from roundtable_desktop.domain.events import (
    ActionFinished,
    ActionStarted,
    Notice,
    PhaseChanged,
    StateChanged,
)
from roundtable_desktop.domain.prompts import LayerText
from roundtable_desktop.domain.refusal import Refusal
from roundtable_desktop.domain.summary import SessionSummary
from roundtable_desktop.engine.bus import EventBus
from roundtable_desktop.engine.model_calls import DEFAULT_PARALLEL, ModelCaller
from roundtable_desktop.llm.client import ChatClient
from roundtable_desktop.store.redaction import storable_json_bytes

AUTO = "auto"
STOP = "stop"
SEND = "send"  # the action a human seat takes with its line, in every kind


class ActionSpec(BaseModel):
    """An action the user may take now; disabled actions say why."""

    id: str
    label: str
    enabled: bool = True
    reason: str = ""
    shortcut: str = ""  # a key sequence in Qt's portable text form, e.g. "Ctrl+Return"
    needs_text: bool = False
    needs_steps: bool = False
    options: list[str] = Field(default_factory=list)  # chosen by Action.option (an index)
    # May run while another action (an AI seat's stream) runs: a human seat's message in a
    # kind that allows it. The window and the runner honour it; most actions wait.
    while_running: bool = False


class Action(BaseModel):
    """One thing the user does, with the arguments it needs (all optional). `params`
    holds what only some kind's action takes (a channel, a hand of cards); the kind
    validates it with its own model. Actions are never stored (a checkpoint keeps only
    the id), so no older field names need reading back."""

    model_config = ConfigDict(extra="forbid")

    id: str
    text: str | None = None
    steps: int | None = None
    option: int | None = None
    params: dict[str, Any] = Field(default_factory=dict)


class Edit(BaseModel):
    """One change an editor makes to the session's state: an id the kind offers in
    `edits()` and its arguments, which the kind validates with its own model."""

    model_config = ConfigDict(extra="forbid")

    id: str
    params: dict[str, Any] = Field(default_factory=dict)


class Edited(BaseModel):
    """What an applied edit changed: the parts (announced as StateChanged, in order), one
    sentence for the user (the ActionFinished message) and whose it was, if anyone's."""

    changes: list[StateChanged]
    message: str = ""
    actor_id: str | None = None

    @classmethod
    def part(cls, part: str, detail: str = "", *, message: str = "",
             actor_id: str | None = None) -> Edited:
        """An edit that changed one part."""
        return cls(changes=[StateChanged(part=part, detail=detail)], message=message,
                   actor_id=actor_id)


class PendingPayload(BaseModel):
    """One request the next model action would send, as the view shows it."""

    actor_id: str | None
    label: str
    request: ChatRequest
    document: str = Field(description="the whole-request document (XHTML) for the view")
    sections: list[SectionSize] = Field(default_factory=list)
    layers: list[LayerText] = Field(default_factory=list)


class ActionUnavailable(Refusal):
    """The action (or edit) is not offered now, or its params are not usable; the message
    says why."""


RUNNING_REASON = "A call is running; wait for it or press Stop."


class SessionProtocol(ModelCaller):
    """Base of every session kind. Subclasses own their state model."""

    kind: ClassVar[str]

    def __init__(
        self, *, client: ChatClient, bus: EventBus | None = None,
        parallel: int = DEFAULT_PARALLEL,
    ) -> None:
        super().__init__(client=client, bus=bus or EventBus(), parallel=parallel)
        self._auto_running = False
        self._stop_requested = False

    # -- what a kind implements --------------------------------------------------------
    @abstractmethod
    def actions(self) -> list[ActionSpec]: ...

    @abstractmethod
    async def _perform(self, action: Action) -> bool:
        """Do `action` (never Auto or Stop); False when a model call in it failed."""

    @abstractmethod
    def next_step(self) -> Action | None:
        """What a user would click next, or None when a human seat must act or the
        session has ended."""

    @abstractmethod
    def pending_payloads(self) -> list[PendingPayload]: ...

    def payloads_as_sent(self) -> list[PendingPayload]:
        """`pending_payloads()` as the client will send them: what its `adapt()` changes
        (a branch's model and sampling, a `response_format` the endpoint refused) is in
        the request and its document too. The view shows these: shown is sent."""
        shown = []
        for payload in self.pending_payloads():
            sent = self.client.adapt(payload.request)
            if sent == payload.request:
                shown.append(payload)
                continue
            document = render_request(sent, payload.layers, stored_documents(sent),
                                      label=payload.label)
            shown.append(payload.model_copy(update={"request": sent, "document": document}))
        return shown

    @abstractmethod
    def state_dict(self) -> dict[str, Any]:
        """Everything needed to continue this session later (JSON-serializable)."""

    @abstractmethod
    def summary(self) -> SessionSummary:
        """Who takes part, what was said, and the result so far."""

    @property
    @abstractmethod
    def ended(self) -> bool: ...

    @property
    def title(self) -> str:
        return self.summary().title

    def progress(self) -> int:
        """A count that grows by one per turn or round: what `run --turns N` counts."""
        return 0

    def awaiting_human(self) -> str | None:
        """The name of the human seat the session is waiting for, or None."""
        return None

    def current_actor_id(self) -> str | None:
        return None

    def edit_specs(self) -> list[ActionSpec]:
        """The edits the window's editors may make (never on the toolbar), each enabled
        or not with why; `while_running` when it may be made while a call runs. `edits()`
        adds that rule; a kind with editors overrides this and `_edit()`."""
        return []

    def _edit(self, edit: Edit) -> Edited:
        """Validate `edit` whole, then apply it to the state (a Refusal before anything
        changed if it cannot be made); say what changed. Must not emit events."""
        raise ActionUnavailable(f"Unknown edit {edit.id!r}.")

    def stored_state(self) -> bytes | list[bytes]:
        """What the store saves after each action: `state_dict()` as compact UTF-8 JSON
        (lone surrogates replaced, known secrets scrubbed), or that JSON in pieces whose
        join it is. A kind that keeps its unchanged parts encoded overrides this to hand
        them over as the same objects, which the store then skips (the roundtable,
        kinds/roundtable/saved.py); no kind encodes its state any other way."""
        return storable_json_bytes(self.state_dict())

    def state_json(self) -> bytes:
        """The saved state as UTF-8 JSON bytes: `stored_state()` joined. Defined here only,
        so what a test or a caller reads is what the store saved."""
        stored = self.stored_state()
        return b"".join(stored) if isinstance(stored, list) else stored

    def attach_mcp(self, connection: Any) -> bool:
        """Use an MCP connection's tools; False when this kind uses none."""
        return False

    def detach_mcp(self) -> None:
        """Stop using MCP tools (a restored session is never connected)."""

    async def aclose(self) -> None:
        """Release what the session holds beyond its calls (servers it started); the
        window awaits it when it drops the session."""

    # -- the shared lifecycle ----------------------------------------------------------
    @property
    def running(self) -> bool:
        """A call is in flight or Auto is stepping: offer only Stop."""
        return self.busy or self._auto_running

    def stop(self) -> None:
        """Cancel every call in flight and any auto flow; partial text is kept."""
        self._stop_requested = True
        self.cancel_calls()

    def action_spec(self, action_id: str) -> ActionSpec:
        for spec in self.actions():
            if spec.id == action_id:
                return spec
        raise ActionUnavailable(f"Unknown action {action_id!r}.")

    def require(self, action: Action) -> None:
        spec = self.action_spec(action.id)
        if not spec.enabled:
            raise ActionUnavailable(spec.reason or f"{spec.label} is not available now.")

    # -- edits -------------------------------------------------------------------------
    def edits(self) -> list[ActionSpec]:
        """The kind's edits as offered now: one that may not run beside a call is
        disabled, with the reason, while a call runs (or Auto steps)."""
        specs = self.edit_specs()
        if not self.running:
            return specs
        return [spec if spec.while_running or not spec.enabled
                else spec.model_copy(update={"enabled": False, "reason": RUNNING_REASON})
                for spec in specs]

    def edit_spec(self, edit_id: str) -> ActionSpec:
        for spec in self.edits():
            if spec.id == edit_id:
                return spec
        raise ActionUnavailable(f"Unknown edit {edit_id!r}.")

    def require_edit(self, edit: Edit) -> None:
        spec = self.edit_spec(edit.id)
        if not spec.enabled:
            raise ActionUnavailable(spec.reason or f"{spec.label} is not available now.")

    def edit(self, edit: Edit) -> Edited:
        """Make `edit` if it is offered now, announced as a perform would announce it
        (ActionStarted, the StateChanged of each part, ActionFinished: the store
        checkpoints the state). Raises a Refusal saying why when it is not offered or
        the kind refuses it; then nothing has changed and nothing was emitted."""
        self.require_edit(edit)
        done = self._edit(edit)
        self.emit(ActionStarted(action=edit.id, actor_id=done.actor_id))
        for change in done.changes:
            self.emit(change)
        self.emit(ActionFinished(action=edit.id, ok=True, message=done.message))
        return done

    # -- actions -----------------------------------------------------------------------
    async def perform(self, action: Action) -> bool:
        """Do `action` if it is offered now (ActionUnavailable if not); False when it
        failed. Stop happens at once and is not recorded as an action."""
        if action.id == STOP:
            self.stop()
            return True
        self.require(action)
        return await self._run(action, within=None)

    async def _run(self, action: Action, *, within: str | None) -> bool:
        self.emit(ActionStarted(action=action.id, actor_id=self.current_actor_id(),
                                within=within))
        ok, message = False, ""
        try:
            if action.id == AUTO:
                ok = await self._auto(action.steps or 1)
            else:
                ok = await self._perform(action)
        except Refusal as exc:
            message = exc.message
            self.emit(Notice(level="error", message=exc.message, hint=exc.hint))
        finally:
            self.emit(ActionFinished(action=action.id, ok=ok, message=message))
            if not self.busy and within is None:
                self.emit(PhaseChanged(phase="ended" if self.ended else "waiting_for_user",
                                       actor_id=self.current_actor_id()))
        return ok

    async def _auto(self, steps: int) -> bool:
        """At most `steps` steps, each what the user would have clicked next; a failed
        step, Stop, the end or a human seat stops the flow."""
        self._stop_requested = False
        self._auto_running = True
        ok = True
        try:
            for done in range(steps):
                if self.ended or self._stop_requested:
                    break
                step = self.next_step()
                if step is None:
                    seat = self.awaiting_human()
                    if seat:
                        self.emit(Notice(message=f"Auto paused: {seat} is a human seat."))
                    break
                self.emit(PhaseChanged(phase="auto", actor_id=self.current_actor_id(),
                                       detail=f"step {done + 1} of {steps}"))
                ok = await self._run(step, within=AUTO)
                if not ok:
                    break  # a failed call stops the flow: the user decides what next
        finally:
            self._auto_running = False
        return ok

    def common_specs(self, *, auto_why: str | None = None) -> list[ActionSpec]:
        """Auto and Stop, the same in every kind (Auto also needs the kind's reason)."""
        why = auto_why or ("Auto is already running." if self.running else None)
        return [
            ActionSpec(id=AUTO, label="Auto", enabled=why is None, reason=why or "",
                       needs_steps=True, shortcut="Ctrl+Shift+A"),
            ActionSpec(id=STOP, label="Stop", enabled=self.running,
                       reason="" if self.running else "Nothing is running.", shortcut="Esc"),
        ]
