"""Cruxes are discovered, against the fake model server: the agents' `new_cruxes` are the
cruxes (a claim is none until raised), the merge request shows them pre-grouped by
wording, the merge model decides what says the same (against the trigram hint either
way), and cruxes rank by tables that raised them x contestation. With 7+ cards the
tables are 4-6, each agent answers once per round, at one table."""

from __future__ import annotations

from typing import Any

from roundtable_desktop.engine.base import PendingPayload
from tests.fakes.openai_fixture import FakeOpenAI, fake_openai  # noqa: F401
from tests.kinds.debate.conftest import AI_EIGHT, AI_SIX
from tests.kinds.debate.fake_debate import answer, claims_and_stances, play, sent_bodies

SPLIT = {a: ("pro", "con")[i % 2] for i, a in enumerate(AI_EIGHT)}
THIRD = "Audits find about a third of failures before release."
THIRTY = "Pre-release audits catch 30 percent of model failures."
FIVE_YEARS = "Incidents fall by a quarter within five years of licensing."
TWO_YEARS = "Incidents fall by a quarter within two years of licensing."


def _replier(raised: dict[str, list[str]], merged: list[dict[str, Any]]):
    """Agents raise `raised[agent id]` (on c1) in round 1; the merge answers `merged`."""
    def reply(purpose: str, payload: PendingPayload, round_no: int) -> dict[str, Any]:
        first = claims_and_stances(purpose, payload, round_no, SPLIT)
        if first is not None:
            return first
        if purpose == "answer":
            texts = raised.get(payload.actor_id or "", []) if round_no == 1 else []
            return answer(payload, SPLIT, [{"claim": "c1", "text": t} for t in texts])
        if purpose == "merge":
            return {"cruxes": merged if round_no == 2 else [], "summary": "Merged."}
        return {"cruxes": [{"text": "x", "why": "y"}]}
    return reply


def test_claims_are_no_cruxes_until_the_agents_raise_them(fake_openai: FakeOpenAI):  # noqa: F811
    fake_openai.reset()
    replier = _replier({AI_SIX[0]: [THIRTY]}, [
        {"claim": "c1", "text": THIRTY, "merged_from": [THIRTY]}])
    session, _ = play(fake_openai, replier, until="round")
    assert session.state.claims and session.state.cruxes == []  # the stances are taken
    fake_openai.reset()
    session, _ = play(fake_openai, replier, until="final")
    assert [c.text for c in session.state.cruxes] == [THIRTY]


def test_the_merge_model_joins_two_wordings_the_trigrams_keep_apart(
        fake_openai: FakeOpenAI):  # noqa: F811
    fake_openai.reset()
    replier = _replier({AI_SIX[0]: [THIRTY], AI_SIX[1]: [THIRD]}, [
        {"claim": "c1", "text": THIRTY, "merged_from": [THIRTY, THIRD]}])
    session, _ = play(fake_openai, replier, until="final")
    assert [c.text for c in session.state.cruxes] == [THIRTY]
    first_merge = sent_bodies(fake_openai, "# Merge")[0]
    assert f"- group 1: {THIRTY}\n- group 2: {THIRD}" in first_merge  # not pre-grouped


def test_the_merge_model_keeps_apart_two_wordings_the_trigrams_group(
        fake_openai: FakeOpenAI):  # noqa: F811
    fake_openai.reset()
    replier = _replier({AI_SIX[0]: [FIVE_YEARS], AI_SIX[1]: [TWO_YEARS]}, [
        {"claim": "c1", "text": FIVE_YEARS, "merged_from": [FIVE_YEARS]},
        {"claim": "c1", "text": TWO_YEARS, "merged_from": [TWO_YEARS]}])
    session, _ = play(fake_openai, replier, until="final")
    assert sorted(c.text for c in session.state.cruxes) == sorted([FIVE_YEARS, TWO_YEARS])
    first_merge = sent_bodies(fake_openai, "# Merge")[0]
    assert f"- group 1: {FIVE_YEARS} || {TWO_YEARS}" in first_merge  # the hint


def test_a_crux_the_model_names_as_known_adds_no_new_one(fake_openai: FakeOpenAI):  # noqa: F811
    fake_openai.reset()
    other = "Licensed labs ship a month later on average."

    def reply(purpose: str, payload: PendingPayload, round_no: int) -> dict[str, Any]:
        first = claims_and_stances(purpose, payload, round_no, SPLIT)
        if first is not None:
            return first
        if purpose == "answer":
            text = THIRTY if round_no == 1 else THIRD
            return answer(payload, SPLIT, [{"claim": "c1", "text": text}]
                          if payload.actor_id == AI_SIX[0] else [])
        if purpose == "merge":
            if round_no == 2:
                return {"cruxes": [{"claim": "c1", "text": THIRTY}]}
            return {"cruxes": [{"claim": "c1", "text": THIRD, "same_as": "x1",
                                "merged_from": [THIRD]},
                               {"claim": "c2", "text": other}]}
        return {"cruxes": [{"text": "x", "why": "y"}]}

    session, _ = play(fake_openai, reply, until="final")
    s = session.state
    assert sorted(c.text for c in s.cruxes) == sorted([THIRTY, other])
    assert [m.new_cruxes for m in s.merges][:2] == [["x1"], ["x2"]]


def test_cruxes_rank_by_the_tables_that_raised_them_times_contestation(
        fake_openai: FakeOpenAI):  # noqa: F811
    fake_openai.reset()
    both, one = "Both tables raised this crux.", "Only one table raised this one."
    probe, _ = play(fake_openai, _replier({}, []), hand=AI_EIGHT, until="round")
    first, second = probe.state.tables
    raised = {first.agents[0]: [both, one], second.agents[0]: [both]}
    merged = [{"claim": "c1", "text": both, "merged_from": [both]},
              {"claim": "c1", "text": one, "merged_from": [one]}]
    fake_openai.reset()
    session, _ = play(fake_openai, _replier(raised, merged), hand=AI_EIGHT, until="final")
    weights = {c.text: c.weight for c in session.state.cruxes}
    assert weights[both] == 2 * weights[one] > 0  # same claim: same contestation


def test_eight_cards_sit_at_two_tables_of_four_and_each_answers_once_a_round(
        fake_openai: FakeOpenAI):  # noqa: F811
    fake_openai.reset()
    session, _ = play(fake_openai, _replier({}, []), hand=AI_EIGHT, until="final")
    s = session.state
    assert s.merge_cycles == 3
    for record in [r for r in s.rounds if not r.final]:
        assert sorted(len(t.agents) for t in record.tables) == [4, 4]
        assert sorted(t.agent for t in record.turns) == sorted(AI_EIGHT)
    assert all(m.reshuffled for m in s.merges)
    assert 3 <= len(s.tables[0].agents) <= 5  # the final table's representatives
