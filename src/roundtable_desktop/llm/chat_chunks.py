"""Reading OpenAI-compatible chat responses: stream chunks, usage, and error bodies.

Pure functions over decoded JSON; the client (openai_compat.py) does the I/O. Server
text is cut to MAX_SERVER_MESSAGE_CHARS before it reaches a message. Must not do I/O.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from roundtable_desktop.domain.calls import Usage
from roundtable_desktop.llm.client import Delta, StreamItem

MAX_SERVER_MESSAGE_CHARS = 300


@dataclass
class Progress:
    """What one attempt has received so far."""

    parts: list[str] = field(default_factory=list)
    usage: Usage | None = None
    finish_reason: str | None = None
    done: bool = False

    @property
    def text(self) -> str:
        return "".join(self.parts)


def stream_error_message(chunk: dict, event_name: str | None) -> str | None:
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


def chunk_items(chunk: dict, progress: Progress) -> list[StreamItem]:
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
            if choice.get("finish_reason"):
                progress.finish_reason = str(choice["finish_reason"])
    usage = usage_of(chunk)
    if usage is not None:
        progress.usage = usage
    return items


def usage_of(document: dict) -> Usage | None:
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
    text = text.strip()
    if len(text) <= MAX_SERVER_MESSAGE_CHARS:
        return text
    return text[: MAX_SERVER_MESSAGE_CHARS - 1].rstrip() + "…"


def estimate_usage(body: dict, reply: str) -> Usage:
    """About four characters per token when the server reported no usage."""
    prompt_chars = sum(len(str(m.get("content", ""))) for m in body.get("messages", []))
    return Usage(
        prompt_tokens=(prompt_chars + 3) // 4,
        completion_tokens=(len(reply) + 3) // 4,
        estimated=True,
    )
