"""Headless and export: `roundtable run --kind debate --offline --deck --hand --topic`
ends with a map headed by the one-line outcome of its claims; the export puts the map
first, then the rounds, in HTML, Markdown and JSON; a stored debate continues."""

from __future__ import annotations

import asyncio
import json

import pytest

from roundtable_desktop.cli.main import main
from roundtable_desktop.engine.launch import reopen_session, start_session
from roundtable_desktop.engine.session_export import export_session
from roundtable_desktop.kinds.debate.state import DebateState
from roundtable_desktop.kinds.debate.summary import outcome_words, result_sentence
from roundtable_desktop.llm.offline import OfflineClient
from roundtable_desktop.store.database import SessionStore
from tests.kinds.debate.conftest import AI_SIX, TOPIC


def _run(db, *extra: str) -> int:
    return main(["run", "--kind", "debate", "--offline", "--delay", "0", "--db", str(db),
                 "--deck", "ai-regulation", "--hand", ",".join(AI_SIX), "--topic", TOPIC,
                 "--quiet", *extra])


def test_run_ends_with_a_map_headed_by_the_one_line_outcome_of_its_claims(tmp_path, capsys):
    db = tmp_path / "d.sqlite3"
    assert _run(db) == 0
    out = capsys.readouterr().out
    with SessionStore.open(db) as store:
        state = DebateState.model_validate(
            store.get_session(store.latest_session_id()).state["debate"])
    assert "Disagreement map" in out
    for o in state.outcomes:
        assert outcome_words(o) in out
    assert result_sentence(state) in out


def test_run_says_the_result_in_one_consistent_sentence(tmp_path, capsys):
    assert _run(tmp_path / "d.sqlite3") == 0
    out = capsys.readouterr().out

    assert "  Stopped " in out or "  Ended " in out
    assert "diverged" not in out  # the stop condition is worded beside the outcomes
    assert "Why it stopped — " in out


def test_a_hand_of_two_is_refused_with_one_sentence(tmp_path, capsys):
    code = main(["run", "--kind", "debate", "--offline", "--db", str(tmp_path / "d.sqlite3"),
                 "--hand", "mara-okafor,dev-lindqvist"])
    assert code == 2
    assert "A hand is 3-16 cards" in capsys.readouterr().err


@pytest.mark.parametrize("fmt", ["html", "md", "json"])
def test_the_export_shows_the_map_before_the_rounds(tmp_path, capsys, fmt):
    db = tmp_path / "d.sqlite3"
    assert _run(db) == 0
    capsys.readouterr()
    with SessionStore.open(db) as store:
        sid = store.list_sessions()[0].id
        text = export_session(store, sid, fmt)
    if fmt == "json":
        summary = json.loads(text)["summary"]
        assert summary["result"]["heading"] == "Disagreement map"
        assert any(item["title"].startswith("c1 ") for item in summary["result"]["items"])
        return
    with SessionStore.open(db) as store:
        first = store.get_session(sid).state["debate"]["rounds"][0]["turns"][0]["response"]
    first = first.split('"')[0]  # the export escapes quotation marks in HTML
    assert text.index("Disagreement map") < text.index(first)


def test_a_stored_debate_continues_where_it_stopped(tmp_path):
    db = tmp_path / "d.sqlite3"
    with SessionStore.open(db) as store:
        handle = asyncio.run(start_session(
            "debate", store=store, client=OfflineClient(delay_s=0), model="offline",
            provider="offline", deck="remote-work",
            hand="hana-kowalski,leo-marchetti,priya-nair", topic="Office days?"))
        session = handle.session
        for _ in range(3):
            assert asyncio.run(session.perform(session.next_step()))
        phase = session.state.phase
        handle.close()
        again = reopen_session(handle.session_id, store=store, client=OfflineClient(delay_s=0))
    restored = again.session
    assert restored.state.phase == phase == "merge"
    assert [a.id for a in restored.state.agents] == ["hana-kowalski", "leo-marchetti",
                                                     "priya-nair"]
    assert restored.pending_payloads()[0].request.purpose == "merge"
