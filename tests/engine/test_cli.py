"""The command line: a headless meeting, export, and one-line errors."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from roundtable_desktop.cli.main import main
from roundtable_desktop.store.database import SessionStore


@pytest.fixture
def db(tmp_path) -> Path:
    return tmp_path / "cli.sqlite3"


def test_offline_run_of_12_turns_ends_with_the_administrators_final_suggestions(db, capsys):
    code = main(["run", "--offline", "--turns", "12", "--delay", "0", "--db", str(db)])
    out = capsys.readouterr().out
    assert code == 0
    assert "Suggestions (final):" in out
    assert "finalizeMeeting(" in out
    with SessionStore.open(db) as store:
        record = store.get_session(store.latest_session_id())
        assert record.status == "ended"
        assert len(record.state["meeting"]["final_ids"]) >= 3


def test_export_writes_each_format_of_the_latest_session(db, tmp_path, capsys):
    main(["run", "--offline", "--turns", "4", "--delay", "0", "--db", str(db), "--quiet"])
    for fmt in ("html", "md", "json"):
        out = tmp_path / f"meeting.{fmt}"
        assert main(["export", "--db", str(db), "--format", fmt, "--out", str(out)]) == 0
        assert out.stat().st_size > 1000
    data = json.loads((tmp_path / "meeting.json").read_text())
    assert data["session"]["kind"] == "roundtable"


def test_continue_resumes_where_the_session_stopped(db, capsys):
    main(["run", "--offline", "--turns", "2", "--delay", "0", "--db", str(db), "--quiet"])
    with SessionStore.open(db) as store:
        sid = store.latest_session_id()
        turn = store.get_session(sid).state["meeting"]["turn"]
    assert main(["run", "--continue", sid[:8], "--turns", "1", "--delay", "0", "--db", str(db),
                 "--quiet"]) == 0
    with SessionStore.open(db) as store:
        assert store.get_session(sid).state["meeting"]["turn"] == turn + 1
        assert len(store.list_sessions()) == 1


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["export", "--format", "md"], "There is no session store at"),
        (["run", "--kind", "debate", "--deck", "nope", "--turns", "1"], "no deck 'nope'"),
        (["run", "--base-url", "https://api.example.invalid/v1", "--turns", "1"], "No API key"),
        (["run", "--base-url", "ftp://x", "--turns", "1"], "must start with http"),
        (["run", "--continue", "zzzz", "--turns", "1"], "zzzz"),
    ],
    ids=["export-empty", "unknown-deck", "missing-key", "bad-url", "unknown-session"],
)
def test_errors_are_one_clear_line_and_a_nonzero_exit(argv, says, db, capsys):
    code = main([*argv, "--db", str(db)])
    err = capsys.readouterr().err.strip()
    assert code != 0
    assert says.lower() in err.lower()
    assert len(err.splitlines()) == 1 and "Traceback" not in err


def test_a_corrupt_store_is_one_line_not_a_traceback(db, capsys):
    db.write_bytes(b"this is not sqlite" * 100)
    code = main(["run", "--offline", "--turns", "1", "--db", str(db)])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err and str(db) in err


def test_the_key_cannot_be_given_as_an_argument(capsys):
    with pytest.raises(SystemExit):
        main(["run", "--api-key", "sk-nope"])


def test_python_dash_m_runs_the_cli(db):
    result = subprocess.run(
        [sys.executable, "-m", "roundtable_desktop", "run", "--offline", "--turns", "1",
         "--delay", "0", "--db", str(db), "--quiet"],
        capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "Session " in result.stdout


# -- roundtable sessions ---------------------------------------------------------------------
STARTED = datetime(2026, 11, 23, 14, 5, tzinfo=UTC).timestamp()
REQUEST = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}


@pytest.fixture
def local_zone():
    """Set the process's local time zone (a POSIX TZ string) for one test."""
    before = os.environ.get("TZ")

    def use(zone: str) -> None:
        os.environ["TZ"] = zone
        time.tzset()

    yield use
    if before is None:
        os.environ.pop("TZ", None)
    else:
        os.environ["TZ"] = before
    time.tzset()


def _stored_sessions(db: Path) -> list[str]:
    """Two sessions started at STARTED: one with a call that has ended, one without."""
    with SessionStore.open(db, clock=lambda: STARTED) as store:
        first = store.create_session("roundtable", "default", "Friday demo", {})
        store.begin_call(first, "c1", "alice", "m", "offline", REQUEST)
        store.save_state(first, {}, status="ended")
        second = store.create_session("debate", "default", "Is tea\nbetter?", {})
        store.add_checkpoint(second, "deal", {})  # something was done: it is listed
    return [first, second]


def test_sessions_prints_a_table_with_headers_and_aligned_columns(db, capsys, local_zone):
    local_zone("UTC")
    first, second = _stored_sessions(db)

    assert main(["sessions", "--db", str(db)]) == 0

    assert capsys.readouterr().out.splitlines() == [
        "id        kind        title           started           calls  state",
        f"{second[:8]}  debate      Is tea better?  2026-11-23 14:05      0  active",
        f"{first[:8]}  roundtable  Friday demo     2026-11-23 14:05      1  ended",
    ]


def test_sessions_shows_when_each_started_in_local_time(db, capsys, local_zone):
    local_zone("CET-1")  # POSIX: one hour east of UTC
    _stored_sessions(db)

    main(["sessions", "--db", str(db)])

    rows = capsys.readouterr().out.splitlines()[1:]
    assert all("2026-11-23 15:05" in row for row in rows)


def test_sessions_cuts_a_long_title_so_the_columns_stay_aligned(db, capsys):
    with SessionStore.open(db) as store:
        for title in ("A" * 30 + " " + "B" * 30, "short"):
            used = store.create_session("roundtable", "default", title, {})
            store.add_checkpoint(used, "infer", {})

    main(["sessions", "--db", str(db)])

    header, *rows = capsys.readouterr().out.splitlines()
    assert rows[1].split("  ")[2] == "A" * 30 + " " + "B" * 8 + "…"
    started = header.index("started")
    assert all(row[started - 2:started] == "  " and row[started].isdigit() for row in rows)


def test_sessions_says_so_when_there_are_none(db, capsys):
    SessionStore.open(db).close()
    assert main(["sessions", "--db", str(db)]) == 0
    assert capsys.readouterr().out == "No stored sessions.\n"


# -- issue 9: SIGTERM, the deadline, and failures that trying again cannot fix ---------------
ROOT = Path(__file__).resolve().parents[2]


def _streamed_text_stored(db: Path, containing: str = "") -> bool:
    """A call row of another process's store holds streamed text (it is mid-reply), with
    `containing` in it."""
    if not db.exists():
        return False
    try:
        con = sqlite3.connect(db, timeout=1)
        try:
            row = con.execute("SELECT 1 FROM calls WHERE status = 'pending' "
                              "AND length(response_text) > 0 AND instr(response_text, ?) > 0",
                              (containing,)).fetchone()
        finally:
            con.close()
    except sqlite3.Error:
        return False
    return row is not None


@pytest.mark.slow
def test_sigterm_cancels_the_call_keeps_its_text_saves_and_exits_143(fake_openai, db):
    fake_openai.reset()
    slow = "CALL: addWhiteboard(\"" + "slowly " * 200 + "\")\nCALL: passTurn()"
    fake_openai.script([{"kind": "ok", "text": slow, "chunk_size": 4, "delay_s": 0.05}])
    env = {**os.environ, "ROUNDTABLE_API_KEY": "sk-test"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "roundtable_desktop", "run", "--base-url", fake_openai.base_url,
         "--model", "m", "--turns", "2", "--db", str(db), "--quiet"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        deadline = time.monotonic() + 20
        # Stored text is flushed on a timer, so it may end mid-word: wait for a word.
        while not _streamed_text_stored(db, containing="slowly"):
            assert time.monotonic() < deadline, "no streamed text was stored"
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 143
    assert err.strip().splitlines() == [err.strip()] and "SIGTERM" in err
    assert "Traceback" not in err
    with SessionStore.open(db) as store:
        sid = store.latest_session_id()
        [call] = store.calls(sid)
        assert call.status == "cancelled" and "slowly" in call.response_text
        assert [c.action for c in store.checkpoints(sid)][-1] == "infer"
        assert store.get_session(sid).state["meeting"]["inferences_this_turn"] == 1


def test_a_rejected_key_is_sent_once_and_the_run_stops_with_exit_1(fake_openai, db, capsys,
                                                                    monkeypatch):
    fake_openai.reset()
    fake_openai.script([{"kind": "status", "status": 401, "repeat": 5,
                         "body": {"error": {"message": "Invalid API key."}}}])
    monkeypatch.setenv("ROUNDTABLE_API_KEY", "sk-test")
    code = main(["run", "--base-url", fake_openai.base_url, "--model", "m", "--turns", "3",
                 "--db", str(db), "--quiet"])
    assert code == 1
    assert fake_openai.stats()["count"] == 1
    assert "trying the call again cannot help" in capsys.readouterr().out


def test_a_trickling_server_holds_the_run_for_one_deadline_only(fake_openai, db, capsys,
                                                                monkeypatch):
    fake_openai.reset()
    fake_openai.script([{"kind": "keepalive_trickle", "interval_s": 0.05, "count": 400,
                         "repeat": 3}])
    monkeypatch.setenv("ROUNDTABLE_API_KEY", "sk-test")
    started = time.monotonic()
    code = main(["run", "--base-url", fake_openai.base_url, "--model", "m", "--turns", "3",
                 "--deadline", "0.5", "--db", str(db), "--quiet"])
    elapsed = time.monotonic() - started
    assert code == 1
    assert fake_openai.stats()["count"] == 1
    assert elapsed < 10
    assert "within 0.5 s" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf"])
def test_a_deadline_that_is_not_a_positive_number_is_refused(value, db, capsys):
    code = main(["run", "--offline", "--turns", "1", "--deadline", value, "--db", str(db)])
    assert code == 2
    assert "--deadline" in capsys.readouterr().err


def test_serve_files_refuses_a_path_that_is_not_a_folder(tmp_path, capsys):
    assert main(["serve-files", str(tmp_path / "nothing")]) != 0
    assert "is not a folder" in capsys.readouterr().err


def test_a_kind_option_the_kind_does_not_read_is_refused_naming_its_options(capsys):
    assert main(["run", "--kind", "roundtable", "--offline", "--topic", "x"]) != 0
    err = capsys.readouterr().err
    assert "roundtable kind has no --topic option" in err and "--budget" in err
    assert "Traceback" not in err


def test_the_budget_option_reaches_the_roundtable_session(db, capsys):
    # A budget too small for any window: the first inference is refused for it.
    assert main(["run", "--offline", "--turns", "1", "--budget", "50", "--db", str(db),
                 "--quiet"]) != 0
    captured = capsys.readouterr()
    assert "budget of 50" in captured.out + captured.err
