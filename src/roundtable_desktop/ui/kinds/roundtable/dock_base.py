"""The base of the roundtable's own docks: a BridgeDock that reads the meeting state.

`meeting_state(bridge)` is the roundtable's state of the session the bridge shows (None
for a session of another kind); `RoundtableDock.editing_blocked()` says why the actors,
candidates or composer may not be edited now. Shared docks never use these: they read
the bridge's kind-neutral view. Must hold no engine logic.
"""

from __future__ import annotations

from roundtable_desktop.kinds.roundtable.edit import EDIT_ACTION
from roundtable_desktop.kinds.roundtable.meeting import MeetingState
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.docks.bridge_dock import BridgeDock, shown_state


def meeting_state(bridge: EngineBridge) -> MeetingState | None:
    """The meeting state of the session shown, live or replayed; None for other kinds."""
    return shown_state(bridge, MeetingState)


class RoundtableDock(BridgeDock):
    """A dock of the roundtable kind: reads its MeetingState."""

    def state(self) -> MeetingState | None:
        return meeting_state(self.bridge)

    def editing_blocked(self) -> str:
        """Why the user may not change anything now, or "" when they may."""
        if self.bridge.read_only:
            return "Replay is read-only."
        session = self.live_session()
        if session is None or self.state() is None:
            return "No session is running."
        if session.ended:
            return "The meeting has ended."
        # A call or Auto running: the engine says so through the edit it offers.
        spec = next((e for e in session.edits() if e.id == EDIT_ACTION), None)
        if spec is not None and not spec.enabled:
            return spec.reason or "The session is busy."
        return ""
