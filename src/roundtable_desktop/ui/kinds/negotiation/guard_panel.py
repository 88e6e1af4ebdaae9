"""The Sequencer's "Loop and guidance" tab: loop guard, relay mode, user guidance.

- Loop guard: the similarity threshold, the window of recent lines each side's guard
  compares, and the trips before the game is stalled (set_loop_guard); under them what
  the guards have seen (trips so far, whose planner must diversify).
- Relay: the reply lands in the other side's relay box (set_relay).
- Guidance: optional texts for the observer and the planner, put into their next
  prompts when applied (set_guidance; Apply is enabled while a text differs from the
  state's).
Each edit is emitted as `edited(Edit)`; the dock makes it. Must hold no engine logic.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from roundtable_desktop.engine.base import Edit
from roundtable_desktop.kinds.negotiation.state import (
    SET_GUIDANCE,
    SET_LOOP_GUARD,
    SET_RELAY,
    SIDES,
    NegotiationState,
)

CHANNELS = ("observer", "planner")


class GuardPanel(QWidget):
    edited = Signal(object)  # Edit

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._filling = False
        self.threshold_spin = QDoubleSpinBox()
        self.threshold_spin.setObjectName("loopThreshold")
        self.threshold_spin.setRange(0.05, 1.0)
        self.threshold_spin.setSingleStep(0.05)
        self.threshold_spin.setDecimals(2)
        self.window_spin = QSpinBox()
        self.window_spin.setObjectName("loopWindow")
        self.window_spin.setRange(1, 50)
        self.trips_spin = QSpinBox()
        self.trips_spin.setObjectName("loopMaxTrips")
        self.trips_spin.setRange(1, 50)
        for key, spin in (("threshold", self.threshold_spin), ("window", self.window_spin),
                          ("max_trips", self.trips_spin)):
            spin.setKeyboardTracking(False)
            spin.valueChanged.connect(lambda _v, k=key: self._on_guard_changed(k))
        self.guard_status = QLabel()
        self.guard_status.setObjectName("loopStatus")
        self.guard_status.setWordWrap(True)
        self.guard_status.setTextFormat(Qt.TextFormat.PlainText)
        self.relay_check = QCheckBox("Relay: a reply lands in the other side's relay box")
        self.relay_check.setObjectName("relayMode")
        self.relay_check.toggled.connect(self._on_relay_check_toggled)
        guard_form = QFormLayout()
        guard_form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        guard_form.addRow("Similarity threshold", self.threshold_spin)
        guard_form.addRow("Window (lines)", self.window_spin)
        guard_form.addRow("Trips before stalled", self.trips_spin)
        guard_box = QGroupBox("Loop guard (Jaccard trigram)")
        guard_column = QVBoxLayout(guard_box)
        guard_column.addLayout(guard_form)
        guard_column.addWidget(self.guard_status)

        self.guidance_edits: dict[str, QPlainTextEdit] = {}
        self.apply_buttons: dict[str, QPushButton] = {}
        self._loaded: dict[str, str] = dict.fromkeys(CHANNELS, "")
        guidance_box = QGroupBox("Guidance (optional, into the next prompt)")
        guidance_column = QVBoxLayout(guidance_box)
        for channel in CHANNELS:
            edit = QPlainTextEdit()
            edit.setObjectName(f"guidance_{channel}")
            edit.setTabChangesFocus(True)
            edit.setPlaceholderText(f"{channel.upper()}_GUIDANCE, e.g. "
                                    + ("watch for concessions" if channel == "observer"
                                       else "prefer concrete proposals with a deadline"))
            edit.setFixedHeight(edit.fontMetrics().lineSpacing() * 3 + 12)
            edit.textChanged.connect(self._sync_apply)
            apply = QPushButton("Apply")
            apply.setObjectName(f"guidanceApply_{channel}")
            apply.clicked.connect(lambda _=False, c=channel: self._on_apply_clicked(c))
            row = QHBoxLayout()
            row.addWidget(QLabel(f"{channel.capitalize()}:"), 1)
            row.addWidget(apply)
            guidance_column.addLayout(row)
            guidance_column.addWidget(edit)
            self.guidance_edits[channel] = edit
            self.apply_buttons[channel] = apply

        column = QVBoxLayout(self)
        column.setContentsMargins(4, 4, 4, 4)
        column.addWidget(guard_box)
        column.addWidget(self.relay_check)
        column.addWidget(guidance_box)
        column.addStretch(1)
        self._blocked = ""

    # -- filling ----------------------------------------------------------------------------
    def show_state(self, state: NegotiationState, *, blocked: str) -> None:
        self._filling = True
        try:
            self.threshold_spin.setValue(state.loop.threshold)
            self.window_spin.setValue(state.loop.window)
            self.trips_spin.setValue(state.loop.max_trips)
            self.relay_check.setChecked(state.relay)
            for channel, text in (("observer", state.observer_guidance),
                                  ("planner", state.planner_guidance)):
                edit = self.guidance_edits[channel]
                shown = edit.toPlainText()
                if shown == self._loaded[channel]:  # no edits waiting: follow the state
                    if shown != text:
                        edit.setPlainText(text)
                    self._loaded[channel] = text
                elif shown.strip() == text.strip():  # the edits were just applied
                    self._loaded[channel] = shown
        finally:
            self._filling = False
        diversify = [s for s in SIDES if state.force_diversity.get(s)]
        self.guard_status.setText(
            f"Trips so far: {state.kpis.loop_trips} of {state.loop.max_trips}. "
            + (f"Must diversify now: {', '.join(diversify)}." if diversify
               else "No planner is forced to diversify."))
        self._blocked = blocked
        for widget in (self.threshold_spin, self.window_spin, self.trips_spin,
                       self.relay_check, *self.guidance_edits.values()):
            widget.setEnabled(not blocked)
            widget.setToolTip(blocked)
        self._sync_apply()

    def _sync_apply(self) -> None:
        for channel, button in self.apply_buttons.items():
            changed = self.guidance_edits[channel].toPlainText().strip() != \
                self._loaded[channel].strip()
            button.setEnabled(changed and not self._blocked)
            button.setToolTip(self._blocked or ("" if changed else "Nothing new to apply."))

    # -- slots ------------------------------------------------------------------------------
    def _on_guard_changed(self, key: str) -> None:
        if self._filling:
            return
        value = {"threshold": self.threshold_spin.value(), "window": self.window_spin.value(),
                 "max_trips": self.trips_spin.value()}[key]
        self.edited.emit(Edit(id=SET_LOOP_GUARD, params={"loop_guard": {key: float(value)}}))

    def _on_relay_check_toggled(self, on: bool) -> None:
        if not self._filling:
            self.edited.emit(Edit(id=SET_RELAY, params={"relay": on}))

    def _on_apply_clicked(self, channel: str) -> None:
        text = self.guidance_edits[channel].toPlainText().strip()
        self.edited.emit(Edit(id=SET_GUIDANCE, params={"target": channel, "text": text}))
