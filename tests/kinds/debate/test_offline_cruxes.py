"""The offline debate end to end: the cruxes are the ones its agents raise (specific
propositions, never a claim restated), the crux set grows over the merges, and 7 or 8
cards sit at tables of 4-6 with each agent at one table."""

from __future__ import annotations

import pytest

from roundtable_desktop.metrics.similarity import trigram_similarity
from tests.kinds.debate.conftest import AI_EIGHT, make_session, run_steps


@pytest.fixture(scope="module")
def demo():
    session = make_session()
    assert run_steps(session)
    return session.state


def test_every_crux_was_raised_by_an_agent(demo):
    raised = {n.text for r in demo.rounds for t in r.turns for n in t.new_cruxes}
    assert demo.cruxes and all(c.text in raised for c in demo.cruxes)


def test_no_crux_restates_a_claim(demo):
    for crux in demo.cruxes:
        for claim in demo.claims:
            assert trigram_similarity(crux.text, claim.text) < 0.55, (crux.text, claim.text)


def test_the_crux_set_grows_after_the_first_merge(demo):
    assert len(demo.merges) == 3
    assert demo.merges[0].new_cruxes and any(m.new_cruxes for m in demo.merges[1:])
    assert len(demo.cruxes) > len(demo.claims)


def test_the_merge_names_the_known_crux_a_raised_one_repeats(demo):
    # An argument made again in a later round raises its crux again: the merge folds it.
    later = sum(m.raised for m in demo.merges[1:])
    assert later > sum(len(m.new_cruxes) for m in demo.merges[1:])


@pytest.mark.parametrize(("hand", "sizes"), [(AI_EIGHT[:7], [3, 4]), (AI_EIGHT, [4, 4])])
def test_seven_or_eight_cards_sit_at_tables_of_four_to_six_each_agent_once(hand, sizes):
    session = make_session(hand=hand)
    assert run_steps(session)
    for record in [r for r in session.state.rounds if not r.final]:
        assert sorted(len(t.agents) for t in record.tables) == sizes
        assert sorted(t.agent for t in record.turns) == sorted(hand)
    final = session.state.rounds[-1]
    assert final.final and 3 <= len(final.turns) <= 5
