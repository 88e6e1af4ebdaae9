"""The SQLite session store: schema migrations, sessions, events, calls and checkpoints."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

from roundtable_desktop.domain.calls import CallOutcome, CallStatus, Usage
from roundtable_desktop.domain.events import (
    ActionStarted,
    CallFinished,
    CallStarted,
    Notice,
    SessionStarted,
    StateChanged,
    ToolRan,
)
from roundtable_desktop.domain.prompts import LayerText
from roundtable_desktop.domain.tools import ToolCall, ToolResult, ToolStatus
from roundtable_desktop.store import database
from roundtable_desktop.store.database import SessionStore
from roundtable_desktop.store.errors import SessionNotFound, StoreError
from roundtable_desktop.store.migrations import LATEST_VERSION, migrate, schema_version

REQUEST = {
    "model": "fireworks/gpt-oss-20b",
    "messages": [
        {"role": "system", "content": "You are Alice."},
        {"role": "user", "content": "<section>the context window</section>"},
    ],
    "stream": True,
}


class FakeClock:
    def __init__(self, now: float = 1_700_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "nested" / "folder" / "sessions.sqlite3"


@pytest.fixture
def store(db_path: Path):
    with SessionStore.open(db_path) as opened:
        yield opened


def new_session(store: SessionStore, title: str = "Demo") -> str:
    return store.create_session("roundtable", "default", title, {"turn": 1})


def raw(path: Path) -> sqlite3.Connection:
    """A second, independent connection, as another process would have."""
    return sqlite3.connect(str(path))


# -- opening and migrations ------------------------------------------------------------
def test_opening_a_new_store_creates_its_folder_and_applies_every_migration(db_path):
    with SessionStore.open(db_path):
        pass
    with raw(db_path) as other:
        assert schema_version(other) == LATEST_VERSION
        tables = {r[0] for r in other.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"sessions", "events", "calls", "checkpoints"} <= tables


def test_opening_a_store_turns_on_wal_and_foreign_keys(store, db_path):
    assert store._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store._db.execute("PRAGMA foreign_keys").fetchone()[0] == 1


def test_opening_an_older_store_applies_the_missing_migrations(db_path):
    db_path.parent.mkdir(parents=True)
    old = sqlite3.connect(str(db_path), isolation_level=None)
    migrate(old, target=1)
    old.execute(
        "INSERT INTO sessions (id, kind, scenario, title, created_at, updated_at)"
        " VALUES ('abc', 'roundtable', 'default', 'Old one', 1, 1)"
    )
    old.close()

    with SessionStore.open(db_path) as store:
        assert schema_version(store._db) == LATEST_VERSION
        assert store.get_session("abc").title == "Old one"
        store.begin_call("abc", "c1", "alice", "m", "offline", REQUEST)
        assert [c.id for c in store.calls("abc")] == ["c1"]


def test_reopening_an_up_to_date_store_applies_nothing(db_path):
    with SessionStore.open(db_path) as store:
        assert migrate(store._db) == []


def test_a_store_written_by_a_newer_version_is_refused(db_path):
    with SessionStore.open(db_path):
        pass
    with raw(db_path) as other:
        other.execute(f"PRAGMA user_version = {LATEST_VERSION + 1}")

    with pytest.raises(StoreError, match="newer version") as caught:
        SessionStore.open(db_path)
    assert str(db_path) in caught.value.message


def test_a_corrupt_file_is_refused_with_a_message_naming_it(db_path):
    db_path.parent.mkdir(parents=True)
    db_path.write_bytes(random.Random(7).randbytes(8192))

    with pytest.raises(StoreError) as caught:
        SessionStore.open(db_path)

    message = caught.value.message
    assert str(db_path) in message
    assert "not a roundtable session store" in message
    assert "Move it aside" in message
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


def test_a_text_file_is_refused_as_not_a_store(db_path):
    db_path.parent.mkdir(parents=True)
    db_path.write_text("these are my notes, not a database\n" * 20)

    with pytest.raises(StoreError, match="not a roundtable session store"):
        SessionStore.open(db_path)


def test_another_programs_sqlite_database_is_refused_and_left_untouched(db_path):
    db_path.parent.mkdir(parents=True)
    with raw(db_path) as other:
        other.execute("CREATE TABLE recipes (name TEXT)")

    with pytest.raises(StoreError, match="another program"):
        SessionStore.open(db_path)
    with raw(db_path) as other:
        assert schema_version(other) == 0


def test_a_folder_given_as_the_store_path_is_refused(tmp_path):
    with pytest.raises(StoreError, match="is a folder"):
        SessionStore.open(tmp_path)


def test_a_closed_store_reports_a_store_error_not_a_sqlite_error(db_path):
    store = SessionStore.open(db_path)
    store.close()
    with pytest.raises(StoreError):
        store.list_sessions()


# -- sessions --------------------------------------------------------------------------
def test_a_session_round_trips(store):
    session_id = store.create_session(
        "negotiation",
        "cb",
        "Title with ünïcode",
        {"phase": "OBSERVE", "nested": {"a": [1, 2]}},
        {"seat": "ALLY"},
    )
    record = store.get_session(session_id)
    assert (record.id, record.kind, record.scenario, record.title, record.status) == (
        session_id,
        "negotiation",
        "cb",
        "Title with ünïcode",
        "active",
    )
    assert record.state == {"phase": "OBSERVE", "nested": {"a": [1, 2]}}
    assert record.meta == {"seat": "ALLY"}


def test_save_state_replaces_the_state_and_can_end_the_session(store):
    session_id = new_session(store)
    store.save_state(session_id, {"turn": 2})
    assert store.get_session(session_id).state == {"turn": 2}
    assert store.get_session(session_id).status == "active"

    store.save_state(session_id, {"turn": 3}, status="ended")
    assert store.get_session(session_id).status == "ended"


def test_save_state_refuses_an_unknown_status(store):
    with pytest.raises(StoreError, match="'active' or 'ended'"):
        store.save_state(new_session(store), {}, status="paused")


def test_saving_the_state_of_an_unknown_session_raises_session_not_found(store):
    with pytest.raises(SessionNotFound):
        store.save_state("nope", {})


def test_sessions_are_listed_most_recently_active_first(db_path):
    clock = FakeClock()
    with SessionStore.open(db_path, clock=clock) as store:
        first = new_session(store, "first")
        clock.now += 10
        second = new_session(store, "second")
        clock.now += 10
        store.save_state(first, {"turn": 9})

        assert [s.id for s in store.list_sessions(with_empty=True)] == [first, second]


def test_list_sessions_counts_calls_and_honours_the_limit(store):
    ids = [new_session(store, f"s{n}") for n in range(3)]
    store.begin_call(ids[2], "c1", "alice", "m", "offline", REQUEST)
    listed = store.list_sessions(limit=2, with_empty=True)
    assert len(listed) == 2
    assert {s.id: s.call_count for s in listed}[ids[2]] == 1


def test_a_session_nothing_was_done_in_is_not_listed(store):
    untouched = new_session(store, "opened and closed")
    acted = new_session(store, "one action")
    store.add_checkpoint(acted, "next_turn", {"turn": 2})
    called = new_session(store, "one call")
    store.begin_call(called, "c1", "alice", "m", "offline", REQUEST)

    assert {s.id for s in store.list_sessions()} == {acted, called}
    assert not store.session_used(untouched)
    assert store.latest_session_id() in {acted, called}


def test_an_empty_store_has_no_latest_session(store):
    assert store.latest_session_id() is None


def test_get_session_of_an_unknown_id_raises_session_not_found(store):
    with pytest.raises(SessionNotFound, match="no stored session"):
        store.get_session("0" * 32)


class FixedIds:
    """Stands in for the uuid module so tests can make ids that share a prefix."""

    def __init__(self, *hexes: str) -> None:
        self._hexes = list(hexes)

    def uuid4(self) -> FixedIds._Id:
        return FixedIds._Id(self._hexes.pop(0))

    class _Id:
        def __init__(self, hex_: str) -> None:
            self.hex = hex_


@pytest.fixture
def prefixed_sessions(store, monkeypatch) -> SessionStore:
    monkeypatch.setattr(database, "uuid", FixedIds("abc111", "abc222", "def333"))
    for _ in range(3):
        new_session(store)
    return store


def test_resolve_session_finds_the_one_id_a_prefix_names(prefixed_sessions):
    assert prefixed_sessions.resolve_session("abc1") == "abc111"
    assert prefixed_sessions.resolve_session("d") == "def333"


def test_resolve_session_accepts_a_whole_id(prefixed_sessions):
    assert prefixed_sessions.resolve_session("abc222") == "abc222"


def test_resolve_session_refuses_an_ambiguous_prefix(prefixed_sessions):
    with pytest.raises(StoreError, match="More than one session"):
        prefixed_sessions.resolve_session("abc")


def test_resolve_session_refuses_a_prefix_matching_nothing(prefixed_sessions):
    with pytest.raises(SessionNotFound, match="No stored session id starts with 'zz'"):
        prefixed_sessions.resolve_session("zz")


def test_resolve_session_refuses_an_empty_prefix(prefixed_sessions):
    with pytest.raises(SessionNotFound):
        prefixed_sessions.resolve_session("  ")


def test_deleting_a_session_removes_its_events_calls_and_checkpoints(store, db_path):
    session_id = new_session(store)
    store.append_event(session_id, Notice(message="hi"))
    store.begin_call(session_id, "c1", "alice", "m", "offline", REQUEST)
    store.add_checkpoint(session_id, "infer", {"turn": 1})

    store.delete_session(session_id)

    with raw(db_path) as other:
        for table in ("sessions", "events", "calls", "checkpoints"):
            assert other.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] == 0


# -- events and checkpoints ------------------------------------------------------------
def test_events_read_back_in_order_as_the_same_models(store):
    session_id = new_session(store)
    outcome = CallOutcome(status=CallStatus.OK, text="CALL: passTurn()")
    sent = [
        SessionStarted(kind="roundtable", scenario="default", title="Demo"),
        ActionStarted(action="infer", actor_id="alice"),
        CallStarted(call_id="c1", actor_id="alice", model="m", endpoint="offline", request=REQUEST),
        CallFinished(call_id="c1", actor_id="alice", outcome=outcome),
        ToolRan(
            actor_id="alice",
            result=ToolResult(call=ToolCall(name="passTurn"), status=ToolStatus.OK),
        ),
        StateChanged(part="turn"),
    ]
    for event in sent:
        store.append_event(session_id, event)

    assert store.events(session_id) == sent


def test_an_event_with_a_lone_surrogate_is_kept_with_a_replacement_character(store):
    session_id = new_session(store)
    store.append_event(session_id, Notice(message="half an emoji \ud83d here"))
    assert [e.message for e in store.events(session_id)] == ["half an emoji \ufffd here"]


def test_appending_an_event_numbers_it_within_its_session(store):
    first, second = new_session(store), new_session(store)
    assert store.append_event(first, Notice(message="a")) == 1
    assert store.append_event(second, Notice(message="b")) == 1
    assert store.append_event(first, Notice(message="c")) == 2


def test_appending_an_event_to_an_unknown_session_raises_session_not_found(store):
    with pytest.raises(SessionNotFound):
        store.append_event("missing", Notice(message="lost"))


def test_an_event_this_version_cannot_read_is_skipped(store):
    session_id = new_session(store)
    store.append_event(session_id, Notice(message="kept"))
    store._db.execute(
        "INSERT INTO events (session_id, seq, ts, type, json) VALUES (?, 99, 0, 'future', ?)",
        (session_id, '{"type": "future_kind_event"}'),
    )
    assert [e.type for e in store.events(session_id)] == ["notice"]


def test_the_events_of_one_write_are_one_row_and_positions_run_on_across_rows(store):
    session_id = new_session(store)
    assert store.append_event(session_id, Notice(message="one")) == 1
    store.record_step(session_id, action="infer", state={"turn": 1},
                      events=[Notice(message="two"), Notice(message="three")])
    assert store.append_event(session_id, Notice(message="four")) == 4
    rows = store._db.execute("SELECT seq, count, type FROM events ORDER BY seq").fetchall()
    assert [tuple(r) for r in rows] == [(1, 1, "notice"), (2, 2, "batch"), (4, 1, "notice")]
    assert [e.message for e in store.events(session_id)] == ["one", "two", "three", "four"]


def test_a_step_with_no_events_writes_no_events_row(store):
    session_id = new_session(store)
    store.record_step(session_id, action="infer", state={"turn": 1}, events=[])
    assert store.events(session_id) == []
    assert store.append_event(session_id, Notice(message="first")) == 1


def test_checkpoints_keep_the_state_after_each_action_in_order(store):
    session_id = new_session(store)
    assert store.add_checkpoint(session_id, "infer", {"turn": 1}) == 1
    assert store.add_checkpoint(session_id, "run_tools", {"turn": 2}) == 2

    found = store.checkpoints(session_id)
    assert [(c.seq, c.action, c.state) for c in found] == [
        (1, "infer", {"turn": 1}),
        (2, "run_tools", {"turn": 2}),
    ]


# -- calls -----------------------------------------------------------------------------
def test_a_begun_call_is_on_disk_before_it_finishes(store, db_path):
    session_id = new_session(store)
    store.begin_call(session_id, "c1", "alice", "m", "https://api.example/v1", REQUEST)

    with raw(db_path) as other:
        (status,) = other.execute("SELECT status FROM calls WHERE id = 'c1'").fetchone()
        stored = b"".join(row[0] for row in other.execute("SELECT data FROM blobs"))
    assert status == "pending"
    assert b"<section>the context window</section>" in stored


def test_a_begun_call_reads_back_with_its_request_as_sent(store):
    session_id = new_session(store)
    store.begin_call(session_id, "c1", "alice", "m", "offline", REQUEST)
    call = store.call("c1")
    assert (call.session_id, call.seq, call.actor_id, call.status) == (
        session_id,
        1,
        "alice",
        CallStatus.PENDING,
    )
    assert call.request == REQUEST
    assert call.user_text() == "<section>the context window</section>"


def test_a_call_keeps_its_purpose_label_and_prompt_layers(store):
    session_id = new_session(store)
    layers = [
        LayerText(name="persona", source="debate/persona.md", text="You are Alice.\nBe brief."),
        LayerText(name="language", source="runtime", text="Réponds en français 😀"),
    ]
    store.begin_call(session_id, "c1", "alice", "m", "offline", REQUEST,
                     purpose="observer", label="Alice observes", layers=layers)
    call = store.call("c1")
    assert (call.purpose, call.label, call.layers) == ("observer", "Alice observes", layers)


def test_a_call_begun_without_a_purpose_is_a_reply_with_no_layers(store):
    session_id = new_session(store)
    store.begin_call(session_id, "c1", "alice", "m", "offline", REQUEST)
    (call,) = store.calls(session_id)
    assert (call.purpose, call.label, call.layers) == ("reply", "", [])


def test_calls_of_the_same_actor_share_their_stored_layers(store):
    session_id = new_session(store)
    layers = [LayerText(name="persona", source="p.md", text="A long persona. " * 500)]
    store.begin_call(session_id, "c1", "alice", "m", "offline", REQUEST, layers=layers)
    count = store._db.execute("SELECT COUNT(*) FROM blobs").fetchone()[0]
    store.begin_call(session_id, "c2", "alice", "m", "offline", REQUEST, layers=layers)
    assert store._db.execute("SELECT COUNT(*) FROM blobs").fetchone()[0] == count
    assert store.call("c2").layers == layers


def test_begin_call_strips_credential_fields_from_the_request(store):
    session_id = new_session(store)
    leaky = {
        **REQUEST,
        "api_key": "sk-planted",
        "headers": {"Authorization": "Bearer sk-planted", "X-Api-Key": "sk-planted"},
        "extra": [{"apiKey": "sk-planted", "keep": 1}],
    }
    store.begin_call(session_id, "c1", "alice", "m", "offline", leaky)

    call = store.call("c1")
    assert call.request == {**REQUEST, "headers": {}, "extra": [{"keep": 1}]}
    stored = b"".join(row[0] for row in store._db.execute("SELECT data FROM blobs"))
    assert b"sk-planted" not in stored


def test_a_recorded_call_started_event_is_stripped_of_credential_fields(store):
    session_id = new_session(store)
    leaky = {**REQUEST, "headers": {"authorization": "Bearer sk-planted"}}
    store.append_event(
        session_id,
        CallStarted(call_id="c1", actor_id=None, model="m", endpoint="offline", request=leaky),
    )
    stored = store._db.execute("SELECT json FROM events").fetchone()[0]
    assert "sk-planted" not in stored


def test_finishing_a_call_records_its_outcome(store):
    session_id = new_session(store)
    store.begin_call(session_id, "c1", "alice", "m", "offline", REQUEST)
    store.finish_call(
        "c1",
        CallOutcome(
            status=CallStatus.FAILED,
            text="partial",
            usage=Usage(prompt_tokens=120, completion_tokens=7, estimated=True),
            latency_ms=812.5,
            first_token_ms=90.0,
            cost_usd=0.0012,
            error="The server closed the stream.",
            finish_reason="length",
        ),
    )
    call = store.call("c1")
    assert call.status == CallStatus.FAILED
    assert call.response_text == "partial"
    assert (call.prompt_tokens, call.completion_tokens, call.usage_estimated) == (120, 7, True)
    assert (call.latency_ms, call.first_token_ms, call.cost_usd) == (812.5, 90.0, 0.0012)
    assert (call.error, call.finish_reason) == ("The server closed the stream.", "length")
    assert call.finished_at is not None


def test_partial_text_is_kept_while_the_call_is_pending(store):
    session_id = new_session(store)
    store.begin_call(session_id, "c1", "alice", "m", "offline", REQUEST)
    store.update_call_text("c1", "Hello, wor")
    assert store.call("c1").response_text == "Hello, wor"


def test_partial_text_arriving_after_the_call_finished_is_ignored(store):
    session_id = new_session(store)
    store.begin_call(session_id, "c1", "alice", "m", "offline", REQUEST)
    store.finish_call("c1", CallOutcome(status=CallStatus.OK, text="final"))
    store.update_call_text("c1", "stale")
    assert store.call("c1").response_text == "final"


def test_finishing_a_call_that_was_never_begun_raises_store_error(store):
    with pytest.raises(StoreError, match="No call ghost"):
        store.finish_call("ghost", CallOutcome(status=CallStatus.OK))


def test_calls_are_numbered_in_the_order_they_began(store):
    session_id = new_session(store)
    for call_id in ("b", "a", "c"):
        store.begin_call(session_id, call_id, None, "m", "offline", REQUEST)
    assert [(c.seq, c.id) for c in store.calls(session_id)] == [(1, "b"), (2, "a"), (3, "c")]


def test_a_reply_with_a_lone_surrogate_is_kept_rather_than_lost(store):
    session_id = new_session(store)
    store.begin_call(session_id, "c1", "alice", "m", "offline", REQUEST)
    store.finish_call("c1", CallOutcome(status=CallStatus.OK, text="ok \ud800 still here"))
    assert store.call("c1").response_text == "ok \ufffd still here"


def test_calls_left_pending_by_a_killed_process_are_marked_interrupted_on_reopen(db_path):
    killed = SessionStore.open(db_path)  # never closed: the process "died"
    session_id = new_session(killed)
    killed.begin_call(session_id, "done", "alice", "m", "offline", REQUEST)
    killed.finish_call("done", CallOutcome(status=CallStatus.OK, text="complete"))
    killed.begin_call(session_id, "inflight", "bob", "m", "offline", REQUEST)
    killed.update_call_text("inflight", "half a rep")

    with SessionStore.open(db_path) as reopened:
        assert reopened.mark_interrupted_calls(session_id) == 1
        inflight, done = reopened.call("inflight"), reopened.call("done")
    killed.close()

    assert inflight.status == CallStatus.INTERRUPTED
    assert inflight.response_text == "half a rep"
    assert "stopped before this call finished" in (inflight.error or "")
    assert (done.status, done.response_text) == (CallStatus.OK, "complete")


def test_reopen_session_marks_interrupted_calls_and_returns_the_session(store):
    session_id = new_session(store)
    store.begin_call(session_id, "c1", "alice", "m", "offline", REQUEST)
    record = store.reopen_session(session_id)
    assert record.id == session_id
    assert store.call("c1").status == CallStatus.INTERRUPTED
