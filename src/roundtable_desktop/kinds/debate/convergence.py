"""Convergence metrics of seed 004 (Faultline), for one claim at a time.

For each claim every agent reports a stance (`pro | con | uncertain`) and a confidence
(0.0-1.0). The seed computes:

- entropy of stances, `-Σ p(stance) * log(p(stance))`, where p is the share of agents
  holding the stance. Here the log is base 2 (bits): 0 when all agree, 1 bit for an even
  pro/con split, log2(3) ≈ 1.585 bits at most. `normalised_stance_entropy` divides by
  that maximum.
- confidence-weighted distance, `Σ |conf_i - conf_j|` over all pairs i < j. Each conf_i is
  read as a position on one axis, signed by the stance: pro at +confidence, con at
  -confidence, uncertain at 0. (Unsigned, a sure pro and a sure con would be at distance
  0, the opposite of what the metric is for.) So one pair is 0..2 apart.
- the confidence mass on one side, which the converged stop condition needs: the sum of
  the confidences of the agents on the larger side (pro or con) over the sum of all
  confidences (uncertain agents' included: they weigh against convergence).

Pure functions over pydantic data: no Qt, no I/O.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import combinations
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Stance = Literal["pro", "con", "uncertain"]
Side = Literal["pro", "con"]
STANCES: tuple[Stance, ...] = ("pro", "con", "uncertain")
MAX_ENTROPY_BITS = math.log2(len(STANCES))

_SIGN: dict[str, float] = {"pro": 1.0, "con": -1.0, "uncertain": 0.0}


class StanceReport(BaseModel):
    """One agent's stance on one claim, as its structured reply gave it."""

    model_config = ConfigDict(frozen=True)

    agent: str
    claim: str = ""
    stance: Stance
    confidence: float = Field(ge=0.0, le=1.0)


class SideShare(BaseModel):
    """The side holding most confidence mass and its share of the whole mass."""

    model_config = ConfigDict(frozen=True)

    side: Side | None  # None when there is no mass on either side, or a tie
    share: float  # 0..1; the larger side's mass over all mass (0 when there is none)


class ClaimMetrics(BaseModel):
    """Every figure for one claim, for the metrics dock and the stop conditions."""

    model_config = ConfigDict(frozen=True)

    agents: int
    entropy_bits: float
    normalised_entropy: float
    distance: float
    mean_distance: float  # distance over the number of pairs: 0..2
    leading: SideShare


def stance_entropy(stances: Iterable[Stance]) -> float:
    """`-Σ p log2 p` over the stances held, in bits; 0.0 for no stances or one kind."""
    counts = Counter(stances)
    total = sum(counts.values())
    if total == 0:
        return 0.0
    entropy = -sum(n / total * math.log2(n / total) for n in counts.values())
    return entropy if entropy > 0.0 else 0.0  # the sum is -0.0 when everyone agrees


def normalised_stance_entropy(stances: Iterable[Stance]) -> float:
    """`stance_entropy` over its maximum log2(3): 0..1."""
    return stance_entropy(stances) / MAX_ENTROPY_BITS


def position(report: StanceReport) -> float:
    """Where a report sits on the pro/con axis: +confidence, -confidence or 0."""
    return _SIGN[report.stance] * report.confidence


def confidence_distance(reports: Sequence[StanceReport]) -> float:
    """`Σ |pos_i - pos_j|` over all pairs of agents (0.0 for fewer than two)."""
    positions = [position(r) for r in reports]
    return math.fsum(abs(a - b) for a, b in combinations(positions, 2))


def mean_confidence_distance(reports: Sequence[StanceReport]) -> float:
    """`confidence_distance` per pair: 0 (all at one point) .. 2 (sure pro vs sure con)."""
    pairs = len(reports) * (len(reports) - 1) // 2
    return confidence_distance(reports) / pairs if pairs else 0.0


def leading_side(reports: Sequence[StanceReport]) -> SideShare:
    """The side with most confidence mass, and that mass over all confidence mass."""
    mass = {"pro": 0.0, "con": 0.0, "uncertain": 0.0}
    for report in reports:
        mass[report.stance] += report.confidence
    total = math.fsum(mass.values())
    if total == 0.0:
        return SideShare(side=None, share=0.0)
    top = max(mass["pro"], mass["con"])
    if mass["pro"] == mass["con"]:
        return SideShare(side=None, share=top / total)
    return SideShare(side="pro" if mass["pro"] > mass["con"] else "con", share=top / total)


def claim_metrics(reports: Sequence[StanceReport]) -> ClaimMetrics:
    """All of the above for one claim's reports."""
    stances = [r.stance for r in reports]
    return ClaimMetrics(
        agents=len(reports),
        entropy_bits=stance_entropy(stances),
        normalised_entropy=normalised_stance_entropy(stances),
        distance=confidence_distance(reports),
        mean_distance=mean_confidence_distance(reports),
        leading=leading_side(reports),
    )


def by_claim(reports: Iterable[StanceReport]) -> dict[str, list[StanceReport]]:
    """Reports grouped by claim, claims in first-seen order."""
    grouped: dict[str, list[StanceReport]] = {}
    for report in reports:
        grouped.setdefault(report.claim, []).append(report)
    return grouped
