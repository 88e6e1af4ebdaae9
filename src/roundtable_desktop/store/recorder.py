"""Writes a running session's events to the store: subscribe a SessionRecorder to the bus
first and as critical (`bus.subscribe(recorder, first=True, critical=True)`).

The bus delivers synchronously, so when CallStarted is handled the request row is
committed before the protocol goes on to send it; a write that fails raises StoreError
out of the protocol's `emit`, so a request whose row is not on disk is never sent and
the action ends with that error. Streamed text is saved at most `flush_every` seconds
after it arrived, also while a stream stalls (a timer on the running asyncio loop), so a
killed process loses at most that much of the call in flight; tokens are never stored
as event rows (a reply would make hundreds). Other events wait in memory until the
action ends, when they, the protocol's state and a checkpoint for replay are written in
one transaction (one commit per action, not one per event).

Nothing is dropped when a write fails: an outcome, the streamed text, the waiting events
and the step stay in memory and are written at the next write that succeeds (or by
`flush()`), and the failure is raised to the protocol, never swallowed; the action's end
raises it again (so it is the error the action ends with) rather than wait on a locked
store a second time.
Must not call the model, change protocol state, or import Qt.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from roundtable_desktop.domain.calls import CallOutcome
from roundtable_desktop.domain.events import (
    ActionFinished,
    CallFinished,
    CallStarted,
    Event,
    SessionEnded,
    TokenReceived,
)
from roundtable_desktop.store.database import SessionStore
from roundtable_desktop.store.encoding import StoredState
from roundtable_desktop.store.errors import StoreError

log = logging.getLogger(__name__)


@dataclass
class _Stream:
    """Text of one call in flight, when it was last written, and the timer due to write it."""

    flushed_at: float
    parts: list[str] = field(default_factory=list)
    dirty: bool = False
    timer: asyncio.TimerHandle | None = None

    def stop_timer(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None


@dataclass(frozen=True)
class _Step:
    """An action's end that is not on disk yet: what to call its checkpoint, and whether
    it ended the session."""

    action: str
    ended: bool


class SessionRecorder:
    """An EventBus subscriber that records one session. Subscribe it before any UI."""

    def __init__(
        self,
        store: SessionStore,
        session_id: str,
        protocol_state: Callable[[], StoredState],
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
        # Kept until written: outcomes whose row update failed, and a step whose
        # checkpoint failed (the next step, or flush, writes the state then).
        self._outcomes: dict[str, CallOutcome] = {}
        self._step: _Step | None = None
        self._failure: StoreError | None = None  # the last write raised, until one succeeds

    def __call__(self, event: Event) -> None:
        if isinstance(event, TokenReceived):
            self._on_token(event)
        elif isinstance(event, CallStarted):
            self._on_call_started(event)
        elif isinstance(event, CallFinished):
            self._on_call_finished(event)
        elif isinstance(event, ActionFinished | SessionEnded):
            self._events.append(event)
            ended = isinstance(event, SessionEnded)
            action = "session_ended" if isinstance(event, SessionEnded) else event.action
            self._step = _Step(action,
                               ended or (self._step is not None and self._step.ended))
            if self._failure is not None:
                # A write in this action failed and was raised to the protocol: end the
                # action with that same error (kept, not tried again at once: a locked
                # store would hold the action for another busy timeout).
                raise self._failure
            with self._writing():
                self._write_step()
        else:
            self._events.append(event)

    def flush(self) -> None:
        """Write everything kept in memory now (on quit, or once the store works again):
        the text of every call in flight, outcomes and a step that could not be written,
        and the waiting events."""
        with self._writing():
            for call_id, stream in self._streams.items():
                self._write(call_id, stream)
            self._write_outcomes()
            if self._step is not None:
                self._write_step()
            elif self._events:
                self.store.append_events(self.session_id, self._events)
                self._events = []

    @contextmanager
    def _writing(self) -> Iterator[None]:
        """Remember a failure raised to the emitter; a write that succeeds clears it."""
        try:
            yield
        except StoreError as exc:
            self._failure = exc
            raise
        self._failure = None

    # -- calls ------------------------------------------------------------------------
    def _on_call_started(self, event: CallStarted) -> None:
        with self._writing():
            self._write_outcomes()  # the store works again: what failed before goes first
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

    def _on_call_finished(self, event: CallFinished) -> None:
        stream = self._streams.pop(event.call_id, None)
        if stream is None:
            return  # never begun here (its row could not be written): nothing to finish
        stream.stop_timer()
        self._events.append(event)
        self._outcomes[event.call_id] = event.outcome
        with self._writing():
            self._write_outcomes()

    def _write_outcomes(self) -> None:
        for call_id, outcome in list(self._outcomes.items()):
            self.store.finish_call(call_id, outcome)
            del self._outcomes[call_id]

    # -- steps --------------------------------------------------------------------------
    def _write_step(self) -> None:
        step = self._step
        assert step is not None
        self._write_outcomes()
        self.store.record_step(
            self.session_id,
            action=step.action,
            state=self._protocol_state(),
            events=self._events,
            status="ended" if step.ended else None,
        )
        self._events, self._step = [], None

    # -- streamed text ------------------------------------------------------------------
    def _on_token(self, event: TokenReceived) -> None:
        stream = self._streams.get(event.call_id)
        if stream is None:
            return  # a call whose row was never written (or has finished): nothing to update
        stream.parts.append(event.text)
        stream.dirty = True
        waited = self._clock() - stream.flushed_at
        if waited >= self._flush_every:
            with self._writing():
                self._write(event.call_id, stream)
        elif stream.timer is None:
            self._write_later(event.call_id, stream, self._flush_every - waited)

    def _write_later(self, call_id: str, stream: _Stream, delay: float) -> None:
        """Write the text when it falls due even if no token comes (a stalled stream)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop (a caller feeding events by hand): the next token writes it
        stream.timer = loop.call_later(delay, self._write_due, call_id)

    def _write_due(self, call_id: str) -> None:
        stream = self._streams.get(call_id)
        if stream is None:
            return
        stream.timer = None
        try:
            self._write(call_id, stream)
        except StoreError:
            # No emitter to hand it to here: the text stays unwritten, and the next token
            # or the call's end writes it again, raising to the protocol if it still fails.
            log.warning("could not save streamed text of call %s yet", call_id, exc_info=True)

    def _write(self, call_id: str, stream: _Stream) -> None:
        stream.stop_timer()
        if not stream.dirty:
            return
        text = "".join(stream.parts)
        # Keep one joined part so the next flush does not re-join every token.
        stream.parts = [text]
        self.store.update_call_text(call_id, text)
        stream.dirty = False
        stream.flushed_at = self._clock()
