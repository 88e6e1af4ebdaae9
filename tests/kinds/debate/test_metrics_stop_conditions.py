"""Specification of seed 004's stop conditions: converged (≥ 80% of confidence mass on one
side and no heavy open crux), diverged (entropy high for N events and no new crux), and
the safety cap on events."""

from __future__ import annotations

import pytest

from roundtable_desktop.kinds.debate.convergence import StanceReport
from roundtable_desktop.kinds.debate.stop_conditions import (
    Crux,
    DebateSnapshot,
    StopThresholds,
    decide_stop,
    heavy_open_cruxes,
)


def snap(*pairs: tuple[str, float], cruxes: tuple[Crux, ...] = (), claim: str = "c1"):
    return DebateSnapshot(
        reports=[
            StanceReport(agent=f"a{i}", claim=claim, stance=stance, confidence=conf)
            for i, (stance, conf) in enumerate(pairs)
        ],
        cruxes=list(cruxes),
    )


AGREED = snap(("pro", 0.9), ("pro", 0.8), ("pro", 0.7))
SPLIT = snap(("pro", 0.9), ("con", 0.9), ("pro", 0.5))  # 2 to 1: 0.918 bits
THREE_TO_ONE = snap(("pro", 0.5), ("pro", 0.5), ("pro", 0.5), ("con", 0.5))  # 0.811 bits, 75%
HEAVY = Crux(id="horizon", weight=0.7)
LIGHT = Crux(id="wording", weight=0.2)

DECISIONS = [
    pytest.param([], None, id="no-events"),
    pytest.param([snap()], None, id="no-reports"),
    pytest.param([snap(("pro", 0.6))], "converged", id="one-agent-agrees-with-itself"),
    pytest.param([AGREED], "converged", id="all-identical"),
    pytest.param([snap(("pro", 0.8), ("con", 0.2))], "converged", id="exactly-eighty-percent"),
    pytest.param([snap(("pro", 0.7), ("pro", 0.1), ("con", 0.2))], "converged",
                 id="eighty-percent-from-a-float-sum"),
    pytest.param([snap(("pro", 0.79), ("con", 0.21))], None, id="just-under-eighty"),
    pytest.param([snap(("con", 0.9), ("con", 0.9), ("pro", 0.1))], "converged",
                 id="converged-on-con"),
    pytest.param([snap(("pro", 0.8), ("uncertain", 0.5))], None,
                 id="uncertain-mass-blocks-it"),
    pytest.param([snap(("pro", 0.9), ("pro", 0.9), cruxes=(HEAVY,))], None,
                 id="heavy-open-crux-blocks-it"),
    pytest.param([snap(("pro", 0.9), cruxes=(HEAVY.model_copy(update={"resolved": True}),))],
                 "converged", id="resolved-heavy-crux-does-not"),
    pytest.param([snap(("pro", 0.9), cruxes=(LIGHT,))], "converged",
                 id="light-open-crux-does-not"),
    pytest.param([snap(("pro", 1.0), ("con", 1.0), ("uncertain", 1.0))] * 2, None,
                 id="all-different-but-too-few-events"),
    pytest.param([snap(("pro", 1.0), ("con", 1.0), ("uncertain", 1.0))] * 3, "diverged",
                 id="all-different-for-three-events"),
    pytest.param([SPLIT] * 3, "diverged", id="two-to-one-is-high-entropy"),
    pytest.param([THREE_TO_ONE] * 3, None, id="three-to-one-is-not-high-entropy"),
    pytest.param([SPLIT, SPLIT, snap(("pro", 0.9), ("con", 0.9), cruxes=(LIGHT,))], None,
                 id="new-crux-in-the-window"),
    pytest.param([snap(("pro", 0.9), ("con", 0.9), cruxes=(LIGHT,))] * 4, "diverged",
                 id="crux-found-before-the-window-then-stable"),
    pytest.param([SPLIT, SPLIT, snap(("pro", 0.9), ("con", 0.9))], "diverged",
                 id="entropy-stays-high-as-stances-move"),
    pytest.param([SPLIT, AGREED, SPLIT], None, id="a-low-entropy-event-in-the-window"),
]


@pytest.mark.parametrize(("history", "reason"), DECISIONS)
def test_decide_stop_follows_the_seed(history, reason):
    decision = decide_stop(history)
    assert decision.reason == reason
    assert decision.events == len(history)
    assert decision.detail


def test_every_claim_must_converge():
    both = DebateSnapshot(reports=[*AGREED.reports, *snap(("pro", 0.5), ("con", 0.5),
                                                          claim="c2").reports])
    decision = decide_stop([both])
    assert decision.reason is None
    assert "'c2'" in decision.detail


def test_each_claim_may_converge_on_its_own_side():
    both = DebateSnapshot(reports=[*AGREED.reports, *snap(("con", 0.9), claim="c2").reports])
    assert decide_stop([both]).reason == "converged"


def test_the_most_split_claim_decides_whether_entropy_is_high():
    mixed = DebateSnapshot(reports=[*AGREED.reports, *snap(("pro", 1), ("con", 1),
                                                           claim="c2").reports])
    assert decide_stop([mixed] * 3).reason == "diverged"


def test_the_cap_stops_a_debate_that_neither_converged_nor_diverged():
    history = [SPLIT, THREE_TO_ONE] * 10
    decision = decide_stop(history)
    assert (decision.reason, decision.events) == ("cap", 20)
    assert "20" in decision.detail


def test_the_cap_is_configurable():
    limits = StopThresholds(max_events=2)
    assert decide_stop([SPLIT], limits).reason is None
    assert decide_stop([SPLIT, SPLIT], limits).reason == "cap"


def test_converged_wins_over_the_cap_on_the_last_event():
    assert decide_stop([SPLIT, AGREED], StopThresholds(max_events=2)).reason == "converged"


def test_diverged_wins_over_the_cap_on_the_last_event():
    limits = StopThresholds(max_events=3, diverged_events=3)
    assert decide_stop([SPLIT] * 3, limits).reason == "diverged"


@pytest.mark.parametrize(
    ("limits", "history", "reason"),
    [
        pytest.param(StopThresholds(converged_share=0.95), [snap(("pro", 0.9), ("con", 0.1))],
                     None, id="stricter-share"),
        pytest.param(StopThresholds(crux_weight=0.8), [snap(("pro", 0.9), cruxes=(HEAVY,))],
                     "converged", id="higher-crux-weight"),
        pytest.param(StopThresholds(diverged_events=1), [SPLIT], "diverged", id="n-of-one"),
        pytest.param(StopThresholds(high_entropy_bits=1.0), [SPLIT] * 3, None,
                     id="higher-entropy-bar"),
    ],
)
def test_thresholds_are_configurable(limits, history, reason):
    assert decide_stop(history, limits).reason == reason


def test_the_defaults_are_the_seeds_eighty_percent_and_ours():
    limits = StopThresholds()
    assert (limits.converged_share, limits.crux_weight, limits.high_entropy_bits,
            limits.diverged_events, limits.max_events) == (0.8, 0.5, 0.9, 3, 20)


def test_heavy_open_cruxes_are_unresolved_and_at_least_the_weight():
    cruxes = [HEAVY, LIGHT, Crux(id="edge", weight=0.5), Crux(id="done", weight=1.0,
                                                                resolved=True)]
    assert [c.id for c in heavy_open_cruxes(cruxes, 0.5)] == ["horizon", "edge"]
