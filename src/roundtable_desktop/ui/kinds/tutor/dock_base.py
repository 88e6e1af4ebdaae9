"""The base of the tutor's docks: reads the shown session's TutorState and refreshes on
the engine events that change it, and performs the student's actions through the
window's session runner, exactly as the toolbar would.
Must hold no engine logic and never change the exercise itself.
"""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from roundtable_desktop.domain.events import (
    ActionFinished,
    ActionStarted,
    PhaseChanged,
    SessionEnded,
    StateChanged,
)
from roundtable_desktop.engine.base import Action
from roundtable_desktop.kinds.tutor.state import TutorState
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.docks.bridge_dock import BridgeDock, shown_state
from roundtable_desktop.ui.window.session_runner import SessionRunner

REFRESH_ON = (StateChanged, PhaseChanged, ActionStarted, ActionFinished, SessionEnded)


class TutorDock(BridgeDock):
    def __init__(self, title: str, object_name: str, bridge: EngineBridge,
                 parent: QWidget | None = None, *, runner: SessionRunner | None = None) -> None:
        super().__init__(title, object_name, bridge, parent)
        self.runner = runner
        bridge.eventReceived.connect(self._on_bridge_event_received)

    def tutor(self) -> TutorState | None:
        """The tutor exercise shown (live or replayed), or None for another kind."""
        return shown_state(self.bridge, TutorState)

    def perform(self, action: Action) -> None:
        if self.runner is not None and not self.bridge.read_only:
            self.runner.perform(action)

    def _on_bridge_event_received(self, event: object) -> None:
        if isinstance(event, REFRESH_ON):
            self.schedule_refresh()
