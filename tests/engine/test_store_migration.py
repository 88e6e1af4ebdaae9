"""Migration 4: a store written before content-addressed texts opens and reads back the same."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from roundtable_desktop.domain.calls import CallStatus
from roundtable_desktop.domain.events import event_from_json
from roundtable_desktop.store.database import SessionStore
from roundtable_desktop.store.migrations import LATEST_VERSION, migrate, schema_version

STATE_1 = {"meeting": {"turn": 1, "candidates": [{"id": f"v{n}", "title": f"Vidéo {n} 😀"}
                                                 for n in range(40)]}}
STATE_2 = {"meeting": {**STATE_1["meeting"], "turn": 2, "transcript": ["Alice: hi\nthere"]}}
REQUEST = {
    "model": "m",
    "messages": [{"role": "system", "content": "You are Alice."},
                 {"role": "user", "content": "<main>\n  <section>ünïcode</section>\n</main>"}],
    "stream": True,
}
EVENT = {"type": "notice", "ts": 5.0, "level": "info", "message": "kept as it was"}


def dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def old_store(path: Path) -> None:
    """A store at schema 3 with a session, two calls, two checkpoints and an event."""
    db = sqlite3.connect(str(path), isolation_level=None)
    migrate(db, target=3)
    db.execute(
        "INSERT INTO sessions (id, kind, scenario, title, created_at, updated_at, status,"
        " state_json, prompt_snapshot_json, meta_json) VALUES"
        " ('s1', 'roundtable', 'default', 'Old session', 1, 9, 'ended', ?, ?, ?)",
        (dumps(STATE_2), dumps({"system.md": "never used"}), dumps({"model": "m"})),
    )
    db.execute("INSERT INTO events (session_id, seq, ts, type, json) VALUES ('s1', 1, 5, 'notice',"
               " ?)", (dumps(EVENT),))
    db.execute(
        "INSERT INTO calls (id, session_id, seq, actor_id, model, endpoint, request_json,"
        " response_text, status, error, prompt_tokens, completion_tokens, usage_estimated,"
        " latency_ms, first_token_ms, cost_usd, finish_reason, started_at, finished_at) VALUES"
        " ('c1', 's1', 1, 'alice', 'm', 'offline', ?, 'CALL: passTurn()', 'ok', NULL, 120, 7,"
        " 1, 812.5, 90.0, 0.0012, 'stop', 2, 3)",
        (dumps(REQUEST),),
    )
    db.execute(
        "INSERT INTO calls (id, session_id, seq, actor_id, model, endpoint, request_json,"
        " response_text, status, error, started_at) VALUES"
        " ('c2', 's1', 2, 'bob', 'm', 'offline', ?, 'half a rep', 'interrupted', 'stopped', 4)",
        (dumps(REQUEST),),
    )
    for seq, action, state in ((1, "infer", STATE_1), (2, "run_tools", STATE_2)):
        db.execute("INSERT INTO checkpoints (session_id, seq, action, state_json, ts)"
                   " VALUES ('s1', ?, ?, ?, ?)", (seq, action, dumps(state), seq + 2))
    db.close()


@pytest.fixture
def migrated(tmp_path: Path):
    path = tmp_path / "old.sqlite3"
    old_store(path)
    with SessionStore.open(path) as store:
        yield store


def columns(store: SessionStore, table: str) -> set[str]:
    return {row[1] for row in store._db.execute(f"PRAGMA table_info({table})")}


def test_an_old_store_is_brought_to_the_latest_schema(migrated):
    assert schema_version(migrated._db) == LATEST_VERSION


def test_the_session_reads_back_as_it_was(migrated):
    record = migrated.get_session("s1")
    assert (record.kind, record.scenario, record.title, record.status) == (
        "roundtable", "default", "Old session", "ended")
    assert (record.created_at, record.updated_at) == (1, 9)
    assert record.state == STATE_2
    assert record.meta == {"model": "m"}


def test_the_calls_read_back_as_they_were_and_are_replies(migrated):
    first, second = migrated.calls("s1")
    assert first.request == REQUEST and second.request == REQUEST
    assert (first.status, first.response_text, first.prompt_tokens, first.usage_estimated) == (
        CallStatus.OK, "CALL: passTurn()", 120, True)
    assert (first.latency_ms, first.cost_usd, first.finish_reason, first.finished_at) == (
        812.5, 0.0012, "stop", 3)
    assert (second.status, second.response_text, second.error) == (
        CallStatus.INTERRUPTED, "half a rep", "stopped")
    assert [(c.purpose, c.label, c.layers) for c in (first, second)] == [("reply", "", [])] * 2


def test_the_checkpoints_and_events_read_back_as_they_were(migrated):
    assert [(c.seq, c.action, c.state, c.ts) for c in migrated.checkpoints("s1")] == [
        (1, "infer", STATE_1, 3), (2, "run_tools", STATE_2, 4)]
    assert migrated.events("s1") == [event_from_json(dumps(EVENT))]


def test_the_old_text_columns_and_the_prompt_snapshot_column_are_gone(migrated):
    assert "prompt_snapshot_json" not in columns(migrated, "sessions")
    assert "state_json" not in columns(migrated, "sessions") | columns(migrated, "checkpoints")
    assert "request_json" not in columns(migrated, "calls")
    assert {"purpose", "label", "layers_manifest", "request_manifest"} <= columns(migrated, "calls")


def test_identical_old_texts_are_stored_once(migrated):
    blobs = migrated._db.execute("SELECT COUNT(*), SUM(length(data)) FROM blobs").fetchone()
    distinct = len(dumps(REQUEST)) + len(dumps(STATE_1)) + len(dumps(STATE_2))
    assert blobs[1] < distinct  # the two calls' requests and both states share chunks


def test_a_migrated_session_goes_on_recording(migrated):
    migrated.begin_call("s1", "c3", "alice", "m", "offline", REQUEST, purpose="observer")
    migrated.record_step("s1", action="infer", state={"meeting": {"turn": 3}}, events=[])
    assert [c.purpose for c in migrated.calls("s1")] == ["reply", "reply", "observer"]
    assert migrated.get_session("s1").state == {"meeting": {"turn": 3}}
