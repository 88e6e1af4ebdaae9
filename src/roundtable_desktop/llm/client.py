"""The ChatClient interface every model client implements, and its stream items.

A client turns one ChatRequest into an async stream of `Delta` items ending with one
`Finish`; any failure raises an `LLMError` (see llm/errors.py). `embed` turns texts into
vectors, or None when the client offers no embeddings (the default). Clients hold no
session state. Must not import Qt, protocols or the store.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncGenerator, Sequence
from dataclasses import dataclass

from roundtable_desktop.domain.calls import ChatRequest, ToolCallRequest, Usage


@dataclass(frozen=True, slots=True)
class Delta:
    """A piece of streamed reply text."""

    text: str


@dataclass(frozen=True, slots=True)
class Finish:
    """The end of a successful stream."""

    usage: Usage
    finish_reason: str | None = None
    tool_calls: tuple[ToolCallRequest, ...] = ()


StreamItem = Delta | Finish


class ChatClient(ABC):
    """Sends chat requests. `endpoint` names where requests go (shown, never a key)."""

    name: str = "client"
    endpoint: str = ""
    offline: bool = False

    @abstractmethod
    def stream(self, request: ChatRequest) -> AsyncGenerator[StreamItem, None]:
        """Yield `Delta`s then exactly one `Finish`, or raise an `LLMError`. An async
        generator, so a reader that stops early can close it (`contextlib.aclosing`)."""

    async def embed(self, texts: Sequence[str], model: str | None = None
                    ) -> list[list[float]] | None:
        """One vector per text, in order; None when this client or its endpoint offers
        no embeddings (callers then rank by keywords alone). Raises an `LLMError` when
        the endpoint failed. Not a chat call: nothing records it."""
        return None

    def estimate_cost(self, model: str, usage: Usage) -> float | None:
        """Cost in USD for this usage, or None when the model has no price."""
        return None

    def adapt(self, request: ChatRequest) -> ChatRequest:
        """The request as this client will send it (e.g. without a `response_format` the
        endpoint refused). The protocol records what this returns: shown is sent."""
        return request

    def with_seed(self, seed: int) -> ChatClient:
        """The client for a session made with `seed`. A model that answers by a seed (the
        offline one) gives a copy that uses it; the others ignore it and give themselves."""
        return self

    def prepare(self) -> None:  # noqa: B027 - optional hook, not abstract
        """Do one-time set-up now (at start-up) rather than inside the first call."""

    async def aclose(self) -> None:  # noqa: B027 - optional hook, not abstract
        """Release connections; the default client holds none."""
