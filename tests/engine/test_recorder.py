"""The session recorder: what each event writes to the store, and when."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from roundtable_desktop.domain.calls import CallOutcome, CallStatus, Usage
from roundtable_desktop.domain.events import (
    ActionFinished,
    ActionStarted,
    CallFinished,
    CallStarted,
    Event,
    Notice,
    PhaseChanged,
    SessionEnded,
    TokenReceived,
)
from roundtable_desktop.domain.prompts import LayerText
from roundtable_desktop.engine.base import Action
from roundtable_desktop.engine.bus import EventBus
from roundtable_desktop.store.database import SessionStore
from roundtable_desktop.store.recorder import SessionRecorder
from tests.engine_fixtures import start_recorded
from tests.fakes.scripted_model import ScriptedClient

REQUEST = {
    "model": "m",
    "messages": [{"role": "user", "content": "<section>window</section>"}],
    "stream": True,
}


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class FakeProtocol:
    """Stands in for a session protocol: just a state the recorder asks for."""

    def __init__(self) -> None:
        self.state: dict[str, Any] = {"turn": 1}

    def state_dict(self) -> dict[str, Any]:
        return dict(self.state)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "sessions.sqlite3"


@pytest.fixture
def store(db_path: Path):
    with SessionStore.open(db_path) as opened:
        yield opened


@pytest.fixture
def session_id(store: SessionStore) -> str:
    return store.create_session("roundtable", "default", "Demo", {"turn": 0})


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def protocol() -> FakeProtocol:
    return FakeProtocol()


@pytest.fixture
def recorder(store, session_id, protocol, clock) -> SessionRecorder:
    return SessionRecorder(store, session_id, protocol.state_dict, flush_every=0.5, clock=clock)


def started(call_id: str = "c1") -> CallStarted:
    return CallStarted(
        call_id=call_id, actor_id="alice", model="m", endpoint="offline", request=REQUEST
    )


def finished(call_id: str = "c1", text: str = "Hello there") -> CallFinished:
    outcome = CallOutcome(
        status=CallStatus.OK, text=text, usage=Usage(prompt_tokens=5, completion_tokens=2)
    )
    return CallFinished(call_id=call_id, actor_id="alice", outcome=outcome)


def stored_text(db_path: Path, call_id: str = "c1") -> str:
    with sqlite3.connect(str(db_path)) as other:
        row = other.execute("SELECT response_text FROM calls WHERE id = ?", (call_id,))
        return row.fetchone()[0]


def event_types(store: SessionStore, session_id: str) -> list[str]:
    return [e.type for e in store.events(session_id)]


def test_the_request_row_is_on_disk_before_the_next_subscriber_sees_call_started(recorder, db_path):
    bus = EventBus()
    bus.subscribe(recorder)
    seen_by_sender: list[str] = []

    def sender(event: Event) -> None:
        # Stands in for the code that sends the request: it runs after the recorder.
        if isinstance(event, CallStarted):
            with sqlite3.connect(str(db_path)) as other:
                row = other.execute("SELECT status FROM calls WHERE id = ?", (event.call_id,))
                seen_by_sender.append(row.fetchone()[0])

    bus.subscribe(sender)
    bus.emit(started())

    assert seen_by_sender == ["pending"]


def test_call_started_is_recorded_as_an_event_without_a_second_copy_of_the_request(
    recorder, store, session_id
):
    event = started()
    recorder(event)
    recorder(ActionFinished(action="infer"))
    stored = store.events(session_id)[0]
    assert stored.call_id == event.call_id and stored.request == {"stored_in": "calls"}
    assert store.call("c1").request == event.request


def test_call_started_passes_its_purpose_label_and_layers_to_the_calls_row(
    recorder, store, session_id
):
    layers = [LayerText(name="persona", source="negotiation/persona.md", text="You are Bo.")]
    recorder(started().model_copy(update={"purpose": "planner", "label": "Bo plans",
                                          "layers": layers}))
    recorder(ActionFinished(action="infer"))

    call = store.call("c1")
    assert (call.purpose, call.label, call.layers) == ("planner", "Bo plans", layers)
    (stored,) = [e for e in store.events(session_id) if isinstance(e, CallStarted)]
    assert (stored.purpose, stored.label, stored.layers) == ("planner", "Bo plans", [])


def test_events_wait_for_the_end_of_the_action(recorder, store, session_id):
    recorder(ActionStarted(action="infer", actor_id="alice"))
    assert event_types(store, session_id) == []
    recorder(ActionFinished(action="infer"))
    assert event_types(store, session_id) == ["action_started", "action_finished"]


def test_flush_writes_waiting_events(recorder, store, session_id):
    recorder(Notice(level="warning", message="Slow model"))
    recorder.flush()
    assert event_types(store, session_id) == ["notice"]


def test_tokens_are_never_recorded_as_events(recorder, store, session_id, clock):
    recorder(started())
    for n in range(20):
        clock.now += 0.1
        recorder(TokenReceived(call_id="c1", text="x", count=n + 1))
    recorder.flush()
    assert event_types(store, session_id) == ["call_started"]


def test_streamed_text_is_not_written_before_the_flush_interval(recorder, db_path, clock):
    recorder(started())
    clock.now = 0.2
    recorder(TokenReceived(call_id="c1", text="Hel"))
    clock.now = 0.4
    recorder(TokenReceived(call_id="c1", text="lo"))
    assert stored_text(db_path) == ""


def test_streamed_text_is_written_once_the_flush_interval_has_passed(recorder, db_path, clock):
    recorder(started())
    clock.now = 0.2
    recorder(TokenReceived(call_id="c1", text="Hel"))
    clock.now = 0.5
    recorder(TokenReceived(call_id="c1", text="lo"))
    assert stored_text(db_path) == "Hello"


def test_the_flush_interval_restarts_after_each_write(recorder, db_path, clock):
    recorder(started())
    clock.now = 0.6
    recorder(TokenReceived(call_id="c1", text="one "))
    clock.now = 0.9
    recorder(TokenReceived(call_id="c1", text="two "))
    assert stored_text(db_path) == "one "
    clock.now = 1.1
    recorder(TokenReceived(call_id="c1", text="three"))
    assert stored_text(db_path) == "one two three"


def test_flush_writes_the_text_of_calls_in_flight_at_once(recorder, db_path, clock):
    recorder(started())
    clock.now = 0.1
    recorder(TokenReceived(call_id="c1", text="not yet due"))
    recorder.flush()
    assert stored_text(db_path) == "not yet due"


def test_a_killed_process_loses_at_most_the_text_since_the_last_flush(
    recorder, db_path, session_id, clock
):
    recorder(started())
    clock.now = 0.5
    recorder(TokenReceived(call_id="c1", text="saved "))
    clock.now = 0.7
    recorder(TokenReceived(call_id="c1", text="lost"))
    # The process dies here: nothing else runs. A new process reopens the session.

    with SessionStore.open(db_path) as reopened:
        reopened.reopen_session(session_id)
        call = reopened.call("c1")
    assert (call.status, call.response_text) == (CallStatus.INTERRUPTED, "saved ")


def test_call_finished_records_the_outcome_and_the_event(recorder, store, session_id):
    recorder(started())
    recorder(finished(text="Hello there"))
    call = store.call("c1")
    assert (call.status, call.response_text, call.completion_tokens) == (
        CallStatus.OK,
        "Hello there",
        2,
    )
    recorder.flush()
    assert event_types(store, session_id) == ["call_started", "call_finished"]


def test_tokens_after_a_call_finished_do_not_change_its_text(recorder, store, clock):
    recorder(started())
    recorder(finished(text="final"))
    clock.now = 5.0
    recorder(TokenReceived(call_id="c1", text="straggler"))
    assert store.call("c1").response_text == "final"


def test_action_finished_saves_the_state_and_a_checkpoint(recorder, store, session_id, protocol):
    protocol.state = {"turn": 2, "transcript": ["hi"]}
    recorder(ActionFinished(action="infer"))

    assert store.get_session(session_id).state == {"turn": 2, "transcript": ["hi"]}
    assert store.get_session(session_id).status == "active"
    checkpoints = store.checkpoints(session_id)
    assert [(c.action, c.state) for c in checkpoints] == [
        ("infer", {"turn": 2, "transcript": ["hi"]})
    ]
    assert event_types(store, session_id) == ["action_finished"]


def test_session_ended_saves_the_final_state_and_marks_the_session_ended(
    recorder, store, session_id, protocol
):
    protocol.state = {"turn": 7, "ended": True}
    recorder(SessionEnded(reason="endMeeting"))

    record = store.get_session(session_id)
    assert (record.status, record.state) == ("ended", {"turn": 7, "ended": True})
    assert [c.action for c in store.checkpoints(session_id)] == ["session_ended"]
    assert event_types(store, session_id) == ["session_ended"]


def test_other_events_are_appended_in_the_order_they_came(recorder, store, session_id):
    recorder(ActionStarted(action="infer", actor_id="alice"))
    recorder(PhaseChanged(phase="streaming"))
    recorder(Notice(level="warning", message="Slow model"))
    recorder.flush()
    assert event_types(store, session_id) == ["action_started", "phase_changed", "notice"]


def test_a_whole_call_recorded_through_the_bus_reads_back_complete(
    recorder, store, session_id, clock
):
    bus = EventBus()
    bus.subscribe(recorder)
    bus.emit(ActionStarted(action="infer", actor_id="alice"))
    bus.emit(started())
    for n, piece in enumerate(["Hello", " ", "there"]):
        clock.now += 0.3
        bus.emit(TokenReceived(call_id="c1", text=piece, count=n + 1))
    bus.emit(finished(text="Hello there"))
    bus.emit(ActionFinished(action="infer"))

    assert event_types(store, session_id) == [
        "action_started",
        "call_started",
        "call_finished",
        "action_finished",
    ]
    assert store.call("c1").response_text == "Hello there"
    assert len(store.checkpoints(session_id)) == 1


# -- issue 9, case 10: a stalled stream still reaches the store ------------------------
def _poll(check, within_s: float) -> bool:
    """Poll `check` on the running loop's schedule (not a sleep of fixed length)."""
    async def wait() -> bool:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + within_s
        while loop.time() < deadline:
            if check():
                return True
            await asyncio.sleep(0.02)
        return check()
    return wait()


def test_text_of_a_stream_that_stalls_reaches_the_store_within_the_flush_interval(
    store, session_id, db_path
):
    recorder = SessionRecorder(store, session_id, dict, flush_every=0.5)

    async def scenario() -> tuple[str, bool]:
        recorder(started())
        recorder(TokenReceived(call_id="c1", text="word"))  # then nothing more arrives
        at_once = stored_text(db_path)
        return at_once, await _poll(lambda: stored_text(db_path) == "word", within_s=0.8)

    at_once, flushed = asyncio.run(scenario())
    assert (at_once, flushed) == ("", True)


def test_a_session_whose_model_stalls_mid_reply_has_the_first_word_on_disk(store, catalog,
                                                                           db_path):
    client = ScriptedClient("Hello from a model that then stalls")
    client.hold = asyncio.Event()

    async def scenario() -> bool:
        handle = await start_recorded(store, client, catalog)
        task = asyncio.ensure_future(handle.session.perform(Action(id="infer")))
        flushed = await _poll(lambda: _any_stored_text(db_path) == "Hello ", within_s=0.8)
        client.hold.set()
        await task
        return flushed

    assert asyncio.run(scenario())


def _any_stored_text(db_path: Path) -> str:
    with sqlite3.connect(str(db_path)) as other:
        row = other.execute("SELECT response_text FROM calls ORDER BY seq DESC").fetchone()
    return row[0] if row else ""
