"""Invariant 5: killing the process loses at most the call in flight; a reopened session
continues where it was."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from roundtable_desktop.cli.main import main
from roundtable_desktop.store.database import SessionStore

ROOT = Path(__file__).resolve().parents[2]


def _wait_for(predicate, timeout_s: float = 20.0) -> None:
    """Poll a condition in another process's database (no Qt loop here to wait on)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError("condition not met in time")


def _partial_row(db: Path):
    if not db.exists():
        return None
    try:
        con = sqlite3.connect(db, timeout=1)
        row = con.execute(
            "SELECT status, response_text FROM calls WHERE status = 'pending' "
            "AND length(response_text) > 0"
        ).fetchone()
        con.close()
        return row
    except sqlite3.Error:
        return None


@pytest.mark.slow
def test_killed_run_keeps_its_state_and_partial_call_and_continues(
    fake_openai, tmp_path, isolated_home
):
    fake_openai.reset()
    slow_reply = "CALL: addWhiteboard(\"" + "slowly " * 60 + "\")\nCALL: passTurn()"
    fake_openai.script([
        {"kind": "ok", "text": "CALL: addWhiteboard(\"first turn done\")\nCALL: passTurn()"},
        {"kind": "ok", "text": slow_reply, "chunk_size": 4, "delay_s": 0.05},
    ])
    db = tmp_path / "crash.sqlite3"
    env = {**os.environ, "ROUNDTABLE_API_KEY": "sk-test"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "roundtable_desktop", "run", "--base-url", fake_openai.base_url,
         "--model", "m", "--turns", "3", "--db", str(db)],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        _wait_for(lambda: _partial_row(db) is not None)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)

    with SessionStore.open(db) as store:
        sid = store.latest_session_id()
        before = store.get_session(sid).state["meeting"]
        assert before["turn"] == 2  # the first turn was saved
        assert before["whiteboard"][0]["text"] == "first turn done"
    code = main(["run", "--continue", sid, "--offline", "--turns", "1", "--delay", "0",
                 "--db", str(db), "--quiet"])
    assert code == 0
    with SessionStore.open(db) as store:
        calls = store.calls(sid)
        assert [c.status for c in calls][:2] == ["ok", "interrupted"]
        assert calls[1].response_text.startswith('CALL: addWhiteboard("slowly')
        after = store.get_session(sid).state["meeting"]
        assert after["turn"] == 3 and after["whiteboard"][0]["text"] == "first turn done"
