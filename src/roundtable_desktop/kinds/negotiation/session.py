"""The negotiation session (seed 000, CB.HTML): ALLY and KEEPER, an observer that models
both, a strategic planner, and the phased sequencer.

An AI turn runs MEMO_REFRESH -> OBSERVE -> MODEL -> PLAN -> DRAFT -> SPEAK -> SEND; a
human turn MEMO_REFRESH -> OBSERVE -> MODEL -> SEND. Each phase is a PhaseChanged event
(recorded in the store). MEMO_REFRESH recomputes the memo; OBSERVE feeds the loop guards;
MODEL asks the observer (purpose `observer`, strict JSON, one repair, then the old model
is kept with a visible warning) for its model of the last speaker; PLAN asks the planner
(purpose `planner`) for 4-6 options; DRAFT asks for the reply (purpose `reply`) with the
seed's labelled system prompt; SPEAK sanitizes it, reads its act and intent and relays
it into the other side's input; SEND logs it (negotiation_sequencer.py runs the phases;
this module offers the actions). Flow modes: manual and auto run a whole
turn per `take_turn` (auto through the shared Auto action, capped, stoppable); confirm
stops at PLAN until an option is picked and before SEND with the draft editable.
Adjudication (purpose `adjudicate`, with a rule fallback) ends the game. The policies
(`set_policies`, and the run options --observer / --planner) switch the observer's and
the planner's calls off; the window attaches a voice (`attach_voice`) that SPEAK reads
through, holding the turn until the line is read when `wait_for_speech` is on.

Settings (kinds/negotiation/settings.py) and the draft's text (`edit_draft`) are edits
(`edit()`, not toolbar actions); settings are accepted at any time and change the very
next request, the draft only while it waits to be sent. Requests are built in
negotiation_requests.py from the state alone, so `pending_payloads()` shows what is sent.
Must not import Qt.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from roundtable_desktop.domain.summary import SessionSummary
from roundtable_desktop.engine.base import (
    SEND,
    Action,
    ActionSpec,
    ActionUnavailable,
    Edit,
    Edited,
    PendingPayload,
)
from roundtable_desktop.engine.bus import EventBus
from roundtable_desktop.engine.model_calls import DEFAULT_PARALLEL
from roundtable_desktop.engine.params import read_params
from roundtable_desktop.engine.payloads import chat_payload
from roundtable_desktop.kinds.negotiation.judging import PRESENTER
from roundtable_desktop.kinds.negotiation.planning import policy_pick
from roundtable_desktop.kinds.negotiation.requests import (
    draft_request,
    focus_text,
    observer_request,
    planner_request,
    refresh_memo,
)
from roundtable_desktop.kinds.negotiation.sequencer import (
    OBSERVER,
    NegotiationSequencer,
    TurnStopped,
)
from roundtable_desktop.kinds.negotiation.settings import apply_setting, settings_specs
from roundtable_desktop.kinds.negotiation.speech_hold import SpeechHold, VoiceOut
from roundtable_desktop.kinds.negotiation.state import (
    ADJUDICATE,
    EDIT_DRAFT,
    PICK_OPTION,
    SEND_DRAFT,
    SETTINGS_ACTIONS,
    TAKE_TURN,
    NegotiationState,
    other_side,
)
from roundtable_desktop.kinds.negotiation.summary import negotiation_summary
from roundtable_desktop.llm.client import ChatClient


class DraftParams(BaseModel):
    """edit_draft: the waiting draft's new text."""

    model_config = ConfigDict(extra="forbid")

    text: str = ""


class NegotiationSession(NegotiationSequencer):
    kind = "negotiation"

    def __init__(self, state: NegotiationState, *, client: ChatClient,
                 bus: EventBus | None = None, parallel: int = DEFAULT_PARALLEL) -> None:
        super().__init__(client=client, bus=bus, parallel=parallel)
        self.state = state
        self.speech = SpeechHold()

    # -- persistence ---------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        return {"negotiation": self.state.model_dump(mode="json")}

    @classmethod
    def restore(cls, data: dict[str, Any], *, client: ChatClient, bus: EventBus | None = None,
                parallel: int = DEFAULT_PARALLEL) -> NegotiationSession:
        state = NegotiationState.model_validate(data["negotiation"])
        cur = state.current
        # A turn cut by a crash resumes where a user could act again: at the pick when
        # options were made, before SEND when a draft was made, else from the start.
        if cur is not None and not state.ended:
            if cur.draft and cur.phase in ("SPEAK", "SEND"):
                cur.phase = "SPEAK"
            elif cur.options and not cur.human:
                cur.phase = "PLAN"
            else:
                state.current = None
            state.phase = state.current.phase if state.current else "IDLE"
        return cls(state, client=client, bus=bus, parallel=parallel)

    @property
    def ended(self) -> bool:
        return self.state.ended

    def attach_voice(self, out: VoiceOut | None) -> None:
        """Read lines aloud through `out` (the window's speech engine; None: nowhere)."""
        self.speech.out = out

    @property
    def running(self) -> bool:
        """A call, Auto, or a line being read aloud that the turn waits for."""
        return super().running or self.speech.holding

    def stop(self) -> None:
        """Stop also cuts a line being read aloud short; the turn goes on to SEND."""
        self.speech.release()
        super().stop()

    # The session's default model and provider (a side's own model wins); the window sets
    # them when the user picks another provider.
    @property
    def model(self) -> str:
        return self.state.model

    @model.setter
    def model(self, value: str) -> None:
        self.state.model = value

    @property
    def provider(self) -> str:
        return self.state.provider

    @provider.setter
    def provider(self, value: str) -> None:
        self.state.provider = value

    def progress(self) -> int:
        return self.state.turn_count

    def current_actor_id(self) -> str | None:
        cur = self.state.current
        return cur.side if cur is not None else self.state.turn_side

    def awaiting_human(self) -> str | None:
        s = self.state
        side = s.sides[s.turn_side]
        if s.ended or s.current is not None or not side.human:
            return None
        return side.name

    def summary(self) -> SessionSummary:
        return negotiation_summary(self.state)

    # -- what the user may do ------------------------------------------------------------
    def _waiting_pick(self) -> bool:
        cur = self.state.current
        return cur is not None and cur.phase == "PLAN" and bool(cur.options) and not cur.human

    def _waiting_send(self) -> bool:
        cur = self.state.current
        return cur is not None and cur.phase == "SPEAK" and bool(cur.draft)

    def actions(self) -> list[ActionSpec]:
        s = self.state
        side = s.sides[s.turn_side]
        ended = "The negotiation has been adjudicated." if s.ended else None
        blocked = ended or ("A call is running." if self.running else None)
        in_turn = "Finish the turn in progress first." if s.current is not None else None

        def spec(aid: str, label: str, why: str | None, shortcut: str = "",
                 **kw: Any) -> ActionSpec:
            return ActionSpec(id=aid, label=label, enabled=why is None, reason=why or "",
                              shortcut=shortcut, **kw)

        options = [f"{i + 1}. {o.act}: {o.text}" for i, o in enumerate(
            s.current.options if s.current is not None else [])]
        return [
            spec(TAKE_TURN, f"Take turn: {side.name}", blocked or in_turn or (
                f"{side.name} is a human seat: write their line." if side.human else None),
                "Ctrl+Return"),
            spec(PICK_OPTION, "Pick option", blocked or (
                None if self._waiting_pick() else "No planner options are waiting."),
                options=options),
            spec(SEND_DRAFT, "Send draft", blocked or (
                None if self._waiting_send() else "No draft is waiting to be sent."),
                "Ctrl+Shift+D"),
            spec(ADJUDICATE, "Adjudicate now", blocked or in_turn or (
                "Nothing has been said yet." if s.turn_count == 0 else None), "Ctrl+J"),
            *self.common_specs(auto_why=ended),
            spec(SEND, f"Send as {side.name}", blocked or in_turn or (
                None if side.human else f"{side.name} is an AI seat: take its turn."),
                "Ctrl+Shift+Return", needs_text=True),
        ]

    def edit_specs(self) -> list[ActionSpec]:
        """The settings (any time) and the draft's text (while it waits to be sent),
        made by the docks; not on the toolbar."""
        waiting = self._waiting_send()
        return [*settings_specs(), ActionSpec(
            id=EDIT_DRAFT, label="Edit draft", enabled=waiting and not self.ended,
            reason="" if waiting else "No draft is waiting to be sent.", needs_text=True)]

    def _edit(self, edit: Edit) -> Edited:
        if edit.id == EDIT_DRAFT:
            text = read_params(DraftParams, edit.params, "Edit draft").text
            changes = self._draft_edited(text)
            return Edited(changes=changes, actor_id=changes[0].detail)
        if edit.id in SETTINGS_ACTIONS:
            return apply_setting(self.state, edit.id, edit.params)
        return super()._edit(edit)

    async def _perform(self, action: Action) -> bool:
        try:
            return await self._turn_action(action)
        except TurnStopped:
            self._abandon_turn()
            return False

    async def _turn_action(self, action: Action) -> bool:
        if action.id == TAKE_TURN:
            return await self._take_turn()
        if action.id == PICK_OPTION:
            return await self._pick(action.option)
        if action.id == SEND_DRAFT:
            if action.text is not None and action.text.strip():
                self._edit_draft(action.text)
            assert self.state.current is not None
            return await self._send_turn(self.state.current)
        if action.id == SEND:
            return await self._human_turn(action.text)
        if action.id == ADJUDICATE:
            return await self._adjudicate(PRESENTER)
        raise ActionUnavailable(f"Unknown action {action.id!r}.")

    def next_step(self) -> Action | None:
        s = self.state
        if s.ended:
            return None
        if self._waiting_pick():
            assert s.current is not None
            return Action(id=PICK_OPTION, option=policy_pick(s, s.current.side,
                                                             s.current.options))
        if self._waiting_send():
            return Action(id=SEND_DRAFT)
        if s.current is not None or s.sides[s.turn_side].human:
            return None
        return Action(id=TAKE_TURN)

    # -- payloads --------------------------------------------------------------------------
    def pending_payloads(self) -> list[PendingPayload]:
        """The requests the next step sends, built as the sequencer builds them: before a
        turn the observer's, the planner's and the draft (no focus yet); at the pick the
        draft with the policy's option as FOCUS_THIS_TURN."""
        s = self.state
        if s.ended or self._waiting_send():
            return []
        if self._waiting_pick():
            cur = s.current
            assert cur is not None
            index = policy_pick(s, cur.side, cur.options)
            request, layers = draft_request(s, cur.side, focus_text(cur.options[index]),
                                            s.memo, s.prompts)
            return [chat_payload(cur.side, self._label(cur.side, "draft", cur.turn),
                                 request, layers)]
        if s.current is not None:
            return []
        side = s.turn_side
        turn = s.turn_count + 1
        memo = refresh_memo(s)
        about = other_side(side)
        payloads = []
        if s.policies.observer:
            obs, obs_layers = observer_request(s, about, s.prompts)
            payloads.append(chat_payload(OBSERVER, f"Observer: model of {about} (turn {turn})",
                                         obs, obs_layers))
        if not s.sides[side].human:
            if s.policies.planner:
                plan, plan_layers = planner_request(s, side, memo, s.prompts)
                payloads.append(chat_payload(side, self._label(side, "planner", turn), plan,
                                             plan_layers))
            draft, draft_layers = draft_request(s, side, "", memo, s.prompts)
            payloads.append(chat_payload(side, self._label(side, "draft", turn), draft,
                                         draft_layers))
        return payloads

