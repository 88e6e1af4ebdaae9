"""One model call whose reply must be JSON of a pydantic model, re-asked once if it is not.

`call_structured` marks the request as a JSON call (its `response_schema`, and
`response_format` json_object when the schema is an object), sends it with the session's
`call_model`, and reads the reply with `llm.structured.parse_structured`. A reply that
cannot be read is re-asked once, as a second recorded call with purpose `repair`: the
same messages, the bad reply as the assistant's turn, and a user message quoting what
was wrong. When that reply cannot be read either, a warning Notice says which call
failed and the result carries no value, so the caller keeps its previous state. A call
that failed or was stopped is not re-asked.

Kinds that show the pending request should build it with `structured_request` too, so
what is shown is what is sent. Must not raise for bad replies, must not import Qt, and
must not know any session kind.
"""

from __future__ import annotations

import asyncio
import copy
import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from roundtable_desktop.domain.calls import CallOutcome, CallStatus, ChatMessage, ChatRequest
from roundtable_desktop.domain.events import Notice
from roundtable_desktop.domain.prompts import LayerText
from roundtable_desktop.engine.base import SessionProtocol
from roundtable_desktop.llm.response_format import compact_schema_json
from roundtable_desktop.llm.structured import StructuredReplyError, parse_structured

T = TypeVar("T", bound=BaseModel)

REPAIR = "repair"
JSON_OBJECT = {"type": "json_object"}
# The bad reply goes back to the model; a runaway one is cut (the re-ask is about its
# shape, and the whole text is in the first call's record).
MAX_ECHOED_CHARS = 8_000
# Longer replies are parsed off the event loop: json_repair is pure Python and a long
# damaged reply takes a noticeable fraction of a second.
_PARSE_INLINE_CHARS = 8_000


@dataclass(frozen=True)
class StructuredResult(Generic[T]):
    """What a structured call gave: the value (None when there is none), every call's
    outcome in order (one, or two with the re-ask), and the reason when there is no
    value."""

    value: T | None
    outcomes: tuple[CallOutcome, ...] = field(default_factory=tuple)
    error: str = ""

    @property
    def ok(self) -> bool:
        return self.value is not None

    @property
    def outcome(self) -> CallOutcome | None:
        """The last call's outcome."""
        return self.outcomes[-1] if self.outcomes else None

    @property
    def repaired(self) -> bool:
        """The value came from the re-ask."""
        return self.value is not None and len(self.outcomes) > 1


def _schema_of(model: type[BaseModel]) -> dict[str, Any]:
    """`model`'s JSON schema: made once per class (pydantic builds it anew on every call,
    a fifth of an offline negotiation's time), handed out as a copy so no request's
    schema is another's."""
    return copy.deepcopy(_made_schema(model))


@functools.cache
def _made_schema(model: type[BaseModel]) -> dict[str, Any]:
    return model.model_json_schema()


def structured_request(request: ChatRequest, model: type[BaseModel]) -> ChatRequest:
    """`request` as a JSON call for `model`: its schema, and JSON mode when the reply is
    an object (OpenAI's json_object admits nothing else). Fields already set are kept."""
    schema = request.response_schema or _schema_of(model)
    update: dict[str, object] = {"response_schema": schema}
    if request.response_format is None and schema.get("type") == "object":
        update["response_format"] = dict(JSON_OBJECT)
    return request.model_copy(update=update)


def repair_request(request: ChatRequest, bad_reply: str, problem: str) -> ChatRequest:
    """The re-ask: `request`'s messages, the bad reply as the assistant's turn, and a user
    message quoting `problem` and asking for only the corrected JSON."""
    echoed = bad_reply if len(bad_reply) <= MAX_ECHOED_CHARS else (
        bad_reply[:MAX_ECHOED_CHARS] + "\n[… the rest of the reply was cut]"
    )
    wanted = "JSON array" if (request.response_schema or {}).get("type") == "array" \
        else "JSON object"
    lines = [
        f"Your reply could not be read: {problem}",
        f"Reply again with only the corrected {wanted}: no prose and no code fences.",
    ]
    if request.response_schema:
        lines.append(f"It must match this JSON schema: "
                     f"{compact_schema_json(request.response_schema)}")
    messages = [
        *request.messages,
        ChatMessage(role="assistant", content=echoed or "(an empty reply)"),
        ChatMessage(role="user", content="\n".join(lines)),
    ]
    return request.model_copy(update={"messages": messages, "purpose": REPAIR})


async def call_structured(
    session: SessionProtocol, actor_id: str | None, request: ChatRequest,
    model: type[T], *, label: str = "", layers: Sequence[LayerText] = (),
) -> StructuredResult[T]:
    """Send `request`, read its reply as `model`, re-ask once if it cannot be read.

    Never raises for a failed call or a bad reply: the result then has no value and its
    `error` says why (a warning Notice has been emitted when the reply was unreadable).
    """
    request = structured_request(request, model)
    first = await session.call_model(actor_id, request, label=label, layers=layers)
    if first.status != CallStatus.OK:
        return StructuredResult(None, (first,), _call_failed(first))
    try:
        return StructuredResult(await _parse(first.text, model), (first,))
    except StructuredReplyError as exc:
        problem = exc

    again = repair_request(request, first.text, problem.detail)
    second = await session.call_model(actor_id, again, label=_repair_label(label),
                                      layers=layers)
    if second.status != CallStatus.OK:
        return StructuredResult(None, (first, second), _call_failed(second))
    try:
        return StructuredResult(await _parse(second.text, model), (first, second))
    except StructuredReplyError as exc:
        problem = exc
    which = label or f"{request.purpose} call"
    message = f"The reply to “{which}” could not be read, even when asked again: " \
              f"{problem.message}"
    session.emit(Notice(
        level="warning", message=message,
        hint="Nothing was changed. Try the step again, or choose a model that follows "
             "JSON instructions more reliably.",
    ))
    return StructuredResult(None, (first, second), problem.message)


async def _parse(text: str, model: type[T]) -> T:
    if len(text) <= _PARSE_INLINE_CHARS:
        return parse_structured(text, model)
    return await asyncio.to_thread(parse_structured, text, model)


def _repair_label(label: str) -> str:
    return f"{label} (repair)" if label else "repair"


def _call_failed(outcome: CallOutcome) -> str:
    if outcome.status == CallStatus.CANCELLED:
        return outcome.error or "The call was stopped."
    return outcome.error or f"The call ended with status {outcome.status.value}."
