"""Read commands never create or modify files (issue 9, case 11): `sessions` and `export`
open the store read-only; a file that is not ours is refused before anything is written."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from roundtable_desktop.cli.main import main
from roundtable_desktop.store.database import SessionStore
from roundtable_desktop.store.errors import StoreError
from roundtable_desktop.store.migrations import migrate

READS = [["sessions"], ["export", "--format", "json"]]
READ_IDS = ["sessions", "export"]


def _files(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` with its bytes."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


@pytest.fixture
def stored(tmp_path) -> Path:
    db = tmp_path / "data" / "sessions.sqlite3"
    assert main(["run", "--offline", "--turns", "1", "--delay", "0", "--db", str(db),
                 "--quiet"]) == 0
    return db


@pytest.mark.parametrize("argv", READS, ids=READ_IDS)
def test_a_read_on_a_missing_path_says_there_is_no_store_and_creates_nothing(
    argv, tmp_path, capsys
):
    db = tmp_path / "typo" / "dir" / "x.db"
    code = main([*argv, "--db", str(db)])
    err = capsys.readouterr().err
    assert code == 2
    assert f"There is no session store at {db}" in err
    assert not (tmp_path / "typo").exists()


@pytest.mark.parametrize("argv", READS, ids=READ_IDS)
def test_a_read_changes_no_file(stored, argv, capsys):
    before = _files(stored.parent)
    assert main([*argv, "--db", str(stored)]) == 0
    assert _files(stored.parent) == before


@contextmanager
def _read_only(path: Path) -> Iterator[None]:
    """`path` made 0444; for root (whom modes do not stop) also immutable (chattr +i)."""
    path.chmod(0o444)
    immutable = False
    try:
        if os.geteuid() == 0:
            done = subprocess.run(["chattr", "+i", str(path)], capture_output=True)
            if done.returncode != 0:
                pytest.skip("running as root, and chattr cannot make the file read-only")
            immutable = True
        yield
    finally:
        if immutable:
            subprocess.run(["chattr", "-i", str(path)], check=True)
        path.chmod(0o644)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX file modes")
def test_a_read_only_store_is_read_and_leaves_no_wal_or_shm_behind(stored, capsys):
    with _read_only(stored):
        assert main(["sessions", "--db", str(stored)]) == 0
        assert main(["export", "--db", str(stored), "--format", "md"]) == 0
    assert sorted(p.name for p in stored.parent.iterdir()) == [stored.name]
    assert "roundtable" in capsys.readouterr().out


def test_a_store_being_written_is_read_without_new_files(stored, capsys):
    with SessionStore.open(stored) as writer:
        written = writer.create_session("roundtable", "default", "Written meanwhile",
                                         {"turn": 1})
        writer.add_checkpoint(written, "next_turn", {"turn": 2})
        names = sorted(p.name for p in stored.parent.iterdir())
        assert main(["sessions", "--db", str(stored)]) == 0
        assert sorted(p.name for p in stored.parent.iterdir()) == names
    assert "Written meanwhile" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv", [*READS, ["run", "--offline", "--turns", "1", "--delay", "0"]],
    ids=[*READ_IDS, "run"],
)
def test_a_foreign_sqlite_file_is_refused_and_left_byte_for_byte(argv, tmp_path, capsys):
    foreign = tmp_path / "data" / "recipes.db"
    foreign.parent.mkdir()
    with sqlite3.connect(str(foreign)) as con:
        con.execute("CREATE TABLE recipes (name TEXT)")
        con.execute("INSERT INTO recipes VALUES ('soup')")
    con.close()
    before = _files(foreign.parent)
    code = main([*argv, "--db", str(foreign)])
    assert code == 2
    assert "not a roundtable session store" in capsys.readouterr().err
    assert _files(foreign.parent) == before


def test_a_store_of_an_older_version_is_refused_by_reads_with_what_to_do(tmp_path, capsys):
    db = tmp_path / "data" / "old.sqlite3"
    db.parent.mkdir()
    old = sqlite3.connect(str(db), isolation_level=None)
    migrate(old, target=1)
    old.close()
    before = _files(db.parent)
    code = main(["sessions", "--db", str(db)])
    err = capsys.readouterr().err
    assert code == 2 and "older version" in err and "roundtable run" in err
    assert _files(db.parent) == before


def test_a_store_opened_read_only_refuses_to_write(stored):
    with SessionStore.open(stored, readonly=True) as store:
        assert store.list_sessions()
        with pytest.raises(StoreError, match="read-only"):
            store.create_session("roundtable", "default", "No", {})


def test_a_store_opened_read_only_reads_the_same_as_a_writer(stored):
    with SessionStore.open(stored) as writer:
        session_id = writer.latest_session_id()
        expected = (writer.get_session(session_id), writer.calls(session_id),
                    writer.checkpoints(session_id))
    with SessionStore.open(stored, readonly=True) as reader:
        assert (reader.get_session(session_id), reader.calls(session_id),
                reader.checkpoints(session_id)) == expected
