"""The planner's options after the call: forced diversity, the policy's pick, and the
options offered when the planner's reply could not be read.

Must not call models, emit events or import Qt.
"""

from __future__ import annotations

from roundtable_desktop.kinds.negotiation.state import (
    ACTS,
    NegotiationState,
    PlanOption,
    other_side,
)


def diversify(options: list[PlanOption], last_act: str) -> list[PlanOption]:
    """One option per act (the first of each), those repeating `last_act` last."""
    seen: set[str] = set()
    distinct = []
    for option in options:
        if option.act not in seen:
            seen.add(option.act)
            distinct.append(option)
    kept = distinct if len(distinct) >= 2 else options
    return sorted(kept, key=lambda o: o.act == last_act)


def policy_pick(state: NegotiationState, side: str, options: list[PlanOption]) -> int:
    """What the policy picks when nobody does: the first option that does not repeat
    the side's last act (nor, when diversity is forced, the other side's), else the
    first."""
    mine = state.sides[side].last_act
    theirs = state.sides[other_side(side)].last_act
    forced = state.force_diversity.get(side, False)
    for index, option in enumerate(options):
        if option.act != mine and not (forced and option.act == theirs):
            return index
    for index, option in enumerate(options):
        if option.act != mine:
            return index
    return 0


_TEMPLATES = {
    "ASK": "Ask what single, concrete condition would move the other side on: {obstacle}",
    "PROPOSE": "Propose a small, reversible step with a check-in date that addresses: "
               "{conflict}",
    "EVALUATE": "Weigh the other side's last point openly: what it costs, what it protects",
    "COMMIT": "Commit to one specific safeguard you will keep, in one sentence",
    "CHALLENGE": "Challenge the weakest assumption in the other side's last message",
    "USE_CUNNING": "Reframe the request so that agreeing serves the other side's own aim",
}


def fallback_options(state: NegotiationState, side: str) -> list[PlanOption]:
    """Six rule-made options, one per act, the side's last act last."""
    sc = state.scenario
    options = [PlanOption(text=_TEMPLATES[act].format(obstacle=sc.current_obstacle,
                                                      conflict=sc.core_conflict)[:400],
                          act=act)
               for act in ACTS]
    return diversify(options, state.sides[side].last_act)
