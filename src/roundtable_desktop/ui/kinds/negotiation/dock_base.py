"""The base of the negotiation's own docks: reading the negotiation state, and doing.

It reads the shown session's `state` only when it is a NegotiationState (the docks of
the negotiation are shown for negotiation sessions, live or replayed), follows every
engine event (a StateChanged's `detail` names the side that changed, which the bridge's
`stateChanged(part)` signal drops), performs turn actions (take, pick, send) as the
toolbar does, through the window's SessionRunner, and makes settings (sliders, seats,
flow, voices ...) and draft edits as the session's edits (`edit_setting`: at once, also
while a turn runs, since the engine accepts settings then; a refusal goes to the window's
banner). Must hold no engine logic and never write the state itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
from typing import Any

from PySide6.QtWidgets import QWidget

from roundtable_desktop.domain.refusal import Refusal
from roundtable_desktop.engine.base import Action, ActionUnavailable, Edit
from roundtable_desktop.kinds.negotiation.state import NegotiationState
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.docks.bridge_dock import BridgeDock, shown_state
from roundtable_desktop.ui.window.session_runner import SessionRunner

log = logging.getLogger(__name__)


class NegotiationDock(BridgeDock):
    """Subclasses build their widgets, implement `refresh()`, and may override
    `on_event(event)` (the default schedules a refresh)."""

    def __init__(self, title: str, object_name: str, bridge: EngineBridge,
                 parent: QWidget | None = None, *, runner: SessionRunner | None = None) -> None:
        super().__init__(title, object_name, bridge, parent)
        self.runner = runner
        self._tasks: set[asyncio.Task[Any]] = set()  # turn actions with no runner (tests)
        bridge.eventReceived.connect(self._on_bridge_event_received)

    # -- reading ----------------------------------------------------------------------------
    def negotiation(self) -> NegotiationState | None:
        """The negotiation shown (live or replayed), or None for another kind or none."""
        return shown_state(self.bridge, NegotiationState)

    def blocked(self) -> str:
        """Why nothing may be changed now ("" when it may): replay, no session, the end."""
        if self.bridge.read_only:
            return "Replay is read-only."
        state = self.negotiation()
        if self.live_session() is None or state is None:
            return "No negotiation is running."
        if state.ended:
            return "The negotiation has been adjudicated."
        return ""

    # -- doing ------------------------------------------------------------------------------
    def perform_turn(self, action: Action) -> None:
        """A turn action, exactly as the toolbar would do it."""
        if self.runner is not None:
            self.runner.perform(action)
        else:
            self._spawn(action)

    def edit_setting(self, edit: Edit) -> None:
        """A setting or the draft's text, made at once as the session's edit; a refusal
        is said in the window's banner (as a refused action is)."""
        if self.blocked():
            return
        try:
            self.edit_session(edit)
        except Refusal as exc:
            if self.runner is not None:
                self.runner.failed.emit("warning", exc.message, exc.hint)
            else:
                log.info("edit refused: %s", exc.message)

    def _spawn(self, action: Action) -> None:
        session = self.live_session()
        if session is None:
            return
        task = asyncio.ensure_future(session.perform(action))
        self._tasks.add(task)
        task.add_done_callback(self._on_task_done)

    def _on_task_done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if task.cancelled():
            return
        exc = task.exception()
        if isinstance(exc, ActionUnavailable):
            # The engine already said why in a Notice when it could; log the rest.
            log.info("action refused: %s", exc)
        elif exc is not None:
            sys.excepthook(type(exc), exc, exc.__traceback__)

    # -- events -----------------------------------------------------------------------------
    def on_event(self, event: object) -> None:
        self.schedule_refresh()

    def retire(self) -> None:
        super().retire()
        with contextlib.suppress(RuntimeError, TypeError):
            self.bridge.eventReceived.disconnect(self._on_bridge_event_received)
        for task in list(self._tasks):
            task.cancel()

    def _on_bridge_event_received(self, event: object) -> None:
        if not self.retired:
            self.on_event(event)
