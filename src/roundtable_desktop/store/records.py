"""What the session store hands back: sessions, calls and checkpoints as pydantic models.

Timestamps are Unix seconds (floats), like `Event.ts`. Must not touch the database;
store/database.py builds these from rows.
"""

from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator

from roundtable_desktop.domain.calls import CallStatus, last_user_text, token_count
from roundtable_desktop.domain.prompts import LayerText

SessionStatus = Literal["active", "ended"]


class SessionInfo(BaseModel):
    """One line of the session list: enough to choose a session, without its state."""

    id: str
    kind: str
    scenario: str
    title: str
    status: SessionStatus
    created_at: float
    updated_at: float
    call_count: int = 0


class SessionRecord(BaseModel):
    """A stored session and its latest state."""

    id: str
    kind: str
    scenario: str
    title: str
    status: SessionStatus
    created_at: float
    updated_at: float
    state: dict[str, Any] = Field(default_factory=dict)
    meta: dict[str, Any] = Field(default_factory=dict)


class CallRecord(BaseModel):
    """One model call: the request body exactly as sent and whatever came back.

    `purpose` says what the call was for (reply, observer, planner, repair, ...; never
    sent), `label` is how the views name it, and `layers` are its system prompt's layers
    (name, source file, text) as assembled.
    """

    id: str
    session_id: str
    seq: int
    actor_id: str | None
    model: str
    endpoint: str
    request: dict[str, Any]
    purpose: str = "reply"
    label: str = ""
    layers: list[LayerText] = Field(default_factory=list)
    response_text: str = ""
    status: CallStatus
    error: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    usage_estimated: bool | None = None
    latency_ms: float | None = None
    first_token_ms: float | None = None
    cost_usd: float | None = None
    finish_reason: str | None = None
    started_at: float
    finished_at: float | None = None

    # A row written before usage was validated may hold any number: read it as Usage would.
    @field_validator("prompt_tokens", "completion_tokens", mode="before")
    @classmethod
    def _token_count(cls, value: Any) -> int | None:
        return None if value is None else token_count(value)[0]

    @field_validator("cost_usd", mode="before")
    @classmethod
    def _cost(cls, value: Any) -> float | None:
        if not isinstance(value, int | float) or isinstance(value, bool):
            return None
        return max(float(value), 0.0) if math.isfinite(value) else None

    def messages(self) -> list[dict[str, Any]]:
        found = self.request.get("messages")
        return [m for m in found if isinstance(m, dict)] if isinstance(found, list) else []

    def user_text(self) -> str:
        """The last user message: for a roundtable call, the serialized context window."""
        return last_user_text(self.messages())


class Checkpoint(BaseModel):
    """The session state right after one action, for replay."""

    session_id: str
    seq: int
    action: str
    state: dict[str, Any]
    ts: float
