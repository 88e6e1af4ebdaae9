"""Words and sentences of English prose, cut one way for every kind: one word pattern, one
stop-word set, one sentence splitter.

Kinds pick words out of text (the mock catalog's search, the retrieval index's queries,
the offline model's echoes and topic words, the names a speech addresses) and cut text
into sentences (persona cards and their 3-5-sentence rule, retrieval chunks, streamed
speeches, quotes). They all use these, so two parts of the app never disagree about what
a word or a sentence is. These are plain heuristics for English, not linguistics; each
function's docstring says where they stop being right.
Must not import anything but the standard library; holds no state.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

# A run of Unicode letters and digits. Everything else ends a word: apostrophes, hyphens,
# underscores, punctuation, spaces. The same rule as SQLite FTS5's unicode61 tokenizer, so
# a query built from these words finds what the index holds.
WORD = re.compile(r"[^\W_]+")

# fmt: off
# English function words (articles, pronouns, auxiliaries and modals, prepositions,
# conjunctions, a few adverbs), and the pieces WORD leaves of contractions ("don't" gives
# "don" and "t"): words that say nothing about what a text is about.
STOP_WORDS: frozenset[str] = frozenset("""
a about above after again against all also am an and any are as at
be because been before being below between both but by
can could did do does doing down during each either else ever every
few for from further had has have having he her here hers herself him himself his how
i if in into is it its itself just let me might more most must my myself
neither no nor not now of off on once only onto or other ought our ours ourselves out over
own per same shall she should since so some such
than that the their theirs them themselves then there these they this those through thus
to too under until up upon us very via was we were what when where whether which while
who whom whose why will with within without would yet you your yours yourself yourselves
s t d ll m re ve don didn doesn hadn hasn haven isn aren wasn weren won wouldn shouldn
couldn mustn needn mightn shan ain
""".split())  # noqa: SIM905 (a word list reads better as text)
# fmt: on

# Marks that end a sentence, then any closing quotes or brackets, when whitespace follows.
_SENTENCE_END = re.compile(r"[.!?…]+[\"'”’)\]]*(?=\s)")
# A period after one of these does not end a sentence ("e.g. this", "Dr. Lind").
ABBREVIATIONS: frozenset[str] = frozenset({
    "e.g", "i.e", "dr", "mr", "mrs", "ms", "vs", "etc", "no", "st", "u.s", "u.k", "fig",
    "approx", "cf",
})
_WORD_BEFORE = re.compile(r"[A-Za-z.]+$")


def words(text: str) -> list[str]:
    """The words of `text`, lower-cased, in order, repeats kept.

    A word is a run of letters and digits in any script: "don't" gives "don" and "t",
    "long-term" gives "long" and "term", "gpt_4" gives "gpt" and "4", "3.5" gives "3" and
    "5". Limits: no stemming ("agents" and "agent" differ); scripts written without spaces
    (Chinese, Japanese, Thai) come out as one word per run of characters; a combining mark
    written apart from its letter splits the word.
    """
    return WORD.findall(text.lower())


def content_words(text: str, *, min_length: int = 1) -> list[str]:
    """`words(text)` without the stop words and the words shorter than `min_length`, in
    order, repeats kept: what the text is about.

    Limits: the stop words are English only; a word that is a stop word in one sense is
    dropped in every sense ("will" the noun, "us" the country, "won" the verb).
    """
    return [w for w in WORD.findall(text.lower())
            if len(w) >= min_length and w not in STOP_WORDS]


def sentence_ends(text: str) -> Iterator[int]:
    """The offset just past each sentence end in `text`: a run of `.`, `!`, `?` or `…`,
    with any closing quotes or brackets after it, followed by whitespace.

    The end of the text is not a sentence end (a stream may go on: "3." may become
    "3.5"). Limits: a period after a known abbreviation ("e.g.", "Dr.", "No.") never ends
    a sentence, even when it does ("I said no. Then I left." is one sentence); a period
    after any other abbreviation always does ("approx." is known, "Prof." is not); an
    ellipsis followed by a space ends a sentence even mid-thought.
    """
    for match in _SENTENCE_END.finditer(text):
        if match.group().startswith(".") and _after_abbreviation(text, match.start()):
            continue
        yield match.end()


def _after_abbreviation(text: str, dot: int) -> bool:
    word = _WORD_BEFORE.search(text, max(0, dot - 16), dot)
    return word is not None and word.group().lower() in ABBREVIATIONS


def finished_sentences(text: str) -> tuple[list[str], str]:
    """The sentences of `text` that have ended, each stripped, empty ones left out, and
    the text after the last end as it is (a stream's next piece continues it)."""
    found: list[str] = []
    start = 0
    for end in sentence_ends(text):
        sentence = text[start:end].strip()
        if sentence:
            found.append(sentence)
        start = end
    return found, text[start:]


def sentences(text: str) -> list[str]:
    """The sentences of `text`, each stripped, empty ones left out; the text after the
    last sentence end is the last sentence. `sentence_ends` says where one ends and where
    that rule fails. Line breaks are whitespace: a heading without a full stop runs into
    the sentence after it."""
    found, rest = finished_sentences(text)
    rest = rest.strip()
    return [*found, rest] if rest else found
