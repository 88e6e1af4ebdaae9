"""The base of the tutor's docks: the shared KindDock reading the shown session's
TutorState (refreshing on the engine events that change it, performing the student's
actions through the window's session runner, exactly as the toolbar would).
Must hold no engine logic and never change the exercise itself.
"""

from __future__ import annotations

from roundtable_desktop.kinds.tutor.state import TutorState
from roundtable_desktop.ui.docks.kind_dock import KindDock


class TutorDock(KindDock[TutorState]):
    state_type = TutorState
    not_running_words = "No tutor exercise is running."
