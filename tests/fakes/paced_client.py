"""A fake model that streams each reply slowly and counts how many calls stream at once.

For the concurrency rules of engine/model_calls.py without a network: every request
streams `words` tokens `delay_s` apart; `max_in_flight` is the most that streamed at the
same time.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from roundtable_desktop.domain.calls import ChatRequest, Usage
from roundtable_desktop.llm.client import ChatClient, Delta, Finish, StreamItem


class PacedClient(ChatClient):
    name = "paced"
    endpoint = "paced://test"

    def __init__(self, *, words: int = 5, delay_s: float = 0.02) -> None:
        self.words = words
        self.delay_s = delay_s
        self.in_flight = 0
        self.max_in_flight = 0
        self.requests: list[ChatRequest] = []

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamItem]:
        self.requests.append(request)
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            for i in range(self.words):
                await asyncio.sleep(self.delay_s)
                yield Delta(f"w{i} ")
            yield Finish(Usage(prompt_tokens=3, completion_tokens=self.words), "stop")
        finally:
            self.in_flight -= 1
