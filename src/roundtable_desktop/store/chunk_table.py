"""The chunk table of an export: each stored chunk a text uses, once, and texts as lists
of indices into it.

A chunk is given as a JSON string when it is UTF-8 on its own, else (a chunk cut inside a
character) as `{"base64": "..."}`. Every chunk is scrubbed of the secrets known now (a
store written before a key was known must not leak it); a text that uses a chunk
scrubbing changed, or in which a secret straddles two chunks, is not `exact`: the
caller gives that text whole (scrubbed) instead of as chunk references.
Must not touch the database (store/chunk_reads.py reads the chunks) or know what a text is.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Sequence
from itertools import pairwise
from typing import Any

from roundtable_desktop.domain.secrets import scrub, scrub_value, secrets_known

ChunkEntry = str | dict[str, str]

# Characters on each side of a chunk boundary looked at for a secret cut in two.
_EDGE = 512


def chunk_text(entry: ChunkEntry) -> bytes:
    """The bytes a table entry stands for."""
    if isinstance(entry, str):
        return entry.encode("utf-8")
    return base64.b64decode(entry["base64"])


def joined_text(entries: Sequence[ChunkEntry], refs: Sequence[int]) -> str:
    """The text a list of chunk indices stands for (UTF-8 of the joined chunks)."""
    return b"".join(chunk_text(entries[i]) for i in refs).decode("utf-8")


class ChunkTable:
    """Chunks by first use; `refs` turns a text's chunk hashes into indices."""

    def __init__(self, chunks: dict[bytes, bytes]) -> None:
        self._chunks = chunks
        self._index: dict[bytes, int] = {}
        self.entries: list[ChunkEntry] = []
        self._changed: set[int] = set()
        self._digests: list[bytes] = []

    def add_chunks(self, chunks: dict[bytes, bytes]) -> None:
        """More stored chunks to draw from (another session's: the texts a branch
        inherited live in its ancestors' chunks); a hash already known keeps its bytes."""
        for digest, data in chunks.items():
            self._chunks.setdefault(digest, data)

    def refs(self, digests: Sequence[bytes]) -> list[int] | None:
        """Indices of the chunks, adding new ones; None when a chunk is missing."""
        out: list[int] = []
        for digest in digests:
            at = self._index.get(digest)
            if at is None:
                data = self._chunks.get(digest)
                if data is None:
                    return None
                at = self._index[digest] = len(self.entries)
                self._digests.append(digest)
                entry, changed = _entry(data)
                self.entries.append(entry)
                if changed:
                    self._changed.add(at)
            out.append(at)
        return out

    def raw_value(self, refs: Sequence[int], parse: Callable[[str], Any]) -> Any:
        """The text as stored (before scrubbing), parsed by `parse`, with every string in
        the value scrubbed: for a text given whole because scrubbing changed its chunks."""
        digests = [self._digests[i] for i in refs]
        return scrub_value(parse(b"".join(self._chunks[d] for d in digests).decode("utf-8")))

    def whole_text(self, refs: Sequence[int]) -> str | None:
        """The joined text as stored (before scrubbing), or None when it is not UTF-8."""
        try:
            return b"".join(self._chunks[self._digests[i]] for i in refs).decode("utf-8")
        except UnicodeDecodeError:
            return None

    def _plain(self, at: int) -> str | None:
        """The entry when it is the stored chunk as it is (text, unchanged by scrubbing)."""
        entry = self.entries[at]
        return entry if isinstance(entry, str) and at not in self._changed else None

    def char_count(self, refs: Sequence[int]) -> int | None:
        """How many characters the joined text has (None when it is not UTF-8), counted
        per chunk: no text is joined unless a chunk is cut inside a character."""
        plain = [self._plain(i) for i in refs]
        if any(p is None for p in plain):
            text = self.whole_text(refs)
            return None if text is None else len(text)
        return sum(len(p) for p in plain if p is not None)

    def head(self, refs: Sequence[int], end: str) -> str | None:
        """The joined text up to (not including) the first `end`, or None when it has
        none (or is not UTF-8 that far)."""
        parts: list[str] = []
        for i in refs:
            entry = self._plain(i)
            if entry is None:
                text = self.whole_text(refs)
                if text is None or end not in text:
                    return None
                return text.partition(end)[0]
            at = entry.find(end)
            if at >= 0:
                parts.append(entry[:at])
                return "".join(parts)
            parts.append(entry)
        return None

    def edges(self, refs: Sequence[int]) -> tuple[str, str]:
        """The first and the last character of the joined text ("" when empty)."""
        if not refs:
            return "", ""
        first, last = self._plain(refs[0]), self._plain(refs[-1])
        if first is None or last is None:
            text = self.whole_text(refs) or ""
            return text[:1], text[-1:]
        return first[:1], last[-1:]

    def exact(self, refs: Sequence[int]) -> bool:
        """Whether the chunks join to the stored text with every secret scrubbed: no
        chunk was changed by scrubbing, and no secret shows only across two of them."""
        if not secrets_known():
            return True
        if self._changed.intersection(refs):
            return False
        return not self._straddles(refs)

    def _straddles(self, refs: Sequence[int]) -> bool:
        if len(refs) < 2:
            return False
        for a, b in pairwise(refs):
            tail = self._edge(a)[1]
            head = self._edge(b)[0]
            window = tail + head
            if scrub(window) != window:
                return True
        return False

    def _edge(self, at: int) -> tuple[str, str]:
        entry = self.entries[at]
        text = entry if isinstance(entry, str) else chunk_text(entry).decode(
            "utf-8", errors="replace")
        return text[:_EDGE], text[-_EDGE:]


def _entry(data: bytes) -> tuple[ChunkEntry, bool]:
    """The entry for a chunk, scrubbed, and whether scrubbing changed it."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        loose = data.decode("utf-8", errors="surrogateescape")
        cleaned = scrub(loose)
        raw = cleaned.encode("utf-8", errors="surrogateescape")
        return {"base64": base64.b64encode(raw).decode("ascii")}, cleaned != loose
    cleaned = scrub(text)
    return cleaned, cleaned != text
