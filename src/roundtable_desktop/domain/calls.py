"""Model calls as data: the request exactly as sent, usage, and how a call ended.

Must not perform I/O; llm/ sends requests, store/ records them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator, model_validator


class ChatMessage(BaseModel):
    """One message as sent. `tool_calls` (assistant) and `tool_call_id` (tool) carry
    OpenAI function calling; they are sent only when set."""

    role: Literal["system", "user", "assistant", "tool"]
    content: str
    name: str | None = None
    tool_calls: list[dict[str, Any]] | None = None
    tool_call_id: str | None = None

    def to_body(self) -> dict[str, Any]:
        return self.model_dump(exclude_none=True)


# What a call is for. Never sent: the store records it, the Calls dock filters on it, and
# the offline client picks its policy by it (with the request's `kind`).
Purpose = str
PURPOSES: tuple[str, ...] = (
    "reply", "observer", "planner", "perception", "response", "safety", "debrief",
    "stance", "claims", "merge", "repair", "memo", "draft", "test",
)


class ChatRequest(BaseModel):
    """The body of one chat-completions request, minus transport details.

    `to_body()` is the JSON object that is POSTed; it is also what the store records
    and what the Calls view shows, so shown is sent.
    """

    model: str
    messages: list[ChatMessage]
    temperature: float | None = None
    max_tokens: int | None = None
    top_p: float | None = None
    presence_penalty: float | None = None
    frequency_penalty: float | None = None
    stop: str | list[str] | None = None
    seed: int | None = None
    # {"type": "json_object"}; a provider that refuses it gets the instruction in the
    # prompt instead (llm/ remembers that per endpoint).
    response_format: dict[str, Any] | None = None
    tools: list[dict[str, Any]] | None = None  # OpenAI function tools
    tool_choice: str | dict[str, Any] | None = None
    stream: bool = True
    # Never sent: what the call is for and which session kind made it.
    purpose: Purpose = "reply"
    kind: str = ""
    # Never sent: the JSON schema a JSON reply must follow (offline policies and repair).
    response_schema: dict[str, Any] | None = None

    def to_body(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [m.to_body() for m in self.messages],
            "stream": self.stream,
        }
        if self.stream:
            body["stream_options"] = {"include_usage": True}
        for name in _OPTIONAL_BODY_FIELDS:
            value = getattr(self, name)
            if value is not None:
                body[name] = value
        return body

    def user_text(self) -> str:
        """The last user message: for a roundtable call, the serialized context window."""
        return last_user_text(m.to_body() for m in self.messages)


_OPTIONAL_BODY_FIELDS = (
    "temperature", "max_tokens", "top_p", "presence_penalty", "frequency_penalty", "stop",
    "seed", "response_format", "tools", "tool_choice",
)


def last_user_text(messages: Iterable[dict[str, Any]]) -> str:
    """The content of the last user message of a request body's messages, or ""."""
    found = ""
    for message in messages:
        if isinstance(message, dict) and message.get("role") == "user":
            found = str(message.get("content", ""))
    return found


# No call uses more tokens than this; a server saying otherwise is not believed.
MAX_TOKENS = 10**9
_COUNTS = ("prompt_tokens", "completion_tokens")


def token_count(value: Any) -> tuple[int, bool]:
    """A token count as a whole number from 0 to MAX_TOKENS, and whether `value` was one.

    Out of range it is clamped; a whole float is taken as its integer; anything else (text,
    a fraction, None, a bool, NaN) counts as 0. Counts come from servers, which may send
    anything; only an int in range is "exact".
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0, False
    if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
        return 0, False
    count = min(max(int(value), 0), MAX_TOKENS)
    return count, count == value and isinstance(value, int)


class Usage(BaseModel):
    """Tokens one call used. Counts are untrusted (a server sends them): each is kept as a
    whole number from 0 to MAX_TOKENS, and a count that had to be changed (clamped, or not
    a whole number and so 0) marks the usage `estimated`. No layer can hold bad usage:
    every Usage is made through this validation (assignment included)."""

    model_config = {"validate_assignment": True}

    prompt_tokens: int = 0
    completion_tokens: int = 0
    estimated: bool = False

    @model_validator(mode="before")
    @classmethod
    def _mark_changed_counts(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        fixed = dict(data)
        for name in _COUNTS:
            if name in fixed:
                fixed[name], exact = token_count(fixed[name])
                if not exact:
                    fixed["estimated"] = True
        return fixed

    @field_validator(*_COUNTS, mode="before")
    @classmethod
    def _in_range(cls, value: Any) -> int:
        return token_count(value)[0]

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


class ToolCallRequest(BaseModel):
    """A function call the model asked for (OpenAI `tool_calls`), assembled from the stream.
    `arguments` is the raw JSON text the model wrote; the caller validates it."""

    id: str = ""
    name: str
    arguments: str = ""


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
    tool_calls: list[ToolCallRequest] = Field(default_factory=list)
