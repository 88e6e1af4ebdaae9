"""The base of the debate's docks: reads the shown session's DebateState, refreshes on
the engine events that change it, performs actions through the window's session runner
(as the toolbar would), and shares the selected claim between the docks.

`ClaimFocus` is one small QObject per bridge (a child of it, found by name): the game
room's claim selector sets it, the polygon's shading and the metrics follow it, so the
docks never hold references to each other.
Must hold no engine logic and never change the debate itself.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from roundtable_desktop.domain.events import (
    ActionFinished,
    ActionStarted,
    SessionEnded,
    StateChanged,
)
from roundtable_desktop.engine.base import Action
from roundtable_desktop.kinds.debate.state import DebateState
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.docks.bridge_dock import BridgeDock, shown_state
from roundtable_desktop.ui.window.session_runner import SessionRunner

REFRESH_ON = (StateChanged, ActionStarted, ActionFinished, SessionEnded)
FOCUS_NAME = "debateClaimFocus"


class ClaimFocus(QObject):
    """The claim the debate's docks show (its id; "" for the first claim)."""

    changed = Signal(str)

    def __init__(self, parent: QObject) -> None:
        super().__init__(parent)
        self.setObjectName(FOCUS_NAME)
        self._claim = ""

    @property
    def claim(self) -> str:
        return self._claim

    def set_claim(self, claim: str) -> None:
        if claim != self._claim:
            self._claim = claim
            self.changed.emit(claim)


def claim_focus(bridge: EngineBridge) -> ClaimFocus:
    found = bridge.findChild(ClaimFocus, FOCUS_NAME)
    return found if found is not None else ClaimFocus(bridge)


def focused_claim(state: DebateState | None, focus: ClaimFocus) -> str:
    """The focused claim if the debate has it, else its first claim ("" with none)."""
    if state is None or not state.claims:
        return ""
    ids = [c.id for c in state.claims]
    return focus.claim if focus.claim in ids else ids[0]


class DebateDock(BridgeDock):
    def __init__(self, title: str, object_name: str, bridge: EngineBridge,
                 parent: QWidget | None = None, *, runner: SessionRunner | None = None) -> None:
        super().__init__(title, object_name, bridge, parent)
        self.runner = runner
        self.focus = claim_focus(bridge)
        bridge.eventReceived.connect(self._on_bridge_event_received)
        self.focus.changed.connect(self._on_focus_changed)
        if runner is not None:  # what may be done changes when a step ends
            runner.busyChanged.connect(self._on_runner_busy_changed)

    def debate(self) -> DebateState | None:
        """The debate shown (live or replayed), or None for another kind."""
        return shown_state(self.bridge, DebateState)

    def running(self) -> bool:
        return self.runner is not None and self.runner.busy

    def perform(self, action: Action) -> None:
        if self.runner is not None and not self.bridge.read_only:
            self.runner.perform(action)

    def _on_bridge_event_received(self, event: object) -> None:
        if isinstance(event, REFRESH_ON) and not self.retired:
            self.schedule_refresh()

    def _on_focus_changed(self, _claim: str) -> None:
        self.schedule_refresh()

    def _on_runner_busy_changed(self, _busy: bool) -> None:
        self.schedule_refresh()
