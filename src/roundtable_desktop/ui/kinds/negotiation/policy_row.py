"""The Sequencer's policy row: the seed's `policies` beside relay, one check box each.

"Observer" (useModeler: MODEL asks the observer for its model of the last speaker),
"Planner" (strategicPlanningEnabled: PLAN asks for options and the draft gets a
FOCUS_THIS_TURN), "Wait for speech" (SPEAK holds the turn until a side's line has been
read aloud; it matters only while a side reads aloud). Each change is emitted as
`edited(Edit)` (set_policies); the dock makes it. Must hold no engine logic.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QCheckBox, QGridLayout, QLabel, QWidget

from roundtable_desktop.engine.base import Edit
from roundtable_desktop.kinds.negotiation.state import SET_POLICIES, NegotiationState

POLICIES = {
    "observer": ("Observer", "MODEL asks the observer for its model of the last speaker "
                 "(MODEL_OF_OTHER in the next draft). Off: no observer call, the model "
                 "stays as it is."),
    "planner": ("Planner", "PLAN asks the planner for 4-6 options; the chosen one is the "
                "draft's FOCUS_THIS_TURN. Off: no planner call, the draft has no focus."),
    "wait_for_speech": ("Wait for speech", "A line read aloud holds the sequencer at SPEAK "
                        "until it has been read (Stop cuts it short). Off: the next phase "
                        "starts while it is read."),
}


class PolicyRow(QWidget):
    edited = Signal(object)  # Edit

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.checks: dict[str, QCheckBox] = {}
        grid = QGridLayout(self)  # two rows: a narrow dock column cuts nothing off
        grid.setContentsMargins(0, 0, 0, 0)
        grid.addWidget(QLabel("Calls:"), 0, 0)
        places = {"observer": (0, 1, 1), "planner": (0, 2, 1), "wait_for_speech": (1, 1, 2)}
        for name, (label, tip) in POLICIES.items():
            check = QCheckBox(label)
            check.setObjectName(f"policy_{name}")
            check.setToolTip(tip)
            check.toggled.connect(lambda on, n=name: self._on_check_toggled(n, on))
            self.checks[name] = check
            row, column, span = places[name]
            grid.addWidget(check, row, column, 1, span)
        grid.setColumnStretch(3, 1)
        self._filling = False

    def show_state(self, state: NegotiationState, *, blocked: str) -> None:
        self._filling = True
        try:
            for name, check in self.checks.items():
                check.setChecked(bool(getattr(state.policies, name)))
                check.setEnabled(not blocked)
        finally:
            self._filling = False

    def _on_check_toggled(self, name: str, on: bool) -> None:
        if not self._filling:
            self.edited.emit(Edit(id=SET_POLICIES, params={name: on}))
