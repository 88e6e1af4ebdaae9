"""The store under faults (issue 9): a full disk or a locked store stops the action before
anything unrecorded is sent, usage from a server is clamped, damaged rows are skipped with
a warning, and damaged pages are reported when the store is opened."""

from __future__ import annotations

import asyncio
import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from roundtable_desktop.cli.main import main
from roundtable_desktop.domain.calls import (
    MAX_TOKENS,
    CallStatus,
    ChatMessage,
    ChatRequest,
    Usage,
)
from roundtable_desktop.domain.events import CallFinished, CallStarted, Event
from roundtable_desktop.engine.base import Action
from roundtable_desktop.engine.bus import EventBus
from roundtable_desktop.engine.model_calls import ModelCall, ModelCaller
from roundtable_desktop.engine.session_export import export_session
from roundtable_desktop.llm.openai_compat import OpenAICompatClient
from roundtable_desktop.store.database import SessionStore
from roundtable_desktop.store.errors import StoreError
from roundtable_desktop.store.recorder import SessionRecorder
from tests.engine_fixtures import start_recorded
from tests.fakes.full_disk import full_disk_store
from tests.fakes.scripted_model import ScriptedClient

ROOT = Path(__file__).resolve().parents[2]
PRIVATE = "PRIVATE-WORDS-7f3a"  # stored text that no message may quote


@pytest.fixture
def disk(tmp_path):
    store, db = full_disk_store(tmp_path / "sessions.sqlite3")
    yield store, db
    store.close()


def _events_of(handle) -> list[Event]:
    seen: list[Event] = []
    handle.bus.subscribe(seen.append)
    return seen


# -- case 5: a write that fails stops the action ---------------------------------------
def test_a_request_whose_row_cannot_be_written_is_never_sent(disk, catalog):
    store, db = disk
    client = ScriptedClient()

    async def scenario():
        handle = await start_recorded(store, client, catalog)
        db.full = True
        with pytest.raises(StoreError, match=r"Could not record the request.*disk is full"):
            await handle.session.perform(Action(id="infer"))

    asyncio.run(scenario())
    assert client.requests == []


def test_a_call_whose_row_could_not_be_written_leaves_nothing_in_flight_and_frees_its_slot(
    disk, catalog
):
    store, db = disk
    client = ScriptedClient()

    async def scenario():
        handle = await start_recorded(store, client, catalog)
        handle.session.set_parallel(1)
        db.full = True
        with pytest.raises(StoreError):
            await handle.session.perform(Action(id="infer"))
        state = (handle.session.busy, handle.session.calls_in_flight)
        db.full = False
        ok = await handle.session.perform(Action(id="infer"))
        return handle, state, ok

    handle, (busy, in_flight), ok = asyncio.run(scenario())
    assert (busy, in_flight, ok) == (False, 0, True)
    assert [c.status for c in store.calls(handle.session_id)] == [CallStatus.OK]
    assert len(client.requests) == 1


def test_listeners_see_a_call_that_could_not_be_recorded_end_as_not_sent(disk, catalog):
    store, db = disk

    async def scenario():
        handle = await start_recorded(store, ScriptedClient(), catalog)
        seen = _events_of(handle)
        db.full = True
        with pytest.raises(StoreError):
            await handle.session.perform(Action(id="infer"))
        return seen

    seen = asyncio.run(scenario())
    calls = [e for e in seen if isinstance(e, CallStarted | CallFinished)]
    assert [type(e) for e in calls] == [CallStarted, CallFinished]
    assert calls[1].outcome.status == CallStatus.FAILED
    assert "not sent" in (calls[1].outcome.error or "").lower()


def test_a_call_among_several_that_could_not_be_recorded_stops_the_others_keeping_their_text(
    disk
):
    store, db = disk
    session_id = store.create_session("test", "default", "several", {})
    begun: list[str] = []

    def second_call_row(sql: str) -> bool:
        if sql.lstrip().startswith("INSERT INTO calls"):
            begun.append(sql)
        return len(begun) == 2

    db.full_when = second_call_row
    bus = EventBus()
    recorder = SessionRecorder(store, session_id, dict)
    bus.subscribe(recorder, first=True, critical=True)
    client = ScriptedClient("first reply still streaming", "second reply")
    caller = ModelCaller(client=client, bus=bus, parallel=4)
    requests = [ModelCall(actor_id=f"a{i}", request=ChatRequest(
        model="m", messages=[ChatMessage(role="user", content=f"q{i}")])) for i in range(2)]

    async def scenario() -> int:
        with pytest.raises(StoreError, match="record the request"):
            await caller.call_many(requests)
        return caller.calls_in_flight

    assert asyncio.run(scenario()) == 0
    db.full_when, db.full = None, False  # the disk has room again
    recorder.flush()
    (call,) = store.calls(session_id)
    assert call.status == CallStatus.CANCELLED and call.response_text.startswith("first")
    assert len(client.requests) == 1


def test_a_store_locked_by_another_process_stops_the_action_before_sending(tmp_path, catalog):
    path = tmp_path / "sessions.sqlite3"
    client = ScriptedClient()
    store = SessionStore.open(path, busy_timeout_s=0.1)
    other = sqlite3.connect(str(path), isolation_level=None)

    async def scenario():
        handle = await start_recorded(store, client, catalog)
        other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        try:
            with pytest.raises(StoreError, match=r"record the request.*busy in another program"):
                await handle.session.perform(Action(id="infer"))
        finally:
            other.execute("ROLLBACK")

    try:
        asyncio.run(scenario())
    finally:
        other.close()
        store.close()
    assert client.requests == []


def test_a_response_that_could_not_be_written_is_reported_and_written_once_there_is_room(
    disk, catalog
):
    store, db = disk

    async def scenario():
        handle = await start_recorded(store, ScriptedClient("CALL: passTurn()"), catalog)
        seen = _events_of(handle)
        # The disk fills up while the reply streams (after the request row is written).
        handle.bus.subscribe(lambda e: setattr(db, "full", True)
                             if isinstance(e, CallStarted) else None)
        with pytest.raises(StoreError, match="disk is full"):
            await handle.session.perform(Action(id="infer"))
        return handle, seen

    handle, seen = asyncio.run(scenario())
    (finished,) = [e for e in seen if isinstance(e, CallFinished)]
    assert finished.outcome.text == "CALL: passTurn()"  # the views still see how it ended
    (call,) = store.calls(handle.session_id)
    assert call.status == CallStatus.PENDING  # not on disk yet ...
    db.full = False
    handle.recorder.flush()  # ... but kept in memory until it can be written
    (call,) = store.calls(handle.session_id)
    assert (call.status, call.response_text) == (CallStatus.OK, "CALL: passTurn()")


def test_a_checkpoint_that_could_not_be_written_is_reported_and_kept_until_there_is_room(
    disk, catalog
):
    store, db = disk

    async def scenario():
        handle = await start_recorded(store, ScriptedClient("CALL: passTurn()"), catalog)
        # The disk fills up once the response is written: the step's checkpoint fails.
        handle.bus.subscribe(lambda e: setattr(db, "full", True)
                             if isinstance(e, CallFinished) else None)
        with pytest.raises(StoreError, match="disk is full"):
            await handle.session.perform(Action(id="infer"))
        return handle

    handle = asyncio.run(scenario())
    assert store.checkpoints(handle.session_id) == []
    db.full = False
    handle.recorder.flush()
    (checkpoint,) = store.checkpoints(handle.session_id)
    assert checkpoint.action == "infer"
    assert checkpoint.state == json.loads(handle.session.state_json())
    types = [e.type for e in store.events(handle.session_id)]
    assert types[-1] == "action_finished" and {"call_started", "call_finished"} <= set(types)


# A `run` whose files may not grow past a limit: writes fail as on a full disk.
_LIMITED_RUN = """
import resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
limit = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
from roundtable_desktop.cli.main import main
sys.exit(main(sys.argv[2:]))
"""


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_FSIZE is POSIX")
def test_a_cli_run_on_a_full_disk_stops_with_one_line_and_sends_nothing_unrecorded(
    fake_openai, tmp_path
):
    fake_openai.reset()
    db = tmp_path / "full.sqlite3"
    env = {**os.environ, "ROUNDTABLE_API_KEY": "sk-test"}
    result = subprocess.run(
        [sys.executable, "-c", _LIMITED_RUN, str(600_000), "run", "--base-url",
         fake_openai.base_url, "--model", "m", "--turns", "12", "--db", str(db)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 2, result.stdout[-2000:]
    (line,) = result.stderr.strip().splitlines()
    assert "Free some disk space" in line and str(db) in line
    assert "saved" not in result.stdout.lower()
    with SessionStore.open(db, readonly=True) as store:
        calls = store.calls(store.latest_session_id())
    assert len(fake_openai.requests()) == len(calls) >= 1


# -- case 7: usage from a server is untrusted -------------------------------------------
@pytest.mark.parametrize(("given", "kept"), [(10**23, MAX_TOKENS), (-7, 0)])
def test_a_usage_count_out_of_range_is_clamped_and_marked_estimated(given, kept):
    usage = Usage(prompt_tokens=given, completion_tokens=given)
    assert (usage.prompt_tokens, usage.completion_tokens, usage.estimated) == (kept, kept, True)


@pytest.mark.parametrize("given", ["12", 1.5, None, True, float("nan")])
def test_a_usage_count_that_is_not_a_whole_number_becomes_zero_and_estimated(given):
    usage = Usage(prompt_tokens=given, completion_tokens=3)
    assert (usage.prompt_tokens, usage.completion_tokens, usage.estimated) == (0, 3, True)


def test_a_usage_within_range_is_kept_as_the_server_said():
    usage = Usage(prompt_tokens=MAX_TOKENS, completion_tokens=0)
    assert (usage.prompt_tokens, usage.completion_tokens, usage.estimated) == (
        MAX_TOKENS, 0, False)


def test_server_usage_of_ten_to_the_23_and_minus_7_is_stored_and_exported_clamped(
    fake_openai, store, catalog
):
    fake_openai.reset()
    fake_openai.script([{"kind": "ok", "text": "CALL: passTurn()",
                         "usage": {"prompt_tokens": 10**23, "completion_tokens": -7}}])

    async def scenario():
        client = OpenAICompatClient(fake_openai.base_url, "sk-test", read_timeout=5.0)
        handle = await start_recorded(store, client, catalog)
        ok = await handle.session.perform(Action(id="infer"))
        await client.aclose()
        return handle, ok

    handle, ok = asyncio.run(scenario())
    assert ok
    (call,) = store.calls(handle.session_id)
    assert (call.response_text, call.prompt_tokens, call.completion_tokens,
            call.usage_estimated) == ("CALL: passTurn()", MAX_TOKENS, 0, True)
    assert call.cost_usd is None or call.cost_usd >= 0
    exported = export_session(store, handle.session_id, "md")
    assert f"{MAX_TOKENS} prompt + 0 completion (estimated)" in exported
    assert re.search(r"-\d+ (prompt|completion)", exported) is None


def test_a_stored_row_with_negative_usage_reads_back_as_zero(store):
    session_id = store.create_session("roundtable", "default", "T", {"turn": 1})
    store.begin_call(session_id, "c1", "alice", "m", "offline", {"messages": []})
    store._db.execute("UPDATE calls SET status = 'ok', prompt_tokens = -7,"
                      " completion_tokens = -2, cost_usd = -0.5 WHERE id = 'c1'")
    call = store.call("c1")
    assert (call.prompt_tokens, call.completion_tokens, call.cost_usd) == (0, 0, 0.0)


# -- case 8: one damaged row does not make a session unreadable -------------------------
@pytest.fixture
def recorded(tmp_path) -> tuple[Path, str]:
    """A store with a roundtable session of two turns (calls, events, checkpoints)."""
    db = tmp_path / "recorded.sqlite3"
    assert main(["run", "--offline", "--turns", "2", "--delay", "0", "--db", str(db),
                 "--quiet"]) == 0
    with SessionStore.open(db) as store:
        return db, store.latest_session_id()


def _point_at(db: Path, sql: str, session_id: str, data: bytes) -> None:
    """Point one row's stored text at a chunk holding `data`, as a damaged page might."""
    digest = os.urandom(16)
    with sqlite3.connect(str(db)) as con:
        con.execute("INSERT INTO blobs (hash, session_id, data) VALUES (?, ?, ?)",
                    (digest, session_id, data))
        assert con.execute(sql, (digest,)).rowcount == 1


def _seqs(db: Path, session_id: str, table: str) -> list[int]:
    """Every row's position, read straight from the file (damaged rows included)."""
    with sqlite3.connect(str(db)) as con:
        return [r[0] for r in con.execute(
            f"SELECT seq FROM {table} WHERE session_id = ? ORDER BY seq", (session_id,))]


def _damage_checkpoint(db: Path, session_id: str, seq: int, data: bytes) -> None:
    _point_at(db, f"UPDATE checkpoints SET state_manifest = ? WHERE seq = {seq}",
              session_id, data)


def _damage_call(db: Path, session_id: str, seq: int, data: bytes) -> None:
    _point_at(db, f"UPDATE calls SET request_manifest = ? WHERE seq = {seq}", session_id, data)


@pytest.mark.parametrize("data", [b'{"meeting": {"turn": ', b"\xff\xfe not utf-8",
                                  json.dumps(PRIVATE).encode()],
                         ids=["bad-json", "not-utf8", "not-an-object"])
def test_a_damaged_checkpoint_is_skipped_with_a_warning_naming_it(recorded, data):
    db, session_id = recorded
    _damage_checkpoint(db, session_id, 1, data)
    with SessionStore.open(db) as store:
        checkpoints = store.checkpoints(session_id)
        warnings = store.take_warnings()
    assert [c.seq for c in checkpoints] == _seqs(db, session_id, "checkpoints")[1:]
    (warning,) = warnings
    assert "checkpoint 1" in warning and session_id[:8] in warning
    assert PRIVATE not in warning


@pytest.mark.parametrize("data", [b'{"messages": [', b"\xc3\x28",
                                  json.dumps([PRIVATE]).encode(),
                                  b'[[99],{"messages":[{"role":"user","content":""}]}]\n'
                                  + PRIVATE.encode()],
                         ids=["bad-json", "not-utf8", "not-an-object", "texts-cut-short"])
def test_a_call_with_a_damaged_request_is_skipped_with_a_warning_naming_it(recorded, data):
    db, session_id = recorded
    _damage_call(db, session_id, 1, data)
    with SessionStore.open(db) as store:
        calls = store.calls(session_id)
        warnings = store.take_warnings()
    assert [c.seq for c in calls] == _seqs(db, session_id, "calls")[1:]
    (warning,) = warnings
    assert "call 1" in warning and session_id[:8] in warning and PRIVATE not in warning


def test_a_row_whose_stored_part_is_missing_is_skipped_and_the_rest_read(recorded):
    db, session_id = recorded
    with sqlite3.connect(str(db)) as con:
        con.execute("UPDATE calls SET request_manifest = ? WHERE seq = 2", (os.urandom(16),))
        con.execute("UPDATE checkpoints SET state_manifest = x'0102' WHERE seq = 2")
    with SessionStore.open(db) as store:
        assert [c.seq for c in store.calls(session_id)] == [
            n for n in _seqs(db, session_id, "calls") if n != 2]
        assert [c.seq for c in store.checkpoints(session_id)] == [
            n for n in _seqs(db, session_id, "checkpoints") if n != 2]
        assert len(store.take_warnings()) == 2


def test_a_call_row_this_version_cannot_read_is_skipped_with_a_warning(recorded):
    db, session_id = recorded
    with sqlite3.connect(str(db)) as con:
        con.execute("UPDATE calls SET status = ? WHERE seq = 1", (PRIVATE,))
    with SessionStore.open(db) as store:
        assert [c.seq for c in store.calls(session_id)] == _seqs(db, session_id, "calls")[1:]
        (warning,) = store.take_warnings()
    assert "call 1" in warning and PRIVATE not in warning


def test_an_unreadable_events_row_is_skipped_with_a_warning_naming_its_events(recorded):
    db, session_id = recorded
    with sqlite3.connect(str(db)) as con:
        count = con.execute("SELECT count FROM events WHERE seq = 1").fetchone()[0]
        con.execute("UPDATE events SET json = ? WHERE seq = 1", (f'[{{"x": "{PRIVATE}',))
    with SessionStore.open(db) as store:
        events = store.events(session_id)
        (warning,) = store.take_warnings()
    assert count > 1 and events
    assert f"events 1–{count}" in warning and PRIVATE not in warning


def test_an_event_this_version_cannot_read_is_skipped_alone_from_its_row(recorded):
    db, session_id = recorded
    with SessionStore.open(db) as store:
        before = store.events(session_id)
    with sqlite3.connect(str(db)) as con:
        seq, text = con.execute("SELECT seq, json FROM events WHERE count > 1"
                                " ORDER BY seq LIMIT 1").fetchone()
        items = json.loads(text)
        items[1] = {"type": "future_kind_event", "secret": PRIVATE}
        con.execute("UPDATE events SET json = ? WHERE seq = ?", (json.dumps(items), seq))
    with SessionStore.open(db) as store:
        after = store.events(session_id)
        (warning,) = store.take_warnings()
    assert after == before[:seq] + before[seq + 1:]  # position seq + 1 is before[seq]
    assert f"event {seq + 1} " in warning and PRIVATE not in warning


def test_export_of_a_session_with_damaged_rows_has_the_rest_and_names_what_was_skipped(
    recorded, tmp_path, capsys
):
    db, session_id = recorded
    _damage_call(db, session_id, 1, b'{"messages": [')
    _damage_checkpoint(db, session_id, 1, b"\xff")
    out = tmp_path / "export.json"
    assert main(["export", session_id[:8], "--db", str(db), "--format", "json",
                 "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "call 1" in err and "checkpoint 1" in err and "Traceback" not in err
    data = json.loads(out.read_text())
    assert [c["seq"] for c in data["calls"]] == _seqs(db, session_id, "calls")[1:]
    assert [c["seq"] for c in data["checkpoints"]] == _seqs(db, session_id, "checkpoints")[1:]
    assert len(data["warnings"]) == 2


def test_export_of_a_session_whose_latest_state_is_damaged_shows_the_last_readable_one(
    recorded, tmp_path, capsys
):
    db, session_id = recorded
    _point_at(db, f"UPDATE sessions SET state_manifest = ? WHERE id = '{session_id}'",
              session_id, b'{"meeting": ')
    out = tmp_path / "export.json"
    assert main(["export", "--db", str(db), "--format", "json", "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    with SessionStore.open(db) as store:
        last = store.checkpoints(session_id)[-1]
    assert data["session"]["state"] == last.state
    assert data["summary"] is not None
    assert len(data["calls"]) == len(_seqs(db, session_id, "calls"))
    assert "state" in capsys.readouterr().err


def test_continue_with_a_damaged_latest_state_is_one_clear_line(recorded, capsys):
    db, session_id = recorded
    _point_at(db, f"UPDATE sessions SET state_manifest = ? WHERE id = '{session_id}'",
              session_id, b'{"meeting": ')
    code = main(["run", "--continue", session_id[:8], "--offline", "--turns", "1",
                 "--delay", "0", "--db", str(db), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2
    (line,) = err.strip().splitlines()
    assert "damaged" in line and "export" in line and "Traceback" not in err


@pytest.mark.parametrize("state", [{}, {"meeting": PRIVATE}, {"meeting": {"turn": PRIVATE}}],
                         ids=["no-meeting", "meeting-is-text", "turn-is-text"])
def test_continue_with_a_state_this_kind_cannot_read_is_one_line_quoting_no_stored_text(
    recorded, state, capsys
):
    db, session_id = recorded
    _point_at(db, f"UPDATE sessions SET state_manifest = ? WHERE id = '{session_id}'",
              session_id, json.dumps(state).encode())
    code = main(["run", "--continue", session_id[:8], "--offline", "--turns", "1",
                 "--delay", "0", "--db", str(db), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2
    (line,) = err.strip().splitlines()
    assert "cannot be continued" in line and PRIVATE not in line


def test_a_refused_continue_leaves_the_session_as_it_was(recorded, capsys):
    db, session_id = recorded
    _point_at(db, f"UPDATE sessions SET state_manifest = ? WHERE id = '{session_id}'",
              session_id, b"{}")
    with SessionStore.open(db) as store:
        store.begin_call(session_id, "left-pending", "alice", "m", "offline", {"messages": []})
        before = [(c.id, c.status) for c in store.calls(session_id)]
    main(["run", "--continue", session_id[:8], "--offline", "--turns", "1", "--delay", "0",
          "--db", str(db), "--quiet"])
    with SessionStore.open(db) as store:
        assert [(c.id, c.status) for c in store.calls(session_id)] == before


# -- case 12: damaged pages are reported when the store is opened -----------------------
def _damage_a_page_of(db: Path, table: str) -> None:
    """Overwrite the header of one of `table`'s b-tree pages (not the schema page)."""
    with sqlite3.connect(str(db)) as con:
        page_size = con.execute("PRAGMA page_size").fetchone()[0]
        (page,) = con.execute(
            "SELECT max(pageno) FROM dbstat WHERE name = ? AND pagetype = 'leaf'", (table,)
        ).fetchone()
    assert page and page > 1
    with db.open("r+b") as f:
        f.seek((page - 1) * page_size)
        f.write(b"\x07" * 12)


def test_opening_a_store_with_damaged_pages_warns(recorded):
    db, _ = recorded
    _damage_a_page_of(db, "blobs")
    with SessionStore.open(db) as store:
        (warning,) = store.take_warnings()
    assert str(db) in warning and "damaged" in warning


def test_a_healthy_store_opens_with_no_warning(recorded):
    db, _ = recorded
    with SessionStore.open(db) as store:
        assert store.take_warnings() == []


def test_a_cli_run_on_a_store_with_damaged_pages_says_so(recorded, capsys):
    db, _ = recorded
    _damage_a_page_of(db, "blobs")
    main(["run", "--offline", "--turns", "1", "--delay", "0", "--db", str(db), "--quiet"])
    err = capsys.readouterr().err
    assert "damaged" in err and "Traceback" not in err


def test_an_export_of_a_damaged_store_quotes_no_stored_text(recorded, tmp_path, capsys):
    db, session_id = recorded
    _point_at(db, f"UPDATE sessions SET state_manifest = ? WHERE id = '{session_id}'",
              session_id, json.dumps([PRIVATE]).encode())
    _damage_checkpoint(db, session_id, 2, json.dumps({"meeting": PRIVATE}).encode())
    _damage_a_page_of(db, "events")
    main(["export", "--db", str(db), "--format", "md", "--out", str(tmp_path / "x.md")])
    err = capsys.readouterr().err
    assert err and PRIVATE not in err and "Traceback" not in err
