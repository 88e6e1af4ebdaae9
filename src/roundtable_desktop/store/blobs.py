"""Content-addressed text in the session store: chunks keyed by hash, texts as manifests.

A text (a request body, a session state, a call's prompt layers) is stored as its
chunks (store/chunking.py) in the `blobs` table, keyed by a 16-byte SHA-256 prefix and
written with INSERT OR IGNORE, and the row that owns the text keeps its manifest: the
chunks' hashes, concatenated. Consecutive versions of a text share their unchanged
chunks, so a turn writes what changed, not the whole state again. Reading joins the
chunks back and gives the text byte for byte.

Chunks belong to one session (the hash is salted with its id, the row names it): texts
are shared within a session, where versions repeat each other, and deleting a session
deletes its chunks with it (a foreign-key cascade) without scanning the others.

`BlobWriter` remembers the last version written under a few keys (a session's state,
an actor's last request) so the next version is cut against it cheaply; a text may come
in pieces, and a large piece handed over again as the same object (the cached candidate
list) is taken as it is, not compared. What it remembers is referenced by a row that was
committed; a transaction that rolls back must call `forget()`, so a chunk that was
never committed is never reused.
Must not open connections or commit: every method runs inside the caller's
transaction. Must not know about calls, checkpoints or events.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections import OrderedDict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from itertools import accumulate, islice

from roundtable_desktop.store.chunking import rechunk, split_chunks
from roundtable_desktop.store.errors import StoreError

DIGEST_SIZE = 16
# SQLite allows up to 32766 parameters since 3.32; stay well under it.
_READ_BATCH = 500
# Versions remembered (a session's state and each actor's last request): a few MB at most.
_REMEMBERED = 32
# A piece this long is a part of its own (see BlobWriter.put); shorter ones are joined.
LARGE_PIECE = 4096
_INSERT = "INSERT OR IGNORE INTO blobs (hash, session_id, data) VALUES (?, ?, ?)"


class Hasher:
    """Hashes the chunks of one session: SHA-256 of the session id and the chunk."""

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self._salted = hashlib.sha256(session_id.encode() + b"\0")

    def __call__(self, chunk: bytes) -> bytes:
        h = self._salted.copy()
        h.update(chunk)
        return h.digest()[:DIGEST_SIZE]


def digests_of(manifest: bytes) -> list[bytes]:
    """The chunk hashes a manifest lists, in order."""
    if len(manifest) % DIGEST_SIZE:
        raise StoreError(
            "The session store is damaged: a stored text's list of parts is cut short. "
            "Move the file aside to start fresh."
        )
    return [manifest[i : i + DIGEST_SIZE] for i in range(0, len(manifest), DIGEST_SIZE)]


def put_chunks(
    db: sqlite3.Connection, session_id: str, data: bytes, separator: bytes | None = None
) -> bytes:
    """Store `data` as a session's chunks, with no earlier version to share with; returns
    its manifest."""
    digest = Hasher(session_id)
    rows = [(digest(c), session_id, c) for c in split_chunks(data, separator)]
    db.executemany(_INSERT, rows)
    return b"".join(d for d, _, _ in rows)


def read_texts_or_none(db: sqlite3.Connection, manifests: Sequence[object]) -> list[str | None]:
    """The texts the manifests describe, in order (each chunk is fetched once); a damaged
    text (its manifest cut short or not bytes, a part missing, not UTF-8) is None rather
    than an error, so one damaged row spoils only itself."""
    lists = [_digests_or_none(m) for m in manifests]
    chunks = _fetch(db, {d for found in lists if found for d in found})
    texts: list[str | None] = []
    for found in lists:
        try:
            texts.append(None if found is None
                         else b"".join([chunks[d] for d in found]).decode("utf-8"))
        except (KeyError, UnicodeDecodeError):
            texts.append(None)
    return texts


def _digests_or_none(manifest: object) -> list[bytes] | None:
    if not isinstance(manifest, bytes) or len(manifest) % DIGEST_SIZE:
        return None
    return digests_of(manifest)


def read_text(db: sqlite3.Connection, manifest: bytes) -> str:
    """The text the manifest describes, or StoreError when it is damaged."""
    (text,) = read_texts_or_none(db, [manifest])
    if text is None:
        raise StoreError(
            "The session store is damaged: part of a stored text is missing or unreadable. "
            "Move the file aside to start fresh."
        )
    return text


def _fetch(db: sqlite3.Connection, wanted: set[bytes]) -> dict[bytes, bytes]:
    found: dict[bytes, bytes] = {}
    pending = list(wanted)
    for start in range(0, len(pending), _READ_BATCH):
        batch = pending[start : start + _READ_BATCH]
        marks = ",".join("?" * len(batch))
        rows = db.execute(f"SELECT hash, data FROM blobs WHERE hash IN ({marks})", batch)
        found.update((bytes(h), bytes(d)) for h, d in rows)
    return found


@dataclass(frozen=True)
class _Part:
    """A stretch of a text as written: its bytes, its chunks' offsets (0 to its length)
    and its manifest (the chunks' hashes, DIGEST_SIZE bytes each, in order)."""

    data: bytes
    bounds: list[int]
    manifest: bytes


_NO_PART = _Part(b"", [0], b"")


@dataclass(frozen=True)
class _Version:
    """A text as written: its parts, in order (their manifests joined are its manifest)."""

    session_id: str
    parts: tuple[_Part, ...]
    manifest: bytes


def _grouped(pieces: Sequence[bytes]) -> list[bytes]:
    """The pieces with every run of small ones joined: a large piece stays a part of its
    own, which the next version may hand over again as the very same object."""
    parts: list[bytes] = []
    small: list[bytes] = []
    for piece in pieces:
        if len(piece) >= LARGE_PIECE:
            if small:
                parts.append(b"".join(small))
                small = []
            parts.append(piece)
        elif piece:
            small.append(piece)
    if small:
        parts.append(b"".join(small))
    return parts


class BlobWriter:
    """Writes texts as chunks, cutting each against the last version under its keys."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db
        self._versions: OrderedDict[Hashable, _Version] = OrderedDict()

    def put(
        self,
        session_id: str,
        data: bytes | Sequence[bytes],
        keys: Sequence[Hashable] = (),
        separator: bytes | None = None,
    ) -> bytes:
        """Store `data` (bytes, or pieces whose join is the text) as chunks of a session,
        inside the caller's transaction, and return its manifest.

        The first key with a remembered version of this session is the one `data` is cut
        against, part by part: a large piece (LARGE_PIECE or more) is a part, each run of
        smaller ones another, and no chunk spans two parts. A part that is the previous
        version's part again (the same object, or equal bytes) is not looked at twice:
        a producer that hands over its unchanged pieces as the same objects (a cached
        candidate list) costs nothing for them. The new version is remembered under every
        key.
        """
        previous = next(
            (v for v in (self._versions.get(k) for k in keys)
             if v is not None and v.session_id == session_id),
            None,
        )
        old_parts = previous.parts if previous is not None else ()
        hasher = Hasher(session_id)
        fresh: list[tuple[bytes, str, bytes]] = []
        parts: list[_Part] = []
        for i, part in enumerate(_grouped([data] if isinstance(data, bytes) else data)):
            old = old_parts[i] if i < len(old_parts) else None
            if old is not None and (old.data is part or old.data == part):
                parts.append(old)
            else:
                parts.append(_cut(hasher, part, old, separator, fresh))
        if fresh:
            self._db.executemany(_INSERT, fresh)
        version = _Version(session_id, tuple(parts), b"".join(p.manifest for p in parts))
        for key in keys:
            self._versions[key] = version
            self._versions.move_to_end(key)
        while len(self._versions) > _REMEMBERED:
            self._versions.popitem(last=False)
        return version.manifest

    def forget(self) -> None:
        """Drop every remembered version (after a rollback, or a deletion)."""
        self._versions.clear()


def _cut(
    hasher: Hasher, data: bytes, previous: _Part | None, separator: bytes | None,
    fresh: list[tuple[bytes, str, bytes]],
) -> _Part:
    """`data` as chunks, cut against `previous` (a part of the last version), the chunks
    not in it added to `fresh` as rows to insert (with none, it is all cut afresh)."""
    old = previous if previous is not None else _NO_PART
    runs = rechunk(data, old.data, old.bounds, separator)
    session_id = hasher.session_id
    manifest: list[bytes] = []
    bounds = [0]
    # A run of previous chunks adds a slice of the previous manifest and its bounds moved
    # by one offset: a few operations per run, not per chunk.
    for first, stop, chunks in runs:
        if chunks:
            new = [(hasher(c), session_id, c) for c in chunks]
            fresh.extend(new)
            manifest.extend(d for d, _, _ in new)
            bounds.extend(islice(accumulate(map(len, chunks), initial=bounds[-1]), 1, None))
        else:
            shift = bounds[-1] - old.bounds[first]
            manifest.append(old.manifest[first * DIGEST_SIZE : stop * DIGEST_SIZE])
            bounds.extend(map(shift.__add__, old.bounds[first + 1 : stop + 1]))
    return _Part(data, bounds, b"".join(manifest))
