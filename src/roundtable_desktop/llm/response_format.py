"""JSON mode for providers that refuse `response_format`: recognise the refusal, remember
the endpoint, and rewrite a request to carry the instruction in its system prompt instead.

A client calls `is_format_refusal` on an error answer, `refusals.remember(...)` when it is
one, and `prompt_instead(request)` from its `adapt()`. The rewrite happens before the
protocol records the request, so what is shown is what is sent. Must not do I/O.
"""

from __future__ import annotations

import json
import re
import threading
from typing import Any

from roundtable_desktop.domain.calls import ChatMessage, ChatRequest

# Statuses servers use for a request field they reject (400 most; FastAPI-based ones 422).
_REFUSAL_STATUSES = frozenset({400, 422})
_NAMES_THE_FIELD = re.compile(r"response[_ ]format|json[_ ]object|json[_ ]schema|json mode",
                              re.IGNORECASE)
_UNSUPPORTED = re.compile(r"not supported|unsupported|not allowed|not available", re.IGNORECASE)
_NAMES_TOOLS = re.compile(r"\btools?\b|function", re.IGNORECASE)


def is_format_refusal(status: int, message: str, body: dict[str, Any]) -> bool:
    """Whether an error answer to `body` refuses its `response_format`: a 400 (or 422)
    naming the field or JSON mode, or saying "not supported" when nothing else in the
    request (tools) could be what is not supported."""
    if status not in _REFUSAL_STATUSES or body.get("response_format") is None:
        return False
    if _NAMES_THE_FIELD.search(message):
        return True
    return bool(_UNSUPPORTED.search(message)) and not (
        body.get("tools") and _NAMES_TOOLS.search(message)
    )


class FormatRefusals:
    """The (endpoint, model) pairs that refused `response_format`, for this process.

    Keyed by model too: one endpoint (OpenRouter, a local server) can serve models that
    accept JSON mode next to models that do not. Thread-safe; the app's clients share
    the module-level `REFUSALS` so a rebuilt client still remembers.
    """

    def __init__(self) -> None:
        self._refused: set[tuple[str, str]] = set()
        self._lock = threading.Lock()

    def remember(self, endpoint: str, model: str) -> None:
        with self._lock:
            self._refused.add((endpoint, model))

    def refused(self, endpoint: str, model: str) -> bool:
        with self._lock:
            return (endpoint, model) in self._refused

    def clear(self) -> None:
        with self._lock:
            self._refused.clear()


REFUSALS = FormatRefusals()


def prompt_instead(request: ChatRequest) -> ChatRequest:
    """`request` without `response_format`, its system message ending with the JSON
    instruction (a system message is added first when there is none)."""
    if request.response_format is None:
        return request
    instruction = json_instruction(
        request.response_schema or schema_of_format(request.response_format))
    messages = list(request.messages)
    if messages and messages[0].role == "system":
        first = messages[0]
        kept = first.content.rstrip()
        joined = f"{kept}\n\n{instruction}" if kept else instruction
        messages[0] = first.model_copy(update={"content": joined})
    else:
        messages.insert(0, ChatMessage(role="system", content=instruction))
    return request.model_copy(update={"response_format": None, "messages": messages})


def json_instruction(schema: dict[str, Any] | None) -> str:
    """One sentence asking for a bare JSON object, with the schema when there is one."""
    if not schema:
        return "Reply with one JSON object only, with no text or code fences around it."
    return ("Reply with one JSON object only, with no text or code fences around it, "
            f"matching this JSON schema: {compact_schema_json(schema)}")


def compact_schema_json(schema: dict[str, Any]) -> str:
    """The schema as short JSON: no whitespace, and without pydantic's `title`s (each one
    repeats a property or class name the model already sees)."""
    return json.dumps(_without_titles(schema), separators=(",", ":"), ensure_ascii=False)


def _without_titles(schema: Any) -> Any:
    if isinstance(schema, list):
        return [_without_titles(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "title" and isinstance(value, str):
            continue
        if key in ("properties", "$defs", "definitions", "patternProperties") and isinstance(
            value, dict
        ):
            # Keys here are names, not keywords: a property may well be called "title".
            out[key] = {name: _without_titles(sub) for name, sub in value.items()}
        else:
            out[key] = _without_titles(value)
    return out


def schema_of_format(response_format: dict[str, Any] | None) -> dict[str, Any] | None:
    """The schema of a `{"type": "json_schema", "json_schema": {"schema": ...}}` format."""
    if not isinstance(response_format, dict):
        return None
    spec = response_format.get("json_schema")
    schema = spec.get("schema") if isinstance(spec, dict) else None
    return schema if isinstance(schema, dict) else None
