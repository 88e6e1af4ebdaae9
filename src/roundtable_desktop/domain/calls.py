"""Model calls as data: the request exactly as sent, usage, and how a call ended.

Must not perform I/O; llm/ sends requests, store/ records them.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, Field


class ChatMessage(BaseModel):
    role: Literal["system", "user", "assistant", "tool"]
    content: str


class ChatRequest(BaseModel):
    """The body of one chat-completions request, minus transport details.

    `to_body()` is the JSON object that is POSTed; it is also what the store records
    and what the Calls view shows, so shown is sent.
    """

    model: str
    messages: list[ChatMessage]
    temperature: float | None = None
    max_tokens: int | None = None
    stream: bool = True

    def to_body(self) -> dict:
        body: dict = {
            "model": self.model,
            "messages": [m.model_dump() for m in self.messages],
            "stream": self.stream,
        }
        if self.stream:
            body["stream_options"] = {"include_usage": True}
        if self.temperature is not None:
            body["temperature"] = self.temperature
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        return body

    def user_text(self) -> str:
        """The last user message: for a roundtable call, the serialized context window."""
        for m in reversed(self.messages):
            if m.role == "user":
                return m.content
        return ""


class Usage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    estimated: bool = False

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class CallStatus(StrEnum):
    PENDING = "pending"
    OK = "ok"
    CANCELLED = "cancelled"
    FAILED = "failed"
    PARTIAL = "partial"
    INTERRUPTED = "interrupted"


class CallOutcome(BaseModel):
    """How a call ended. `text` holds whatever arrived, even for failures."""

    status: CallStatus
    text: str = ""
    usage: Usage = Field(default_factory=Usage)
    latency_ms: float = 0.0
    first_token_ms: float | None = None
    cost_usd: float | None = None
    error: str | None = None
    finish_reason: str | None = None
