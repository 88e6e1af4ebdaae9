"""Text similarity for the loop guard: character-trigram sets and their Jaccard index.

Seed 000 (CB.HTML) detects loops with `jaccardTrigram` over recent utterances; a trigram
there is three consecutive characters. Before cutting, text is NFKC-normalised,
case-folded and its whitespace runs collapsed to one space, so "OK,  fine" and "ok, fine"
count as the same words. A non-empty text shorter than three characters is its own single
gram (otherwise "ok" and "no" would both be empty and look alike).

Pure functions: no Qt, no I/O, no state.
"""

from __future__ import annotations

import re
import unicodedata

GRAM = 3

_SPACE_RUN = re.compile(r"\s+")


def normalise(text: str) -> str:
    """`text` as trigrams see it: NFKC, case-folded, single spaces, no outer spaces."""
    return _SPACE_RUN.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


def trigrams(text: str) -> frozenset[str]:
    """The set of character trigrams of `normalise(text)`.

    Empty for empty (or all-space) text; `{text}` for a text of one or two characters.
    """
    norm = normalise(text)
    if len(norm) < GRAM:
        return frozenset({norm}) if norm else frozenset()
    return frozenset(norm[i : i + GRAM] for i in range(len(norm) - GRAM + 1))


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """|a ∩ b| / |a ∪ b|, in [0, 1].

    Two empty sets give 0.0, not 1.0: silence shares no content with silence, and the
    loop guard must not call two passes a loop.
    """
    if not a or not b:
        return 0.0
    shared = len(a & b)
    return shared / (len(a) + len(b) - shared)


def trigram_similarity(a: str, b: str) -> float:
    """Jaccard similarity of the trigram sets of two texts, in [0, 1]."""
    return jaccard(trigrams(a), trigrams(b))
