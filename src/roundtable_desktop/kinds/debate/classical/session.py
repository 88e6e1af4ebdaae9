"""Classical debate mode (seed 004): a conversation of action plans, streamed sentences
and interruptions, on blitz's blackboard.

A debate runs in classical mode when its session option `mode` is "classical" (`run
--mode classical`). Steps: `claims` and `stances` as in blitz, then `turn` (one action
per turn) until the stop conditions or the turn cap, then `map` (blitz's disagreement
map, its transcript being the conversation).

One turn (`play_turn`):
1. Plans: every agent makes an action plan at once (purpose `plan`, JSON ActionPlan:
   speak | interrupt | listen, urgency 0-1, intent). The most urgent of those who want
   the floor speaks (ties: who has spoken least, then a seeded order). When everyone
   listens the turn is silent and recorded as such. An agent who cut in on the previous
   turn skips this: it has the floor.
2. Speech: one streamed call (purpose `speech`, plain sentences) read sentence by
   sentence. After each finished sentence, up to `replan_sentences` of them (the cap:
   each re-plan is one call per listener), the listeners plan again at once with that
   sentence in view. A listener whose plan is `interrupt` with an urgency above the
   speaker's cuts in: the speech call is cancelled (its record keeps all it streamed;
   a speech that finished streaming while the listeners planned is cut in the transcript
   only), the transcript keeps the whole sentences said, the rest goes to `cut_off`,
   the turn names `interrupted_by`, and the interrupter speaks next turn.
3. Update: the speaker's stances, new cruxes, flip triggers and citations (purpose
   `update`, JSON SpeechUpdate): the blackboard (claims, positions, ranked cruxes) is
   updated after every speech. Citations go to the sidebar, never into the speech.
4. Metrics and blitz's stop conditions (kinds/debate/stop_conditions.py), one event per turn;
   converged, diverged or the cap (`max_turns`) moves the debate to its map.

What the window reads (all in `state.classical`, a ClassicalState; `state.mode`):
- `turns`: ClassicalTurn list: index, speaker (None when silent), silent, sentences,
  urgency, intent, interrupted_by, interrupts, cut_off, replans, failed;
- `live`: the turn being spoken now (its sentences so far), None between turns;
- `plans` (every PlanRecord: agent, turn, after_sentence, action, urgency, intent) and
  `current_plans()` (each agent's latest: the urgency bars); `next_speaker`: the plan of
  an interrupter waiting for the floor;
- `sidebar`: SidebarEntry list (turn, agent, kind "citation" | "tool", source, snippet).
  After a speech the speaker's update may ask for tools (kinds/debate/tools.py, the
  same toolbox and budget as blitz): they run at once, each result (or error line) goes
  to the sidebar as a "tool" entry with its citation, and into that agent's next speech
  and update requests (TOOL OUTPUTS).
Events (StateChanged parts): `plans` (detail: agent id, one per plan once the plan
round is back; kept in agent order so a replay is the same), `speaker`
(detail: agent id, or "" for a silent turn), `sentence` (detail: speaker id, a sentence
added to `live`), `interruption` (detail "interrupter>speaker"), `turn` (detail: the
turn's index, it is in `turns`), `sidebar`, `stances` (detail: agent id), `metrics`,
`narration` (detail: one plain sentence about the turn, which the CLI prints).
Must not import Qt.
"""

from __future__ import annotations

import asyncio
import hashlib
from typing import TYPE_CHECKING, Final

from roundtable_desktop.domain.events import StateChanged
from roundtable_desktop.engine.base import PendingPayload
from roundtable_desktop.engine.payloads import chat_payload
from roundtable_desktop.engine.structured_call import call_structured
from roundtable_desktop.kinds.debate.classical.requests import (
    PLAN,
    SPEECH,
    UPDATE,
    Built,
    SpeechUpdate,
    plan_request,
    speech_anchors,
    speech_request,
    update_request,
)
from roundtable_desktop.kinds.debate.classical.speech import stream_speech
from roundtable_desktop.kinds.debate.classical.state import (
    ActionPlan,
    ClassicalState,
    ClassicalTurn,
    PlanRecord,
    SidebarEntry,
)
from roundtable_desktop.kinds.debate.classical.update import after_turn, apply_update
from roundtable_desktop.kinds.debate.deck import Anchor

if TYPE_CHECKING:
    from roundtable_desktop.kinds.debate.session import DebateSession
    from roundtable_desktop.kinds.debate.state import DebateState

TURN: Final = "turn"
CLASSICAL = "classical"
PURPOSES = (PLAN, SPEECH, UPDATE)
INTERRUPTED = "Interrupted by {name}."

__all__ = [
    "CLASSICAL",
    "PURPOSES",
    "TURN",
    "choose_interrupter",
    "choose_speaker",
    "classical_of",
    "play_turn",
    "turn_payloads",
]


def classical_of(state: DebateState) -> ClassicalState:
    if state.classical is None:
        state.classical = ClassicalState()
    return state.classical


def _order(state: DebateState, turn: int, agent: str) -> int:
    """A seeded tie-break, the same on every replay of this debate."""
    digest = hashlib.sha256(f"{state.topic}:{turn}:{agent}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


def _best(state: DebateState, plans: list[PlanRecord]) -> PlanRecord | None:
    c = classical_of(state)
    if not plans:
        return None
    return max(plans, key=lambda p: (round(p.urgency, 6), -c.spoken_turns(p.agent),
                                     _order(state, p.turn, p.agent)))


def choose_speaker(state: DebateState, plans: list[PlanRecord]) -> PlanRecord | None:
    """The most urgent plan that wants the floor (speak or interrupt); None: silence."""
    return _best(state, [p for p in plans if p.action != "listen"])


def choose_interrupter(state: DebateState, plans: list[PlanRecord], speaker_urgency: float
                       ) -> PlanRecord | None:
    """The most urgent `interrupt` plan above the speaker's urgency, if any."""
    return _best(state, [p for p in plans if p.action == "interrupt"
                         and p.urgency > speaker_urgency])


# -- plans ---------------------------------------------------------------------------------
def _plan_calls(session: DebateSession, index: int, live: ClassicalTurn | None
                ) -> list[tuple[str, str, Built]]:
    s = session.state
    agents = [a for a in s.agents if live is None or a.id != live.speaker]
    after = len(live.sentences) if live else 0
    where = f"after sentence {after}" if live else "turn start"
    return [(a.id, f"{a.name} · plan, turn {index} ({where})",
             plan_request(s, session.snapshot(), session.model, a, index, live))
            for a in agents]


async def _plan_round(session: DebateSession, index: int, live: ClassicalTurn | None
                      ) -> list[PlanRecord] | None:
    """Every (listening) agent plans at once; None when no plan could be read."""
    s, c = session.state, classical_of(session.state)
    after = len(live.sentences) if live else 0

    async def one(agent: str, label: str, built: Built) -> PlanRecord:
        request, layers = built
        result = await call_structured(session, agent, request, ActionPlan, label=label,
                                       layers=layers)
        plan = result.value
        record = PlanRecord(agent=agent, turn=index, after_sentence=after,
                            action=plan.action if plan else "listen",
                            urgency=plan.urgency if plan else 0.0,
                            intent=plan.intent if plan else "",
                            failed="" if plan else f"counted as listening: {result.error}")
        if plan is None:
            s.failures.append(f"{label}: {result.error}")
        return record

    calls = _plan_calls(session, index, live)
    records = await asyncio.gather(*(one(a, label, b) for a, label, b in calls))
    if not records or all(r.failed for r in records):
        return None
    for record in records:
        c.plans.append(record)
        session.emit(StateChanged(part="plans", detail=record.agent))
    return list(records)


# -- one turn ------------------------------------------------------------------------------
async def play_turn(session: DebateSession) -> bool:
    """Play the next turn; False when nothing could be had (no plan, no speech)."""
    s, c = session.state, classical_of(session.state)
    index = len(c.turns) + 1
    interrupts = None
    had_floor = c.next_speaker is not None
    plan: PlanRecord | None
    if c.next_speaker is not None:
        plan = c.next_speaker
        last = c.turns[-1] if c.turns else None
        interrupts = last.speaker if last and last.interrupted_by == plan.agent else None
    else:
        plans = await _plan_round(session, index, None)
        if plans is None:
            return False
        plan = choose_speaker(s, plans)
        if plan is None:
            turn = ClassicalTurn(index=index, silent=True)
            c.turns.append(turn)
            session.emit(StateChanged(part="speaker", detail=""))
            _narrate(session, f"Turn {index}: silence. Everyone chose to listen.")
            return _finish(session, turn)
    c.next_speaker = None
    turn = ClassicalTurn(index=index, speaker=plan.agent, urgency=plan.urgency,
                         intent=plan.intent, interrupts=interrupts)
    c.live = turn
    session.emit(StateChanged(part="speaker", detail=plan.agent))
    anchors = speech_anchors(s, s.agent(plan.agent))
    ok = await _speak(session, turn, anchors)
    c.live = None
    if not ok and not turn.sentences:
        c.next_speaker = plan if had_floor else None  # try the same turn again
        return False
    c.turns.append(turn)
    session.emit(StateChanged(part="turn", detail=str(index)))
    _narrate(session, _turn_sentence(s, turn))
    if turn.sentences:
        await _update(session, turn, anchors)
    return _finish(session, turn) and not turn.failed


async def _speak(session: DebateSession, turn: ClassicalTurn, anchors: list[Anchor]) -> bool:
    s, c = session.state, classical_of(session.state)
    agent = s.agent(turn.speaker or "")
    request, layers = speech_request(s, session.snapshot(), session.model, agent, turn,
                                     anchors)
    cut_by: list[PlanRecord] = []
    stale_stop = session.stopped()  # a Stop from an earlier action: not this speech's

    async def on_sentence(number: int, sentence: str, final: bool) -> bool:
        turn.sentences.append(sentence)
        session.emit(StateChanged(part="sentence", detail=agent.id))
        if final or number > c.replan_sentences or (session.stopped() and not stale_stop):
            return False
        turn.replans += 1
        plans = await _plan_round(session, turn.index, turn)
        found = choose_interrupter(s, plans or [], turn.urgency)
        if found is None:
            return False
        cut_by.append(found)
        return True

    def reason() -> str:
        return INTERRUPTED.format(name=s.agent(cut_by[0].agent).name if cut_by else "?")

    result = await stream_speech(session, agent.id, request, layers,
                                 label=f"{agent.name} · speech, turn {turn.index}",
                                 on_sentence=on_sentence, cancel_reason=reason)
    if cut_by:
        found = cut_by[0]
        turn.interrupted_by = found.agent
        turn.cut_off = result.cut_off
        c.next_speaker = found
        session.emit(StateChanged(part="interruption", detail=f"{found.agent}>{agent.id}"))
    elif not result.ok:
        turn.failed, turn.cut_off = result.error, result.cut_off
    return result.ok or bool(cut_by)


async def _update(session: DebateSession, turn: ClassicalTurn, anchors: list[Anchor]) -> None:
    s = session.state
    agent = s.agent(turn.speaker or "")
    request, layers = update_request(s, session.snapshot(), session.model, agent, turn,
                                     anchors, session.tools.listed())
    label = f"{agent.name} · update, turn {turn.index}"
    result = await call_structured(session, agent.id, request, SpeechUpdate, label=label,
                                   layers=layers)
    if result.value is None:
        s.failures.append(f"{label}: {result.error}")
    apply_update(s, turn, result.value, anchors)
    if result.value is not None and result.value.tool_requests:
        for pull in await session.tools.run(agent.id, turn.index,
                                            result.value.tool_requests):
            c = classical_of(s)
            cited = f" — {pull.citation}" if pull.citation else ""
            c.sidebar.append(SidebarEntry(turn=turn.index, agent=agent.id, kind="tool",
                                          source=f"{pull.tool}{cited}",
                                          snippet=("\n".join(pull.text.splitlines()[1:])
                                                   or pull.text)[:600]))
    session.emit(StateChanged(part="stances", detail=agent.id))
    session.emit(StateChanged(part="sidebar"))


def _finish(session: DebateSession, turn: ClassicalTurn) -> bool:
    """Metrics and the stop decision after `turn`; the map next when the debate stops."""
    s = session.state
    stopped = after_turn(s, turn)
    session.emit(StateChanged(part="metrics"))
    if stopped:
        session.set_phase("map")
    return not session.stopped()


def _narrate(session: DebateSession, sentence: str) -> None:
    session.emit(StateChanged(part="narration", detail=sentence))


def _turn_sentence(state: DebateState, turn: ClassicalTurn) -> str:
    name = state.agent(turn.speaker or "").name
    count = len(turn.sentences)
    said = f"{count} sentence{'s' if count != 1 else ''}"
    lead = f"Turn {turn.index}: {name}"
    if turn.interrupts:
        lead += f" cut in on {state.agent(turn.interrupts).name} and"
    text = f"{lead} spoke {said} (urgency {turn.urgency:.2f})"
    if turn.interrupted_by:
        text += f", interrupted by {state.agent(turn.interrupted_by).name}"
    if turn.failed:
        text += f"; {turn.failed}"
    return text + "."


# -- what the next turn would send ---------------------------------------------------------
def turn_payloads(session: DebateSession) -> list[PendingPayload]:
    """The next turn's first requests: every agent's plan, or the speech of the agent who
    cut in (the later requests depend on what is said)."""
    s, c = session.state, classical_of(session.state)
    index = len(c.turns) + 1
    if c.next_speaker is not None:
        agent = s.agent(c.next_speaker.agent)
        last = c.turns[-1] if c.turns else None
        turn = ClassicalTurn(index=index, speaker=agent.id, urgency=c.next_speaker.urgency,
                             intent=c.next_speaker.intent,
                             interrupts=last.speaker if last and last.interrupted_by == agent.id
                             else None)
        request, layers = speech_request(s, session.snapshot(), session.model, agent, turn,
                                         speech_anchors(s, agent))
        return [chat_payload(agent.id, f"{agent.name} · speech, turn {index}", request,
                             layers)]
    return [chat_payload(a, label, r, ly)
            for a, label, (r, ly) in _plan_calls(session, index, None)]

