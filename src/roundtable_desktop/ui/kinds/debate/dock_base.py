"""The base of the debate's docks: the shared KindDock reading the shown session's
DebateState (refreshing on the engine events that change it and when a step starts or
ends, performing actions through the window's session runner as the toolbar would), and
the selected claim the docks share.

`ClaimFocus` is one small QObject per bridge (a child of it, found by name): the game
room's claim selector sets it, the polygon's shading and the metrics follow it, so the
docks never hold references to each other.
Must hold no engine logic and never change the debate itself.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QComboBox, QWidget

from roundtable_desktop.domain.events import (
    ActionFinished,
    ActionStarted,
    SessionEnded,
    StateChanged,
)
from roundtable_desktop.kinds.debate.state import DebateState
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.docks.kind_dock import KindDock
from roundtable_desktop.ui.window.session_runner import SessionRunner

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


def fill_claim_combo(combo: QComboBox, state: DebateState, focus: ClaimFocus) -> int:
    """The claims in `combo` ("c1: text", data: the id), the focused one current; its
    index (-1 with no claims). Quiet: the combo emits nothing while it is filled."""
    items = [(c.id, f"{c.id}: {c.text}") for c in state.claims]
    current = [(combo.itemData(i), combo.itemText(i)) for i in range(combo.count())]
    combo.blockSignals(True)
    if items != current:
        combo.clear()
        for cid, text in items:
            combo.addItem(text, cid)
    index = combo.findData(focused_claim(state, focus))
    if index >= 0 and index != combo.currentIndex():
        combo.setCurrentIndex(index)
    combo.blockSignals(False)
    return index


class DebateDock(KindDock[DebateState]):
    state_type = DebateState
    refresh_on = (StateChanged, ActionStarted, ActionFinished, SessionEnded)
    follows_runner = True  # what may be done changes when a step ends

    def __init__(self, title: str, object_name: str, bridge: EngineBridge,
                 parent: QWidget | None = None, *, runner: SessionRunner | None = None) -> None:
        super().__init__(title, object_name, bridge, parent, runner=runner)
        self.focus = claim_focus(bridge)
        self.focus.changed.connect(self._on_focus_changed)

    def _on_focus_changed(self, _claim: str) -> None:
        self.schedule_refresh()
