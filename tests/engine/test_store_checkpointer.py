"""The store's write-ahead log is folded into its file on a thread, never inside a commit."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from roundtable_desktop.store.checkpointer import WalCheckpointer
from roundtable_desktop.store.connection import BACKSTOP_PAGES
from roundtable_desktop.store.database import SessionStore

STATE = {"notes": ["x" * 4000]}  # about one page a save


def wal_pages(db: Path) -> int:
    wal = db.with_name(db.name + "-wal")
    return wal.stat().st_size // 4096 if wal.exists() else 0


def checkpointer_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "store-checkpointer"]


def test_the_writing_connection_checkpoints_only_as_a_backstop(tmp_path: Path):
    with SessionStore.open(tmp_path / "s.sqlite3") as store:
        pages = store._db.execute("PRAGMA wal_autocheckpoint").fetchone()[0]
    assert pages == BACKSTOP_PAGES > 1000


def test_the_log_starts_over_after_each_pause(tmp_path: Path):
    db = tmp_path / "s.sqlite3"
    with SessionStore.open(db) as store:
        session_id = store.create_session("roundtable", "default", "T", STATE)
        for turn in range(50):  # fifty turns of 30 commits, each followed by a pause
            for commit in range(30):
                store.save_state(session_id, {**STATE, "turn": turn, "commit": commit})
            assert store._checkpointer.wait_idle(10)
        assert store._checkpointer.checkpoints >= 50
        # Never started over, the log would hold all 1500 commits (about 3000 pages).
        assert wal_pages(db) < 300
        assert store.get_session(session_id).state == {**STATE, "turn": 49, "commit": 29}


def test_what_is_in_the_log_is_readable_by_another_connection_meanwhile(tmp_path: Path):
    db = tmp_path / "s.sqlite3"
    with SessionStore.open(db) as store:
        session_id = store.create_session("roundtable", "default", "T", STATE)
        for turn in range(40):
            store.save_state(session_id, {**STATE, "turn": turn})
        with SessionStore.open(db, readonly=True) as reader:
            assert reader.get_session(session_id).state == {**STATE, "turn": 39}


def test_a_read_only_store_starts_no_checkpointer(tmp_path: Path):
    db = tmp_path / "s.sqlite3"
    SessionStore.open(db).close()
    before = len(checkpointer_threads())
    with SessionStore.open(db, readonly=True) as reader:
        assert reader._checkpointer is None
        assert len(checkpointer_threads()) == before


def test_closing_the_store_stops_its_checkpointer_and_folds_the_log_in(tmp_path: Path):
    db = tmp_path / "s.sqlite3"
    store = SessionStore.open(db)
    session_id = store.create_session("roundtable", "default", "T", STATE)
    store.save_state(session_id, {**STATE, "turn": 2})
    checkpointer = store._checkpointer
    store.close()
    assert not checkpointer.alive
    assert wal_pages(db) == 0
    with sqlite3.connect(db) as other:
        assert other.execute("SELECT COUNT(*) FROM sessions").fetchone()[0] == 1


def test_a_checkpoint_that_cannot_run_is_tried_again_after_later_commits(tmp_path: Path):
    db = tmp_path / "s.sqlite3"
    with SessionStore.open(db) as store:
        session_id = store.create_session("roundtable", "default", "T", STATE)
        checkpointer = store._checkpointer
        # Another process holds the checkpoint lock: the checkpoint is refused, not waited on.
        blocker = sqlite3.connect(db, isolation_level=None, timeout=0)
        blocker.execute("PRAGMA wal_checkpoint(PASSIVE)")
        for turn in range(40):
            store.save_state(session_id, {**STATE, "turn": turn})
        assert checkpointer.wait_idle(10)
        blocker.close()
        for turn in range(40):
            store.save_state(session_id, {**STATE, "turn": turn})
        assert checkpointer.wait_idle(10)
        assert checkpointer.alive and checkpointer.checkpoints > 0


def test_the_checkpointer_stops_cleanly_when_its_file_cannot_be_opened(tmp_path: Path):
    checkpointer = WalCheckpointer(tmp_path / "missing" / "s.sqlite3", quiet_s=0.01)
    checkpointer.committed()
    assert checkpointer.wait_idle(5)
    checkpointer.close()
    assert not checkpointer.alive
