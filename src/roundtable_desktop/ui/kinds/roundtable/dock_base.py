"""The base of the roundtable's own docks: the shared KindDock reading the meeting state.

`meeting_state(bridge)` is the roundtable's state of the session the bridge shows (None
for a session of another kind); `RoundtableDock.blocked()` says why the actors,
candidates or composer may not be edited now. Each dock follows the bridge's signals it
needs itself. Shared docks never use these: they read the bridge's kind-neutral view.
Must hold no engine logic.
"""

from __future__ import annotations

from roundtable_desktop.kinds.roundtable.edit import EDIT_ACTION
from roundtable_desktop.kinds.roundtable.meeting import MeetingState
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.docks.bridge_dock import shown_state
from roundtable_desktop.ui.docks.kind_dock import KindDock


def meeting_state(bridge: EngineBridge) -> MeetingState | None:
    """The meeting state of the session shown, live or replayed; None for other kinds."""
    return shown_state(bridge, MeetingState)


class RoundtableDock(KindDock[MeetingState]):
    """A dock of the roundtable kind: reads its MeetingState."""

    state_type = MeetingState
    refresh_on = ()  # each dock follows the signals it shows
    ended_words = "The meeting has ended."

    def blocked(self) -> str:
        """Why the user may not change anything now, or "" when they may."""
        why = super().blocked()
        session = self.live_kind_session()
        if why or session is None:
            return why
        # A call or Auto running: the engine says so through the edit it offers.
        spec = next((e for e in session.edits() if e.id == EDIT_ACTION), None)
        if spec is not None and not spec.enabled:
            return spec.reason or "The session is busy."
        return ""
