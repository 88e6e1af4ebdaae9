"""The schedule a hand is dealt with, in the Cards dock above Deal, in one row: rounds
per table (3-5), merge cycles (2-3, by default 3 for 7+ cards, else 2) and the event cap (the
safety cap, 1-50), each a spin box bounded by the engine's own ranges (kinds/debate/
setup.py), and one sentence under them saying the schedule as the game room will
("3 rounds per table, a merge after each; …": the row's tooltip, shown under it only
as a warning when the cap would stop the tables before their rounds).

`options()` are the session options a new debate takes (`rounds`, `merge_cycles`,
`max_events`, as `run --rounds --merge-cycles --max-events`); `matches(state)` says
whether the shown debate already has this schedule. Merge cycles follow the hand's size
(`follow_hand`) until the user sets them. Classical mode has no rounds or merges: the
row is disabled there, saying why. Must hold no engine logic and change no session.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QGridLayout, QLabel, QSpinBox, QWidget

from roundtable_desktop.domain.plural import count_of
from roundtable_desktop.kinds.debate.setup import MAX_EVENTS, MERGE_CYCLES, ROUNDS_PER_TABLE
from roundtable_desktop.kinds.debate.state import DebateState
from roundtable_desktop.ui.docks.bridge_dock import plain_tooltip
from roundtable_desktop.ui.text_label import WrappedLabel, buddy_label

LARGE_HAND_CYCLES = 7  # from this many cards the merge cycles default to 3


def default_cycles(cards: int) -> int:
    return MERGE_CYCLES[1] if cards >= LARGE_HAND_CYCLES else MERGE_CYCLES[0]


def _spin(name: str, bounds: tuple[int, int], value: int, tip: str) -> QSpinBox:
    spin = QSpinBox()
    spin.setObjectName(name)
    spin.setRange(*bounds)
    spin.setValue(value)
    spin.setToolTip(plain_tooltip(f"{tip} ({bounds[0]}-{bounds[1]})."))
    return spin


class DebateScheduleView(QWidget):
    """The three spin boxes and the sentence that says what they make."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("debateDealSchedule")
        self.rounds = _spin("debateRounds", ROUNDS_PER_TABLE, 3,
                            "Table rounds before the final table, a merge after each")
        self.cycles = _spin("debateMergeCycles", MERGE_CYCLES, MERGE_CYCLES[0],
                            "Merges that reseat the tables by crux affinity; 3 by "
                            "default for 7 or more cards")
        self.cap = _spin("debateMaxEvents", MAX_EVENTS, 12,
                         "The safety cap: the debate stops after this many events "
                         "(a table round with its merge)")
        self.note = WrappedLabel("")
        self.note.setObjectName("debateScheduleNote")
        self._cycles_chosen = False
        grid = QGridLayout(self)  # one row of fields, the sentence under it
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(4)
        grid.setVerticalSpacing(2)
        labels = (("&Rounds", self.rounds), ("&Merges", self.cycles), ("Ca&p", self.cap))
        for column, (text, spin) in enumerate(labels):
            label: QLabel = buddy_label(text, spin)
            label.setToolTip(spin.toolTip())
            grid.addWidget(label, 0, column * 2)
            grid.addWidget(spin, 0, column * 2 + 1)
            grid.setColumnStretch(column * 2 + 1, 1)
        grid.addWidget(self.note, 1, 0, 1, len(labels) * 2)
        for spin in (self.rounds, self.cap):
            spin.valueChanged.connect(self._on_spin_value_changed)
        self.cycles.valueChanged.connect(self._on_cycles_value_changed)
        self._say()

    # -- reading ---------------------------------------------------------------------------
    def options(self) -> dict[str, Any]:
        """The session options of this schedule (a new debate is started with them)."""
        return {"rounds": self.rounds.value(), "merge_cycles": self.cycles.value(),
                "max_events": self.cap.value()}

    def matches(self, state: DebateState) -> bool:
        return (state.rounds_per_table, state.merge_cycles, state.max_events) == (
            self.rounds.value(), self.cycles.value(), self.cap.value())

    def note_text(self) -> str:
        return self.note.full_text()

    # -- setting -----------------------------------------------------------------------------
    def show_state(self, state: DebateState) -> None:
        """The shown debate's schedule (its merge cycles count as chosen)."""
        for spin, value in ((self.rounds, state.rounds_per_table),
                            (self.cycles, state.merge_cycles), (self.cap, state.max_events)):
            spin.blockSignals(True)
            spin.setValue(value)
            spin.blockSignals(False)
        self._cycles_chosen = state.merge_cycles != default_cycles(len(state.agents))
        self._say()

    def follow_hand(self, cards: int) -> None:
        """Merge cycles by the hand's size, unless the user set them."""
        if not self._cycles_chosen:
            self.cycles.blockSignals(True)
            self.cycles.setValue(default_cycles(cards))
            self.cycles.blockSignals(False)
            self._say()

    def set_mode(self, mode: str) -> None:
        blitz = mode != "classical"
        for spin in (self.rounds, self.cycles, self.cap):
            spin.setEnabled(blitz)
        self._say()

    # -- the sentence --------------------------------------------------------------------------
    def _on_spin_value_changed(self, _value: int) -> None:
        self._say()

    def _on_cycles_value_changed(self, _value: int) -> None:
        self._cycles_chosen = True
        self._say()

    def _say(self) -> None:
        if not self.rounds.isEnabled():
            self.note.set_full_text("Classical mode: turns, not table rounds and merges.")
            self.setToolTip(self.note.full_text())
            self.note.setVisible(False)
            return
        rounds, cycles, cap = self.rounds.value(), self.cycles.value(), self.cap.value()
        text = (f"{count_of(rounds, 'round')} per table, a merge after each; the first "
                f"{count_of(cycles, 'merge')} reseat the tables; at most "
                f"{count_of(cap, 'event')}.")
        self.setToolTip(plain_tooltip(text))
        if cap < rounds:
            text += (f" The cap stops the tables after {count_of(cap, 'round')}, before "
                     f"their {rounds}.")
        self.note.set_full_text(text)
        # The sentence shows only when it warns (Deal stays in sight on a laptop); the
        # game room says the schedule once dealt, and the row's tooltip says it now.
        self.note.setVisible(cap < rounds)
