"""Reading OpenAI-compatible chat responses: stream chunks, tool calls, usage, and error
bodies.

Pure functions over decoded JSON; the client (openai_compat.py) does the I/O. Streamed
`tool_calls` deltas are assembled by their `index` (id and name arrive once, arguments in
pieces). Server text is scrubbed of every known secret and only then cut to
MAX_SERVER_MESSAGE_CHARS (cutting first could leave most of an echoed key behind, too
cut to be recognized). Must not do I/O.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from roundtable_desktop.domain.calls import ToolCallRequest, Usage
from roundtable_desktop.domain.secrets import scrub
from roundtable_desktop.domain.tokens import estimate_prompt_tokens, estimate_tokens
from roundtable_desktop.llm.client import Delta, Finish, StreamItem

MAX_SERVER_MESSAGE_CHARS = 300


@dataclass
class _ToolCallParts:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


class ToolCallAssembler:
    """Joins streamed `tool_calls` deltas into whole calls, in the order of their index."""

    def __init__(self) -> None:
        self._calls: dict[int, _ToolCallParts] = {}
        self._last: int | None = None

    def add(self, deltas: object) -> None:
        if not isinstance(deltas, list):
            return
        for delta in deltas:
            if isinstance(delta, dict):
                self._add_one(delta)

    def _add_one(self, delta: dict[str, Any]) -> None:
        index = delta.get("index")
        call_id = delta.get("id") if isinstance(delta.get("id"), str) else ""
        if not isinstance(index, int):
            # Some servers omit the index: a new id starts a call, anything else continues
            # the last one.
            known = next((i for i, c in self._calls.items() if call_id and c.id == call_id), None)
            if known is not None:
                index = known
            elif call_id or self._last is None:
                index = len(self._calls)
            else:
                index = self._last
        parts = self._calls.setdefault(index, _ToolCallParts())
        self._last = index
        if call_id and not parts.id:
            parts.id = call_id
        function = delta.get("function")
        if not isinstance(function, dict):
            return
        name = function.get("name")
        # Names come whole in the first delta; a server that repeats it must not double it.
        if isinstance(name, str) and name and name != parts.name:
            parts.name += name
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            parts.arguments.append(arguments)
        elif isinstance(arguments, dict):  # a server that sends the arguments decoded
            parts.arguments.append(json.dumps(arguments, ensure_ascii=False))

    def add_whole(self, calls: object) -> None:
        """The `tool_calls` of a whole (non-streamed) message: each one complete."""
        if isinstance(calls, list):
            self.add([{**c, "index": i} for i, c in enumerate(calls) if isinstance(c, dict)])

    def calls(self) -> tuple[ToolCallRequest, ...]:
        return tuple(
            ToolCallRequest(id=parts.id or f"call_{index}", name=parts.name,
                            arguments="".join(parts.arguments))
            for index, parts in sorted(self._calls.items())
            if parts.name
        )


@dataclass
class Progress:
    """What one attempt has received so far."""

    parts: list[str] = field(default_factory=list)
    usage: Usage | None = None
    finish_reason: str | None = None
    done: bool = False
    tools: ToolCallAssembler = field(default_factory=ToolCallAssembler)

    @property
    def text(self) -> str:
        return "".join(self.parts)


def stream_error_message(chunk: dict[str, Any], event_name: str | None) -> str | None:
    """The error a chunk carries: `{"error": ...}`, vLLM's `{"object": "error"}`, or an
    `event: error` SSE event."""
    error = chunk.get("error")
    if error:
        if isinstance(error, dict):
            return truncate(str(error.get("message") or json.dumps(error)))
        return truncate(str(error))
    if chunk.get("object") == "error" or event_name == "error":
        return truncate(str(chunk.get("message") or json.dumps(chunk)))
    return None


def chunk_items(chunk: dict[str, Any], progress: Progress) -> list[StreamItem]:
    items: list[StreamItem] = []
    choices = chunk.get("choices")
    if isinstance(choices, list):
        for choice in choices:
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta")
            content = delta.get("content") if isinstance(delta, dict) else None
            # Reasoning arrives as `reasoning_content` / `reasoning`: not reply text.
            if isinstance(content, str) and content:
                progress.parts.append(content)
                items.append(Delta(content))
            if isinstance(delta, dict) and delta.get("tool_calls"):
                progress.tools.add(delta["tool_calls"])
            if choice.get("finish_reason"):
                progress.finish_reason = str(choice["finish_reason"])
    usage = usage_of(chunk)
    if usage is not None:
        progress.usage = usage
    return items


def completion_items(document: dict[str, Any], progress: Progress) -> list[StreamItem]:
    """The items of one whole `chat.completion` (a server that ignored `stream: true`)."""
    items: list[StreamItem] = []
    choices = document.get("choices")
    choice = choices[0] if isinstance(choices, list) and choices else {}
    message = choice.get("message") if isinstance(choice, dict) else None
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str) and content:
        progress.parts.append(content)
        items.append(Delta(content))
    if isinstance(message, dict):
        progress.tools.add_whole(message.get("tool_calls"))
    progress.finish_reason = choice.get("finish_reason") if isinstance(choice, dict) else None
    progress.usage = usage_of(document)
    progress.done = True
    if progress.usage is not None:
        items.append(Finish(progress.usage, progress.finish_reason, progress.tools.calls()))
    return items


def usage_of(document: dict[str, Any]) -> Usage | None:
    usage = document.get("usage")
    if not isinstance(usage, dict):
        return None
    prompt = usage.get("prompt_tokens")
    completion = usage.get("completion_tokens")
    if not isinstance(prompt, int) or not isinstance(completion, int):
        return None
    return Usage(prompt_tokens=prompt, completion_tokens=completion)


def server_message(raw: bytes) -> str:
    """The human part of an error body: `{"error": {"message"}}`, `{"message"}` or text."""
    text = raw.decode("utf-8", errors="replace").strip()
    try:
        document = json.loads(text)
    except json.JSONDecodeError:
        return truncate(" ".join(text.split()))
    if isinstance(document, dict):
        error = document.get("error")
        if isinstance(error, dict) and error.get("message"):
            return truncate(str(error["message"]))
        if isinstance(error, str) and error:
            return truncate(error)
        if document.get("message"):
            return truncate(str(document["message"]))
        if document.get("detail"):
            return truncate(str(document["detail"]))
    return truncate(" ".join(text.split()))


def truncate(text: str) -> str:
    """`text` without known secrets, then at most MAX_SERVER_MESSAGE_CHARS long."""
    text = scrub(text).strip()
    if len(text) <= MAX_SERVER_MESSAGE_CHARS:
        return text
    return text[: MAX_SERVER_MESSAGE_CHARS - 1].rstrip() + "…"


def estimate_usage(body: dict[str, Any], reply: str) -> Usage:
    """The shared token estimate, marked as such, when the server reported no usage."""
    return Usage(
        prompt_tokens=estimate_prompt_tokens(
            str(m.get("content") or "") for m in body.get("messages", []) if isinstance(m, dict)
        ),
        completion_tokens=estimate_tokens(reply),
        estimated=True,
    )
