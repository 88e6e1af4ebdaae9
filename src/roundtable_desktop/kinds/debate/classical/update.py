"""What a classical turn does to the blackboard: the speaker's update folded in, the
sidebar's citations, metrics, and the stop decision.

`apply_update` records the speaker's stances (the turn's index as their round), folds its
new cruxes into the crux list (near-duplicates by trigram similarity, as blitz's merge
does), keeps its flip triggers, ranks the cruxes, and puts each excerpt it cited in the
sidebar. An update that could not be read changes no stance. `after_turn` records one
metrics event per turn and applies blitz's stop conditions (converged, diverged) with the
session's turn cap as the safety cap; "diverged" needs a whole round of the table (one
turn per agent, at least 3) with high entropy and no new crux.
Must not call models or import Qt.
"""

from __future__ import annotations

import re

from roundtable_desktop.kinds.debate.classical.requests import SpeechUpdate
from roundtable_desktop.kinds.debate.classical.state import ClassicalTurn, SidebarEntry
from roundtable_desktop.kinds.debate.deck import Anchor
from roundtable_desktop.kinds.debate.merge import MAX_CRUXES
from roundtable_desktop.kinds.debate.merge_groups import SAME_CRUX
from roundtable_desktop.kinds.debate.progress import record_metrics, snapshot
from roundtable_desktop.kinds.debate.state import (
    AgentStance,
    Crux,
    DebateState,
    FlipCondition,
)
from roundtable_desktop.kinds.debate.stop_conditions import StopThresholds, decide_stop
from roundtable_desktop.kinds.debate.tables import rank_cruxes
from roundtable_desktop.metrics.similarity import trigram_similarity

_EXCERPT = re.compile(r"^\[?e(\d+)\]?$", re.I)


def _cited(cited: list[str], anchors: list[Anchor]) -> list[Anchor]:
    found: list[Anchor] = []
    for ref in cited:
        ref = ref.strip()
        match = _EXCERPT.match(ref)
        if match and 1 <= int(match.group(1)) <= len(anchors):
            anchor: Anchor | None = anchors[int(match.group(1)) - 1]
        else:
            anchor = next((a for a in anchors if ref and (ref == a.source or ref in a.text)),
                          None)
        if anchor is not None and anchor not in found:
            found.append(anchor)
    return found


def _fold(state: DebateState, claim: str, text: str, turn: int) -> None:
    for crux in state.cruxes:
        if trigram_similarity(crux.text, text) >= SAME_CRUX:
            return
    known = {c.id for c in state.claims}
    if claim not in known:
        scored = [(trigram_similarity(text, f"{c.text} {c.pro} {c.con}"), c.id)
                  for c in state.claims]
        claim = max(scored)[1] if scored else ""
    taken = {c.id for c in state.cruxes}
    number = len(state.cruxes) + 1
    while f"x{number}" in taken:
        number += 1
    state.cruxes.append(Crux(id=f"x{number}", text=text, claim=claim, tables=[1],
                             round=turn))


def apply_update(state: DebateState, turn: ClassicalTurn, update: SpeechUpdate | None,
                 anchors: list[Anchor]) -> None:
    agent = turn.speaker or ""
    if update is None:
        return
    known = {c.id for c in state.claims}
    for p in update.stances:
        if p.claim in known:
            state.stances.append(AgentStance(agent=agent, claim=p.claim, stance=p.stance,
                                             confidence=p.confidence, round=turn.index,
                                             reason=turn.text[:300]))
    for note in update.new_cruxes:
        _fold(state, note.claim, note.text, turn.index)
    seen = {(f.agent, f.text) for f in state.flips}
    for text in update.flip_triggers:
        if (agent, text) not in seen:
            state.flips.append(FlipCondition(agent=agent, text=text, round=turn.index))
    rank_cruxes(state)
    del state.cruxes[MAX_CRUXES:]
    if state.classical is not None:
        for anchor in _cited(update.cited, anchors):
            state.classical.sidebar.append(SidebarEntry(
                turn=turn.index, agent=agent, kind="citation", source=anchor.source,
                snippet=anchor.text))


def thresholds(state: DebateState) -> StopThresholds:
    turns = state.classical.max_turns if state.classical else 1
    return StopThresholds(max_events=turns, diverged_events=max(3, len(state.agents)))


def after_turn(state: DebateState, turn: ClassicalTurn) -> bool:
    """Metrics for `turn`; True (the stop reason set) when the debate should stop."""
    record_metrics(state, turn.index)
    state.snapshots.append(snapshot(state))
    decision = decide_stop(state.snapshots, thresholds(state))
    if decision.reason is None:
        return False
    state.stop_reason, state.stop_detail = decision.reason, decision.detail
    if state.classical is not None:
        state.classical.next_speaker = None  # the floor closes with the debate
    return True
