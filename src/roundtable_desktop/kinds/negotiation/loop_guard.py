"""The loop guard of seed 000 (CB.HTML): does a new utterance repeat one of the recent ones?

CB.HTML keeps `loopGuard = {count, forcePlannerDiversity, lastOtherUtterances}` and
compares each new utterance with the recent ones by Jaccard trigram similarity; a repeat
makes the planner force diverse options. Here:

- `find_repeat(utterance, recent, threshold)` is the pure check over a list;
- `LoopGuard` owns the window (a pydantic model, so a session stores and restores it
  with the rest of its state): `observe(text)` checks, then remembers the text.

The caller chooses whose utterances a guard sees (CB.HTML: one guard per seat, fed the
other seat's lines). Blank utterances (a pass, a silence) are ignored: they are never a
repeat and never push a real line out of the window.

Defaults. The seed names no numbers. WINDOW = 5: the seed sends the last 10 messages of
a two-seat dialogue, so the other seat's share of that context is 5 lines. THRESHOLD = 0.6
is ours: reworded repeats of one sentence measure 0.79-0.85, different sentences on the
same topic 0.05-0.45 (tests/kinds/negotiation/test_metrics_loop_guard.py holds such pairs).

Pure: no Qt, no I/O, no clock.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from roundtable_desktop.metrics.similarity import jaccard, trigrams

WINDOW = 5
THRESHOLD = 0.6


class LoopVerdict(BaseModel):
    """What the guard found for one utterance."""

    model_config = ConfigDict(frozen=True)

    repeats: bool
    similarity: float = 0.0  # the highest similarity to any utterance in the window
    matched: str | None = None  # the recent utterance it repeats, when it does


def find_repeat(
    utterance: str, recent: Sequence[str], *, threshold: float = THRESHOLD
) -> LoopVerdict:
    """Whether `utterance` is at least `threshold` similar to any of `recent`.

    On ties the most recent match is reported.
    """
    grams = trigrams(utterance)
    best, matched = 0.0, None
    for earlier in recent:
        score = jaccard(grams, trigrams(earlier))
        if score >= best and score > 0.0:
            best, matched = score, earlier
    repeats = matched is not None and best >= threshold
    return LoopVerdict(repeats=repeats, similarity=best, matched=matched if repeats else None)


class LoopGuard(BaseModel):
    """The window of recent utterances and how many repeats came in a row."""

    window: int = Field(default=WINDOW, ge=1)
    threshold: float = Field(default=THRESHOLD, gt=0.0, le=1.0)
    recent: list[str] = Field(default_factory=list)  # oldest first, at most `window`
    count: int = Field(default=0, ge=0)  # consecutive repeats up to the last utterance

    @property
    def force_diversity(self) -> bool:
        """CB.HTML's `forcePlannerDiversity`: the last utterance repeated a recent one."""
        return self.count > 0

    def check(self, utterance: str) -> LoopVerdict:
        """The verdict for `utterance` without remembering it."""
        if not utterance.strip():
            return LoopVerdict(repeats=False)
        return find_repeat(utterance, self.recent[-self.window :], threshold=self.threshold)

    def observe(self, utterance: str) -> LoopVerdict:
        """Check `utterance`, then remember it (the oldest falls out of the window)."""
        verdict = self.check(utterance)
        if not utterance.strip():
            return verdict
        self.count = self.count + 1 if verdict.repeats else 0
        self.recent = [*self.recent, utterance][-self.window :]
        return verdict
