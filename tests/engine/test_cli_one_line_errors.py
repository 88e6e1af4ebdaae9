"""Every error the command line shows is one line, never a traceback (issue 26, point 5):
a stdio MCP server that prints garbage, a store made busy mid-run by another program, a
full disk while the store folds its log, and an unexpected error each leave one line on
the terminal and their traceback in the log file; a damaged store's warning is printed
once. Each runs `roundtable` as a process of its own, as a user would, so the terminal
is the real one (pytest's own log capture stands in for the missing handler otherwise).
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

import roundtable_desktop
from roundtable_desktop.cli.main import main

SRC = Path(roundtable_desktop.__file__).resolve().parents[1]  # the code under test
ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes")

GARBAGE_SERVER = """
import sys
for line in sys.stdin:  # every request is answered with something that is not JSON-RPC
    print("this is not JSON-RPC { at all", flush=True)
    print('{"jsonrpc": "2.0", "id": "nope", "weird": [1, 2', flush=True)
    break
"""

# The store's checkpoint thread finds the disk full whenever it folds the log in.
FULL_FOLD = """
import sqlite3, sys, types
import roundtable_desktop.store.checkpointer as checkpointer

class FullFold(sqlite3.Connection):
    def execute(self, sql, *args):
        if "wal_checkpoint" in sql:
            raise sqlite3.OperationalError("database or disk is full")
        return super().execute(sql, *args)

checkpointer.sqlite3 = types.SimpleNamespace(
    connect=lambda *a, **k: sqlite3.connect(*a, factory=FullFold, **k),
    Error=sqlite3.Error, Connection=sqlite3.Connection)
from roundtable_desktop.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def _env(home: Path, **extra: str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(SRC), "ROUNDTABLE_HOME": str(home), **extra}


def roundtable(home: Path, *args: str, program: str | None = None,
               **env: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", program, *args] if program else \
        [sys.executable, "-m", "roundtable_desktop", *args]
    return subprocess.run(command, cwd=ROOT, env=_env(home, **env), capture_output=True,
                          text=True, timeout=120)


def log_text(home: Path) -> str:
    path = home / "data" / "logs" / "roundtable.log"
    return path.read_text(encoding="utf-8") if path.exists() else ""


def test_a_stdio_server_printing_garbage_is_one_line_and_its_traceback_is_in_the_log(
    tmp_path,
):
    server = tmp_path / "garbage.py"
    server.write_text(GARBAGE_SERVER, encoding="utf-8")
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"junk": {
        "command": sys.executable, "args": [str(server)]}}}), encoding="utf-8")
    home = tmp_path / "home"
    result = roundtable(home, "run", "--kind", "legion", "--offline", "--delay", "0",
                        "--say", "hi", "--turns", "1", "--quiet", "--mcp-config",
                        str(config), "--db", str(tmp_path / "s.sqlite3"))
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert "junk" in line and "runs without it" in line
    assert "Traceback" in log_text(home)  # the SDK's own account, for whoever looks


def test_a_store_busy_mid_run_is_one_line(fake_openai, tmp_path):
    fake_openai.reset()
    fake_openai.script([{"kind": "ok", "text": "thinking " * 200 + "\nCALL: passTurn()",
                         "chunk_size": 9, "delay_s": 0.05}])
    db, home = tmp_path / "busy.sqlite3", tmp_path / "home"
    process = subprocess.Popen(
        [sys.executable, "-m", "roundtable_desktop", "run", "--base-url",
         fake_openai.base_url, "--model", "m", "--turns", "1", "--quiet", "--db", str(db)],
        cwd=ROOT, env=_env(home, ROUNDTABLE_API_KEY="sk-test-busy-0000"),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while fake_openai.stats()["in_flight"] < 1:  # the call is streaming: lock the store
            assert process.poll() is None and time.monotonic() < deadline
        other = sqlite3.connect(str(db), timeout=30, isolation_level=None)
        other.execute("BEGIN EXCLUSIVE")
        try:
            _, err = process.communicate(timeout=90)
        finally:
            other.rollback()
            other.close()
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 2, err
    assert "Traceback" not in err
    (line,) = err.strip().splitlines()
    assert "busy" in line and str(db) in line


def test_a_full_disk_while_folding_the_log_is_no_traceback(tmp_path):
    home = tmp_path / "home"
    result = roundtable(home, "run", "--offline", "--delay", "0", "--turns", "2", "--quiet",
                        "--db", str(tmp_path / "full.sqlite3"), program=FULL_FOLD)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr and result.stderr.strip() == ""
    assert "could not fold the session store's log" in log_text(home)
    assert "database or disk is full" in log_text(home)


def _damage_a_page_of(db: Path, table: str) -> None:
    with sqlite3.connect(str(db)) as con:
        page_size = con.execute("PRAGMA page_size").fetchone()[0]
        (page,) = con.execute(
            "SELECT max(pageno) FROM dbstat WHERE name = ? AND pagetype = 'leaf'", (table,)
        ).fetchone()
    with db.open("r+b") as f:
        f.seek((page - 1) * page_size)
        f.write(b"\x07" * 12)


def test_a_damaged_stores_warning_is_printed_once(tmp_path):
    db, home = tmp_path / "d.sqlite3", tmp_path / "home"
    assert roundtable(home, "run", "--offline", "--delay", "0", "--turns", "2", "--quiet",
                      "--db", str(db)).returncode == 0
    _damage_a_page_of(db, "blobs")
    result = roundtable(home, "run", "--offline", "--delay", "0", "--turns", "1", "--quiet",
                        "--db", str(db))
    damaged = [line for line in result.stderr.splitlines() if " is damaged (" in line]
    assert len(damaged) == 1, result.stderr
    assert "Traceback" not in result.stderr


def test_an_unexpected_error_is_one_line_naming_the_log_which_has_the_traceback(
    monkeypatch, capsys, isolated_home
):
    import roundtable_desktop.cli.main as cli

    def broken(args):  # type: ignore[no-untyped-def]
        raise RuntimeError("a bug deep inside")

    monkeypatch.setattr(cli, "_sessions", broken)
    assert main(["sessions"]) == 1
    err = capsys.readouterr().err
    (line,) = err.strip().splitlines()
    assert "RuntimeError: a bug deep inside" in line and "roundtable.log" in line
    assert "Traceback" not in err
    logged = log_text(isolated_home / "roundtable")
    assert "Traceback" in logged and "a bug deep inside" in logged
