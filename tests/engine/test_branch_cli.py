"""The `branch`, `compare` and `compare-report` commands and the session list as a tree
(cli/branch_commands.py), offline; every refusal is one line."""

from __future__ import annotations

import re

import pytest

from roundtable_desktop.cli.main import main
from roundtable_desktop.store.database import SessionStore


@pytest.fixture
def parent(tmp_path, capsys):
    db = tmp_path / "s.db"
    assert main(["run", "--offline", "--delay", "0", "--turns", "3", "--db", str(db),
                 "--quiet"]) == 0
    capsys.readouterr()
    with SessionStore.open(db) as store:
        session_id = store.latest_session_id()
    assert session_id is not None
    return db, session_id


def test_branch_makes_a_branch_says_what_changed_and_runs_its_own_steps(parent, capsys):
    db, parent_id = parent
    code = main(["branch", parent_id[:8], "--at", "3", "--model", "other",
                 "--temperature", "0.4", "--steps", "2", "--offline", "--delay", "0",
                 "--db", str(db)])
    out = capsys.readouterr().out
    assert code == 0
    assert f"from session {parent_id[:8]} at step 3" in out
    assert "changed: Model: offline → other" in out
    assert "changed: Sampling: temperature = 0.4" in out
    with SessionStore.open(db) as store:
        branch = re.search(r"Branched (\w{8})", out).group(1)
        calls = store.calls(store.resolve_session(branch))
    assert calls and all(c.request["model"] == "other" and c.request["temperature"] == 0.4
                         for c in calls)


def test_sessions_lists_a_branch_under_its_parent_with_its_step(parent, capsys):
    db, parent_id = parent
    assert main(["branch", parent_id[:8], "--at", "2", "--db", str(db)]) == 0
    capsys.readouterr()
    assert main(["sessions", "--db", str(db)]) == 0
    lines = capsys.readouterr().out.splitlines()
    [at] = [i for i, line in enumerate(lines) if line.startswith(parent_id[:8])]
    assert "└ [at step 2]" in lines[at + 1]


def test_a_step_the_session_has_not_is_refused_in_one_line(parent, capsys):
    db, parent_id = parent
    assert main(["branch", parent_id[:8], "--at", "999", "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "has no step 999" in err and "Traceback" not in err


def test_an_edit_the_kind_refuses_is_one_line_and_leaves_no_branch(parent, capsys):
    db, parent_id = parent
    assert main(["branch", parent_id[:8], "--at", "2", "--edit", "no_such_edit",
                 "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no_such_edit" in err
    with SessionStore.open(db) as store:
        assert store.branch_origins() == {}


def test_compare_runs_two_seeds_and_writes_one_html_report(parent, capsys, tmp_path):
    db, parent_id = parent
    out_file = tmp_path / "compare.html"
    assert main(["compare", parent_id[:8], "--at", "2", "--seed", "1", "--seed", "2",
                 "--steps", "2", "--delay", "0", "--db", str(db), "--out",
                 str(out_file)]) == 0
    out = capsys.readouterr().out
    assert "Step 3" in out and "Step 4" in out and "left :" in out and "right:" in out
    page = out_file.read_text(encoding="utf-8")
    assert "<h2>Step 3</h2>" in page and "Result" in page and "<script" not in page
    comparison = re.search(r"Comparison (\w{8}) saved", out).group(1)
    again = tmp_path / "again.html"
    assert main(["compare-report", comparison, "--db", str(db), "--out", str(again)]) == 0
    assert again.read_text(encoding="utf-8") == page


def test_compare_without_what_differs_is_refused_in_one_line(parent, capsys):
    db, parent_id = parent
    assert main(["compare", parent_id[:8], "--at", "2", "--steps", "1", "--db",
                 str(db)]) == 2
    assert "Say what differs" in capsys.readouterr().err


def test_a_continued_branch_keeps_the_model_it_was_branched_with(parent, capsys):
    db, parent_id = parent
    assert main(["branch", parent_id[:8], "--at", "2", "--model", "other", "--db",
                 str(db)]) == 0
    branch = re.search(r"Branched (\w{8})", capsys.readouterr().out).group(1)
    assert main(["run", "--continue", branch, "--turns", "1", "--offline", "--delay", "0",
                 "--db", str(db), "--quiet"]) == 0
    with SessionStore.open(db) as store:
        calls = store.calls(store.resolve_session(branch))
    assert calls and {c.request["model"] for c in calls} == {"other"}
