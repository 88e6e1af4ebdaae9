"""The base of the negotiation's own docks: the shared KindDock reading the shown
session's NegotiationState, and doing.

It follows every engine event (a StateChanged's `detail` names the side that changed,
which the bridge's `stateChanged(part)` signal drops), performs turn actions (take, pick,
send) as the toolbar does, through the window's SessionRunner, and makes settings
(sliders, seats, flow, voices ...) and draft edits as the session's edits
(`edit_setting`: at once, also while a turn runs, since the engine accepts settings then;
a refusal goes to the window's banner). Must hold no engine logic and never write the
state itself.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from typing import Any

from PySide6.QtWidgets import QWidget

from roundtable_desktop.domain.refusal import Refusal
from roundtable_desktop.engine.base import Action, ActionUnavailable, Edit
from roundtable_desktop.kinds.negotiation.state import NegotiationState
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.docks.kind_dock import EVERY_EVENT, KindDock
from roundtable_desktop.ui.task_set import TaskSet, task_failure
from roundtable_desktop.ui.window.session_runner import SessionRunner

log = logging.getLogger(__name__)


class NegotiationDock(KindDock[NegotiationState]):
    """Subclasses build their widgets, implement `refresh()`, and may override
    `on_event(event)` (the default schedules a refresh)."""

    state_type = NegotiationState
    refresh_on = EVERY_EVENT
    not_running_words = "No negotiation is running."
    ended_words = "The negotiation has been adjudicated."

    def __init__(self, title: str, object_name: str, bridge: EngineBridge,
                 parent: QWidget | None = None, *, runner: SessionRunner | None = None) -> None:
        super().__init__(title, object_name, bridge, parent, runner=runner)
        self._tasks = TaskSet(self._on_task_done)  # turn actions with no runner (tests)

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
        self._tasks.spawn(session.perform(action), f"turn {action.id}")

    def _on_task_done(self, task: asyncio.Task[Any]) -> None:
        exc = task_failure(task)
        if isinstance(exc, ActionUnavailable):
            # The engine already said why in a Notice when it could; log the rest.
            log.info("action refused: %s", exc)
        elif exc is not None:
            sys.excepthook(type(exc), exc, exc.__traceback__)

    def retire(self) -> None:
        super().retire()
        self._tasks.cancel()
