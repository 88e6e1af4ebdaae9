"""Convergence of a debate, per claim, with the shared metrics (kinds/debate/convergence.py,
kinds/debate/stop_conditions.py): the figures after each event, the stop decision and each
claim's outcome.

The metrics are recorded for the initial stances (event 0) and each table round; the
stop rules count the table rounds (each with its merge) as events. A claim has converged
when ≥80% of the confidence mass is on one side and no heavy open crux is tied to it;
otherwise it stays split. The stop decision over all claims is the seed's: converged,
diverged (entropy high for the last N = 3 events and no new crux in them), or the safety
cap (`max_events`, which the user sees and sets); when none holds and the tables have
played their rounds (`rounds_per_table`), the schedule ends the table phase. The
one-line result made from the outcomes is summary.py's `result_sentence`. Must not call
models or import Qt.
"""

from __future__ import annotations

from roundtable_desktop.kinds.debate.convergence import StanceReport, claim_metrics
from roundtable_desktop.kinds.debate.state import ClaimOutcome, DebateState, MetricPoint
from roundtable_desktop.kinds.debate.stop_conditions import (
    Crux as MetricCrux,
)
from roundtable_desktop.kinds.debate.stop_conditions import (
    DebateSnapshot,
    StopDecision,
    StopThresholds,
    decide_stop,
    heavy_open_cruxes,
)


def reports(state: DebateState, claim: str | None = None) -> list[StanceReport]:
    found = []
    for c in state.claims:
        if claim is not None and c.id != claim:
            continue
        for agent in state.agents:
            s = state.latest_stance(agent.id, c.id)
            if s is not None:
                found.append(StanceReport(agent=agent.id, claim=c.id, stance=s.stance,
                                          confidence=s.confidence))
    return found


def snapshot(state: DebateState) -> DebateSnapshot:
    return DebateSnapshot(reports=reports(state), cruxes=[
        MetricCrux(id=c.id, weight=c.weight, resolved=c.resolved) for c in state.cruxes])


def record_metrics(state: DebateState, event: int) -> None:
    for claim in state.claims:
        m = claim_metrics(reports(state, claim.id))
        state.metrics.append(MetricPoint(event=event, claim=claim.id,
                                         entropy_bits=round(m.entropy_bits, 4),
                                         distance=round(m.distance, 4),
                                         share=round(m.leading.share, 4),
                                         side=m.leading.side))


DIVERGED_EVENTS = 3  # the seed's N


def thresholds(state: DebateState) -> StopThresholds:
    """The shared defaults with the session's cap and the seed's N = 3."""
    return StopThresholds(max_events=max(1, state.max_events),
                          diverged_events=DIVERGED_EVENTS)


def stop_decision(state: DebateState, history: list[DebateSnapshot]) -> StopDecision:
    """Converged, diverged or the cap (in that order), else the schedule once every table
    has played its rounds, else no stop."""
    decision = decide_stop(history, thresholds(state))
    if decision.reason is None and state.table_rounds() >= state.rounds_per_table:
        return StopDecision(reason="schedule", events=decision.events, detail=(
            f"the tables played their {state.rounds_per_table} rounds, a merge after each"))
    return decision


def outcomes(state: DebateState) -> list[ClaimOutcome]:
    limits = thresholds(state)
    found = []
    for claim in state.claims:
        m = claim_metrics(reports(state, claim.id))
        heavy = heavy_open_cruxes(
            [MetricCrux(id=c.id, weight=c.weight, resolved=c.resolved)
             for c in state.cruxes if c.claim == claim.id], limits.crux_weight)
        done = (m.leading.side is not None
                and m.leading.share + 1e-9 >= limits.converged_share and not heavy)
        found.append(ClaimOutcome(claim=claim.id, status="converged" if done else "split",
                                  side=m.leading.side, share=round(m.leading.share, 4),
                                  entropy_bits=round(m.entropy_bits, 4),
                                  distance=round(m.distance, 4), heavy_open=len(heavy)))
    return found
