"""The negotiation's referee work: loop guard, what asks for adjudication, the rule
fallback, influence scores and the per-turn trait points.

- Loop guard (kinds/negotiation/loop_guard.py): one guard per side fed the OTHER side's messages;
  a repeat over the threshold is a trip: it counts, forces that side's planner to
  diversify, and `max_trips` trips end the game as stalled.
- Triggers: the keeper COMMITs after the ally has PROPOSEd -> "commit" (rule: released);
  the keeper ends the talks -> "terminate" (terminated); the turn cap -> "turn_cap"
  (terminated); too many loop trips -> "stalled" (stalled); the presenter -> "presenter"
  (no rule: the adjudicator alone decides).
- Influence: how far each side moved the observer's model of the other since the start
  (mean absolute trait change), as shares of the total (0.5 / 0.5 when nobody moved).
Pure functions over the state; must not call models, emit events or import Qt.
"""

from __future__ import annotations

from typing import Literal

from roundtable_desktop.kinds.negotiation.loop_guard import LoopVerdict
from roundtable_desktop.kinds.negotiation.requests import AdjudicatorReply
from roundtable_desktop.kinds.negotiation.state import (
    ALLY,
    KEEPER,
    SIDES,
    InfluencePoint,
    NegotiationState,
    Outcome,
    TraitPoint,
    other_side,
)
from roundtable_desktop.kinds.negotiation.text import END_TALKS

COMMIT = "commit"
TERMINATE = "terminate"
TURN_CAP = "turn_cap"
STALLED = "stalled"
PRESENTER = "presenter"

RULES: dict[str, tuple[Outcome, str]] = {
    COMMIT: ("released", "The keeper committed to the ally's proposal."),
    TERMINATE: ("terminated", "The keeper ended the talks."),
    TURN_CAP: ("terminated", "The turn cap was reached without a release."),
    STALLED: ("stalled", "The loop guard tripped too often: the talk kept circling."),
}
# Triggers whose rule stands even when the adjudicator says "continue".
FORCED = frozenset({TURN_CAP, STALLED})


def feed_loop_guards(state: NegotiationState, side: str) -> LoopVerdict | None:
    """Feed every message not yet seen to the guard of the side that heard it; returns
    the verdict of `side`'s guard on the newest line it heard (None when it heard none).
    A repeat counts a trip and sets `side`'s forced diversity."""
    for guard in state.guards.values():
        guard.threshold = state.loop.threshold
        guard.window = state.loop.window
    verdict = None
    messages = state.messages()
    for entry in messages[state.guard_fed:]:
        listener = other_side(entry.who)
        found = state.guards[listener].observe(entry.text)
        if listener == side:
            verdict = found
        if found.repeats:
            state.kpis.loop_trips += 1
    state.guard_fed = len(messages)
    state.force_diversity[side] = state.guards[side].force_diversity
    return verdict


def trigger_after_send(state: NegotiationState, side: str, act: str, intent: str) -> str | None:
    """What the message just sent asks of the adjudicator, if anything."""
    if side == KEEPER and intent == END_TALKS:
        return TERMINATE
    if side == KEEPER and act == "COMMIT" and any(
            e.who == ALLY and e.act == "PROPOSE" for e in state.messages()):
        return COMMIT
    if state.turn_count >= state.scenario.turn_cap:
        return TURN_CAP
    return None


def stalled(state: NegotiationState) -> bool:
    return state.kpis.loop_trips >= state.loop.max_trips


def decide(trigger: str, reply: AdjudicatorReply | None
           ) -> tuple[Outcome, str, Literal["adjudicator", "rule"]] | None:
    """(outcome, reason, decided_by), or None when the game goes on. No reply (the call
    failed or could not be read) means the rule decides."""
    rule = RULES.get(trigger)
    if reply is None:
        return (rule[0], rule[1], "rule") if rule else None
    if reply.outcome == "continue":
        if trigger in FORCED and rule:
            return rule[0], f"{rule[1]} (The adjudicator saw no end: {reply.reason})", "rule"
        return None
    return reply.outcome, reply.reason, "adjudicator"


def influence(state: NegotiationState) -> dict[str, float]:
    """Each side's share of the movement it caused in the observer's model of the other."""
    start = state.trait_history[0].observed if state.trait_history else {}
    moved = {}
    for side in SIDES:
        other = other_side(side)
        first = start.get(other)
        now = state.sides[other].observed.dims.as_dict()
        moved[side] = (sum(abs(now[t] - first[t]) for t in now) / len(now)) if first else 0.0
    total = moved[ALLY] + moved[KEEPER]
    if total <= 1e-9:
        return {ALLY: 0.5, KEEPER: 0.5}
    return {side: round(moved[side] / total, 4) for side in SIDES}


def record_influence(state: NegotiationState, *, point: bool = True) -> None:
    """Update the influence scores; with `point`, also this turn's history point."""
    state.influence = influence(state)
    if not point:
        return
    made = InfluencePoint(turn=state.turn_count, ally=state.influence[ALLY],
                          keeper=state.influence[KEEPER])
    if state.influence_history and state.influence_history[-1].turn == made.turn:
        state.influence_history[-1] = made
    else:
        state.influence_history.append(made)


def record_traits(state: NegotiationState) -> None:
    """The trait point of the current turn (replaces one already taken this turn)."""
    point = TraitPoint(
        turn=state.turn_count,
        self_profile={s: state.sides[s].self_profile.as_dict() for s in SIDES},
        observed={s: state.sides[s].observed.dims.as_dict() for s in SIDES},
    )
    if state.trait_history and state.trait_history[-1].turn == point.turn:
        state.trait_history[-1] = point
    else:
        state.trait_history.append(point)
