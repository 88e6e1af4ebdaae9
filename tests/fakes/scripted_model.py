"""A scriptable fake model: queue replies (or failures), read back every request."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from roundtable_desktop.domain.calls import ChatRequest, Usage
from roundtable_desktop.llm.client import ChatClient, Delta, Finish, StreamItem
from roundtable_desktop.llm.errors import LLMError


class ScriptedClient(ChatClient):
    """Answers each request with the next queued reply; an exception is raised instead.

    `hold` makes the stream wait after its first token until released, so a test can
    stop a call mid-stream.
    """

    name = "scripted"
    endpoint = "scripted://test"

    def __init__(self, *replies: str | Exception, default: str = "CALL: passTurn()") -> None:
        self.replies: list[str | Exception] = list(replies)
        self.default = default
        self.requests: list[ChatRequest] = []
        self.hold: asyncio.Event | None = None

    def queue(self, *replies: str | Exception) -> None:
        self.replies.extend(replies)

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamItem]:
        self.requests.append(request)
        reply = self.replies.pop(0) if self.replies else self.default
        if isinstance(reply, Exception):
            if isinstance(reply, LLMError) and reply.partial:
                yield Delta(reply.partial)
            raise reply
        words = reply.split(" ")
        for i, word in enumerate(words):
            await asyncio.sleep(0)
            yield Delta(word if i == len(words) - 1 else word + " ")
            if i == 0 and self.hold is not None:
                await self.hold.wait()
        yield Finish(Usage(prompt_tokens=10, completion_tokens=len(words)), "stop")
