"""Specification of the loop guard (seed 000): a new utterance that is at least THRESHOLD
trigram-similar to one of the last WINDOW utterances is a repeat."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from roundtable_desktop.kinds.negotiation.loop_guard import (
    THRESHOLD,
    WINDOW,
    LoopGuard,
    find_repeat,
)
from roundtable_desktop.metrics.similarity import trigram_similarity

DAYS = "I require a minimum of 30 days before any release can be considered."

# Pairs that justify the default threshold: reworded repeats above it, new lines below.
REPEATS = [
    pytest.param(DAYS, "I require a minimum of 30 days before any release is considered.",
                 id="one-word-changed"),
    pytest.param(DAYS, "As I said, I require a minimum of 30 days before release can be "
                 "considered.", id="prefixed-restatement"),
    pytest.param("Can you tell me what evidence would change your mind?",
                 "What evidence would change your mind, can you tell me?", id="reordered"),
    pytest.param("I understand your concern, but the rules are clear.",
                 "I understand your concern, but the rules are the rules.", id="same-opening"),
    pytest.param("No.", "no.", id="short-identical-but-case"),
]
FRESH = [
    pytest.param(DAYS, "We could agree on a shorter review if you provide the documents "
                 "by Friday.", id="new-proposal"),
    pytest.param("The policy does not allow it.",
                 "The policy allows it only with a signed form.", id="same-topic-new-point"),
    pytest.param("I hear you.", "I hear you, but no.", id="short-extension"),
    pytest.param("ok", "no", id="two-char-lines"),
    pytest.param("", "", id="empty"),
]


@pytest.mark.parametrize(("earlier", "new"), REPEATS)
def test_a_reworded_line_is_a_repeat(earlier, new):
    verdict = find_repeat(new, [earlier])
    assert verdict.repeats
    assert verdict.matched == earlier
    assert verdict.similarity >= THRESHOLD


@pytest.mark.parametrize(("earlier", "new"), FRESH)
def test_a_different_line_is_not_a_repeat(earlier, new):
    verdict = find_repeat(new, [earlier])
    assert not verdict.repeats
    assert verdict.matched is None
    assert verdict.similarity < THRESHOLD


def test_nothing_to_compare_with_is_never_a_repeat():
    assert find_repeat(DAYS, []).repeats is False


def test_the_verdict_reports_the_closest_recent_line():
    recent = ["Let us talk about the weather.", DAYS, "Something else entirely."]
    verdict = find_repeat(DAYS + "!", recent)
    assert verdict.matched == DAYS
    assert verdict.similarity == pytest.approx(trigram_similarity(DAYS + "!", DAYS))


def test_on_a_tie_the_most_recent_match_is_reported():
    assert find_repeat("same line", ["Same line", "same  line"]).matched == "same  line"


@pytest.mark.parametrize(
    ("threshold", "repeats"),
    [pytest.param(0.3, True, id="lower-threshold-catches-it"),
     pytest.param(0.9, False, id="higher-threshold-lets-it-pass")],
)
def test_the_threshold_is_configurable(threshold, repeats):
    pair = ("The policy does not allow it.", "The policy does not allow that today.")
    assert 0.3 < trigram_similarity(*pair) < 0.9
    guard = LoopGuard(threshold=threshold)
    guard.observe(pair[0])
    assert guard.observe(pair[1]).repeats is repeats


def test_the_defaults_are_a_window_of_five_and_a_threshold_of_0_6():
    guard = LoopGuard()
    assert (guard.window, guard.threshold) == (WINDOW, THRESHOLD) == (5, 0.6)


def test_a_line_older_than_the_window_is_forgotten():
    guard = LoopGuard(window=2)
    for line in (DAYS, "A second, unrelated remark.", "A third thing to say now."):
        guard.observe(line)
    assert DAYS not in guard.recent
    assert guard.observe(DAYS).repeats is False


def test_a_line_inside_the_window_is_remembered():
    guard = LoopGuard(window=3)
    for line in (DAYS, "A second, unrelated remark.", "A third thing to say now."):
        guard.observe(line)
    assert guard.observe(DAYS).repeats is True


def test_check_does_not_remember_the_line():
    guard = LoopGuard()
    guard.check(DAYS)
    assert guard.recent == []
    assert guard.observe(DAYS).repeats is False


def test_blank_utterances_are_ignored():
    guard = LoopGuard(window=1)
    guard.observe(DAYS)
    assert guard.observe("   ").repeats is False
    assert guard.recent == [DAYS]
    assert guard.observe(DAYS).repeats is True


def test_count_is_the_number_of_repeats_in_a_row_and_forces_diversity():
    guard = LoopGuard()
    assert guard.force_diversity is False
    guard.observe(DAYS)
    guard.observe(DAYS)
    guard.observe(DAYS + " Really.")
    assert (guard.count, guard.force_diversity) == (2, True)


def test_a_fresh_line_resets_the_count():
    guard = LoopGuard()
    for line in (DAYS, DAYS, "We could agree on a shorter review by Friday."):
        guard.observe(line)
    assert (guard.count, guard.force_diversity) == (0, False)


def test_the_guard_round_trips_through_json_with_its_window():
    guard = LoopGuard(window=3, threshold=0.5)
    guard.observe(DAYS)
    guard.observe(DAYS)
    restored = LoopGuard.model_validate_json(guard.model_dump_json())
    assert restored == guard
    assert restored.observe(DAYS).repeats is True


@pytest.mark.parametrize(
    "bad",
    [pytest.param({"window": 0}, id="zero-window"),
     pytest.param({"threshold": 0.0}, id="zero-threshold"),
     pytest.param({"threshold": 1.5}, id="threshold-above-one")],
)
def test_nonsense_settings_are_refused(bad):
    with pytest.raises(ValidationError):
        LoopGuard(**bad)
