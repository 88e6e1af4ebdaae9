"""Specification of character-trigram Jaccard similarity (seed 000's `jaccardTrigram`)."""

from __future__ import annotations

import pytest

from roundtable_desktop.metrics.similarity import jaccard, normalise, trigram_similarity, trigrams

TRIGRAMS = [
    pytest.param("", frozenset(), id="empty"),
    pytest.param("   \n\t ", frozenset(), id="only-whitespace"),
    pytest.param("a", frozenset({"a"}), id="one-char-is-its-own-gram"),
    pytest.param("ok", frozenset({"ok"}), id="two-chars-are-their-own-gram"),
    pytest.param("abc", frozenset({"abc"}), id="exactly-three"),
    pytest.param("abcd", frozenset({"abc", "bcd"}), id="four"),
    pytest.param("aaaa", frozenset({"aaa"}), id="repeats-collapse-into-a-set"),
    pytest.param("AbC", frozenset({"abc"}), id="case-folded"),
    pytest.param("Straße", trigrams("strasse"), id="casefold-not-lower"),
    pytest.param("a  \n b", frozenset({"a b"}), id="whitespace-runs-collapse"),
    pytest.param("  ab  ", frozenset({"ab"}), id="outer-space-stripped"),
    pytest.param("ﬁne", trigrams("fine"), id="nfkc-ligature"),
    pytest.param("日本語の", frozenset({"日本語", "本語の"}), id="cjk-by-code-point"),
    pytest.param("🙂🙂🙂", frozenset({"🙂🙂🙂"}), id="emoji"),
]


@pytest.mark.parametrize(("text", "expected"), TRIGRAMS)
def test_trigrams_are_the_three_character_windows_of_the_normalised_text(text, expected):
    assert trigrams(text) == expected


SIMILARITY = [
    pytest.param("", "", 0.0, id="empty-vs-empty-is-not-a-match"),
    pytest.param("", "hello", 0.0, id="empty-vs-text"),
    pytest.param("hello there", "hello there", 1.0, id="identical"),
    pytest.param("Hello  THERE", "hello there", 1.0, id="case-and-spacing-ignored"),
    pytest.param("abc", "xyz", 0.0, id="all-different"),
    pytest.param("abcd", "bcde", 1 / 3, id="one-shared-of-three"),
    pytest.param("abcde", "abcxy", 1 / 5, id="one-shared-of-five"),
    pytest.param("ok", "ok", 1.0, id="short-identical"),
    pytest.param("ok", "no", 0.0, id="short-different"),
    pytest.param("ok", "okay", 0.0, id="short-vs-longer-shares-no-gram"),
    pytest.param("No.", "No!", 0.0, id="three-chars-differing-in-one"),
    pytest.param("日本語", "日本語", 1.0, id="unicode-identical"),
    pytest.param("日本語です", "日本語だよ", 1 / 5, id="unicode-partial"),
]


@pytest.mark.parametrize(("a", "b", "expected"), SIMILARITY)
def test_trigram_similarity_is_the_jaccard_index_of_the_trigram_sets(a, b, expected):
    assert trigram_similarity(a, b) == pytest.approx(expected)


@pytest.mark.parametrize(("a", "b", "_"), SIMILARITY)
def test_trigram_similarity_is_symmetric(a, b, _):
    assert trigram_similarity(a, b) == trigram_similarity(b, a)


def test_jaccard_of_subsets_is_the_size_ratio():
    assert jaccard(frozenset("ab"), frozenset("abcd")) == 0.5


def test_normalise_keeps_punctuation():
    assert normalise("  Hi,\tTHERE! ") == "hi, there!"
