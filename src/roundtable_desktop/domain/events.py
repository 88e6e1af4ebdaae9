"""Typed events: every state change any session kind makes is one of these.

A pydantic discriminated union on `type`. The store records them, the UI bridge turns
them into Qt signals, and replay reads them back. Must not reference Qt or I/O.
"""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, TypeAdapter

from roundtable_desktop.domain.calls import CallOutcome
from roundtable_desktop.domain.prompts import LayerText
from roundtable_desktop.domain.tools import ToolResult


class _Event(BaseModel):
    ts: float = Field(default_factory=time.time)


class SessionStarted(_Event):
    type: Literal["session_started"] = "session_started"
    kind: str
    scenario: str
    title: str


class ActionStarted(_Event):
    type: Literal["action_started"] = "action_started"
    action: str
    actor_id: str | None = None
    # Set for the steps Auto takes: the Auto action that took them.
    within: str | None = None


class ActionFinished(_Event):
    type: Literal["action_finished"] = "action_finished"
    action: str
    ok: bool = True
    message: str = ""


class CallStarted(_Event):
    """Emitted before the request is sent; `request` is the exact body. `purpose` and
    `kind` say what the call is for (never sent); `layers` are the system prompt's layers
    (name, source file, text) for the call inspector."""

    type: Literal["call_started"] = "call_started"
    call_id: str
    actor_id: str | None
    model: str
    endpoint: str
    request: dict[Any, Any]
    purpose: str = "reply"
    kind: str = ""
    label: str = ""
    layers: list[LayerText] = Field(default_factory=list)


class TokenReceived(_Event):
    type: Literal["token"] = "token"
    call_id: str
    text: str
    count: int = 0


class CallFinished(_Event):
    type: Literal["call_finished"] = "call_finished"
    call_id: str
    actor_id: str | None
    outcome: CallOutcome
    purpose: str = "reply"


class ToolRan(_Event):
    type: Literal["tool_ran"] = "tool_ran"
    actor_id: str
    result: ToolResult


class StateChanged(_Event):
    """`part` names what changed (candidates, facts, whiteboard, turn, ...)."""

    type: Literal["state_changed"] = "state_changed"
    part: str
    detail: str = ""


class PhaseChanged(_Event):
    """Coarse status for a status line: idle, assembling, streaming, running_tools, ..."""

    type: Literal["phase_changed"] = "phase_changed"
    phase: str
    actor_id: str | None = None
    detail: str = ""


class Notice(_Event):
    """A message for the user: what happened and what they can do."""

    type: Literal["notice"] = "notice"
    level: Literal["info", "warning", "error"] = "info"
    message: str
    hint: str = ""


class SessionEnded(_Event):
    type: Literal["session_ended"] = "session_ended"
    reason: str = ""


Event = Annotated[
    SessionStarted
    | ActionStarted
    | ActionFinished
    | CallStarted
    | TokenReceived
    | CallFinished
    | ToolRan
    | StateChanged
    | PhaseChanged
    | Notice
    | SessionEnded,
    Field(discriminator="type"),
]

EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)


def event_from_json(data: str | bytes) -> Event:
    return EVENT_ADAPTER.validate_json(data)


def event_from_data(data: object) -> Event:
    """An event from JSON already parsed (an item of a stored list of events)."""
    return EVENT_ADAPTER.validate_python(data)
