"""Writes a running session's events to the store: subscribe a SessionRecorder to the bus.

The bus delivers synchronously, so when CallStarted is handled the request row is
committed before the protocol goes on to send it. Streamed text is saved at most every
`flush_every` seconds, so a killed process loses at most that much of the call in
flight; tokens are never stored as event rows (a reply would make hundreds). Other
events wait in memory until the action ends, when they, the protocol's state and a
checkpoint for replay are written in one transaction (one commit per action, not one
per event).
Must not call the model, change protocol state, or import Qt.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from roundtable_desktop.domain.events import (
    ActionFinished,
    CallFinished,
    CallStarted,
    Event,
    SessionEnded,
    TokenReceived,
)
from roundtable_desktop.store.database import SessionStore


@dataclass
class _Stream:
    """Text of one call in flight and when it was last written."""

    flushed_at: float
    parts: list[str] = field(default_factory=list)
    dirty: bool = False


class SessionRecorder:
    """An EventBus subscriber that records one session. Subscribe it before any UI."""

    def __init__(
        self,
        store: SessionStore,
        session_id: str,
        protocol_state: Callable[[], dict[str, Any] | str | bytes],
        *,
        flush_every: float = 0.5,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self.session_id = session_id
        self._protocol_state = protocol_state
        self._flush_every = flush_every
        self._clock = clock
        self._streams: dict[str, _Stream] = {}
        self._events: list[Event] = []

    def __call__(self, event: Event) -> None:
        if isinstance(event, TokenReceived):
            self._on_token(event)
        elif isinstance(event, CallStarted):
            self.store.begin_call(
                self.session_id,
                event.call_id,
                event.actor_id,
                event.model,
                event.endpoint,
                event.request,
                purpose=event.purpose,
                label=event.label,
                layers=event.layers,
            )
            self._streams[event.call_id] = _Stream(flushed_at=self._clock())
            # The request body and the layers are in the calls row; the event keeps a
            # pointer, not a second copy.
            self._events.append(
                event.model_copy(update={"request": {"stored_in": "calls"}, "layers": []})
            )
        elif isinstance(event, CallFinished):
            self._streams.pop(event.call_id, None)
            self.store.finish_call(event.call_id, event.outcome)
            self._events.append(event)
        elif isinstance(event, ActionFinished | SessionEnded):
            ended = isinstance(event, SessionEnded)
            self._events.append(event)
            events, self._events = self._events, []
            self.store.record_step(
                self.session_id,
                action="session_ended" if ended else event.action,
                state=self._protocol_state(),
                events=events,
                status="ended" if ended else None,
            )
        else:
            self._events.append(event)

    def flush(self) -> None:
        """Write the text of every call in flight and the waiting events now (on quit)."""
        for call_id, stream in self._streams.items():
            self._write(call_id, stream)
        events, self._events = self._events, []
        self.store.append_events(self.session_id, events)

    def _on_token(self, event: TokenReceived) -> None:
        stream = self._streams.get(event.call_id)
        if stream is None:  # a call begun before this recorder was subscribed
            stream = self._streams[event.call_id] = _Stream(flushed_at=self._clock())
        stream.parts.append(event.text)
        stream.dirty = True
        if self._clock() - stream.flushed_at >= self._flush_every:
            self._write(event.call_id, stream)

    def _write(self, call_id: str, stream: _Stream) -> None:
        if not stream.dirty:
            return
        text = "".join(stream.parts)
        # Keep one joined part so the next flush does not re-join every token.
        stream.parts = [text]
        stream.dirty = False
        stream.flushed_at = self._clock()
        self.store.update_call_text(call_id, text)
