"""Convergence of a debate, per claim, with the shared metrics (kinds/debate/convergence.py,
kinds/debate/stop_conditions.py): the figures after each event, the stop decision and each
claim's outcome.

An event is the initial stances (event 0) and each table round. A claim has converged
when ≥80% of the confidence mass is on one side and no heavy open crux is tied to it;
otherwise it stays split. The stop decision over all claims is the seed's: converged,
diverged, or the safety cap (the table rounds the session allows); the one-line result
made from the outcomes is summary.py's `result_sentence`. Must not call models or import
Qt.
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


def thresholds(state: DebateState) -> StopThresholds:
    """The shared defaults, fitted to a blitz: the cap is the session's merge cycles, and
    "diverged" looks at every event after the first (at most the seed's 3), so a debate
    of 2-3 cycles that stays split with a settled crux set says so instead of the cap."""
    cycles = max(1, state.merge_cycles)
    return StopThresholds(max_events=cycles, diverged_events=max(1, min(3, cycles - 1)))


def stop_decision(state: DebateState, history: list[DebateSnapshot]) -> StopDecision:
    return decide_stop(history, thresholds(state))


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
