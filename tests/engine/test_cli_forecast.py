"""`roundtable run --forecast`: the calls, tokens and cost of a run, printed before
anything is sent; nothing is sent and nothing is stored."""

from __future__ import annotations

import re
from pathlib import Path

from roundtable_desktop.cli.main import main
from roundtable_desktop.store.database import SessionStore
from tests.fakes.openai_fixture import fake_openai  # noqa: F401


def test_forecast_prints_the_cost_and_sends_nothing(fake_openai, tmp_path: Path, capsys,  # noqa: F811
                                                     monkeypatch):
    fake_openai.reset()
    monkeypatch.setenv("ROUNDTABLE_API_KEY", "sk-test-0123456789abcdef")
    db = tmp_path / "s.sqlite3"
    code = main(["run", "--base-url", fake_openai.base_url, "--model",
                 "fireworks/gpt-oss-20b", "--turns", "3", "--forecast", "--db", str(db)])
    out = capsys.readouterr().out
    assert code == 0
    assert re.search(r"about \d+ calls, [\d,]+ prompt \+ [\d,]+ completion tokens, \$\d", out)
    assert "Nothing was sent" in out
    assert fake_openai.stats()["count"] == 0
    assert not db.exists()


def test_forecast_of_a_continued_session_reads_it_and_stores_nothing(tmp_path: Path, capsys):
    db = tmp_path / "s.sqlite3"
    assert main(["run", "--offline", "--delay", "0", "--turns", "1", "--db", str(db),
                 "--quiet"]) == 0
    with SessionStore.open(db) as store:
        (session,) = store.list_sessions()
        before = session.call_count
    capsys.readouterr()
    assert main(["run", "--continue", session.id[:8], "--turns", "2", "--forecast",
                 "--db", str(db)]) == 0
    assert "Forecast for 2 turns" in capsys.readouterr().out
    with SessionStore.open(db) as store:
        assert store.list_sessions()[0].call_count == before
