"""A retrieval index in SQLite: corpus chunks per persona and past debate messages per
session, BM25 over FTS5, vectors beside them, hybrid ranking by reciprocal rank fusion.

Why vectors are plain BLOBs: this Python's sqlite3 has FTS5 but no
`enable_load_extension`, so a vector extension such as sqlite-vec cannot be loaded (and
would have to be bundled into the PyInstaller build besides). Each row keeps its vector
as a normalized float32 BLOB and `search` ranks by cosine in Python (one numpy matrix
product when numpy is installed, kinds/debate/retrieval/rank.py). A persona has hundreds of
chunks: bench/retrieval.py measured a median hybrid query of about 2 ms over 300 chunks
and about 100 ms over 3,000 (256 dimensions, on a loaded 2-core machine), most of the
latter FTS5's BM25 over every row that shares a common word, not the cosine.

`search(query, kind=..., owner=..., exclude_owner=..., vector=...)` first fixes the
candidate pool (the scope's rows of that kind, of that owner or of everyone but
`exclude_owner`), then ranks the pool twice: by BM25 over the rows that match a query
word, and by cosine to `vector` over the rows that have one of the same length. Both
lists are cut to `pool` rows and fused with RRF (k = 60, 0.4 keyword / 0.6 semantic,
kinds/debate/retrieval/rank.py). With no query vector, or no row with a vector, the ranking is
keyword-only. Ties break on the row id, so the same index and query rank the same way.

The index works on a connection that has the tables of kinds/debate/retrieval/schema.py: a
private in-memory database (`RetrievalIndex.memory()`, what a debate session uses,
rebuilt from its state; see kinds/debate/retrieval/search.py).
Must not import llm or protocols: vectors come in as lists of floats.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from roundtable_desktop.kinds.debate.retrieval.rank import (
    pack_vector,
    rrf_fuse,
    similarities,
    unpack_vector,
)
from roundtable_desktop.kinds.debate.retrieval.schema import DOC_KINDS, create_retrieval_tables
from roundtable_desktop.kinds.debate.retrieval.text import fts_query

DEFAULT_POOL = 50


@dataclass(frozen=True, slots=True)
class Doc:
    """A text to index: a corpus chunk of persona `owner`, or a message agent `owner`
    said in `round`."""

    kind: str
    owner: str
    text: str
    round: int = 0
    source: str = ""


@dataclass(frozen=True, slots=True)
class Hit:
    """A ranked row: its fused score and its 1-based rank in each list (None: absent)."""

    id: int
    kind: str
    owner: str
    round: int
    source: str
    text: str
    score: float
    keyword_rank: int | None
    semantic_rank: int | None


class RetrievalIndex:
    """Rows of one `scope` on a connection with the retrieval tables."""

    def __init__(self, db: sqlite3.Connection, scope: str = "") -> None:
        self._db = db
        self.scope = scope

    @classmethod
    def memory(cls) -> RetrievalIndex:
        """A private index in memory (one event-loop thread uses it at a time)."""
        db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        create_retrieval_tables(db)
        return cls(db)

    def close(self) -> None:
        self._db.close()

    # -- writing --------------------------------------------------------------------
    def add(self, docs: Sequence[Doc]) -> list[int]:
        """Index `docs` (text and FTS at once, no vector yet); returns their row ids."""
        ids: list[int] = []
        self._db.execute("BEGIN")
        try:
            for doc in docs:
                if doc.kind not in DOC_KINDS:
                    raise ValueError(f"unknown document kind {doc.kind!r}")
                cur = self._db.execute(
                    "INSERT INTO retrieval_docs (scope, kind, owner, round, source, text)"
                    " VALUES (?, ?, ?, ?, ?, ?)",
                    (self.scope, doc.kind, doc.owner, doc.round, doc.source, doc.text))
                row = int(cur.lastrowid or 0)
                self._db.execute("INSERT INTO retrieval_fts (rowid, text) VALUES (?, ?)",
                                 (row, doc.text))
                ids.append(row)
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")
        return ids

    def set_vectors(self, ids: Sequence[int], vectors: Sequence[Sequence[float]]) -> None:
        """Store one vector per row id (normalized float32)."""
        if len(ids) != len(vectors):
            raise ValueError(f"{len(ids)} rows but {len(vectors)} vectors")
        self._db.executemany(
            "UPDATE retrieval_docs SET vector = ? WHERE id = ? AND scope = ?",
            [(pack_vector(v), i, self.scope) for i, v in zip(ids, vectors, strict=True)])

    # -- reading --------------------------------------------------------------------
    def without_vectors(self) -> list[tuple[int, str]]:
        """(id, text) of the scope's rows that have no vector yet, oldest first."""
        return [(int(r[0]), str(r[1])) for r in self._db.execute(
            "SELECT id, text FROM retrieval_docs WHERE scope = ? AND vector IS NULL"
            " ORDER BY id", (self.scope,))]

    def count(self, kind: str | None = None, *, with_vectors: bool = False) -> int:
        sql = "SELECT COUNT(*) FROM retrieval_docs WHERE scope = ?"
        args: list[object] = [self.scope]
        if kind is not None:
            sql += " AND kind = ?"
            args.append(kind)
        if with_vectors:
            sql += " AND vector IS NOT NULL"
        return int(self._db.execute(sql, args).fetchone()[0])

    def search(
        self, query: str, *, kind: str, owner: str | None = None,
        exclude_owner: str | None = None, vector: Sequence[float] | None = None,
        limit: int = 5, pool: int = DEFAULT_POOL,
    ) -> list[Hit]:
        """The best `limit` rows of the candidate pool for `query` (and `vector`)."""
        where, args = self._pool(kind, owner, exclude_owner)
        keyword = self._keyword(query, where, args, pool)
        semantic = self._semantic(vector, where, args, pool) if vector else []
        fused = rrf_fuse(keyword, semantic)[:limit]
        if not fused:
            return []
        kw_rank = {doc: i for i, doc in enumerate(keyword, start=1)}
        sem_rank = {doc: i for i, doc in enumerate(semantic, start=1)}
        rows = {int(r[0]): r for r in self._db.execute(
            "SELECT id, kind, owner, round, source, text FROM retrieval_docs WHERE id IN "
            f"({','.join('?' * len(fused))})", [doc for doc, _ in fused])}
        return [Hit(id=doc, kind=rows[doc][1], owner=rows[doc][2], round=int(rows[doc][3]),
                    source=rows[doc][4], text=rows[doc][5], score=score,
                    keyword_rank=kw_rank.get(doc), semantic_rank=sem_rank.get(doc))
                for doc, score in fused]

    def _pool(self, kind: str, owner: str | None, exclude_owner: str | None
              ) -> tuple[str, list[object]]:
        where = "d.scope = ? AND d.kind = ?"
        args: list[object] = [self.scope, kind]
        if owner is not None:
            where += " AND d.owner = ?"
            args.append(owner)
        if exclude_owner is not None:
            where += " AND d.owner != ?"
            args.append(exclude_owner)
        return where, args

    def _keyword(self, query: str, where: str, args: list[object], pool: int) -> list[int]:
        match = fts_query(query)
        if not match:
            return []
        rows = self._db.execute(
            "SELECT d.id FROM (SELECT rowid AS rid, bm25(retrieval_fts) AS s"
            " FROM retrieval_fts WHERE retrieval_fts MATCH ?) m"
            f" JOIN retrieval_docs d ON d.id = m.rid WHERE {where}"
            " ORDER BY m.s, d.id LIMIT ?", [match, *args, pool])
        return [int(r[0]) for r in rows]

    def _semantic(self, vector: Sequence[float], where: str, args: list[object],
                  pool: int) -> list[int]:
        wanted = unpack_vector(pack_vector(vector))  # normalized like the rows
        size = 4 * len(wanted)
        ids, blobs = [], []
        for doc, blob in self._db.execute(
                f"SELECT d.id, d.vector FROM retrieval_docs d WHERE {where}"
                " AND d.vector IS NOT NULL ORDER BY d.id", args):
            if len(blob) == size:  # a vector of another model is not comparable
                ids.append(int(doc))
                blobs.append(blob)
        scored = sorted(zip((-x for x in similarities(blobs, wanted)), ids, strict=True))
        return [doc for _, doc in scored[:pool]]
