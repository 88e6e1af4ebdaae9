"""The tutor session: a human student against an AI trickster, driven by a cartridge.

The student is the human seat: in a static phase they pick a choice (`send` with an
option), in a freeform phase they write (`send` with text) and the trickster's reply
streams at once. When a reply completes the safety check runs; a violation replaces the
shown reply with a notice (the original stays in the call's stored outcome and in the
exchange record) and the next request carries the one-shot redaction layer. The
transition tool maps a signal to the cartridge's transition; at `max_exchanges` the phase
ends with `max_reached` by rule. In an end phase the debrief call runs and ends the task.

Events mirror the reference pipeline: tokens are TokenReceived, then a reply ends in
exactly one of "redact" (StateChanged(part="redact") plus a warning Notice saying
`withheld_sentence`; a withheld reply changes no phase) or "done"
(StateChanged(part="done") whose detail is the JSON `{"phase_transition", "next_phase",
"exchanges_count"}` for a dialogue reply, `{"debrief_complete": true}` for the debrief).
The Teacher view's budget is the `set_budget` edit (kinds/tutor/edit.py). Must not
import Qt.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from roundtable_desktop.context.layers import PromptSnapshot
from roundtable_desktop.domain.calls import CallOutcome, CallStatus
from roundtable_desktop.domain.events import (
    Notice,
    SessionEnded,
    StateChanged,
)
from roundtable_desktop.domain.prompts import LayerText
from roundtable_desktop.domain.summary import SessionSummary
from roundtable_desktop.engine.base import (
    SEND,
    Action,
    ActionSpec,
    ActionUnavailable,
    Edit,
    Edited,
    PendingPayload,
    SessionProtocol,
)
from roundtable_desktop.engine.bus import EventBus
from roundtable_desktop.engine.model_calls import DEFAULT_PARALLEL
from roundtable_desktop.engine.payloads import chat_payload
from roundtable_desktop.engine.structured_call import call_structured
from roundtable_desktop.kinds.tutor.cartridge import FreeformPhase, StaticPhase
from roundtable_desktop.kinds.tutor.edit import SET_BUDGET, apply_budget_edit, budget_edit_spec
from roundtable_desktop.kinds.tutor.prompts import take_tutor_snapshot
from roundtable_desktop.kinds.tutor.requests import (
    TOOL_REFUSALS,
    BuiltRequest,
    debrief_layers,
    debrief_request,
    dialogue_layers,
    dialogue_request,
    is_tools_refusal,
    signal_from_text,
    signal_from_tool_calls,
    tool_offered,
)
from roundtable_desktop.kinds.tutor.safety import (
    SafetyVerdict,
    redaction_notice,
    rule_violation,
    safety_request,
    withheld_sentence,
)
from roundtable_desktop.kinds.tutor.state import (
    STUDENT,
    TRICKSTER,
    ChoiceMade,
    Exchange,
    TransitionRecord,
    TutorState,
)
from roundtable_desktop.kinds.tutor.summary import tutor_summary
from roundtable_desktop.kinds.tutor.verdict import count_sentence, judge
from roundtable_desktop.llm.client import ChatClient

REPLY, DEBRIEF = "reply", "debrief"
STUDENT_NAME = "Student"


class TutorSession(SessionProtocol):
    kind = "tutor"

    def __init__(self, state: TutorState, *, client: ChatClient, bus: EventBus | None = None,
                 model: str = "offline", parallel: int = DEFAULT_PARALLEL) -> None:
        super().__init__(client=client, bus=bus, parallel=parallel)
        self.state = state
        self.model = model
        if TOOL_REFUSALS.refused(client.endpoint, model):
            state.tool_mode = "prompt"

    # -- what the user may do -------------------------------------------------------------
    def actions(self) -> list[ActionSpec]:
        """`send` is the student's: a choice (its option, or text naming it) in a static
        phase, a line in a freeform phase; either way it asks the human seat for input."""
        s = self.state
        busy = "A reply is streaming." if self.running else None
        ended = "The exercise has ended." if s.ended else None
        phase = s.current()
        send_why = ended or busy or (None if s.awaiting_student() else (
            "The debrief comes next." if s.awaiting_debrief() else "The trickster answers first."))
        reply_why = ended or busy or (None if s.awaiting_reply() else "It is the student's turn.")
        debrief_why = ended or busy or (None if s.awaiting_debrief() else
                                        "The debrief comes when the task ends.")
        return [
            ActionSpec(id=SEND, label="Answer as the student", enabled=send_why is None,
                       reason=send_why or "", needs_text=True, shortcut="Ctrl+Shift+Return",
                       options=([c.label for c in phase.choices]
                                if isinstance(phase, StaticPhase) else [])),
            ActionSpec(id=REPLY, label="Trickster replies", enabled=reply_why is None,
                       reason=reply_why or "", shortcut="Ctrl+Return"),
            ActionSpec(id=DEBRIEF, label="Debrief", enabled=debrief_why is None,
                       reason=debrief_why or "", shortcut="Ctrl+Shift+D"),
            *self.common_specs(auto_why=ended),
        ]

    async def _perform(self, action: Action) -> bool:
        if action.id == SEND:
            return await self._student(action)
        if action.id == REPLY:
            return await self._reply()
        if action.id == DEBRIEF:
            return await self._debrief()
        raise ActionUnavailable(f"Unknown action {action.id!r}.")

    def next_step(self) -> Action | None:
        s = self.state
        if s.awaiting_reply():
            return Action(id=REPLY)
        if s.awaiting_debrief():
            return Action(id=DEBRIEF)
        return None

    def awaiting_human(self) -> str | None:
        return STUDENT_NAME if self.state.awaiting_student() else None

    def current_actor_id(self) -> str | None:
        return TRICKSTER if self.state.awaiting_reply() or self.state.awaiting_debrief() \
            else STUDENT

    def progress(self) -> int:
        return self.state.replies

    def edit_specs(self) -> list[ActionSpec]:
        return [budget_edit_spec()]

    def _edit(self, edit: Edit) -> Edited:
        if edit.id == SET_BUDGET:
            return apply_budget_edit(self.state, edit.params)
        return super()._edit(edit)

    # -- payloads ---------------------------------------------------------------------------
    def snapshot(self) -> PromptSnapshot:
        """The attempt's prompt files: its snapshot, or (before the first call) as the
        files are now."""
        s = self.state
        return s.snapshot or take_tutor_snapshot(s.cartridge.task_id, s.provider)

    def _built(self) -> BuiltRequest | None:
        s = self.state
        if s.awaiting_reply():
            return dialogue_request(s, self.snapshot(), self.model)
        if s.awaiting_debrief():
            return debrief_request(s, self.snapshot(), self.model)
        return None

    def pending_payloads(self) -> list[PendingPayload]:
        built = self._built()
        if built is None:
            return []
        return [chat_payload(TRICKSTER, built.label, self.client.adapt(built.request),
                             built.layers)]

    def layers_now(self) -> list[LayerText]:
        """The layers of the next trickster call as they stand now (the teacher view),
        also while the student is still writing."""
        s = self.state
        if s.awaiting_debrief() or s.debrief is not None:
            return debrief_layers(s, self.snapshot())
        if isinstance(s.current(), FreeformPhase):
            return dialogue_layers(s, self.snapshot())
        return []

    def _take_snapshot(self) -> None:
        if self.state.snapshot is None:
            self.state.snapshot = self.snapshot()
            self.emit(StateChanged(part="snapshot", detail=f"attempt {self.state.attempt}"))

    # -- the student ------------------------------------------------------------------------
    async def _student(self, action: Action) -> bool:
        s = self.state
        phase = s.current()
        if isinstance(phase, StaticPhase):
            self._choose(phase, _choice_index(phase, action))
            return True
        if action.option is not None:  # `--choice N` where the student writes: not "N"
            raise ActionUnavailable("This phase offers no choices: answer in the student's "
                                    "own words instead.")
        text = (action.text or "").strip()
        if not text:
            raise ActionUnavailable("Write something to send.")
        s.exchanges.append(Exchange(role=STUDENT, text=text, phase=s.phase))
        self.emit(StateChanged(part="exchanges"))
        return await self._reply()

    def _choose(self, phase: StaticPhase, index: int) -> None:
        s = self.state
        choice = phase.choices[index]
        s.choices.append(ChoiceMade(phase=phase.id, index=index, label=choice.label,
                                    context_label=choice.context_label))
        target = choice.next_phase or s.cartridge.phase_after(phase.id)
        if target is None:
            raise ActionUnavailable("This choice leads nowhere: the cartridge has no next phase.")
        s.transitions.append(TransitionRecord(phase=phase.id, signal="choice",
                                              next_phase=target, by="choice"))
        s.phase = target
        self._announce()

    def _announce(self) -> None:
        """The phase just entered; a static phase's choices are also a notice (numbered,
        as `--choice N` picks them), since the student must pick one next."""
        phase = self.state.current()
        self.emit(StateChanged(part="phase", detail=phase.id))
        if isinstance(phase, StaticPhase):
            lines = [f"{phase.title}: {phase.content}",
                     *(f"  {i}. {c.label}" for i, c in enumerate(phase.choices, 1))]
            self.emit(Notice(message="\n".join(lines)))

    # -- the trickster ------------------------------------------------------------------------
    async def _reply(self) -> bool:
        s = self.state
        if not s.awaiting_reply():
            raise ActionUnavailable("The trickster has already answered.")
        self._take_snapshot()
        built = dialogue_request(s, self.snapshot(), self.model)
        s.last_dropped = built.dropped
        outcome = await self.call_model(TRICKSTER, built.request, label=built.label,
                                        layers=built.layers)
        if (outcome.status == CallStatus.FAILED and built.request.tools
                and is_tools_refusal(outcome.error)):
            # No native tools here: the same tool as a CALL: line, said in the prompt.
            TOOL_REFUSALS.remember(self.client.endpoint, self.model)
            s.tool_mode = "prompt"
            self.emit(Notice(message="This endpoint has no native tools: the transition "
                                     "tool is offered as a CALL: line in the prompt."))
            built = dialogue_request(s, self.snapshot(), self.model)
            outcome = await self.call_model(TRICKSTER, built.request, label=built.label,
                                            layers=built.layers)
        if outcome.status != CallStatus.OK:
            return False
        if built.carries_redaction:
            s.last_redaction_reason = None  # one-shot: it has been used
        await self._take_reply(outcome, offered=tool_offered(s))
        return True

    async def _take_reply(self, outcome: CallOutcome, *, offered: bool) -> None:
        s = self.state
        phase = s.current()
        assert isinstance(phase, FreeformPhase)
        signal = signal_from_tool_calls(outcome.tool_calls)
        text_signal, text = signal_from_text(outcome.text)
        signal = signal or text_signal
        reason = await self._violation(text)
        s.replies += 1
        if reason is not None:
            # The reference pipeline yields `redact` OR `done`: a withheld reply ends
            # nothing (no signal, no rule), and no `done` follows its `redact`.
            s.exchanges.append(Exchange(role=TRICKSTER, text=redaction_notice(s.cartridge.language),
                                        phase=s.phase, redacted=True, original=outcome.text,
                                        reason=reason))
            s.last_redaction_reason = reason
            self.emit(StateChanged(part="redact", detail=json.dumps(
                {"reason": reason, "notice": s.exchanges[-1].text}, ensure_ascii=False)))
            self.emit(Notice(level="warning", message=withheld_sentence(reason)))
            return
        s.exchanges.append(Exchange(role=TRICKSTER, text=text or "…", phase=s.phase))
        self.emit(StateChanged(part="exchanges"))
        count = s.exchange_count()
        by: Literal["tool", "rule"] = "tool"
        if signal is not None and not offered:
            signal = None  # the tool was not offered yet: a premature signal is ignored
        if signal is None and count >= phase.max_exchanges:
            signal, by = "max_reached", "rule"
        target = s.cartridge.transitions_of(phase).target(signal) if signal else None
        if target is not None and signal is not None:
            s.transitions.append(TransitionRecord(phase=s.phase, signal=signal,
                                                  next_phase=target, by=by, exchanges=count))
            s.phase = target
        self.emit(StateChanged(part="done", detail=json.dumps(
            {"phase_transition": signal, "next_phase": target, "exchanges_count": count})))
        if target is not None:
            self._announce()

    async def _violation(self, text: str) -> str | None:
        s = self.state
        reason = rule_violation(text, s.cartridge)
        if reason is not None or not s.cartridge.safety.model_check:
            return reason
        request = safety_request(self.model, s.cartridge, text)
        layer = LayerText(name="safety_check", source="runtime",
                          text=request.messages[0].content)
        result = await call_structured(self, "safety", request, SafetyVerdict,
                                       label="Safety check", layers=[layer])
        if result.value is None:
            return "the safety check could not run, so the reply is withheld"
        return None if result.value.safe else (result.value.reason or "the model check")

    # -- the debrief ---------------------------------------------------------------------------
    async def _debrief(self) -> bool:
        s = self.state
        if not s.awaiting_debrief():
            raise ActionUnavailable("The debrief comes when the task ends.")
        self._take_snapshot()
        s.verdicts = judge(s.cartridge, s.student_lines())  # fixed: the debrief explains them
        built = debrief_request(s, self.snapshot(), self.model)
        outcome = await self.call_model(TRICKSTER, built.request, label=built.label,
                                        layers=built.layers)
        if outcome.status != CallStatus.OK:
            return False
        s.debrief = outcome.text
        s.last_redaction_reason = None
        s.replies += 1
        s.ended = True
        self.emit(StateChanged(part="done", detail=json.dumps({"debrief_complete": True})))
        count = count_sentence(s.verdicts or [], s.cartridge.language)
        self.emit(SessionEnded(reason=f"The exercise “{s.cartridge.title}” is over: "
                                      f"the debrief is written. {count}"))
        return True

    # -- persistence and summary ------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        return {"tutor": self.state.model_dump(mode="json"), "model": self.model}

    @property
    def ended(self) -> bool:
        return self.state.ended

    def summary(self) -> SessionSummary:
        return tutor_summary(self.state)


def _choice_index(phase: StaticPhase, action: Action) -> int:
    """The choice an action names: its option index, or text that is a choice's number
    (from 1) or label."""
    if action.option is not None:
        index = action.option
    else:
        text = (action.text or "").strip()
        labels = [c.label.casefold() for c in phase.choices]
        if text.isdigit():
            index = int(text) - 1
        elif text.casefold() in labels:
            index = labels.index(text.casefold())
        else:
            raise ActionUnavailable(
                f"Pick one of the choices: "
                f"{'; '.join(f'{i}. {c.label}' for i, c in enumerate(phase.choices, 1))}.")
    if not 0 <= index < len(phase.choices):
        raise ActionUnavailable(f"There is no choice {index + 1}: this phase has "
                                f"{len(phase.choices)}.")
    return index
