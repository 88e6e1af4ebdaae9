"""Cuts a text (as UTF-8 bytes) into content-defined chunks, so versions share chunks.

The text is split at a natural boundary (a newline; an escaped newline inside JSON; the
`},{` between objects of a compact JSON list) into pieces, and a chunk ends after a
piece whose CRC hits a mask (once it is MIN_CHUNK long). Whether a piece ends a chunk
depends on that piece, not on its position, so an insertion early in a text changes
the chunk around it and leaves the later chunks as they were: consecutive requests and
states share their unchanged chunks.
Joining the chunks gives back the input byte for byte.

`rechunk` is the fast path for a new version of a text already stored: it finds the
runs of the previous version's chunks that the new one repeats (comparisons and
searches done in C, many chunks at a time) and cuts only the changed stretches between
them afresh. A state or a request that changed in a few places then costs a few
comparisons, not a pass over every piece.

Must not touch the database or hash for storage (store/blobs.py does); must stay fast:
it runs on every request and state a session writes, so the per-piece work is done by
C builtins (`bytes.split`, `map(zlib.crc32, ...)`), never a Python loop per piece.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from itertools import accumulate, compress
from operator import not_
from typing import NamedTuple

# Boundaries, with how often (1 in mask+1 pieces) a piece ends a chunk. Lines are short
# (~75 bytes in a context window): cut about every 16 lines. JSON objects are longer (a
# candidate is ~450 bytes): cut about every other one. Measured on roundtable turns
# (bench/turn_overhead.py): smaller chunks share more but make every manifest longer and
# every turn write more rows (every 8 lines: 2.8 % more instructions a turn, 7 % less
# growth).
LINE = b"\n"
JSON_LINE = b"\\n"
JSON_OBJECT = b"},{"
SEPARATORS: dict[bytes, int] = {LINE: 15, JSON_LINE: 7, JSON_OBJECT: 1}

# A piece shorter than this never ends a chunk: a run of tiny pieces (blank lines, a
# closing tag repeated per item) whose CRC hits the mask would otherwise make chunks so
# small that the manifest outweighs what they share.
MIN_CHUNK = 128
# No chunk is longer: a text with few boundaries is cut at fixed lengths instead.
MAX_CHUNK = 32 * 1024
# After a changed stretch, how many of the previous chunks to look for before giving up
# and cutting the rest of the text afresh (its chunks may still be stored already).
LOOKAHEAD = 16
# Where to look for them: this far past the change, plus twice what was skipped.
SEARCH_WINDOW = 64 * 1024


def separator_for(data: bytes) -> bytes:
    """The boundary this text has most of: newlines, escaped newlines or `},{`."""
    return max(SEPARATORS, key=data.count)


def split_chunks(data: bytes, separator: bytes | None = None) -> list[bytes]:
    """Content-defined chunks of `data`; `b"".join(result) == data`. Empty gives []."""
    if not data:
        return []
    sep = separator if separator is not None else separator_for(data)
    parts = data.split(sep)
    if len(parts) == 1:
        return _capped([data])
    mask = SEPARATORS.get(sep, 7)
    step = len(sep)
    # Offsets just after each piece's separator; a chunk may end at any of the hits.
    ends = accumulate(map(step.__add__, map(len, parts)))
    hits = compress(ends, map(not_, map(mask.__and__, map(zlib.crc32, parts))))
    chunks: list[bytes] = []
    start = 0
    for end in hits:
        if end - start >= MIN_CHUNK and end < len(data):
            chunks.append(data[start:end])
            start = end
    chunks.append(data[start:])
    return _capped(chunks)


def _capped(chunks: list[bytes]) -> list[bytes]:
    if all(len(c) <= MAX_CHUNK for c in chunks):
        return chunks
    out: list[bytes] = []
    for chunk in chunks:
        out.extend(chunk[i : i + MAX_CHUNK] for i in range(0, len(chunk), MAX_CHUNK))
    return out


class Run(NamedTuple):
    """A stretch of a new version: previous chunks `first` to `stop - 1` again, or (when
    `fresh` is not empty) chunks cut afresh."""

    first: int = 0
    stop: int = 0
    fresh: tuple[bytes, ...] = ()


def rechunk(
    data: bytes, previous: bytes, bounds: Sequence[int], separator: bytes | None = None
) -> list[Run]:
    """`data` as runs of a previous version's chunks and chunks cut afresh between them.

    `bounds` are the previous chunks' offsets in `previous`, from 0 to its length (one
    more than there are chunks). Joining the runs' chunks gives `data` back.
    """
    sep = separator if separator is not None else separator_for(data)
    old = memoryview(previous)
    runs: list[Run] = []
    pos, i, last = 0, 0, len(bounds) - 2
    while i <= last:
        n = _repeated(data, pos, old, bounds, i, last)
        if n:
            runs.append(Run(i, i + n))
            pos += bounds[i + n] - bounds[i]
            i += n
            continue
        found = _resync(data, old, bounds, pos, i, last)
        if found is None:
            break
        i, at = found
        if at > pos:
            runs.append(Run(fresh=tuple(split_chunks(data[pos:at], sep))))
        pos = at
    if pos < len(data):
        runs.append(Run(fresh=tuple(split_chunks(data[pos:], sep))))
    return runs


def _repeated(
    data: bytes, pos: int, old: memoryview, bounds: Sequence[int], first: int, last: int
) -> int:
    """How many previous chunks from `first` on `data` repeats at `pos`.

    Runs are long (most of a text is unchanged), so this gallops: it compares 1, 2, 4 ...
    chunks at once and halves the step on a mismatch, a few comparisons in C per run.
    The previous last chunk ended where the text ended, not at a boundary: it counts only
    if it still ends the text, so appended text is cut at its own boundaries.
    """
    shift = pos - bounds[first]
    n, step, free = 0, 1, last - first
    while n < free:
        k = min(step, free - n)
        a, b = bounds[first + n], bounds[first + n + k]
        if data.startswith(old[a:b], a + shift):
            n += k
            step *= 2
        elif k == 1:
            return n
        else:
            step = k // 2
    a = bounds[last]
    if len(data) - (a + shift) == len(old) - a and data.startswith(old[a:], a + shift):
        n += 1
    return n


def _resync(
    data: bytes, old: memoryview, bounds: Sequence[int], pos: int, first: int, last: int
) -> tuple[int, int] | None:
    """The next previous chunk (index, offset) found at or after `pos`, if any is near.

    A changed chunk is the common case, so the search starts with the chunk after it;
    the chunk itself is then looked for only in the stretch before that one (text was
    inserted before it). Searches are bounded: a miss costs a window, not the text.
    """
    window = SEARCH_WINDOW
    for j in range(first + 1, min(first + LOOKAHEAD, last)):  # the last one never resyncs
        window += 2 * (bounds[j] - bounds[j - 1])
        at = data.find(old[bounds[j] : bounds[j + 1]], pos, pos + window)
        if at >= 0:
            inserted = data.find(old[bounds[first] : bounds[first + 1]], pos, at)
            return (first, inserted) if inserted >= 0 else (j, at)
    return None
