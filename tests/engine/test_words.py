"""The one words module (domain/words.py): what a word, a stop word and a sentence are, the
same for every kind, and where those rules stop being right."""

from __future__ import annotations

import pytest

from roundtable_desktop.domain.words import (
    STOP_WORDS,
    content_words,
    finished_sentences,
    sentence_ends,
    sentences,
    words,
)


# -- words ------------------------------------------------------------------------------
def test_a_word_is_a_run_of_letters_and_digits_lower_cased_in_order():
    assert words("The Harbour, the HARBOUR and 42 boats.") == [
        "the", "harbour", "the", "harbour", "and", "42", "boats"]


@pytest.mark.parametrize(("text", "expected"), [
    ("don't", ["don", "t"]),
    ("long-term", ["long", "term"]),
    ("gpt_4", ["gpt", "4"]),
    ("3.5", ["3", "5"]),
])
def test_apostrophes_hyphens_underscores_and_points_end_a_word(text, expected):
    assert words(text) == expected


def test_letters_of_any_script_make_words():
    assert words("Übergang café Σωκράτης") == ["übergang", "café", "σωκράτης"]


def test_a_script_written_without_spaces_is_one_word_per_run():
    assert words("東京都に住む") == ["東京都に住む"]


# -- stop words -------------------------------------------------------------------------
def test_content_words_leave_out_function_words_and_keep_repeats_in_order():
    assert content_words("What is the fare of the bus, and is the bus free?") == [
        "fare", "bus", "bus", "free"]


def test_the_pieces_of_contractions_are_stop_words():
    assert content_words("We don't think it's fair; they've said so") == [
        "think", "fair", "said"]


def test_content_words_can_ask_for_a_least_length():
    assert content_words("Rail is a big plan for an old town", min_length=4) == ["rail", "plan",
                                                                                 "town"]


def test_the_stop_words_are_lower_case_single_words():
    assert all(w == w.lower() and words(w) == [w] for w in STOP_WORDS)


def test_a_stop_word_is_dropped_in_every_sense():
    assert content_words("The will of the people") == ["people"]  # "will" the noun too


# -- sentences --------------------------------------------------------------------------
def test_a_sentence_ends_at_a_stop_followed_by_space():
    assert sentences("Fares fell. Did riders come back? Yes! They did") == [
        "Fares fell.", "Did riders come back?", "Yes!", "They did"]


def test_closing_quotes_and_brackets_stay_with_their_sentence():
    assert sentences('She said "stop." Then (quietly.) she left.') == [
        'She said "stop."', "Then (quietly.)", "she left."]


def test_a_point_inside_a_number_or_after_an_abbreviation_ends_nothing():
    assert sentences("Rates fell 0.7 points, e.g. in the U.S. market. Dr. Lind agreed.") == [
        "Rates fell 0.7 points, e.g. in the U.S. market.", "Dr. Lind agreed."]


def test_a_known_abbreviation_at_a_sentences_end_does_not_end_it():
    # The limit the docstring states: "no." is taken for "number".
    assert sentences("I said no. Then I left.") == ["I said no. Then I left."]


def test_an_ellipsis_followed_by_space_ends_a_sentence():
    assert sentences("I wonder… maybe not.") == ["I wonder…", "maybe not."]


def test_the_end_of_the_text_is_not_a_sentence_end_but_its_rest_is_the_last_sentence():
    assert list(sentence_ends("One. Two.")) == [4]
    assert sentences("One. Two.") == ["One.", "Two."]
    assert finished_sentences("One. Two.") == (["One."], " Two.")


def test_empty_and_blank_text_has_no_sentences():
    assert sentences("") == [] and sentences("  \n ") == []


def test_a_line_break_is_white_space_and_a_heading_runs_into_the_next_sentence():
    assert sentences("Heading\nFirst line. Second.") == ["Heading\nFirst line.", "Second."]
