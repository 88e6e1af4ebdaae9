"""A scriptable fake model: queue replies (or failures), read back every request.

A queued reply is text, an exception to raise, or a `ScriptedReply` with tool calls.
`refuses_response_format=True` makes it behave like a provider without JSON mode: a
request carrying `response_format` raises `ResponseFormatRefused` (consuming nothing),
and from then on `adapt()` moves the JSON instruction into the prompt, as the real client
does.

Embeddings: with no `embedder` the client offers none (`embed` returns None, as an
endpoint without `/embeddings`); an `embedder` maps the texts to vectors (fixed ones, or
a raise to fail). `embed_hold` makes `embed` wait until released. Every embed call's
texts are kept in `embedded`.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass

from roundtable_desktop.domain.calls import ChatRequest, ToolCallRequest, Usage
from roundtable_desktop.llm.client import ChatClient, Delta, Finish, StreamItem
from roundtable_desktop.llm.errors import LLMError, ResponseFormatRefused
from roundtable_desktop.llm.response_format import prompt_instead


@dataclass(frozen=True)
class ScriptedReply:
    text: str = ""
    tool_calls: tuple[ToolCallRequest, ...] = ()


class ScriptedClient(ChatClient):
    """Answers each request with the next queued reply; an exception is raised instead.

    `hold` makes the stream wait after its first token until released, so a test can
    stop a call mid-stream.
    """

    name = "scripted"
    endpoint = "scripted://test"

    def __init__(self, *replies: str | Exception | ScriptedReply,
                 default: str = "CALL: passTurn()",
                 refuses_response_format: bool = False,
                 embedder: Callable[[list[str]], list[list[float]]] | None = None) -> None:
        self.replies: list[str | Exception | ScriptedReply] = list(replies)
        self.default = default
        self.requests: list[ChatRequest] = []
        self.hold: asyncio.Event | None = None
        self.refuses_response_format = refuses_response_format
        self.refused = False
        self.embedder = embedder
        self.embedded: list[list[str]] = []
        self.embed_hold: asyncio.Event | None = None

    def queue(self, *replies: str | Exception | ScriptedReply) -> None:
        self.replies.extend(replies)

    async def embed(self, texts: Sequence[str], model: str | None = None
                    ) -> list[list[float]] | None:
        self.embedded.append(list(texts))
        if self.embed_hold is not None:
            await self.embed_hold.wait()
        await asyncio.sleep(0)
        return None if self.embedder is None else self.embedder(list(texts))

    def adapt(self, request: ChatRequest) -> ChatRequest:
        return prompt_instead(request) if self.refused else request

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamItem]:
        self.requests.append(request)
        if self.refuses_response_format and request.response_format is not None:
            self.refused = True
            raise ResponseFormatRefused(
                "scripted://test answered HTTP 400: response_format is not supported.",
                status=400)
        reply = self.replies.pop(0) if self.replies else self.default
        if isinstance(reply, Exception):
            if isinstance(reply, LLMError) and reply.partial:
                yield Delta(reply.partial)
            raise reply
        if isinstance(reply, str):
            reply = ScriptedReply(text=reply)
        words = reply.text.split(" ")
        for i, word in enumerate(words):
            await asyncio.sleep(0)
            yield Delta(word if i == len(words) - 1 else word + " ")
            if i == 0 and self.hold is not None:
                await self.hold.wait()
        finish_reason = "tool_calls" if reply.tool_calls else "stop"
        yield Finish(Usage(prompt_tokens=10, completion_tokens=len(words)), finish_reason,
                     reply.tool_calls)
