"""The offline model's text banks (resources/negotiation/offline/): whole sentences that read
as the act they serve, responses that change no act, closing lines that end the talks,
restatements the loop guard catches, enough variants that no side runs out; and how the
offline sides move on what was said."""

from __future__ import annotations

import pytest

from roundtable_desktop.kinds.negotiation.loop_guard import THRESHOLD
from roundtable_desktop.kinds.negotiation.offline_bank import (
    ACT_NAMES,
    GENERIC,
    bank_dir,
    common,
    load_bank,
    scenario_of,
)
from roundtable_desktop.kinds.negotiation.offline_moves import CLOSE, RESTATE, keeper_move
from roundtable_desktop.kinds.negotiation.offline_reading import Said
from roundtable_desktop.kinds.negotiation.scenario import load_scenario, scenario_names
from roundtable_desktop.kinds.negotiation.text import END_TALKS, extract_act_and_intent
from roundtable_desktop.metrics.similarity import trigram_similarity

BANKS = [*scenario_names(), GENERIC]


def every_sentence(name: str) -> list[str]:
    bank = load_bank(name)
    found = []
    for side in (bank.ally, bank.keeper):
        for lines in side.lines.values():
            for line in lines:
                found += [line.text, *line.answers, *line.noted, *line.accepted]
        for replies in side.replies.values():
            found += replies
        found += [*side.opening_answers, *side.close, *side.restate]
        found += [side.statement] if side.statement else []
    return found


def test_every_bundled_scenario_has_its_own_bank():
    for name in scenario_names():
        assert (bank_dir() / f"{name}.json").is_file(), name
        assert load_bank(name).name == name


@pytest.mark.parametrize("name", BANKS)
def test_every_sentence_is_written_whole_without_slots(name):
    for sentence in every_sentence(name):
        assert sentence[0].isupper() and sentence[-1] in ".?!", sentence
        assert "{" not in sentence and "  " not in sentence, sentence


@pytest.mark.parametrize("name", BANKS)
def test_every_line_reads_as_the_act_it_was_written_for(name):
    bank = load_bank(name)
    for side in (bank.ally, bank.keeper):
        for act, lines in side.lines.items():
            for line in lines:
                assert extract_act_and_intent(line.text).act == act, line.text
                for accepted in line.accepted:
                    assert extract_act_and_intent(accepted).act == "COMMIT", accepted


@pytest.mark.parametrize("name", BANKS)
def test_a_response_leaves_the_act_of_the_sentence_after_it(name):
    """Answers, acknowledgements and replies carry no act cue and open with no question
    word, so "response + act sentence" reads as the act sentence."""
    bank = load_bank(name)
    for side in (bank.ally, bank.keeper):
        responses = [*side.opening_answers, *(r for rs in side.replies.values() for r in rs)]
        for lines in side.lines.values():
            for line in lines:
                responses += [*line.answers, *line.noted]
        for response in responses:
            assert not extract_act_and_intent(response).explicit, response


@pytest.mark.parametrize("name", BANKS)
def test_closing_lines_end_the_talks_and_restatements_trip_the_loop_guard(name):
    keeper = load_bank(name).keeper
    assert keeper.close and keeper.restate
    for line in keeper.close:
        assert extract_act_and_intent(line).intent == END_TALKS, line
    again = [*keeper.restate, *([keeper.statement] if keeper.statement else [])]
    for first in again:
        for second in again:
            assert trigram_similarity(first, second) >= THRESHOLD, (first, second)


@pytest.mark.parametrize("name", BANKS)
def test_each_act_has_enough_lines_for_a_whole_game(name):
    """An act is never used twice running, so a side uses it at most three times in the
    six turns of either half of a 24-turn game: three lines per half."""
    bank = load_bank(name)
    for side in (bank.ally, bank.keeper):
        for act in ACT_NAMES:
            if act != "COMMIT":
                wanted = 4 if side is bank.keeper and act == "PROPOSE" else 6
                assert len(side.lines.get(act, ())) >= wanted, (act, name)
        for line in side.lines.get("ASK", ()):
            assert len(line.answers) >= 1
        for line in side.lines.get("PROPOSE", ()):
            assert line.noted and line.accepted


def test_the_planners_special_options_say_what_they_are():
    keeper = common().planner["KEEPER"]
    assert all(text.startswith("Close the talks") for text in keeper[CLOSE])
    assert all(text.startswith("Restate") for text in keeper[RESTATE])


def test_a_request_is_matched_to_its_scenario_by_what_it_quotes():
    tenant = load_scenario("tenant")
    assert scenario_of(f"WORLD_LORE: {tenant.world.lore}") == "tenant"
    assert scenario_of(f"Model KEEPER ({tenant.keeper.name}).") == "tenant"
    assert scenario_of("WORLD_LORE: a place nobody wrote a bank for") == ""


# -- how the keeper moves ------------------------------------------------------------------
BANK = load_bank("default")
OFFERS = [line.text for line in BANK.ally.lines["PROPOSE"]]
CHALLENGES = [line.text for line in BANK.ally.lines["CHALLENGE"]]
QUESTIONS = [line.text for line in BANK.ally.lines["ASK"]]
MUSINGS = [line.text for line in BANK.ally.lines["USE_CUNNING"]]
EVALUATIONS = [line.text for line in BANK.ally.lines["EVALUATE"]]


def memo(turn: int, traits: str = "openness:3.0, logic:3.0") -> str:
    return (f"ALLY (ALLY (Human+AI)) seeks ground ({traits}). KEEPER (GATEKEEPER) holds "
            f"ground (authority:4.0, logic:4.0). Turn {turn} of at most 24.")


def snippet(*ally: str) -> list[Said]:
    lines = []
    for text in ally:
        lines += [Said("ALLY", text), Said("KEEPER", BANK.keeper.lines["EVALUATE"][0].text)]
    return lines[:-1]


def test_a_keeper_given_offers_and_evidence_commits_to_the_offer_on_the_table():
    move = keeper_move(BANK, snippet(OFFERS[0], EVALUATIONS[0], OFFERS[4]), memo(12),
                       "EVALUATE", "PROPOSE", False)
    assert move.act == "COMMIT"


def test_the_same_offer_early_in_the_talks_is_not_yet_accepted():
    move = keeper_move(BANK, snippet(OFFERS[0], EVALUATIONS[0], OFFERS[4]), memo(4),
                       "EVALUATE", "PROPOSE", False)
    assert move.act != "COMMIT"


def test_a_keeper_challenged_twice_ends_the_talks():
    move = keeper_move(BANK, snippet(CHALLENGES[0], OFFERS[1], CHALLENGES[1]), memo(8),
                       "EVALUATE", "CHALLENGE", False)
    assert move.special == CLOSE


def test_a_keeper_offered_nothing_restates_its_position():
    move = keeper_move(BANK, snippet(MUSINGS[0], QUESTIONS[0], MUSINGS[1]), memo(8),
                       "ASK", "USE_CUNNING", False)
    assert move.special == RESTATE
    assert move.act not in ("ASK", "USE_CUNNING")  # an act the sequencer's pick will take


def test_the_observers_model_of_the_ally_moves_the_keeper():
    lines = snippet(OFFERS[2], EVALUATIONS[1], OFFERS[3])
    calm = keeper_move(BANK, lines, memo(12, "agreeableness:5.0, logic:5.0"), "EVALUATE",
                       "PROPOSE", False)
    rattled = keeper_move(BANK, lines, memo(12, "neuroticism:5.0, authority:5.0"), "EVALUATE",
                          "PROPOSE", False)
    assert calm.act == "COMMIT" and rattled.act != "COMMIT"
