"""Hostile model replies: a runaway reply cannot loop or fill the disk, and text no store
accepts (a lone surrogate) never enters the state (issue 9, cases 1 and 2)."""

from __future__ import annotations

import asyncio
import time
from collections import deque
from pathlib import Path

import pytest
from lxml import etree

from roundtable_desktop.cli.main import main
from roundtable_desktop.engine.base import SEND, Action
from roundtable_desktop.engine.headless import drive_headless
from roundtable_desktop.kinds.roundtable.meeting import TranscriptKind
from roundtable_desktop.kinds.roundtable.session import MAX_ISSUES_NOTED
from roundtable_desktop.kinds.roundtable.tool_executor import MAX_CALLS_PER_REPLY
from roundtable_desktop.store.database import SessionStore
from tests.engine_fixtures import act

# 5,000 CALL: lines, none of which can run: unknown ids, and every fourth line unreadable.
RUNAWAY = "\n".join(
    f"CALL: rankCandidates(N{i})" if i % 4 else "CALL: rankCandidates((" for i in range(5000)
)
RUNAWAY_CALLS = 3750  # the lines that parse; the other 1,250 are parse issues
DROPPED = RUNAWAY_CALLS - MAX_CALLS_PER_REPLY
LONE = "\ud800"


def _store_bytes(db: Path) -> int:
    return sum(p.stat().st_size for p in db.parent.glob(db.name + "*"))


def _refusals_shown(request) -> list[str]:
    """The refusal lines of the actor's context window, as the model reads them."""
    root = etree.fromstring(request.user_text().encode())
    items = root.xpath("//*[@class='refusals']//*[local-name()='li']")
    return [li.xpath("string()") for li in items]


# -- case 1: a runaway reply -------------------------------------------------------------
def test_a_reply_of_5000_calls_keeps_only_the_call_limit_pending(meeting, scripted):
    scripted.queue(RUNAWAY)
    act(meeting, "infer")
    assert len(meeting.state.pending_calls) == MAX_CALLS_PER_REPLY


def test_a_runaway_reply_adds_a_bounded_number_of_transcript_lines(meeting, scripted):
    before = len(meeting.state.transcript)
    scripted.queue(RUNAWAY)
    act(meeting, "infer")
    act(meeting, "run_tools")  # refuses the kept calls, then infers again (passTurn)
    added = meeting.state.transcript[before:]
    assert len(added) < 3 * MAX_CALLS_PER_REPLY
    assert any(f"{DROPPED:,} tool calls too many" in line.text for line in added)
    assert any("1,240 more lines that could not be parsed" in line.text for line in added)


def test_the_next_context_lists_the_kept_refusals_and_counts_the_dropped_calls(
    meeting, scripted
):
    scripted.queue(RUNAWAY)
    act(meeting, "infer")
    act(meeting, "run_tools")
    shown = _refusals_shown(scripted.requests[1])
    # The kept calls and the line counting the dropped ones; the parse issues noted and
    # the line counting the others.
    assert len(shown) == MAX_CALLS_PER_REPLY + 1 + MAX_ISSUES_NOTED + 1
    assert any("1,240 more lines that could not be parsed" in line for line in shown)
    assert any(f"{DROPPED - 1:,} calls after it" in line for line in shown)
    assert len(scripted.requests[1].user_text()) < 2 * len(scripted.requests[0].user_text())


def test_a_refused_call_with_a_huge_argument_is_kept_in_brief_as_feedback(meeting, scripted):
    scripted.queue("CALL: rankCandidates(" + ", ".join(f"N{i}" for i in range(5000)) + ")")
    act(meeting, "infer")
    act(meeting, "run_tools")
    shown = _refusals_shown(scripted.requests[1])
    assert len(shown) == 1 and len(shown[0]) < 1000 and "more" in shown[0]


def test_a_context_over_budget_counts_against_the_turn(meeting, scripted):
    meeting.budget = 10
    for _ in range(meeting.max_inferences_per_turn):
        assert asyncio.run(meeting.perform(Action(id="infer"))) is False
    assert scripted.requests == []  # nothing was sent
    assert meeting.state.inferences_this_turn == meeting.max_inferences_per_turn
    assert meeting.next_step() == Action(id="next_turn")  # the turn's limit moves on


def test_a_context_over_budget_says_so_in_the_transcript(meeting):
    meeting.budget = 10
    asyncio.run(meeting.perform(Action(id="infer")))
    last = meeting.state.transcript[-1]
    assert last.kind == TranscriptKind.SYSTEM and "was not sent" in last.text


def test_a_headless_run_over_budget_stops_after_two_refusals(meeting, scripted):
    meeting.budget = 10
    result = asyncio.run(drive_headless(meeting, 5, deque()))
    assert result.code == 1
    assert "repeated failures" in result.message
    assert meeting.state.inferences_this_turn == 2


def test_a_cli_run_fed_runaway_replies_ends_in_seconds_with_a_small_store(
    fake_openai, tmp_path, monkeypatch, capsys
):
    fake_openai.reset()
    fake_openai.script([{"kind": "ok", "text": RUNAWAY, "chunk_size": 20000, "repeat": 50}])
    monkeypatch.setenv("ROUNDTABLE_API_KEY", "sk-test")
    db = tmp_path / "runaway.sqlite3"
    started = time.monotonic()
    code = main(["run", "--base-url", fake_openai.base_url, "--model", "m", "--turns", "2",
                 "--db", str(db), "--quiet"])
    elapsed = time.monotonic() - started
    assert code == 0
    assert elapsed < 30
    assert fake_openai.stats()["count"] <= 2 * 3  # two turns, at most three inferences each
    assert _store_bytes(db) < 5_000_000


# -- case 2: a lone surrogate ------------------------------------------------------------
def test_a_lone_surrogate_in_a_reply_reaches_the_state_as_a_replacement_character(
    meeting, scripted
):
    scripted.queue(f'CALL: addWhiteboard("bad {LONE} here")\nCALL: passTurn()')
    act(meeting, "infer")
    assert LONE not in meeting.state.last_reply and "\ufffd" in meeting.state.last_reply
    assert meeting.state_json()  # the save that used to fail


def test_a_json_escaped_surrogate_in_an_argument_is_stored_as_a_replacement_character(
    meeting, scripted
):
    scripted.queue('CALL: addWhiteboard("bad \\ud800 here")\nCALL: passTurn()')
    act(meeting, "infer")
    act(meeting, "run_tools")
    assert meeting.state.whiteboard[-1].text == "bad \ufffd here"
    assert meeting.state_json()


def test_a_human_seats_line_with_a_lone_surrogate_is_storable(meeting):
    meeting.state.actor.human = True
    act(meeting, SEND, text=f'CALL: addWhiteboard("typed {LONE}")')
    act(meeting, "run_tools")
    assert meeting.state.whiteboard[-1].text == "typed \ufffd"
    assert meeting.state_json()


@pytest.mark.parametrize("reply", [
    f'CALL: addWhiteboard("bad {LONE} here")\nCALL: passTurn()',
    'CALL: addWhiteboard("bad \\ud800 here")\nCALL: passTurn()',
], ids=["surrogate-in-the-stream", "surrogate-escape-in-an-argument"])
def test_a_cli_run_with_surrogate_replies_saves_every_turn_and_reports_no_failure(
    reply, fake_openai, tmp_path, monkeypatch, capsys
):
    fake_openai.reset()
    fake_openai.script([{"kind": "ok", "text": reply, "repeat": 2}])
    monkeypatch.setenv("ROUNDTABLE_API_KEY", "sk-test")
    db = tmp_path / "surrogate.sqlite3"
    code = main(["run", "--base-url", fake_openai.base_url, "--model", "m", "--turns", "2",
                 "--db", str(db)])
    captured = capsys.readouterr()
    assert code == 0
    assert "Traceback" not in captured.err and "failed" not in captured.err
    assert "bad \ufffd here" in captured.out
    with SessionStore.open(db) as store:
        meeting = store.get_session(store.latest_session_id()).state["meeting"]
    assert meeting["turn"] == 3
    assert [n["text"] for n in meeting["whiteboard"]] == ["bad \ufffd here"] * 2
