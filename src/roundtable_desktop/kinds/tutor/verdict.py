"""The verdict on each checklist item of a tutor exercise: spotted, partly or missed, with
the student's own words that show it.

The student spotted an item's pattern when one of their lines uses one of the pattern's
`signals` (the words a student naming it uses, as the cartridge lists them); partly when
it uses only one of its `partial_signals` (words of someone who felt something was off
without naming it); otherwise they missed it. An item without a pattern is spotted when a
student line shares two content words with the item's own text. The quote is the whole
sentence of the first line that shows it. The checklist's ticks, the debrief's layer and
the count the result states all come from these verdicts, so they cannot disagree.
Must not import Qt, call models or change the state.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel

from roundtable_desktop.domain.words import content_words, sentences
from roundtable_desktop.kinds.tutor.cartridge import Cartridge, ChecklistItem, Pattern

Verdict = Literal["spotted", "partly", "missed"]
MARKS: dict[str, str] = {"spotted": "✓", "partly": "◐", "missed": "☐"}


class ItemVerdict(BaseModel):
    item: str  # the checklist item's id
    pattern: str | None = None
    verdict: Verdict = "missed"
    quote: str = ""  # one whole sentence the student wrote, or "" when missed


def uses(text: str, signal: str) -> bool:
    """Whether `text` uses `signal`: case-insensitive, starting at a word's start (so a
    stem like "skub" finds "skuba", and "off" is not found in "coffee")."""
    signal = signal.strip()
    return bool(signal) and re.search(rf"(?<!\w){re.escape(signal)}", text,
                                      re.IGNORECASE) is not None


def _sentence_using(line: str, words: list[str]) -> str:
    """The first whole sentence of `line` that uses one of `words` (else the line)."""
    for sentence in sentences(line):
        if any(uses(sentence, w) for w in words):
            return sentence
    return " ".join(line.split())


def _first_using(lines: list[str], words: list[str]) -> str | None:
    for line in lines:
        if any(uses(line, w) for w in words):
            return _sentence_using(line, words)
    return None


def _judge_pattern(item: ChecklistItem, pattern: Pattern, lines: list[str]) -> ItemVerdict:
    quote = _first_using(lines, pattern.signals)
    if quote is not None:
        return ItemVerdict(item=item.id, pattern=pattern.id, verdict="spotted", quote=quote)
    quote = _first_using(lines, pattern.partial_signals)
    if quote is not None:
        return ItemVerdict(item=item.id, pattern=pattern.id, verdict="partly", quote=quote)
    return ItemVerdict(item=item.id, pattern=pattern.id)


def _judge_text(item: ChecklistItem, lines: list[str]) -> ItemVerdict:
    wanted = set(content_words(item.text, min_length=4))
    for line in lines:
        for sentence in sentences(line):
            if len(wanted & set(content_words(sentence, min_length=4))) >= 2:
                return ItemVerdict(item=item.id, verdict="spotted", quote=sentence)
    return ItemVerdict(item=item.id)


def judge(cartridge: Cartridge, student_lines: list[str]) -> list[ItemVerdict]:
    """One verdict per checklist item, in the checklist's order."""
    patterns = {p.id: p for p in cartridge.evaluation.patterns_embedded}
    found = []
    for item in cartridge.evaluation.checklist:
        pattern = patterns.get(item.pattern or "")
        found.append(_judge_pattern(item, pattern, student_lines) if pattern is not None
                     else _judge_text(item, student_lines))
    return found


def spotted_count(verdicts: list[ItemVerdict]) -> tuple[int, int, int]:
    """(spotted, partly, items)."""
    return (sum(v.verdict == "spotted" for v in verdicts),
            sum(v.verdict == "partly" for v in verdicts), len(verdicts))


def count_sentence(verdicts: list[ItemVerdict], language: str) -> str:
    """The count the result states, from the verdicts alone (the ticks' number)."""
    spotted, partly, total = spotted_count(verdicts)
    if language == "lt":
        more = f", dar {partly} – iš dalies" if partly else ""
        return f"Atpažinai {spotted} iš {total}{more}."
    more = f", and {partly} more in part" if partly else ""
    return f"You spotted {spotted} of {total}{more}."
