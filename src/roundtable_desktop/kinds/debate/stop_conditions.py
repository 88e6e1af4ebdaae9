"""When a debate stops: the converged / diverged / safety-cap conditions of seed 004.

The seed's rules, checked after every event (a table round, a merge):

- Converged: ≥ 80% of confidence mass on one side AND no unresolved crux with high
  weight. Here every claim must have its 80% (on either side, each claim its own) and
  no unresolved crux may weigh `crux_weight` or more.
- Diverged: entropy stays high for N events AND the crux set stabilizes (no new crux
  discovered). Here, for each of the last N events, the most split claim's stance
  entropy is at least `high_entropy_bits`, and the event brought no crux id that no
  earlier event had.
- Safety cap: the number of events reaches `max_events`.

When several hold, the first of converged, diverged, cap is reported: a debate that
converged on its last allowed event converged.

Only the 80% comes from the seed; it leaves "high weight", "high entropy", N and the cap
open, so those defaults are ours: crux weight 0.5 on a 0..1 scale; 0.9 bits, so a 2-to-1
split (0.918 bits) counts as high and 3-to-1 (0.811) does not; N = 3, the smallest round
budget per table the seed gives ("3-5 rounds"); 20 events at most.

Pure functions over pydantic data: no Qt, no I/O, no clock.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from roundtable_desktop.domain.plural import count_of
from roundtable_desktop.kinds.debate.convergence import (
    StanceReport,
    by_claim,
    leading_side,
    stance_entropy,
)

StopReason = Literal["converged", "diverged", "cap", "schedule"]  # schedule: progress.py

# Shares are sums of floats: 0.7 + 0.1 must still count as 80%.
_TOLERANCE = 1e-9


class Crux(BaseModel):
    """A disputed proposition the debate has found, with its weight (rank score)."""

    model_config = ConfigDict(frozen=True)

    id: str
    weight: float = Field(ge=0.0)
    resolved: bool = False


class DebateSnapshot(BaseModel):
    """The debate right after one event: every agent's report on every claim, every crux."""

    model_config = ConfigDict(frozen=True)

    reports: list[StanceReport] = Field(default_factory=list)
    cruxes: list[Crux] = Field(default_factory=list)


class StopThresholds(BaseModel):
    model_config = ConfigDict(frozen=True)

    converged_share: float = Field(default=0.8, gt=0.5, le=1.0)  # seed: ≥ 80%
    crux_weight: float = Field(default=0.5, ge=0.0)  # an open crux this heavy blocks it
    high_entropy_bits: float = Field(default=0.9, gt=0.0)
    diverged_events: int = Field(default=3, ge=1)  # the seed's N
    max_events: int = Field(default=20, ge=1)


class StopDecision(BaseModel):
    """Whether to stop after `events` events, why, and the figures behind it."""

    model_config = ConfigDict(frozen=True)

    reason: StopReason | None
    detail: str
    events: int


def heavy_open_cruxes(cruxes: Sequence[Crux], min_weight: float) -> list[Crux]:
    """Unresolved cruxes weighing at least `min_weight`."""
    return [c for c in cruxes if not c.resolved and c.weight >= min_weight]


def converged(snapshot: DebateSnapshot, limits: StopThresholds) -> tuple[bool, str]:
    """(whether the seed's converged condition holds, why in one sentence)."""
    claims = by_claim(snapshot.reports)
    if not claims:
        return False, "no stances reported yet"
    for claim, reports in claims.items():
        lead = leading_side(reports)
        if lead.side is None or lead.share + _TOLERANCE < limits.converged_share:
            return False, f"claim {claim!r}: {lead.share:.0%} of confidence on one side"
    heavy = heavy_open_cruxes(snapshot.cruxes, limits.crux_weight)
    if heavy:
        return False, f"open crux {heavy[0].id!r} weighs {heavy[0].weight:g}"
    sides = ", ".join(
        f"{claim!r} {lead.side} {lead.share:.0%}"
        for claim, lead in ((c, leading_side(r)) for c, r in claims.items())
    )
    return True, f"confidence mass on one side: {sides}; no heavy open crux"


def diverged(history: Sequence[DebateSnapshot], limits: StopThresholds) -> tuple[bool, str]:
    """(whether entropy stayed high and no crux was new for the last N events, why)."""
    n = limits.diverged_events
    if len(history) < n:
        return False, f"{len(history)} of {n} events so far"
    start = len(history) - n
    seen = {c.id for snapshot in history[:start] for c in snapshot.cruxes}
    for index in range(start, len(history)):
        snapshot = history[index]
        entropy = _max_entropy(snapshot)
        if entropy + _TOLERANCE < limits.high_entropy_bits:
            return False, f"event {index + 1}: stance entropy {entropy:.3f} bits"
        new = [c.id for c in snapshot.cruxes if c.id not in seen]
        if new:
            return False, f"event {index + 1} found crux {new[0]!r}"
        seen.update(c.id for c in snapshot.cruxes)
    last = count_of(n, "event") if n > 1 else "event"
    return True, (
        f"stance entropy ≥ {limits.high_entropy_bits:g} bits and no new crux for the last {last}"
    )


def decide_stop(
    history: Sequence[DebateSnapshot], limits: StopThresholds | None = None
) -> StopDecision:
    """Whether the debate stops after the last snapshot of `history` (one per event)."""
    limits = limits or StopThresholds()
    events = len(history)
    if history:
        done, why = converged(history[-1], limits)
        if done:
            return StopDecision(reason="converged", detail=why, events=events)
        split, why_split = diverged(history, limits)
        if split:
            return StopDecision(reason="diverged", detail=why_split, events=events)
    else:
        why = "no events yet"
    if events >= limits.max_events:
        return StopDecision(
            reason="cap", detail=f"reached the cap of {limits.max_events} events", events=events
        )
    return StopDecision(reason=None, detail=why, events=events)


def _max_entropy(snapshot: DebateSnapshot) -> float:
    """The stance entropy of the most split claim (0.0 with no reports)."""
    claims = by_claim(snapshot.reports)
    return max((stance_entropy(r.stance for r in rs) for rs in claims.values()), default=0.0)
