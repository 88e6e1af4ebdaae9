"""The fake OpenAI server itself, as concurrency tests rely on it: it answers many requests
at once, waits `latency_s` before the first byte, and counts requests in flight."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest

from roundtable_desktop.domain.calls import ChatMessage, ChatRequest
from roundtable_desktop.llm.client import Delta
from roundtable_desktop.llm.openai_compat import OpenAICompatClient
from tests.fakes.openai_fixture import FakeOpenAI, fake_openai  # noqa: F401

LATENCY_S = 0.2


@pytest.fixture
def server(fake_openai: FakeOpenAI) -> Iterator[FakeOpenAI]:  # noqa: F811
    fake_openai.reset()
    yield fake_openai
    fake_openai.reset()


REQUEST = ChatRequest(model="fake", messages=[ChatMessage(role="user", content="Hello")])


async def one_call(client: OpenAICompatClient) -> tuple[str, float]:
    started = time.perf_counter()
    first: float | None = None
    parts = []
    async for item in client.stream(REQUEST):
        if isinstance(item, Delta):
            first = first if first is not None else time.perf_counter() - started
            parts.append(item.text)
    return "".join(parts), first or 0.0


def calls_at_once(server: FakeOpenAI, count: int) -> list[tuple[str, float]]:
    async def go() -> list[tuple[str, float]]:
        client = OpenAICompatClient(server.base_url, None)
        try:
            return list(await asyncio.gather(*(one_call(client) for _ in range(count))))
        finally:
            await client.aclose()

    return asyncio.run(go())


def test_latency_delays_the_first_byte(server):
    server.script([{"kind": "ok", "text": "late", "latency_s": LATENCY_S}])
    [(text, first_s)] = calls_at_once(server, 1)
    assert text == "late"
    assert first_s >= LATENCY_S


def test_concurrent_requests_are_answered_at_once_and_counted(server):
    server.script([{"kind": "ok", "text": "hi", "latency_s": LATENCY_S, "repeat": 8}])
    started = time.perf_counter()
    results = calls_at_once(server, 8)
    elapsed = time.perf_counter() - started
    assert [text for text, _ in results] == ["hi"] * 8
    assert elapsed < 4 * LATENCY_S  # one after another would take 8 × the latency
    assert server.stats() == {"in_flight": 0, "max_in_flight": 8, "count": 8}


def test_requests_one_after_another_never_overlap(server):
    server.script([{"kind": "ok", "text": "hi", "latency_s": 0.05, "repeat": 3}])
    for _ in range(3):
        calls_at_once(server, 1)
    assert server.stats() == {"in_flight": 0, "max_in_flight": 1, "count": 3}


def test_reset_clears_the_stats(server):
    calls_at_once(server, 2)
    server.reset()
    assert server.stats() == {"in_flight": 0, "max_in_flight": 0, "count": 0}
