"""The demo-quality checks (tests/demo_quality.py) on texts written for them: each finds
what it is for, and lets pass what reads well."""

from __future__ import annotations

import pytest

from tests.demo_quality import (
    capitals_mid_sentence,
    cut_mid_word,
    cut_short,
    disagreeing_pronouns,
    id_like,
    ids_in,
    ids_of,
    known_names,
    outcome_problems,
    partial_claims,
    personas_of,
    repeated_sentences,
    sentences,
    speech,
)

CLAIM = ("It is right that shared binding rules, not each person or firm, decide whether "
         "frontier AI models need a licence.")


# -- what a line says -----------------------------------------------------------------------
def test_speech_leaves_out_the_act_label_before_a_line_and_the_positions_after_it():
    assert speech("[PROPOSE] Let us try a week.") == "Let us try a week."
    assert speech("I hold my ground. [c1 pro 0.82, c2 con 0.55]") == "I hold my ground."


def test_sentences_split_at_full_stops_question_and_exclamation_marks_and_line_breaks():
    assert sentences("Hello there. Are you in? Yes!\nA new line") == [
        "Hello there.", "Are you in?", "Yes!", "A new line"]


def test_mr_does_not_end_a_sentence():
    assert sentences("Ask Mr. Hale first. Then wait.") == ["Ask Mr. Hale first.", "Then wait."]


def test_a_question_inside_a_quotation_does_not_end_the_sentence_around_it():
    assert sentences('Your words "Who is he?" show you saw it. Good.') == [
        'Your words "Who is he?" show you saw it.', "Good."]


# -- repeats ----------------------------------------------------------------------------------
def test_a_sentence_said_twice_by_one_speaker_is_a_repeat():
    found = repeated_sentences([("Gamma", "I hope that helps! Sure."),
                                ("Gamma", "Fine. I hope  that HELPS!")])
    assert found == ["Gamma says 2 times: “I hope that helps!”"]


def test_the_same_sentence_from_two_speakers_is_no_repeat():
    assert repeated_sentences([("Gamma", "I hope that helps!"),
                               ("Beta", "I hope that helps!")]) == []


def test_a_short_interjection_said_twice_is_no_repeat():
    assert repeated_sentences([("Keeper", "Thank you."), ("Keeper", "Thank you.")]) == []


# -- capitals -------------------------------------------------------------------------------
def test_a_capital_right_after_a_lower_case_word_is_a_splice():
    assert capitals_mid_sentence("Run a trial that measures It is right that we act.") == [
        "“measures It”"]


@pytest.mark.parametrize("text", [
    "I asked Rowan and he agreed.",
    "So I think we should wait.",
    "We ship the RAG demo with AI help.",
    'She said "Never again" and left.',
    "The vote is on Friday.",
    "It is late. Then we stop.",
    "Files: ChatInput.tsx and OpinionChart.tsx.",
    "Chose: Ask who this cousin is.",
])
def test_names_i_acronyms_quotations_calendar_words_and_file_names_are_not_splices(text):
    assert capitals_mid_sentence(text, names={"Rowan"}) == []


def test_a_capital_word_never_written_lower_case_reads_as_a_name():
    assert capitals_mid_sentence("We meet on Fridays with Priya in Lisbon.") == []
    assert capitals_mid_sentence("The plan is good, and the Plan is mine.") == ["“the Plan”"]


def test_names_are_the_capitals_authors_write_after_a_lower_case_word():
    assert known_names(["A photo of Mayor Lena Varga of Riverton.", "The end. Then"]) == {
        "Mayor", "Riverton"}


# -- cuts -------------------------------------------------------------------------------------
def test_a_spoken_line_that_ends_in_a_letter_is_cut_off():
    assert cut_short("Run a trial that measures whether f") == [
        "ends mid-sentence: “…Run a trial that measures whether f”"]


def test_an_ellipsis_is_a_splice():
    assert cut_short("On what do you know: I will look into it…")[0].startswith(
        "a “…” splice")


@pytest.mark.parametrize("text", ["We are done.", "Are you in?", 'He said "no."', "(fine)"])
def test_a_line_that_ends_as_a_sentence_is_not_cut(text):
    assert cut_short(text) == []


def test_a_label_that_ends_in_the_start_of_a_known_word_is_cut_mid_word():
    assert cut_mid_word("decide whether f", {"frontier", "decide"}) == [
        "ends mid-word: “…decide whether f”"]


@pytest.mark.parametrize("text", ["c2: split", "tone: measured, cool", "id qFJWe2aQrry"])
def test_a_label_that_ends_in_a_word_or_a_stem_or_an_id_is_not_cut(text):
    assert cut_mid_word(text, {"splits", "measured", "cool", "coolly", "qfjwe"}) == []


# -- ids ------------------------------------------------------------------------------------
@pytest.mark.parametrize("value", ["c2", "mara-okafor", "qFJWe2aQrry", "no_source"])
def test_these_read_as_ids(value):
    assert id_like(value)


@pytest.mark.parametrize("value", ["alpha", "ALLY", "Rowan", "a", "two words"])
def test_these_read_as_words(value):
    assert not id_like(value)


def test_the_ids_of_a_state_are_under_id_keys_and_not_the_channels():
    state = {"claims": [{"id": "c1", "text": "x"}], "card": {"card_id": "mara-okafor"},
             "channels": [{"id": "war-room"}], "agents": [{"id": "alpha"}], "n": {"id": 3}}
    assert ids_of(state) == {"c1", "mara-okafor"}


def test_an_id_standing_as_a_word_is_found_and_a_channel_or_a_longer_id_is_not():
    ids = {"c2", "war-room"}
    assert ids_in("You have not answered the point on c2.", ids) == ["c2"]
    assert ids_in("See #war-room, and c20 is not c-2.", ids) == []


# -- claims -----------------------------------------------------------------------------------
def test_a_claim_quoted_whole_is_fine_even_starting_lower_case():
    assert partial_claims(f"I agree that {CLAIM[0].lower()}{CLAIM[1:]}", [CLAIM]) == []


def test_a_claim_quoted_in_part_is_found():
    found = partial_claims("A trial that measures It is right that shared binding rules, "
                           "not each person or firm, decide whether f", [CLAIM])
    assert len(found) == 1 and found[0].startswith("a claim quoted in part: “It is right")


# -- outcomes ---------------------------------------------------------------------------------
def test_negotiations_that_all_end_released_with_no_loop_trip_do_not_differ():
    assert outcome_problems([("released", 0)] * 4) == [
        "no game of 4 ends terminated", "no game of 4 stalls or trips the loop guard"]


def test_one_terminated_game_and_one_loop_trip_are_enough():
    assert outcome_problems([("released", 0), ("terminated", 0), ("released", 1)]) == []
    assert outcome_problems([("terminated", 0), ("stalled", 0)]) == []


# -- pronouns -------------------------------------------------------------------------------
PERSONAS = {"Ines Barros": "she/her", "Dev Lindqvist": "he/him", "Kit Moss": "they/them"}


def test_a_pronoun_of_another_set_than_the_named_personas_card_disagrees():
    assert disagreeing_pronouns("Ines would change his mind.", PERSONAS) == [
        "“his” of Ines Barros (she/her): “Ines would change his mind.”"]
    assert disagreeing_pronouns("Kit Moss says she is sure.", PERSONAS) != []


def test_pronouns_that_agree_with_the_card_pass():
    assert disagreeing_pronouns("Ines would change her mind. Dev keeps his view.",
                                PERSONAS) == []


def test_a_pronoun_speaks_of_the_persona_named_last_before_it():
    assert disagreeing_pronouns("Ines answered Dev and changed his plan.", PERSONAS) == []
    assert disagreeing_pronouns("Ines changed his mind when Dev said so.", PERSONAS) != []


def test_a_pronoun_in_a_quotation_or_before_any_name_is_not_judged():
    assert disagreeing_pronouns('Ines heard: "He quit over it."', PERSONAS) == []
    assert disagreeing_pronouns("His numbers convinced Ines.", PERSONAS) == []


def test_the_personas_of_a_state_are_the_named_entries_with_pronouns():
    state = {"debate": {"agents": [{"contract": {"name": "Ines Barros",
                                                 "pronouns": "she/her"}},
                                   {"contract": {"name": "No Pronouns"}}]}}
    assert personas_of(state) == {"Ines Barros": "she/her"}
