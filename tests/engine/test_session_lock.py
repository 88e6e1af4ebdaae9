"""One process at a time writes a session (issue 9, case 6): a process that starts or
continues a session holds its lock; a second one is refused with a message naming the
first; a lock whose process died is taken over."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from roundtable_desktop.cli.main import main
from roundtable_desktop.store.database import SessionStore
from roundtable_desktop.store.errors import SessionLocked
from tests.engine_fixtures import offline, start_recorded

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def recorded(tmp_path) -> tuple[Path, str]:
    db = tmp_path / "data" / "locked.sqlite3"
    assert main(["run", "--offline", "--turns", "1", "--delay", "0", "--db", str(db),
                 "--quiet"]) == 0
    with SessionStore.open(db) as store:
        return db, store.latest_session_id()


def _continue(db: Path, session_id: str) -> subprocess.CompletedProcess[str]:
    """`roundtable run --continue` in a process of its own."""
    return subprocess.run(
        [sys.executable, "-m", "roundtable_desktop", "run", "--continue", session_id[:8],
         "--offline", "--turns", "1", "--delay", "0", "--db", str(db), "--quiet"],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )


def _rows(db: Path, session_id: str) -> tuple[list[tuple[str, str]], int]:
    with sqlite3.connect(str(db)) as con:
        calls = con.execute("SELECT id, status FROM calls WHERE session_id = ? ORDER BY seq",
                            (session_id,)).fetchall()
        (checkpoints,) = con.execute("SELECT COUNT(*) FROM checkpoints WHERE session_id = ?",
                                     (session_id,)).fetchone()
    return calls, checkpoints


@pytest.mark.slow
def test_a_second_process_continuing_a_locked_session_is_refused_naming_the_first(recorded):
    db, session_id = recorded
    with SessionStore.open(db) as holder:
        holder.lock_session(session_id)
        result = _continue(db, session_id)
    assert result.returncode == 2
    (line,) = result.stderr.strip().splitlines()
    assert session_id[:8] in line
    assert f"pid {os.getpid()}" in line and socket.gethostname() in line and "since" in line


@pytest.mark.slow
def test_a_refused_process_writes_nothing_and_leaves_the_holders_call_pending(recorded):
    db, session_id = recorded
    with SessionStore.open(db) as holder:
        holder.lock_session(session_id)
        holder.begin_call(session_id, "in-flight", "alice", "m", "offline", {"messages": []})
        before = _rows(db, session_id)
        assert _continue(db, session_id).returncode == 2
        after = _rows(db, session_id)
    assert after == before and after[0][-1] == ("in-flight", "pending")


_HOLDER = """
import sys
from pathlib import Path
from roundtable_desktop.store.database import SessionStore
store = SessionStore.open(Path(sys.argv[1]))
store.lock_session(sys.argv[2])
print("locked", flush=True)
sys.stdin.read()
"""


@pytest.mark.slow
def test_a_lock_left_by_a_killed_process_is_taken_over(recorded):
    db, session_id = recorded
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER, str(db), session_id], cwd=ROOT,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        refused = _continue(db, session_id)
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=10)
    assert refused.returncode == 2 and f"pid {holder.pid}" in refused.stderr
    result = _continue(db, session_id)
    assert result.returncode == 0, result.stderr


@pytest.mark.slow
def test_a_run_continuing_a_session_holds_it_until_it_ends(fake_openai, recorded):
    db, session_id = recorded
    fake_openai.reset()
    slow = "CALL: addWhiteboard(\"" + "slowly " * 200 + "\")\nCALL: passTurn()"
    fake_openai.script([{"kind": "ok", "text": slow, "chunk_size": 4, "delay_s": 0.05}])
    env = {**os.environ, "ROUNDTABLE_API_KEY": "sk-test"}
    first = subprocess.Popen(
        [sys.executable, "-m", "roundtable_desktop", "run", "--continue", session_id,
         "--base-url", fake_openai.base_url, "--model", "m", "--turns", "1",
         "--db", str(db), "--quiet"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 20
        while not any(status == "pending" for _, status in _rows(db, session_id)[0]):
            assert time.monotonic() < deadline and first.poll() is None
            time.sleep(0.05)
        second = _continue(db, session_id)
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)
    assert second.returncode == 2 and f"pid {first.pid}" in second.stderr


def test_the_lock_is_released_when_a_run_ends(recorded):
    db, session_id = recorded
    assert main(["run", "--continue", session_id, "--offline", "--turns", "1", "--delay", "0",
                 "--db", str(db), "--quiet"]) == 0
    with SessionStore.open(db) as other:
        other.lock_session(session_id)


def test_another_store_in_the_same_process_is_refused(recorded):
    db, session_id = recorded
    with SessionStore.open(db) as first, SessionStore.open(db) as second:
        first.lock_session(session_id)
        with pytest.raises(SessionLocked, match=f"pid {os.getpid()}"):
            second.lock_session(session_id)


def test_a_store_may_take_a_lock_it_holds_again_and_keeps_it_until_each_is_released(recorded):
    db, session_id = recorded
    with SessionStore.open(db) as first, SessionStore.open(db) as second:
        first.lock_session(session_id)
        first.lock_session(session_id)
        first.unlock_session(session_id)
        with pytest.raises(SessionLocked):
            second.lock_session(session_id)
        first.unlock_session(session_id)
        second.lock_session(session_id)


def test_closing_the_store_releases_its_locks(recorded):
    db, session_id = recorded
    first = SessionStore.open(db)
    first.lock_session(session_id)
    first.close()
    with SessionStore.open(db) as second:
        second.lock_session(session_id)


def test_a_started_session_is_locked_until_its_handle_is_closed(tmp_path, catalog):
    db = tmp_path / "s.sqlite3"
    with SessionStore.open(db) as store, SessionStore.open(db) as other:
        handle = asyncio.run(start_recorded(store, offline(), catalog))
        with pytest.raises(SessionLocked):
            other.lock_session(handle.session_id)
        handle.close()
        other.lock_session(handle.session_id)


def test_a_released_lock_leaves_no_file_behind(recorded):
    db, session_id = recorded
    with SessionStore.open(db) as store:
        store.lock_session(session_id)
        store.unlock_session(session_id)
    assert sorted(p.name for p in db.parent.iterdir()) == [db.name]
