"""Hold a session's model calls open, to test what the session does while one runs.

`HeldClient` wraps any client: every stream waits at its start until `release()`.
`while_a_call_runs(session, action, then)` performs `action` until one of its calls is in
flight (`session.busy`), calls `then()` (an edit, say), releases the call, lets the
action finish and returns what `then()` returned or raised (a Refusal is returned, not
raised, so a test can read its message after the action finished).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from typing import TypeVar

from roundtable_desktop.domain.calls import ChatRequest, Usage
from roundtable_desktop.domain.refusal import Refusal
from roundtable_desktop.engine.base import Action, SessionProtocol
from roundtable_desktop.llm.client import ChatClient, StreamItem

T = TypeVar("T")
MAX_PASSES = 10_000  # event-loop passes to wait for the first call before giving up


class HeldClient(ChatClient):
    name = "held"

    def __init__(self, inner: ChatClient) -> None:
        self.inner = inner
        self.endpoint = inner.endpoint
        self.gate = asyncio.Event()

    def release(self) -> None:
        self.gate.set()

    def adapt(self, request: ChatRequest) -> ChatRequest:
        return self.inner.adapt(request)

    def estimate_cost(self, model: str, usage: Usage) -> float | None:
        return self.inner.estimate_cost(model, usage)

    async def embed(self, texts: Sequence[str], model: str | None = None
                    ) -> list[list[float]] | None:
        return await self.inner.embed(texts, model)

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamItem]:
        await self.gate.wait()
        async for item in self.inner.stream(request):
            yield item


def while_a_call_runs(session: SessionProtocol, action: Action,
                      then: Callable[[], T]) -> T | Refusal:
    """`then()` while `action` has a model call in flight (see the module docstring)."""

    async def run() -> T | Refusal:
        held = HeldClient(session.client)
        session.client = held
        task = asyncio.ensure_future(session.perform(action))
        try:
            for _ in range(MAX_PASSES):
                if session.busy or task.done():
                    break
                await asyncio.sleep(0)
            assert session.busy, f"{action.id} made no model call"
            try:
                return then()
            except Refusal as exc:
                return exc
        finally:
            held.release()
            await task
            session.client = held.inner

    return asyncio.run(run())
