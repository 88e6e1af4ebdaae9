"""Specification of seed 004's convergence metrics for one claim: stance entropy (bits),
pairwise confidence-weighted distance (signed by stance), confidence mass on one side."""

from __future__ import annotations

import math

import pytest
from pydantic import ValidationError

from roundtable_desktop.kinds.debate.convergence import (
    MAX_ENTROPY_BITS,
    StanceReport,
    by_claim,
    claim_metrics,
    confidence_distance,
    leading_side,
    mean_confidence_distance,
    normalised_stance_entropy,
    position,
    stance_entropy,
)


def reports(*pairs: tuple[str, float], claim: str = "c1") -> list[StanceReport]:
    return [
        StanceReport(agent=f"a{i}", claim=claim, stance=stance, confidence=conf)
        for i, (stance, conf) in enumerate(pairs)
    ]


ENTROPY = [
    pytest.param([], 0.0, id="empty"),
    pytest.param(["pro"], 0.0, id="one-agent"),
    pytest.param(["con"] * 5, 0.0, id="all-identical"),
    pytest.param(["pro", "con"], 1.0, id="even-pro-con-is-one-bit"),
    pytest.param(["pro", "con", "uncertain"], math.log2(3), id="all-different-is-the-maximum"),
    pytest.param(["pro", "pro", "con"], 0.9182958340544896, id="two-to-one"),
    pytest.param(["pro", "pro", "pro", "con"], 0.8112781244591328, id="three-to-one"),
    pytest.param(["pro", "pro", "con", "con", "uncertain", "uncertain"], math.log2(3),
                 id="even-three-way"),
]


@pytest.mark.parametrize(("stances", "bits"), ENTROPY)
def test_stance_entropy_is_minus_sum_p_log2_p(stances, bits):
    assert stance_entropy(stances) == pytest.approx(bits)


@pytest.mark.parametrize(("stances", "bits"), ENTROPY)
def test_normalised_entropy_divides_by_log2_of_three(stances, bits):
    assert normalised_stance_entropy(stances) == pytest.approx(bits / MAX_ENTROPY_BITS)


def test_entropy_of_agreement_is_not_negative_zero():
    assert math.copysign(1.0, stance_entropy(["pro", "pro"])) == 1.0


POSITIONS = [
    pytest.param("pro", 0.7, 0.7, id="pro-is-positive"),
    pytest.param("con", 0.7, -0.7, id="con-is-negative"),
    pytest.param("uncertain", 0.9, 0.0, id="uncertain-is-the-middle"),
    pytest.param("pro", 0.0, 0.0, id="zero-confidence-is-the-middle"),
]


@pytest.mark.parametrize(("stance", "conf", "expected"), POSITIONS)
def test_a_report_sits_at_its_confidence_signed_by_its_stance(stance, conf, expected):
    report = StanceReport(agent="a", stance=stance, confidence=conf)
    assert position(report) == pytest.approx(expected)


DISTANCE = [
    pytest.param([], 0.0, 0.0, id="empty"),
    pytest.param([("pro", 0.9)], 0.0, 0.0, id="one-agent"),
    pytest.param([("pro", 0.8)] * 4, 0.0, 0.0, id="identical"),
    pytest.param([("pro", 1.0), ("con", 1.0)], 2.0, 2.0, id="sure-pro-vs-sure-con"),
    pytest.param([("pro", 0.9), ("pro", 0.4)], 0.5, 0.5, id="same-side-differing-confidence"),
    pytest.param([("pro", 0.9), ("con", 0.9)], 1.8, 1.8, id="opposite-sides-not-zero"),
    pytest.param([("pro", 1.0), ("con", 1.0), ("uncertain", 0.5)], 4.0, 4 / 3,
                 id="all-different"),
    pytest.param([("pro", 0.5), ("pro", 0.5), ("con", 0.5)], 2.0, 2 / 3, id="three-pairs"),
]


@pytest.mark.parametrize(("pairs", "total", "mean"), DISTANCE)
def test_confidence_distance_sums_every_pair(pairs, total, mean):
    assert confidence_distance(reports(*pairs)) == pytest.approx(total)


@pytest.mark.parametrize(("pairs", "total", "mean"), DISTANCE)
def test_mean_confidence_distance_divides_by_the_number_of_pairs(pairs, total, mean):
    assert mean_confidence_distance(reports(*pairs)) == pytest.approx(mean)


LEADING = [
    pytest.param([], None, 0.0, id="empty"),
    pytest.param([("pro", 0.0), ("con", 0.0)], None, 0.0, id="no-mass"),
    pytest.param([("pro", 0.6)], "pro", 1.0, id="one-agent"),
    pytest.param([("con", 0.5)] * 3, "con", 1.0, id="identical"),
    pytest.param([("pro", 0.8), ("con", 0.2)], "pro", 0.8, id="eighty-twenty"),
    pytest.param([("pro", 0.5), ("con", 0.5)], None, 0.5, id="tie"),
    pytest.param([("pro", 1.0), ("con", 0.5), ("uncertain", 0.5)], "pro", 0.5,
                 id="all-different-uncertain-mass-counts"),
    pytest.param([("uncertain", 0.9)], None, 0.0, id="only-uncertain"),
]


@pytest.mark.parametrize(("pairs", "side", "share"), LEADING)
def test_leading_side_holds_most_confidence_mass(pairs, side, share):
    lead = leading_side(reports(*pairs))
    assert lead.side == side
    assert lead.share == pytest.approx(share)


def test_claim_metrics_gathers_every_figure():
    got = claim_metrics(reports(("pro", 1.0), ("con", 1.0)))
    assert (got.agents, got.leading.side) == (2, None)
    assert got.entropy_bits == pytest.approx(1.0)
    assert got.normalised_entropy == pytest.approx(1 / math.log2(3))
    assert (got.distance, got.mean_distance) == (pytest.approx(2.0), pytest.approx(2.0))


def test_reports_group_by_claim_in_first_seen_order():
    mixed = [*reports(("pro", 1.0), claim="b"), *reports(("con", 1.0), ("pro", 0.2), claim="a")]
    grouped = by_claim(mixed)
    assert list(grouped) == ["b", "a"]
    assert [r.stance for r in grouped["a"]] == ["con", "pro"]


@pytest.mark.parametrize(
    "bad",
    [pytest.param({"stance": "maybe", "confidence": 0.5}, id="unknown-stance"),
     pytest.param({"stance": "pro", "confidence": 1.2}, id="confidence-above-one"),
     pytest.param({"stance": "pro", "confidence": -0.1}, id="negative-confidence")],
)
def test_a_malformed_report_is_refused(bad):
    with pytest.raises(ValidationError):
        StanceReport(agent="a", **bad)
