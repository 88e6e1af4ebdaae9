"""Convergence figures per claim on hand-computed tables, crux sides computed per agent,
and seating: 3-6 agents at one table, 7 or more at tables of 4-6 (7: 4 + 3), each agent at
one table, by crux affinity with every crux covered."""

from __future__ import annotations

import math

import pytest

from roundtable_desktop.kinds.debate.deck import load_deck
from roundtable_desktop.kinds.debate.progress import outcomes, record_metrics
from roundtable_desktop.kinds.debate.setup import agents_of
from roundtable_desktop.kinds.debate.state import AgentStance, Claim, Crux, DebateState, Table
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


@pytest.mark.parametrize(("n", "sizes"), [(7, [4, 3]), (8, [4, 4]), (9, [5, 4]),
                                           (11, [6, 5]), (12, [4, 4, 4]), (16, [4, 4, 4, 4])])
def test_seven_or_more_agents_sit_at_tables_of_four_to_six_each_agent_once(n, sizes):
    state = state_with(n, {"c1": [("pro", 0.8), ("con", 0.7)] * (n // 2) + [("pro", 0.5)]})
    tables = assign_tables(state)
    assert [len(t.agents) for t in tables] == sizes
    seated = [a for t in tables for a in t.agents]
    assert sorted(seated) == sorted(a.id for a in state.agents)  # each exactly once


@pytest.mark.parametrize("n", [7, 8])
def test_the_seating_covers_every_crux(n):
    state = _split_state(n)
    tables = assign_tables(state)
    assert uncovered(tables, state.cruxes) == []
    for crux in state.cruxes:
        assert any(covers(t.agents, crux) for t in tables)


def test_agents_opposed_on_the_heaviest_crux_share_a_table():
    # 8 agents: four pro and four con on c1; every table must hold both sides.
    state = state_with(8, {"c1": [("pro", 0.9)] * 4 + [("con", 0.9)] * 4})
    state.cruxes = [Crux(id="x1", text="a", claim="c1", tables=[1])]
    rank_cruxes(state)
    for table in assign_tables(state):
        assert set(table.agents) & set(state.cruxes[0].pro)
        assert set(table.agents) & set(state.cruxes[0].con)


def test_a_merge_that_does_not_reshuffle_moves_agents_only_to_cover_a_crux():
    state = _split_state(8)
    ids = [a.id for a in state.agents]
    # Both c1 con agents (the last two) at table 2 with no c1 pro agent: x1 is uncovered.
    current = [Table(id=1, agents=ids[:4]), Table(id=2, agents=ids[4:])]
    assert uncovered(current, state.cruxes)
    tables = assign_tables(state, current, reshuffle=False)
    assert uncovered(tables, state.cruxes) == []
    moved = sum(1 for before, after in zip(current, tables, strict=True)
                for a in after.agents if a not in before.agents)
    assert moved == 2  # one swap


def test_before_any_crux_the_disputed_claims_seat_the_tables_and_stay_claims():
    state = state_with(8, {"c1": [("pro", 0.9)] * 4 + [("con", 0.9)] * 4,
                           "c2": [("pro", 0.9)] * 8})
    tables = assign_tables(state)
    assert state.cruxes == []
    for table in tables:
        sides = {state.latest_stance(a, "c1").stance for a in table.agents}
        assert sides == {"pro", "con"}


def test_the_final_table_has_three_to_five_representatives_with_each_side_heard():
    state = _split_state(8)
    state.tables = assign_tables(state)
    reps = representatives(state)
    assert 3 <= len(reps) <= 5
    for crux in state.cruxes:
        assert set(reps) & set(crux.pro) and set(reps) & set(crux.con)


def test_the_final_table_takes_one_strongest_voice_per_table_up_to_five():
    state = state_with(16, {"c1": [("pro", 0.6), ("con", 0.6)] * 8})
    state.tables = assign_tables(state)
    reps = representatives(state)
    assert len(state.tables) == 4 and 4 <= len(reps) <= 5
    for table in state.tables:
        assert set(reps) & set(table.agents)
