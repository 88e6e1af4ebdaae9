"""The base of the legion's docks: the shared KindDock reading the shown session's
LegionState (refreshing on the engine events that change it, performing the Commander's
actions through the window's session runner, exactly as the toolbar would).

Must hold no engine logic and never change the legion's state except through actions and
the edit functions of kinds/legion/edit.py.
"""

from __future__ import annotations

from roundtable_desktop.kinds.legion.state import LegionState
from roundtable_desktop.ui.docks.kind_dock import KindDock


class LegionDock(KindDock[LegionState]):
    state_type = LegionState
    not_running_words = "No legion session is running."
