"""Concurrent calls of one session against the fake OpenAI-compatible server at 200 ms
latency, recorded in the store: the limit holds (the server counts), calls under the
limit overlap, and Stop leaves every call cancelled with the text it had."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from roundtable_desktop.domain.calls import CallStatus, ChatMessage, ChatRequest
from roundtable_desktop.domain.events import Event, TokenReceived
from roundtable_desktop.engine.bus import EventBus
from roundtable_desktop.engine.model_calls import ModelCall, ModelCaller
from roundtable_desktop.llm.openai_compat import OpenAICompatClient
from roundtable_desktop.store.database import SessionStore
from roundtable_desktop.store.recorder import SessionRecorder
from tests.fakes.openai_fixture import FakeOpenAI, fake_openai  # noqa: F401

LATENCY_S = 0.2
pytestmark = pytest.mark.slow


@pytest.fixture
def server(fake_openai: FakeOpenAI) -> Iterator[FakeOpenAI]:  # noqa: F811
    fake_openai.reset()
    yield fake_openai
    fake_openai.reset()


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SessionStore]:
    with SessionStore.open(tmp_path / "calls.sqlite3") as opened:
        yield opened


def calls(n: int) -> list[ModelCall]:
    return [ModelCall(actor_id=f"agent{i}", label=f"agent {i}", request=ChatRequest(
        model="fake", messages=[ChatMessage(role="user", content=f"Question {i}")],
        purpose="stance", kind="test")) for i in range(n)]


def recorded_caller(server: FakeOpenAI, store: SessionStore, parallel: int,
                    events: list[Event]) -> tuple[ModelCaller, str]:
    session_id = store.create_session("test", "default", "concurrency", {}, {})
    bus = EventBus()
    bus.subscribe(SessionRecorder(store, session_id, lambda: "{}"), first=True)
    bus.subscribe(events.append)
    client = OpenAICompatClient(server.base_url, None, max_retries=0)
    return ModelCaller(client=client, bus=bus, parallel=parallel), session_id


def run_calls(caller: ModelCaller, n: int) -> tuple[list, float]:
    async def go():
        started = time.perf_counter()
        try:
            outcomes = await caller.call_many(calls(n))
        finally:
            await caller.client.aclose()
        return outcomes, time.perf_counter() - started

    return asyncio.run(go())


def one_call_s(server: FakeOpenAI, store: SessionStore) -> float:
    server.script([{"kind": "ok", "text": "hi there", "latency_s": LATENCY_S}])
    caller, _ = recorded_caller(server, store, 1, [])
    return run_calls(caller, 1)[1]


def test_eight_calls_with_limit_eight_take_well_under_twice_one_call(server, store):
    single = one_call_s(server, store)
    server.reset()
    server.script([{"kind": "ok", "text": "hi there", "latency_s": LATENCY_S, "repeat": 8}])
    caller, session_id = recorded_caller(server, store, 8, [])
    outcomes, elapsed = run_calls(caller, 8)
    assert [o.status for o in outcomes] == [CallStatus.OK] * 8
    assert elapsed < 1.5 * single, (elapsed, single)
    assert server.stats()["max_in_flight"] == 8
    rows = store.calls(session_id)
    assert [r.status for r in rows] == [CallStatus.OK] * 8
    assert {r.purpose for r in rows} == {"stance"}


def test_with_limit_two_never_more_than_two_are_in_flight(server, store):
    server.script([{"kind": "ok", "text": "hi there", "latency_s": 0.05, "repeat": 8}])
    caller, _ = recorded_caller(server, store, 2, [])
    outcomes, _ = run_calls(caller, 8)
    assert [o.status for o in outcomes] == [CallStatus.OK] * 8
    stats = server.stats()
    assert stats["count"] == 8 and stats["max_in_flight"] == 2


def test_stop_mid_stream_leaves_eight_cancelled_rows_each_with_its_text(server, store):
    server.script([{"kind": "ok", "text": "word " * 400, "chunk_size": 5, "delay_s": 0.02,
                    "repeat": 8}])
    events: list[Event] = []
    caller, session_id = recorded_caller(server, store, 8, events)

    async def go():
        task = asyncio.ensure_future(caller.call_many(calls(8)))
        deadline = time.monotonic() + 10
        while len({e.call_id for e in events if isinstance(e, TokenReceived)}) < 8:
            assert time.monotonic() < deadline, "not every call streamed"
            await asyncio.sleep(0.01)
        caller.cancel_calls()
        try:
            return await task
        finally:
            await caller.client.aclose()

    outcomes = asyncio.run(go())
    assert [o.status for o in outcomes] == [CallStatus.CANCELLED] * 8
    rows = store.calls(session_id)
    assert len(rows) == 8
    assert all(r.status == CallStatus.CANCELLED and r.response_text.startswith("word")
               for r in rows)
