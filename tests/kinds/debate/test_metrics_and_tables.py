"""Convergence figures per claim on hand-computed tables, crux sides computed per agent,
and seating: 3-6 agents at one table, 7-8 at two tables of four with every crux covered."""

from __future__ import annotations

import math

import pytest

from roundtable_desktop.kinds.debate.deck import load_deck
from roundtable_desktop.kinds.debate.progress import outcomes, record_metrics
from roundtable_desktop.kinds.debate.setup import agents_of
from roundtable_desktop.kinds.debate.state import AgentStance, Claim, Crux, DebateState
from roundtable_desktop.kinds.debate.tables import (
    assign_tables,
    covers,
    rank_cruxes,
    representatives,
    uncovered,
)


def state_with(n: int, table: dict[str, list[tuple[str, float]]]) -> DebateState:
    deck = load_deck("ai-regulation")
    other = load_deck("remote-work")
    cards = [*deck.cards, *other.cards][:n]
    state = DebateState(deck="ai-regulation", topic="t", agents=agents_of(deck, cards))
    state.claims = [Claim(id=c, text=f"claim {c}", pro="yes", con="no") for c in table]
    for claim, rows in table.items():
        for agent, (stance, conf) in zip(state.agents, rows, strict=False):
            state.stances.append(AgentStance(agent=agent.id, claim=claim, stance=stance,
                                             confidence=conf))
    return state


def test_entropy_and_distance_match_a_hand_computed_table():
    # pro 0.8, con 0.6, uncertain 0.5: one of each stance -> log2(3) bits;
    # positions +0.8, -0.6, 0 -> |1.4| + |0.8| + |0.6| = 2.8
    state = state_with(3, {"c1": [("pro", 0.8), ("con", 0.6), ("uncertain", 0.5)]})
    record_metrics(state, 0)
    point = state.metrics[0]
    assert point.entropy_bits == pytest.approx(math.log2(3), abs=1e-4)
    assert point.distance == pytest.approx(2.8)
    assert point.share == pytest.approx(0.8 / 1.9, abs=1e-4)


def test_an_even_split_is_one_bit_and_agreement_is_zero():
    state = state_with(4, {
        "c1": [("pro", 1.0), ("pro", 0.5), ("con", 1.0), ("con", 0.5)],
        "c2": [("pro", 0.9), ("pro", 0.9), ("pro", 0.7), ("pro", 0.5)],
    })
    record_metrics(state, 0)
    c1, c2 = state.metrics
    assert c1.entropy_bits == pytest.approx(1.0)
    # positions 1, .5, -1, -.5: pairs .5+2+1.5+1.5+1+.5 = 7.0
    assert c1.distance == pytest.approx(7.0)
    assert c2.entropy_bits == 0.0
    assert c2.distance == pytest.approx(0.0 + 0.2 + 0.4 + 0.2 + 0.4 + 0.2)


def test_a_claim_converges_with_eighty_percent_of_the_mass_and_no_heavy_crux():
    state = state_with(4, {
        "c1": [("pro", 0.9), ("pro", 0.8), ("pro", 0.7), ("uncertain", 0.4)],
        "c2": [("pro", 0.9), ("pro", 0.8), ("con", 0.9), ("con", 0.8)],
    })
    state.cruxes = [Crux(id="x1", text="a", claim="c1", tables=[1]),
                    Crux(id="x2", text="b", claim="c2", tables=[1])]
    state.tables = assign_tables(state)
    rank_cruxes(state)
    found = {o.claim: o.status for o in outcomes(state)}
    assert found == {"c1": "converged", "c2": "split"}


def test_every_crux_names_its_agents_on_each_side_per_agent():
    state = state_with(4, {"c1": [("pro", 0.9), ("con", 0.3), ("pro", 0.2), ("con", 0.8)]})
    state.cruxes = [Crux(id="x1", text="a", claim="c1", tables=[1])]
    state.tables = assign_tables(state)
    rank_cruxes(state)
    crux = state.cruxes[0]
    ids = [a.id for a in state.agents]
    assert crux.pro == [ids[0], ids[2]] and crux.con == [ids[1], ids[3]]
    # contestation from per-agent confidences: 2 * min(1.1, 1.1) / 2.2 = 1
    assert crux.weight == pytest.approx(1.0)
    assert not crux.resolved


def test_a_crux_with_no_agent_on_one_side_is_resolved():
    state = state_with(3, {"c1": [("pro", 0.9), ("pro", 0.3), ("uncertain", 0.2)]})
    state.cruxes = [Crux(id="x1", text="a", claim="c1", tables=[1])]
    rank_cruxes(state)
    assert state.cruxes[0].resolved and state.cruxes[0].weight == 0.0


@pytest.mark.parametrize("n", [3, 6])
def test_three_to_six_agents_sit_at_one_table(n):
    state = state_with(n, {"c1": [("pro", 0.5)] * n})
    assert [len(t.agents) for t in assign_tables(state)] == [n]


def _split_state(n: int) -> DebateState:
    # c1: the first two agents pro, the last two con; c2: only agent 2 is con;
    # c3: only the middle agent is pro. Every crux is covered only if the seating works.
    c1 = [("pro", 0.9), ("pro", 0.8)] + [("uncertain", 0.3)] * (n - 4) + [("con", 0.9),
                                                                        ("con", 0.7)]
    c2 = [("pro", 0.6)] * n
    c2[2] = ("con", 0.9)
    c3 = [("con", 0.6)] * n
    c3[n // 2] = ("pro", 0.8)
    state = state_with(n, {"c1": c1, "c2": c2, "c3": c3})
    state.cruxes = [Crux(id=f"x{i}", text=f"crux {i}", claim=f"c{i}", tables=[1])
                    for i in (1, 2, 3)]
    rank_cruxes(state)
    return state


@pytest.mark.parametrize("n", [7, 8])
def test_seven_or_eight_agents_split_into_tables_of_four_covering_every_crux(n):
    state = _split_state(n)
    tables = assign_tables(state)
    assert [len(t.agents) for t in tables] == [4, 4]
    seated = {a for t in tables for a in t.agents}
    assert seated == {a.id for a in state.agents}
    assert uncovered(tables, state.cruxes) == []
    for crux in state.cruxes:
        assert any(covers(t.agents, crux) for t in tables)


def test_seven_agents_share_one_bridge_agent_between_the_tables():
    state = _split_state(7)
    first, second = assign_tables(state)
    assert len(set(first.agents) & set(second.agents)) == 1


def test_the_final_table_has_three_to_five_representatives_with_each_side_heard():
    state = _split_state(8)
    state.tables = assign_tables(state)
    reps = representatives(state)
    assert 3 <= len(reps) <= 5
    for crux in state.cruxes:
        assert set(reps) & set(crux.pro) and set(reps) & set(crux.con)
