"""The sequencer's phase strip: MEMO_REFRESH -> OBSERVE -> MODEL -> PLAN -> DRAFT ->
SPEAK -> SEND, one row per side, the live phase lit.

Each phase is a chip with a short name (its full name and what it does in the tooltip):
"live" (the side's turn is in it now: accent colour, bold), "done" (reached earlier in
the side's last turn: filled, solid border), "skipped" (a human turn skips PLAN, DRAFT
and SPEAK, and the policies may leave out MODEL and PLAN: greyed, struck out) or
"waiting". The rows follow PhaseChanged events (the dock hands them over) and, when a
session is shown, the state's turn in progress. Colours follow
the theme (each chip's own stylesheet; never an application-wide one). Must hold no
engine logic.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGridLayout, QLabel, QSizePolicy, QWidget

from roundtable_desktop.kinds.negotiation.state import (
    HUMAN_PHASES,
    PHASES,
    SIDES,
    NegotiationState,
)
from roundtable_desktop.ui.theme import ThemeColors, colors

SHORT = {"MEMO_REFRESH": "Memo", "OBSERVE": "Obs.", "MODEL": "Model", "PLAN": "Plan",
         "DRAFT": "Draft", "SPEAK": "Speak", "SEND": "Send"}
WHAT = {
    "MEMO_REFRESH": "MEMO_REFRESH: the memo (CONTEXT) is brought up to date.",
    "OBSERVE": "OBSERVE: the loop guard hears the other side's last line.",
    "MODEL": "MODEL: the observer models the last speaker (an observer call).",
    "PLAN": "PLAN: the planner offers 4-6 options (a planner call); in confirm mode the "
            "turn waits here for your pick.",
    "DRAFT": "DRAFT: the side's reply is drafted with the chosen focus (a reply call).",
    "SPEAK": "SPEAK: the reply is cleaned, relayed to the other side's box and read aloud; "
             "in confirm mode the turn waits here so you can edit the draft.",
    "SEND": "SEND: the line is logged and the turn passes.",
}
WAITING, LIVE, DONE, SKIPPED = "waiting", "live", "done", "skipped"
CHIP_SCALE = 0.9  # seven chips share a dock column's width


class PhaseStrip(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("phaseStrip")
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(2)
        grid.setVerticalSpacing(2)
        self.side_labels: dict[str, QLabel] = {}
        self.chips: dict[tuple[str, str], QLabel] = {}
        for row, side in enumerate(SIDES):
            label = QLabel(side)
            label.setObjectName("phaseSide")
            self.side_labels[side] = label
            grid.addWidget(label, row, 0)
            for column, phase in enumerate(PHASES, start=1):
                chip = QLabel(SHORT[phase])
                chip.setObjectName(f"phase_{side}_{phase}")
                chip.setAlignment(Qt.AlignmentFlag.AlignCenter)
                chip.setToolTip(WHAT[phase])
                chip.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
                font = chip.font()
                font.setPointSizeF(font.pointSizeF() * CHIP_SCALE)
                chip.setFont(font)
                width = chip.fontMetrics().horizontalAdvance(SHORT[phase])
                chip.setMinimumWidth(chip.fontMetrics().horizontalAdvance("Pla") + 4)
                grid.addWidget(chip, row, column)
                grid.setColumnStretch(column, width + 8)
                self.chips[(side, phase)] = chip
        self._reached: dict[str, list[str]] = {side: [] for side in SIDES}
        self._live: dict[str, str] = {side: "" for side in SIDES}
        self._human: dict[str, bool] = {side: False for side in SIDES}
        self._off: set[str] = set()  # phases a policy leaves out (no observer, no planner)
        self._colors: ThemeColors = colors("light")
        self._paint()

    # -- reading (tests) --------------------------------------------------------------------
    def live_phase(self, side: str) -> str:
        """The phase the side's turn is in now ("" between its turns)."""
        return self._live[side]

    def chip_state(self, side: str, phase: str) -> str:
        if phase in self._off:
            return SKIPPED
        if phase == self._live[side]:
            return LIVE
        if self._human[side] and phase not in HUMAN_PHASES:
            return SKIPPED
        return DONE if phase in self._reached[side] else WAITING

    # -- following the turn -----------------------------------------------------------------
    def enter(self, side: str, phase: str, *, human: bool) -> None:
        """A PhaseChanged: `side`'s turn entered `phase`."""
        if side not in self._live or phase not in PHASES:
            return
        if phase == PHASES[0]:  # a new turn of this side
            self._reached[side] = []
        if phase not in self._reached[side]:
            self._reached[side].append(phase)
        self._live[side], self._human[side] = phase, human
        self._paint()

    def show_state(self, state: NegotiationState | None) -> None:
        """Live phases from the state: its turn in progress, nobody else's; the phases
        the policies leave out (MODEL without the observer, PLAN without the planner)."""
        policies = state.policies if state is not None else None
        self._off = {phase for phase, on in (
            ("MODEL", policies.observer if policies else True),
            ("PLAN", policies.planner if policies else True)) if not on}
        for side in SIDES:
            cur = state.current if state is not None else None
            if cur is not None and cur.side == side:
                phases = HUMAN_PHASES if cur.human else PHASES
                upto = phases[:phases.index(cur.phase) + 1] if cur.phase in phases else []
                self._reached[side] = list(upto)
                self._live[side], self._human[side] = cur.phase, cur.human
            else:
                self._live[side] = ""
                if state is not None:
                    self._human[side] = state.sides[side].human
            if state is not None:
                seat = state.sides[side]
                self.side_labels[side].setText(side)
                self.side_labels[side].setToolTip(f"{seat.emoji} {seat.name}")
        self._paint()

    def set_theme_colors(self, theme: ThemeColors) -> None:
        self._colors = theme
        self._paint()

    def _paint(self) -> None:
        c = self._colors
        looks = {
            LIVE: f"background:{c.accent}; color:{c.accent_text}; font-weight:700; "
                  f"border:1px solid {c.accent};",
            DONE: f"background:{c.code_bg}; color:{c.text}; border:1px solid {c.border};",
            WAITING: f"background:transparent; color:{c.muted}; "
                     f"border:1px dashed {c.border};",
            SKIPPED: f"background:transparent; color:{c.disabled_text}; "
                     f"border:1px dotted {c.disabled_border}; text-decoration:line-through;",
        }
        for (side, phase), chip in self.chips.items():
            state = self.chip_state(side, phase)
            chip.setToolTip(f"{WHAT[phase]} ({state})")
            chip.setProperty("phaseState", state)
            chip.setStyleSheet(f"QLabel {{ {looks[state]} border-radius:3px; "
                               "padding:2px 0px; }")
