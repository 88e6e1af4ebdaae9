"""A synchronous event bus: protocols emit, the store, the CLI and the UI bridge listen.

Delivery is synchronous and in subscription order, so a recorder subscribed first has
written a request row before the protocol goes on to send it. A failing listener is
reported to the others as a Notice and never stops the engine, except a `critical` one
(the store recorder): what it raises is raised out of `emit`, to the protocol that
emitted, once every other listener has seen the event (so the views still see how a
call or an action ended). A CallStarted whose row could not be written thus stops the
call before its request is sent. Must not import Qt.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from roundtable_desktop.domain.events import Event, Notice

log = logging.getLogger(__name__)

Subscriber = Callable[[Event], None]


class EventBus:
    def __init__(self) -> None:
        self._subscribers: list[Subscriber] = []
        self._critical: list[Subscriber] = []

    def subscribe(
        self, fn: Subscriber, *, first: bool = False, critical: bool = False
    ) -> Callable[[], None]:
        """Add a listener; `first` puts it before all others (the store recorder), and
        `critical` makes its failures the emitter's (they are raised out of `emit`)."""
        if first:
            self._subscribers.insert(0, fn)
        else:
            self._subscribers.append(fn)
        if critical:
            self._critical.append(fn)
        return lambda: self.unsubscribe(fn)

    def unsubscribe(self, fn: Subscriber) -> None:
        if fn in self._subscribers:
            self._subscribers.remove(fn)
        if fn in self._critical:
            self._critical.remove(fn)

    def emit(self, event: Event) -> None:
        failures: list[str] = []
        raised: Exception | None = None
        for fn in list(self._subscribers):
            try:
                fn(event)
            except Exception as exc:
                if raised is None and fn in self._critical:
                    raised = exc  # the emitter's to handle, after the others have seen it
                    continue
                # A broken listener must not break the session.
                log.exception("event subscriber failed")
                failures.append(f"{type(exc).__name__}: {exc}")
        for failure in failures:
            if isinstance(event, Notice):
                continue
            self.emit(Notice(level="error", message=f"A listener failed: {failure}"))
        if raised is not None:
            raise raised
