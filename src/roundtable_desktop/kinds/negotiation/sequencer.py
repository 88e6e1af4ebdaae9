"""The negotiation's phased sequencer (seed 000's `Sequencer`): one turn's phases, each a
PhaseChanged event, and the adjudication that ends the game.

An AI turn: MEMO_REFRESH (the memo, from the state) -> OBSERVE (the loop guards) -> MODEL
(the observer's model of the last speaker: strict JSON, one repair, else the old model is
kept with a warning) -> PLAN (4-6 options; rule-made ones when the reply is unreadable;
forced diversity after a loop-guard trip) -> DRAFT (the reply call) -> SPEAK (sanitize,
act and intent, relay into the other side's input, read aloud: held until read when the
policy says so) -> SEND (the append-only log, last acts, intents, KPIs, trait and
influence points, then what the message asks of the adjudicator). A human turn skips
PLAN, DRAFT and SPEAK. In confirm flow the turn pauses at PLAN and before SEND
(kinds/negotiation/session.py offers the pick and the send). The policies
(state.Policies) switch the observer's MODEL call and the planner's PLAN call off, as
the seed's useModeler / strategicPlanningEnabled do: the phase passes with no call, and
the draft goes without a MODEL_OF_OTHER update / a FOCUS_THIS_TURN directive.
Must not import Qt; the session class (negotiation.py) owns the actions.
"""

from __future__ import annotations

from typing import Any

from roundtable_desktop.context.sanitize import clean_text
from roundtable_desktop.domain.calls import CallOutcome, CallStatus
from roundtable_desktop.domain.events import (
    Notice,
    PhaseChanged,
    SessionEnded,
    StateChanged,
)
from roundtable_desktop.engine.base import ActionUnavailable, SessionProtocol
from roundtable_desktop.engine.structured_call import call_structured
from roundtable_desktop.kinds.negotiation.judging import (
    STALLED,
    decide,
    feed_loop_guards,
    record_influence,
    record_traits,
    stalled,
    trigger_after_send,
)
from roundtable_desktop.kinds.negotiation.planning import (
    diversify,
    fallback_options,
    policy_pick,
)
from roundtable_desktop.kinds.negotiation.requests import (
    AdjudicatorReply,
    ObserverReply,
    PlannerReply,
    adjudicate_request,
    draft_request,
    focus_text,
    observer_request,
    planner_request,
    refresh_memo,
)
from roundtable_desktop.kinds.negotiation.speech_hold import SPEECH_LIMIT_S, SpeechHold
from roundtable_desktop.kinds.negotiation.state import (
    SIDES,
    Adjudication,
    LogEntry,
    NegotiationState,
    ObserverModel,
    Phase,
    PlanOption,
    TurnInProgress,
    other_side,
)
from roundtable_desktop.kinds.negotiation.text import extract_act_and_intent, sanitize_reply

OBSERVER = "OBSERVER"
ADJUDICATOR = "ADJUDICATOR"
# The details of the phases a policy leaves out, and of SPEAK while the line is read.
OBSERVER_OFF = "skipped: the observer is off"
PLANNER_OFF = "skipped: the planner is off"
READING_ALOUD = "reading the line aloud"


class TurnStopped(Exception):
    """Stop cancelled a call of the turn: the turn waits where a user can pick it up."""


def _stopped(outcomes: tuple[CallOutcome, ...]) -> bool:
    return bool(outcomes) and outcomes[-1].status == CallStatus.CANCELLED


class NegotiationSequencer(SessionProtocol):
    """The turn machinery of a negotiation session; `state` is set by the session."""

    state: NegotiationState
    speech: SpeechHold  # set by the session

    def _label(self, side: str, what: str, turn: int) -> str:
        return f"{self.state.sides[side].name}: {what} (turn {turn})"

    # -- the sequencer ---------------------------------------------------------------------
    def _abandon_turn(self) -> None:
        """After Stop: a turn with options waits at the pick, any other starts again."""
        s = self.state
        cur = s.current
        if cur is not None and cur.options and not cur.human:
            self._phase(cur, "PLAN", "stopped: pick an option to go on")
            return
        s.current = None
        s.phase = "ENDED" if s.ended else "IDLE"
        self.emit(PhaseChanged(phase=s.phase, detail="stopped"))

    def _phase(self, cur: TurnInProgress, phase: Phase, detail: str = "") -> None:
        cur.phase = phase
        self.state.phase = phase
        self.emit(PhaseChanged(phase=phase, actor_id=cur.side,
                               detail=detail or f"turn {cur.turn}"))

    async def _take_turn(self) -> bool:
        s = self.state
        cur = TurnInProgress(side=s.turn_side, turn=s.turn_count + 1)
        s.current = cur
        if not await self._prelude(cur):
            return True
        if not s.policies.planner:  # strategicPlanningEnabled off: no call, no focus
            self._phase(cur, "PLAN", PLANNER_OFF)
            return await self._draft(cur)
        self._phase(cur, "PLAN")
        cur.options = await self._plan(cur.side)
        s.log.append(self._entry(cur.turn, "PLANNER", "PLAN", "; ".join(
            f"{o.act}: {o.text}" for o in cur.options)))
        self.emit(StateChanged(part="options", detail=cur.side))
        if s.flow == "confirm":
            self.emit(PhaseChanged(phase="PLAN", actor_id=cur.side,
                                   detail="waiting for a pick"))
            return True
        return await self._pick(policy_pick(s, cur.side, cur.options))

    async def _prelude(self, cur: TurnInProgress) -> bool:
        """MEMO_REFRESH, OBSERVE, MODEL; False when the loop guard ended the game."""
        s = self.state
        self._phase(cur, "MEMO_REFRESH")
        s.memo = refresh_memo(s)
        self.emit(StateChanged(part="memo"))
        self._phase(cur, "OBSERVE")
        verdict = feed_loop_guards(s, cur.side)
        if verdict is not None and verdict.repeats:
            s.log.append(self._entry(cur.turn, "OBSERVER", "LOOP",
                                     f"{other_side(cur.side)} repeats itself "
                                     f"(similarity {verdict.similarity:.2f}); "
                                     f"{cur.side}'s planner must diversify."))
            self.emit(StateChanged(part="loop_guard",
                                   detail=f"{other_side(cur.side)} {verdict.similarity:.2f}"))
            self.emit(StateChanged(part="kpis"))
        if stalled(s):
            s.current = None
            await self._adjudicate(STALLED)
            return False
        if not s.policies.observer:  # useModeler off: MODEL_OF_OTHER stays as it is
            self._phase(cur, "MODEL", OBSERVER_OFF)
            return True
        self._phase(cur, "MODEL")
        await self._model(other_side(cur.side), cur.turn)
        return True

    async def _model(self, about: str, turn: int) -> bool:
        s = self.state
        request, layers = observer_request(s, about, s.prompts)
        result = await call_structured(self, OBSERVER, request, ObserverReply,
                                       label=f"Observer: model of {about} (turn {turn})",
                                       layers=layers)
        side = s.sides[about]
        if _stopped(result.outcomes):
            raise TurnStopped
        if result.value is None:
            side.observed = side.observed.model_copy(update={"error": result.error})
            s.kpis.observer_failures += 1
            s.log.append(self._entry(turn, OBSERVER, "NOTE",
                                     f"The model of {about} was not updated: {result.error}"))
            self.emit(Notice(level="warning",
                             message=f"The observer's model of {side.name} was not updated; "
                                     "the previous model is kept.",
                             hint=result.error))
            self.emit(StateChanged(part="beliefs", detail=about))
            return False
        v = result.value
        side.observed = ObserverModel(dims=v.dims, prior=v.prior, posterior=v.posterior,
                                      myth=v.myth, tone=v.tone, rationale=v.rationale,
                                      turn=turn)
        s.log.append(self._entry(turn, OBSERVER, "MODEL",
                                 f"Model of {about}: {v.tone}. {v.rationale}"))
        record_influence(s, point=False)
        self.emit(StateChanged(part="beliefs", detail=about))
        self.emit(StateChanged(part="influence"))
        return True

    async def _plan(self, side: str) -> list[PlanOption]:
        s = self.state
        request, layers = planner_request(s, side, s.memo, s.prompts)
        result = await call_structured(self, side, request, PlannerReply,
                                       label=self._label(side, "planner", s.turn_count + 1),
                                       layers=layers)
        if _stopped(result.outcomes):
            raise TurnStopped
        if result.value is None:
            s.kpis.planner_failures += 1
            self.emit(Notice(level="warning",
                             message="The planner's options could not be read; rule-made "
                                     "options are offered instead.", hint=result.error))
            return fallback_options(s, side)
        options = list(result.value.root)
        if s.force_diversity.get(side, False):
            options = diversify(options, s.sides[side].last_act)
        return options

    async def _pick(self, option: int | None) -> bool:
        s = self.state
        cur = s.current
        assert cur is not None
        if option is None:
            option = policy_pick(s, cur.side, cur.options)
        if not 0 <= option < len(cur.options):
            raise ActionUnavailable(f"There is no option {option + 1}; choose 1 to "
                                    f"{len(cur.options)}.")
        cur.chosen, cur.focus = option, focus_text(cur.options[option])
        s.kpis.directive_history[cur.side].append(cur.focus)
        return await self._draft(cur)

    async def _draft(self, cur: TurnInProgress) -> bool:
        """DRAFT (with the chosen option's focus, or none when the planner is off),
        SPEAK, then SEND unless confirm flow waits for it."""
        s = self.state
        me = s.sides[cur.side]
        cur.draft_failed = ""
        self._phase(cur, "DRAFT")
        request, layers = draft_request(s, cur.side, cur.focus, s.memo, s.prompts)
        outcome = await self.call_model(cur.side, request, layers=layers,
                                        label=self._label(cur.side, "draft", cur.turn))
        if outcome.status != CallStatus.OK:
            cur.draft_failed = outcome.error or outcome.status.value
            if cur.options:
                self._phase(cur, "PLAN", "the draft failed: pick an option again")
            else:  # nothing to pick from: the turn starts again
                s.current, s.phase = None, "IDLE"
                self.emit(PhaseChanged(phase="IDLE", actor_id=cur.side,
                                       detail="the draft failed: take the turn again"))
            return False
        self._phase(cur, "SPEAK")
        text = sanitize_reply(outcome.text, speaker_names=(me.name, cur.side))
        reading = extract_act_and_intent(text)
        chosen = cur.options[cur.chosen] if cur.chosen is not None else None
        cur.draft = text
        cur.act = reading.act if reading.explicit or chosen is None else chosen.act
        cur.intent = reading.intent if reading.explicit else ""
        me.last_text = text
        self.emit(StateChanged(part="draft", detail=cur.side))
        self._relay(cur.side, text)
        self.emit(StateChanged(part="speak", detail=cur.side))
        await self._read_aloud(cur)
        if s.flow == "confirm":
            self.emit(PhaseChanged(phase="SPEAK", actor_id=cur.side,
                                   detail="waiting to send: edit the draft or send it"))
            return True
        return await self._send_turn(cur)

    async def _read_aloud(self, cur: TurnInProgress) -> None:
        """SPEAK's text-to-speech: the side's line read aloud when it reads aloud, the
        sequencer held until it has been read when the policy says so."""
        s = self.state
        me = s.sides[cur.side]
        if not me.speak or self.speech.out is None:
            return
        wait = s.policies.wait_for_speech
        if wait:
            self._phase(cur, "SPEAK", READING_ALOUD)
        if not await self.speech.read(me.last_text, me.voice, wait=wait):
            self.emit(Notice(message=f"{me.name}'s line was still being read aloud after "
                                     f"{SPEECH_LIMIT_S:.0f} s; the turn goes on."))

    def _relay(self, side: str, text: str) -> None:
        for change in self._relayed(side, text):
            self.emit(change)

    def _relayed(self, side: str, text: str) -> list[StateChanged]:
        """Put `text` in the other side's relay box when relay is on; what changed."""
        if not self.state.relay:
            return []
        other = other_side(side)
        self.state.sides[other].input_text = text
        return [StateChanged(part="relay", detail=other)]

    def _edit_draft(self, text: str | None) -> bool:
        for change in self._draft_edited(text):
            self.emit(change)
        return True

    def _draft_edited(self, text: str | None) -> list[StateChanged]:
        """The waiting draft replaced by `text` (its act and intent read again, relayed);
        what changed, not yet announced (the edit_draft edit announces it)."""
        cur = self.state.current
        text = (text or "").strip()
        if cur is None or not text:
            raise ActionUnavailable("Edit draft needs the new text.")
        cur.draft = clean_text(text, limit=None)
        reading = extract_act_and_intent(cur.draft)
        if reading.explicit:
            cur.act, cur.intent = reading.act, reading.intent
        self.state.sides[cur.side].last_text = cur.draft
        return [StateChanged(part="draft", detail=cur.side),
                *self._relayed(cur.side, cur.draft)]

    async def _human_turn(self, text: str | None) -> bool:
        s = self.state
        me = s.sides[s.turn_side]
        line = clean_text((text or "").strip() or me.input_text.strip(), limit=None)
        if not line:
            raise ActionUnavailable(f"Write a line for {me.name} first.")
        cur = TurnInProgress(side=s.turn_side, human=True, turn=s.turn_count + 1)
        s.current = cur
        if not await self._prelude(cur):
            return True
        cur.draft = line
        reading = extract_act_and_intent(line)
        cur.act, cur.intent = reading.act, reading.intent
        me.input_text = ""
        me.last_text = line
        return await self._send_turn(cur)

    async def _send_turn(self, cur: TurnInProgress) -> bool:
        s = self.state
        self._phase(cur, "SEND")
        side, other = s.sides[cur.side], s.sides[other_side(cur.side)]
        act = cur.act or extract_act_and_intent(cur.draft).act
        intent = cur.intent or extract_act_and_intent(cur.draft).intent
        s.log.append(self._entry(cur.turn, cur.side, "MESSAGE", cur.draft, act=act,
                                 intent=intent, human=cur.human))
        side.last_act, other.counterpart_intent = act, intent
        acts = s.kpis.acts[cur.side]
        acts[act] = acts.get(act, 0) + 1
        s.kpis.messages[cur.side] = s.kpis.messages.get(cur.side, 0) + 1
        s.turn_count += 1
        s.turn_side = other.id
        s.current = None
        s.phase = "IDLE"
        record_traits(s)
        record_influence(s)
        self.emit(StateChanged(part="message", detail=cur.side))
        self.emit(StateChanged(part="kpis"))
        trigger = trigger_after_send(s, cur.side, act, intent)
        if trigger is not None:
            await self._adjudicate(trigger)
        return True

    async def _adjudicate(self, trigger: str) -> bool:
        s = self.state
        last = s.messages()[-1]
        if (s.policies.observer and last.turn > 0
                and s.sides[last.who].observed.turn < last.turn):
            # The last speaker's model is refreshed first: the final models are current.
            await self._model(last.who, last.turn)
        request, layers = adjudicate_request(s, trigger, s.prompts)
        result = await call_structured(self, ADJUDICATOR, request, AdjudicatorReply,
                                       label=f"Adjudicator ({trigger}, turn {s.turn_count})",
                                       layers=layers)
        if _stopped(result.outcomes):
            self.emit(Notice(message="The adjudication was stopped; the game goes on.",
                             hint="Ask again with Adjudicate now."))
            return False
        decision = decide(trigger, result.value)
        if decision is None:
            why = result.value.reason if result.value else result.error
            s.log.append(self._entry(s.turn_count, ADJUDICATOR, "ADJUDICATION",
                                     f"continue ({trigger}): {why}"))
            self.emit(Notice(message=f"The adjudicator lets the game go on: {why}"))
            return result.value is not None
        outcome, reason, by = decision
        record_influence(s)
        s.adjudication = Adjudication(
            outcome=outcome, reason=reason, decided_by=by, trigger=trigger,
            turn=s.turn_count, influence=dict(s.influence),
            final_models={sid: s.sides[sid].observed.model_copy() for sid in SIDES})
        s.current, s.phase = None, "ENDED"
        s.log.append(self._entry(s.turn_count, ADJUDICATOR, "ADJUDICATION",
                                 f"{outcome} ({by}): {reason}"))
        self.emit(StateChanged(part="adjudication"))
        self.emit(PhaseChanged(phase="ENDED", detail=outcome))
        self.emit(SessionEnded(reason=f"{outcome}: {reason}"))
        return True

    def _entry(self, turn: int, who: str, kind: str, text: str, **kw: Any) -> LogEntry:
        ally_self, keeper_self = self.state.self_snapshot()
        return LogEntry(turn=turn, who=who, type=kind, text=text, ally_self=ally_self,
                        keeper_self=keeper_self, **kw)
