"""The base of the roundtable's own docks: a BridgeDock that reads the meeting state.

`meeting_state(bridge)` is the roundtable's state of the session the bridge shows (None
for a session of another kind); `RoundtableDock.editing_blocked()` says why the actors,
candidates or composer may not be edited now. Shared docks never use these: they read
the bridge's kind-neutral view. Must hold no engine logic.
"""

from __future__ import annotations

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
        if session.busy:
            return "A call is running; wait for it or press Stop."
        # Auto flow runs tools between calls; the protocol says so through its actions.
        turn = next((a for a in session.actions() if a.id == "next_turn"), None)
        if turn is not None and not turn.enabled:
            return turn.reason or "The session is busy."
        return ""
