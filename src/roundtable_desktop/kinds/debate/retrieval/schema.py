"""The retrieval index's tables: one row per searchable text, and its FTS5 mirror.

`create_retrieval_tables` builds them in a session's in-memory index
(kinds/debate/retrieval/index.py).
They are not in the session store file on purpose: the index is rebuilt from the
session's state, which stays the one truth, so replay and restore cannot disagree with
it, and the store's schema (and its read-only commands on older files) is left as it
was. A row is a corpus chunk of a persona or a past debate message of an agent:
`scope` names what it belongs to (a session id, or "" in a per-session in-memory index),
`owner` the persona or agent, `round` the debate round of a message (0 for corpus),
`source` where it came from (an anchor's or a post's URL; empty for a message), and
`vector` its embedding as little-endian float32, normalized, or NULL when there is none.
The FTS5 table `retrieval_fts` keeps the text for BM25 with the same rowid.
Must not read or write rows: kinds/debate/retrieval/index.py does.
"""

from __future__ import annotations

import sqlite3

DOC_KINDS = ("corpus", "message")


def create_retrieval_tables(db: sqlite3.Connection) -> None:
    db.execute(
        """
        CREATE TABLE retrieval_docs (
            id INTEGER PRIMARY KEY,
            scope TEXT NOT NULL DEFAULT '',
            kind TEXT NOT NULL CHECK (kind IN ('corpus', 'message')),
            owner TEXT NOT NULL,
            round INTEGER NOT NULL DEFAULT 0,
            source TEXT NOT NULL DEFAULT '',
            text TEXT NOT NULL,
            vector BLOB
        )
        """
    )
    db.execute("CREATE INDEX idx_retrieval_docs_scope ON retrieval_docs (scope, kind, owner)")
    # Porter stemming: persona opinions vary their word forms ("regulate", "regulation").
    db.execute(
        "CREATE VIRTUAL TABLE retrieval_fts USING fts5(text, tokenize = 'porter unicode61')"
    )
