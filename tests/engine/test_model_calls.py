"""Concurrent model calls: a per-session limit, events keyed by call id, Stop cancels all,
every partial kept, and a cancelled caller still records its call."""

from __future__ import annotations

import asyncio

import pytest

from roundtable_desktop.domain.calls import CallStatus, ChatMessage, ChatRequest
from roundtable_desktop.domain.events import CallFinished, CallStarted, Event, TokenReceived
from roundtable_desktop.engine.bus import EventBus
from roundtable_desktop.engine.model_calls import ModelCall, ModelCaller
from tests.fakes.paced_client import PacedClient


def request(n: int) -> ChatRequest:
    return ChatRequest(model="m", messages=[ChatMessage(role="user", content=f"q{n}")],
                       purpose="stance", kind="test")


def caller(client: PacedClient, parallel: int) -> tuple[ModelCaller, list[Event]]:
    events: list[Event] = []
    bus = EventBus()
    bus.subscribe(events.append)
    return ModelCaller(client=client, bus=bus, parallel=parallel), events


def calls(n: int) -> list[ModelCall]:
    return [ModelCall(actor_id=f"a{i}", request=request(i), label=f"agent {i}")
            for i in range(n)]


def test_call_many_returns_every_outcome_in_the_order_given():
    client = PacedClient(words=3, delay_s=0.001)
    runner, _ = caller(client, 4)
    outcomes = asyncio.run(runner.call_many(calls(6)))
    assert [o.status for o in outcomes] == [CallStatus.OK] * 6
    assert [r.messages[0].content for r in client.requests] == [f"q{i}" for i in range(6)]


def test_no_more_calls_stream_at_once_than_the_limit():
    client = PacedClient(words=4, delay_s=0.005)
    runner, _ = caller(client, 2)
    asyncio.run(runner.call_many(calls(8)))
    assert client.max_in_flight == 2


def test_calls_under_the_limit_all_stream_at_once():
    client = PacedClient(words=4, delay_s=0.005)
    runner, _ = caller(client, 8)
    asyncio.run(runner.call_many(calls(8)))
    assert client.max_in_flight == 8


def test_every_stream_is_keyed_by_its_call_id():
    client = PacedClient(words=3, delay_s=0.002)
    runner, events = caller(client, 4)
    asyncio.run(runner.call_many(calls(3)))
    started = {e.call_id: e for e in events if isinstance(e, CallStarted)}
    assert len(started) == 3
    for call_id in started:
        tokens = [e.text for e in events if isinstance(e, TokenReceived) and e.call_id == call_id]
        assert "".join(tokens) == "w0 w1 w2 "
    finished = [e for e in events if isinstance(e, CallFinished)]
    assert {e.call_id for e in finished} == set(started)
    assert {e.purpose for e in finished} == {"stance"}


def test_call_started_says_what_the_call_is_for_and_who_makes_it():
    runner, events = caller(PacedClient(words=1, delay_s=0), 1)
    asyncio.run(runner.call_many(calls(1)))
    started = next(e for e in events if isinstance(e, CallStarted))
    assert (started.actor_id, started.purpose, started.kind, started.label) == (
        "a0", "stance", "test", "agent 0")
    assert "purpose" not in started.request and "kind" not in started.request


def test_busy_while_any_call_runs_or_waits():
    client = PacedClient(words=20, delay_s=0.01)  # 3 calls one after another: ~600 ms
    runner, _ = caller(client, 1)
    seen: list[bool] = []

    async def main() -> None:
        task = asyncio.ensure_future(runner.call_many(calls(3)))
        for _ in range(20):
            await asyncio.sleep(0.005)
            seen.append(runner.busy)
        await task
        seen.append(runner.busy)

    asyncio.run(main())
    assert all(seen[:-1]) and seen[-1] is False


def test_stop_cancels_every_call_in_flight_and_each_keeps_its_partial_text():
    client = PacedClient(words=50, delay_s=0.01)
    runner, events = caller(client, 8)

    async def main():
        task = asyncio.ensure_future(runner.call_many(calls(8)))
        while sum(isinstance(e, TokenReceived) for e in events) < 16:
            await asyncio.sleep(0.005)
        runner.cancel_calls()
        return await task

    outcomes = asyncio.run(main())
    assert [o.status for o in outcomes] == [CallStatus.CANCELLED] * 8
    assert all(o.text.startswith("w0 ") for o in outcomes)
    assert not runner.busy


def test_calls_waiting_for_a_slot_are_never_sent_after_stop():
    client = PacedClient(words=50, delay_s=0.01)
    runner, events = caller(client, 2)

    async def main():
        task = asyncio.ensure_future(runner.call_many(calls(6)))
        while not any(isinstance(e, TokenReceived) for e in events):
            await asyncio.sleep(0.005)
        runner.cancel_calls()
        return await task

    outcomes = asyncio.run(main())
    assert len(client.requests) == 2
    assert [o.status for o in outcomes] == [CallStatus.CANCELLED] * 6
    assert sum(isinstance(e, CallStarted) for e in events) == 2


def test_a_cancelled_caller_records_every_partial_and_propagates():
    client = PacedClient(words=50, delay_s=0.01)
    runner, events = caller(client, 4)

    async def main() -> None:
        task = asyncio.ensure_future(runner.call_many(calls(4)))
        while sum(isinstance(e, TokenReceived) for e in events) < 8:
            await asyncio.sleep(0.005)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    finished = [e for e in events if isinstance(e, CallFinished)]
    assert len(finished) == 4
    assert all(e.outcome.status == CallStatus.CANCELLED and e.outcome.text for e in finished)
    assert not runner.busy


def test_the_limit_can_change_between_calls():
    client = PacedClient(words=3, delay_s=0.005)
    runner, _ = caller(client, 4)
    runner.set_parallel(1)
    asyncio.run(runner.call_many(calls(4)))
    assert runner.parallel == 1 and client.max_in_flight == 1
