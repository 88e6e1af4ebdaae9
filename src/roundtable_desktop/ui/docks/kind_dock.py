"""The base of a kind's own docks: a BridgeDock that reads the kind's state and acts.

A kind's dock base is `class XDock(KindDock[XState])` with `state_type = XState` and, where
they differ from the defaults, the engine events it refreshes on and the words it says
when nothing may be changed. What every kind's docks share lives here:
- `state()`: the kind's state of the session shown (live or replayed); None for a session
  of another kind or none, so a dock of a kind the window no longer shows reads nothing.
- `live_kind_session()`: the running session when it is of this kind (None in replay).
- `blocked()`: why nothing may be changed now ("" when it may): replay, no session of the
  kind running, and (where the kind says `ended_words`) its end.
- `action_blocked(specs, id, missing)`: why the session's action `id` may not be done now.
- `perform(action)`: an action through the window's SessionRunner, exactly as the toolbar
  would do it (never in replay).
- Following the engine: each event in `refresh_on` schedules one refresh (`on_event` may
  do more); with `follows_runner`, so does the runner starting or ending a step. A
  retired dock follows nothing.
Must not name a kind, hold engine logic, or change a session's state but through actions.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from typing import TYPE_CHECKING, ClassVar, Generic, TypeVar

from PySide6.QtWidgets import QWidget

from roundtable_desktop.domain.events import (
    ActionFinished,
    ActionStarted,
    PhaseChanged,
    SessionEnded,
    StateChanged,
)
from roundtable_desktop.engine.base import Action, ActionSpec, SessionProtocol
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.docks.bridge_dock import BridgeDock, shown_state

if TYPE_CHECKING:  # the window's runner; the shared docks import nothing of the window
    from roundtable_desktop.ui.window.session_runner import SessionRunner

S = TypeVar("S")

# The events that change what a kind's dock shows, and the names for "every event".
STATE_EVENTS: tuple[type, ...] = (StateChanged, PhaseChanged, ActionStarted, ActionFinished,
                                  SessionEnded)
EVERY_EVENT: tuple[type, ...] = (object,)


def action_blocked(specs: Iterable[ActionSpec], action_id: str, missing: str) -> str:
    """Why the action `action_id` may not be done now: its reason when it is offered
    disabled, `missing` when it is not offered at all; "" when it may be done."""
    spec = next((s for s in specs if s.id == action_id), None)
    if spec is None:
        return missing
    return "" if spec.enabled else spec.reason


class KindDock(BridgeDock, Generic[S]):
    """Subclasses build their widgets, then implement `refresh()`."""

    state_type: ClassVar[type]  # the kind's state class
    refresh_on: ClassVar[tuple[type, ...]] = STATE_EVENTS
    follows_runner: ClassVar[bool] = False  # refresh when the runner starts or ends a step
    not_running_words: ClassVar[str] = "No session is running."
    ended_words: ClassVar[str] = ""  # "" : the end does not block (the actions say why)

    def __init__(self, title: str, object_name: str, bridge: EngineBridge,
                 parent: QWidget | None = None, *, runner: SessionRunner | None = None) -> None:
        super().__init__(title, object_name, bridge, parent)
        self.runner = runner
        if self.refresh_on:
            bridge.eventReceived.connect(self._on_bridge_event_received)
        if runner is not None and self.follows_runner:
            runner.busyChanged.connect(self._on_runner_busy_changed)

    # -- reading ------------------------------------------------------------------------------
    def state(self) -> S | None:
        """The kind's state of the session shown (live or replayed), else None."""
        return shown_state(self.bridge, self.state_type)

    def live_kind_session(self) -> SessionProtocol | None:
        """The running session when it is of this kind (None in replay, or for another)."""
        session = self.live_session()
        return session if isinstance(getattr(session, "state", None), self.state_type) else None

    def running(self) -> bool:
        """A step of the window's runner is running."""
        return self.runner is not None and self.runner.busy

    def blocked(self) -> str:
        """Why nothing may be changed now ("" when it may): replay, no session of this kind
        running, its end (where the kind names it)."""
        if self.bridge.read_only:
            return "Replay is read-only."
        session = self.live_kind_session()
        if session is None:
            return self.not_running_words
        if self.ended_words and session.ended:
            return self.ended_words
        return ""

    # -- doing --------------------------------------------------------------------------------
    def perform(self, action: Action) -> None:
        """Do `action` as the toolbar would (nothing in replay or without a runner)."""
        if self.runner is not None and not self.bridge.read_only:
            self.runner.perform(action)

    # -- following the engine -------------------------------------------------------------------
    def on_event(self, event: object) -> None:
        if isinstance(event, self.refresh_on):
            self.schedule_refresh()

    def retire(self) -> None:
        super().retire()
        if self.refresh_on:
            with contextlib.suppress(RuntimeError, TypeError):  # already disconnected
                self.bridge.eventReceived.disconnect(self._on_bridge_event_received)

    def _on_bridge_event_received(self, event: object) -> None:
        if not self.retired:
            self.on_event(event)

    def _on_runner_busy_changed(self, _busy: bool) -> None:
        self.schedule_refresh()
