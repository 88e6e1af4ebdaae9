"""The bundled mock video catalog as a candidate source: offline, instant, deterministic.

With no query it returns a default list balanced across the user's interest areas; with
a query it ranks entries by word overlap with title, tags, channel and description, and
falls back to the default list (saying so) when nothing matches. Must not do I/O after
loading, use randomness, or hand out its own model instances (callers get copies).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from roundtable_desktop.domain.words import content_words
from roundtable_desktop.kinds.roundtable.catalog import Candidate
from roundtable_desktop.kinds.roundtable.sources.base import SourceResult
from roundtable_desktop.kinds.roundtable.sources.mock_data import mock_dir, read_json, validate_as
from roundtable_desktop.sources.errors import SourceError

# The catalog tags every entry with at most one of these; they are the mock user's areas.
AREA_TAGS: tuple[str, ...] = ("llm", "web development", "science fiction")

# Title and tags say what a video is about; a word in the description is weaker evidence.
FIELD_WEIGHTS: dict[str, int] = {"title": 3, "tags": 3, "channel": 2, "description": 1}

# Words that every query for a video may hold: they tell no video from another.
QUERY_NOISE: frozenset[str] = frozenset({"video", "watch", "get"})

# Spelled-out phrases and their acronyms, so either spelling in a query finds both.
ALIASES: dict[str, tuple[str, ...]] = {
    "rag": ("retrieval", "augmented", "generation"),
    "llm": ("large", "language", "model"),
    "sf": ("science", "fiction"),
    "wasm": ("webassembly",),
    "a11y": ("accessibility",),
}


def stem(word: str) -> str:
    """Fold plural forms together ('stories' -> 'story', 'agents' -> 'agent', 'css' stays)."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def tokens(text: str) -> list[str]:
    """Lower-cased, stemmed content words of `text` (domain/words.py), in order, without
    the words every video query holds."""
    stemmed = (stem(w) for w in content_words(text))
    return [w for w in stemmed if w not in QUERY_NOISE]


def add_acronyms(words: list[str], *, keep_phrase: bool = True) -> list[str]:
    """Distinct `words`, with the acronym of any spelled-out phrase among them.

    A query drops the phrase's own words (`keep_phrase=False`): "retrieval augmented
    generation" means RAG, not any video about generation ships. Acronyms are never
    expanded, for the same reason.
    """
    words = list(words)
    extra: list[str] = []
    for acronym, phrase in ALIASES.items():
        n = len(phrase)
        starts = [i for i in range(len(words) - n + 1) if tuple(words[i : i + n]) == phrase]
        if not starts:
            continue
        extra.append(acronym)
        if not keep_phrase:
            for i in reversed(starts):
                words[i : i + n] = [""] * n
    return [w for w in dict.fromkeys([*words, *extra]) if w]


class MockCatalog:
    """The mock catalog: `search`, `lookup` and `all` over a fixed list of candidates."""

    name = "mock"

    def __init__(self, candidates: Iterable[Candidate], areas: Sequence[str] = AREA_TAGS) -> None:
        self._items = [c.model_copy(deep=True) for c in candidates]
        self._by_id = {c.id: c for c in self._items}
        self._areas = tuple(areas)
        self._fields = [self._field_words(c) for c in self._items]

    @classmethod
    def load(cls, path: Path | None = None) -> MockCatalog:
        """Read the catalog JSON (default: the bundled resources/roundtable/mock/catalog.json)."""
        path = path or mock_dir() / "catalog.json"
        what = "mock catalog"
        items: list[Candidate] = validate_as(read_json(path, what), list[Candidate], path, what)
        if not items:
            raise SourceError(f"The {what} file {path} holds no videos; restore it.")
        ids = [c.id for c in items]
        repeated = sorted({i for i in ids if ids.count(i) > 1})
        if repeated:
            raise SourceError(
                f"The {what} file {path} repeats the video id {repeated[0]}; ids must be unique."
            )
        return cls(items)

    # -- the CandidateSource interface ---------------------------------------------------
    async def search(self, query: str | None, limit: int = 12) -> SourceResult:
        return self.find(query, limit)

    def lookup(self, video_id: str) -> Candidate | None:
        found = self._by_id.get(video_id)
        return found.model_copy(deep=True) if found is not None else None

    # -- synchronous helpers -------------------------------------------------------------
    def all(self) -> list[Candidate]:
        return [c.model_copy(deep=True) for c in self._items]

    def find(self, query: str | None, limit: int = 12) -> SourceResult:
        """What `search` returns, without needing an event loop."""
        limit = max(1, limit)
        if query is None or not query.strip():
            return SourceResult(candidates=self.default_list(limit), source=self.name)
        ranked = self._ranked(query)[:limit]
        if ranked:
            found = [self._items[i].model_copy(deep=True) for i in ranked]
            return SourceResult(candidates=found, source=self.name)
        shown = query.strip()
        shown = shown if len(shown) <= 80 else shown[:77] + "..."
        return SourceResult(
            candidates=self.default_list(limit),
            source=self.name,
            notice=f'No mock video matched "{shown}"; showing the default list instead.',
        )

    def default_list(self, limit: int = 12) -> list[Candidate]:
        """Entries taken in turn from each area, in catalog order; topped up if areas run out."""
        queues = [[c for c in self._items if area in c.tags] for area in self._areas]
        chosen: list[Candidate] = []
        while len(chosen) < limit and any(queues):
            for queue in queues:
                if queue and len(chosen) < limit:
                    chosen.append(queue.pop(0))
        taken = {c.id for c in chosen}
        chosen.extend(c for c in self._items if c.id not in taken)
        return [c.model_copy(deep=True) for c in chosen[:limit]]

    # -- scoring --------------------------------------------------------------------------
    def _ranked(self, query: str) -> list[int]:
        """Indexes of matching entries, best first; equal scores keep catalog order."""
        words = add_acronyms(tokens(query), keep_phrase=False)
        scored = [(self._score(words, fields), i) for i, fields in enumerate(self._fields)]
        return [i for s, i in sorted(scored, key=lambda pair: (-pair[0], pair[1])) if s > 0]

    @staticmethod
    def _score(words: list[str], fields: dict[str, set[str]]) -> int:
        """Weighted field matches times the number of distinct query words matched.

        The multiplier favours a video that matches several query words over one that
        matches a single word in many fields.
        """
        total = 0
        matched = 0
        for word in words:
            weight = sum(w for name, w in FIELD_WEIGHTS.items() if word in fields[name])
            if weight:
                total += weight
                matched += 1
        return total * matched

    @staticmethod
    def _field_words(c: Candidate) -> dict[str, set[str]]:
        words = {
            "title": tokens(c.title),
            "tags": tokens(" ".join(c.tags)),
            "channel": tokens(c.channel),
            "description": tokens(c.description),
        }
        return {name: set(add_acronyms(w)) for name, w in words.items()}
