"""Act and intent extraction (the table), and the reply sanitizer. (The offline banks' lines
reading as their acts: test_offline_banks.py.)"""

from __future__ import annotations

import pytest

from roundtable_desktop.kinds.negotiation.text import (
    NO_RESPONSE,
    extract_act_and_intent,
    sanitize_reply,
)

TABLE = [
    ("I propose a trial period of two weeks with daily reports.", "PROPOSE", "propose_solution"),
    ("Let's start with one door and see how it goes.", "PROPOSE", "propose_solution"),
    ("How about a narrow first step, reversible at any time.", "PROPOSE", "propose_solution"),
    ("What exactly would satisfy you?", "ASK", "seek_information"),
    ("Which proof do you need", "ASK", "seek_information"),
    ("Would you accept a month?", "PROPOSE", "propose_solution"),
    ("Denied. Your proposal lacks measurable criteria.", "CHALLENGE", "resist"),
    ("That is unacceptable and you know it.", "CHALLENGE", "resist"),
    ("Why should I believe you? I refuse.", "CHALLENGE", "resist"),
    ("Agreed. The door opens at dawn.", "COMMIT", "agree"),
    ("Very well, I accept your terms.", "COMMIT", "agree"),
    ("Consider it done: access is granted.", "COMMIT", "agree"),
    ("I will not agree to this.", "CHALLENGE", "resist"),
    ("I never accepted that.", "EVALUATE", "assess_terms"),
    ("Suppose the rules already allowed it.", "USE_CUNNING", "maneuver"),
    ("Imagine how the report would read.", "USE_CUNNING", "maneuver"),
    ("The risk is small but the precedent matters.", "EVALUATE", "assess_terms"),
    ("[ACT: USE_CUNNING] A small favour between friends.", "USE_CUNNING", "maneuver"),
    ("act: commit. Fine.", "COMMIT", "agree"),
    ("This conversation is over.", "CHALLENGE", "end_talks"),
    ("I am ending these talks now.", "CHALLENGE", "end_talks"),
]


@pytest.mark.parametrize(("text", "act", "intent"), TABLE)
def test_act_and_intent_of_a_message(text, act, intent):
    reading = extract_act_and_intent(text)
    assert (reading.act, reading.intent) == (act, intent)


def test_a_message_with_no_cue_is_an_evaluate_by_default():
    reading = extract_act_and_intent("The record speaks for itself.")
    assert reading.act == "EVALUATE" and reading.explicit is False


@pytest.mark.parametrize(("raw", "clean"), [
    ("KEEPER: Denied.", "Denied."),
    ("**GATEKEEPER**: Denied.", "Denied."),
    ("\"We start tomorrow.\"", "We start tomorrow."),
    ("[ACT: PROPOSE] We start   tomorrow.\n\nWith checks.", "We start tomorrow. With checks."),
    ("Bad\x00char", "Badchar"),
    ("   ", NO_RESPONSE),
])
def test_the_reply_is_sanitized_before_it_is_relayed(raw, clean):
    assert sanitize_reply(raw) == clean


def test_a_long_reply_is_cut_at_a_sentence_end():
    text = "One sentence here. " * 80
    out = sanitize_reply(text)
    assert len(out) <= 700 and out.endswith(".")


def test_the_speakers_own_name_is_dropped_from_the_front():
    assert sanitize_reply("VESTA: Pilot, wait.", speaker_names=("VESTA",)) == "Pilot, wait."
