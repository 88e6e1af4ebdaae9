"""Server-sent events: turns the lines of an event stream into events.

Follows the SSE rules that matter for chat-completions streams: `data:` lines of one
event are joined by newlines and the event is dispatched at a blank line; lines starting
with `:` are comments (keep-alives) and are dropped; `event:` names the event; a `data`
of `[DONE]` marks the end of an OpenAI-style stream. Must not do I/O or parse JSON:
the client decides what a data payload means.
"""

from __future__ import annotations

from dataclasses import dataclass

DONE_MARKER = "[DONE]"


@dataclass(frozen=True, slots=True)
class SSEEvent:
    """One dispatched event. `event` is None when the stream gave no `event:` field."""

    data: str
    event: str | None = None

    @property
    def is_done(self) -> bool:
        return self.data.strip() == DONE_MARKER


class SSEDecoder:
    """Feed it lines without their line endings; it returns the events they complete."""

    def __init__(self) -> None:
        self._data: list[str] = []
        self._event: str | None = None

    def feed(self, line: str) -> SSEEvent | None:
        """Take one line; return the event a blank line completes, else None."""
        line = line.rstrip("\r\n")
        if not line:
            return self._dispatch()
        if line.startswith(":"):
            return None
        field, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if field == "data":
            self._data.append(value)
        elif field == "event":
            self._event = value or None
        # `id:` and `retry:` only matter for browser reconnection, which a chat call
        # never does (a broken stream is a failed call, not one to resume).
        return None

    def flush(self) -> SSEEvent | None:
        """The event still pending when the stream ends without a final blank line."""
        return self._dispatch()

    def _dispatch(self) -> SSEEvent | None:
        if not self._data:
            self._event = None
            return None
        event = SSEEvent(data="\n".join(self._data), event=self._event)
        self._data = []
        self._event = None
        return event


def decode_lines(lines: list[str]) -> list[SSEEvent]:
    """Decode a whole stream given as lines (tests, replay of a recorded stream)."""
    decoder = SSEDecoder()
    events = [event for line in lines if (event := decoder.feed(line)) is not None]
    tail = decoder.flush()
    if tail is not None:
        events.append(tail)
    return events
