"""The offline negotiation as a presenter shows it: every bundled scenario with seeds 0-3,
played offline headless to its end. Outcomes differ and every mechanism shows (a release,
a keeper who ends the talks, the loop guard forcing diversity); no side repeats one of its
own sentences; a question gets an answer and an offer an acknowledgement; two seeds read
differently; the observer's, the planner's and the adjudicator's JSON fits the schemas."""

from __future__ import annotations

import asyncio
import re
from collections import Counter, deque
from itertools import pairwise

import pytest

from roundtable_desktop.engine.headless import drive_headless
from roundtable_desktop.kinds.negotiation.offline import OFFLINE_POLICIES
from roundtable_desktop.kinds.negotiation.offline_bank import find_line, is_restatement, load_bank
from roundtable_desktop.kinds.negotiation.requests import (
    AdjudicatorReply,
    ObserverReply,
    PlannerReply,
)
from roundtable_desktop.kinds.negotiation.scenario import scenario_names
from roundtable_desktop.kinds.negotiation.text import END_TALKS, extract_act_and_intent

SEEDS = range(4)
_GAMES: dict = {}


@pytest.fixture
def games(make_game):
    """(scenario, seed) -> the game played to its end (played once per test session)."""
    if not _GAMES:
        for scenario in scenario_names():
            for seed in SEEDS:
                game = make_game(scenario, seed=seed)
                asyncio.run(drive_headless(game.session, 60, deque()))
                _GAMES[(scenario, seed)] = game
    return _GAMES


def sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z])", text.strip()) if s]


def spoken(game) -> list:
    """The messages of the game, the scenario's opening lines left out."""
    return game.state.messages()[2:]


def test_every_game_ends_in_an_adjudication_within_its_turn_cap(games):
    for (scenario, seed), game in games.items():
        state = game.state
        assert state.adjudication is not None, (scenario, seed)
        assert state.turn_count <= state.scenario.turn_cap, (scenario, seed)
        assert state.kpis.observer_failures == state.kpis.planner_failures == 0


def test_outcomes_differ_across_scenarios_and_seeds(games):
    outcomes = Counter(g.state.adjudication.outcome for g in games.values())
    assert outcomes["released"] >= 1 and outcomes["terminated"] >= 1, outcomes
    assert any(g.state.adjudication.trigger == "terminate" for g in games.values()), \
        "no keeper ended the talks itself"


def test_the_loop_guard_trips_and_forces_the_planner_to_diversify(games):
    tripped = [g for g in games.values() if g.state.kpis.loop_trips > 0]
    assert tripped, "the loop guard never tripped"
    assert any(g.state.adjudication.outcome == "stalled" for g in tripped) or any(
        "FORCE_DIVERSITY: yes" in r.user_text() for g in tripped for r in g.client.of("planner"))
    for game in tripped:
        assert any(e.type == "LOOP" for e in game.state.log)


def test_the_keepers_turns_are_not_drawn_in_advance(games):
    """The same scenario ends at different turns, in different ways, with different seeds
    (the seed sets the ally's temper; the keeper answers what the ally does)."""
    for scenario in scenario_names():
        ends = {(games[(scenario, s)].state.adjudication.outcome,
                 games[(scenario, s)].state.turn_count) for s in SEEDS}
        assert len(ends) >= 2, (scenario, ends)


def test_no_side_repeats_one_of_its_own_sentences(games):
    for (scenario, seed), game in games.items():
        for side in ("ALLY", "KEEPER"):
            said = [s for e in spoken(game) if e.who == side for s in sentences(e.text)]
            repeated = [s for s, n in Counter(said).items() if n > 1]
            assert not repeated, (scenario, seed, side, repeated)


def test_every_spoken_sentence_is_whole(games):
    for game in games.values():
        for entry in spoken(game):
            for sentence in sentences(entry.text):
                assert sentence[0].isupper() and sentence[-1] in ".?!", sentence
                assert "{" not in sentence and "  " not in sentence, sentence


def test_a_question_gets_an_answer_and_an_offer_an_acknowledgement(games):
    checked = 0
    for (scenario, _seed), game in games.items():
        bank = load_bank(scenario)
        messages = spoken(game)
        for before, reply in pairwise(messages):
            asker = bank.ally if before.who == "ALLY" else bank.keeper
            found = find_line(asker, before.text)
            if found is None or (reply.who == "KEEPER" and is_restatement(bank.keeper,
                                                                          reply.text)):
                continue  # a keeper that restates its position answers nothing: the loop
            act, line = found
            if act == "ASK":
                assert any(a in reply.text for a in line.answers), (before.text, reply.text)
                checked += 1
            elif act == "PROPOSE" and reply.intent != END_TALKS:
                assert any(a in reply.text for a in (*line.noted, *line.accepted)), \
                    (before.text, reply.text)
                checked += 1
    assert checked >= 40


def test_two_seeds_of_a_scenario_read_differently(games):
    for scenario in scenario_names():
        first, second = ({s for e in spoken(games[(scenario, seed)]) for s in sentences(e.text)}
                         for seed in (0, 1))
        assert len(first & second) <= len(first | second) // 3, scenario


def test_the_offline_json_fits_the_schemas_the_kind_validates(games):
    schemas = {"observer": ObserverReply, "planner": PlannerReply,
               "adjudicate": AdjudicatorReply}
    for (_scenario, seed), game in games.items():
        for purpose, schema in schemas.items():
            requests = game.client.of(purpose)
            assert requests
            for request in requests:
                reply = schema.model_validate_json(OFFLINE_POLICIES[purpose](request, seed))
                if purpose == "planner":
                    acts = [o.act for o in reply.root]
                    assert len(set(acts)) == len(acts)


def test_the_last_keeper_line_fits_the_outcome(games):
    for game in games.values():
        adj = game.state.adjudication
        last = game.state.messages()[-1]
        if adj.outcome == "released":
            assert (last.who, last.act) == ("KEEPER", "COMMIT")
        elif adj.trigger == "terminate":
            assert last.intent == END_TALKS and extract_act_and_intent(last.text).act == \
                "CHALLENGE"
