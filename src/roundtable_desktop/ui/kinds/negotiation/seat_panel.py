"""One side's seat in the Sequencer: who plays it, its relay box, its voice, its model.

- Human seat: ticked, a person writes this side's lines (set_seat).
- Relay box: the other side's last reply lands here (relay mode). A human seat writes its
  own line here and sends it (Send: the window performs `send`): for a person the box
  never holds the other side's words (they would go out in this side's mouth); what the
  other side said stands above it instead, quoted and read-only. Edits are kept as the
  seat's relay text (edit_relay) once typing pauses; the box is never overwritten while
  it holds edits not yet kept.
- Voice: a voice of the speech engine and "Read aloud" (set_voice); disabled, with the
  reason as tooltip, where no speech engine exists.
- Sampling and model (folded by default): temperature, top_p, presence and frequency
  penalty, max_tokens (set_sampling) and the side's model (set_model; empty = the
  session's).
Each edit is emitted as `edited(Edit)`; the dock makes it. Must hold no engine logic.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from roundtable_desktop.engine.base import Edit
from roundtable_desktop.kinds.negotiation.state import (
    EDIT_RELAY,
    SET_MODEL,
    SET_SAMPLING,
    SET_SEAT,
    SET_VOICE,
    NegotiationState,
    other_side,
)
from roundtable_desktop.ui.text_label import text_label

RELAY_PAUSE_MS = 700
NO_VOICE = "(engine default)"
# Sampling fields: (key, label, low, high, step, decimals); max_tokens is whole.
SAMPLING = (("temperature", "Temperature", 0.0, 2.0, 0.05, 2),
            ("top_p", "top_p", 0.05, 1.0, 0.05, 2),
            ("presence_penalty", "Presence penalty", -2.0, 2.0, 0.05, 2),
            ("frequency_penalty", "Frequency penalty", -2.0, 2.0, 0.05, 2))


class SeatPanel(QWidget):
    edited = Signal(object)  # Edit
    sendRequested = Signal(str, str)  # side, text

    def __init__(self, side: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.side = side
        self._filling = False
        self._relay_loaded = ""  # the relay text last loaded from (or kept in) the state
        self._model_loaded = ""

        self.human_check = QCheckBox("Human seat: a person writes this side's lines")
        self.human_check.setObjectName(f"humanSeat_{side}")
        self.human_check.toggled.connect(self._on_human_check_toggled)

        self.relay_label = QLabel("Relay box")
        # What the other side said, for a person answering it: read-only, never sent.
        self.heard_label = text_label(f"heard_{side}")
        self.heard_label.setVisible(False)
        quoted = self.heard_label.font()
        quoted.setItalic(True)
        self.heard_label.setFont(quoted)
        self.relay_box = QPlainTextEdit()
        self.relay_box.setObjectName(f"relayBox_{side}")
        self.relay_box.setTabChangesFocus(True)
        self.relay_box.setPlaceholderText("The other side's last reply lands here; a human "
                                          "seat writes its line here.")
        self.relay_box.setFixedHeight(self.relay_box.fontMetrics().lineSpacing() * 4 + 12)
        self.relay_box.textChanged.connect(self._on_relay_box_text_changed)
        self.send_button = QPushButton("Send")
        self.send_button.setObjectName(f"relaySend_{side}")
        self.send_button.clicked.connect(self._on_send_clicked)
        self._relay_pause = QTimer(self)
        self._relay_pause.setSingleShot(True)
        self._relay_pause.setInterval(RELAY_PAUSE_MS)
        self._relay_pause.timeout.connect(self._keep_relay)

        self.voice_combo = QComboBox()
        self.voice_combo.setObjectName(f"voice_{side}")
        self.voice_combo.activated.connect(self._on_voice_changed)
        self.speak_check = QCheckBox("Read aloud")
        self.speak_check.setObjectName(f"speak_{side}")
        self.speak_check.toggled.connect(self._on_voice_changed)

        self.fold_button = QToolButton()
        self.fold_button.setObjectName(f"samplingFold_{side}")
        self.fold_button.setText("Sampling and model")
        self.fold_button.setCheckable(True)
        self.fold_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.fold_button.setArrowType(Qt.ArrowType.RightArrow)
        self.fold_button.toggled.connect(self._on_fold_button_toggled)
        self.model_edit = QLineEdit()
        self.model_edit.setObjectName(f"model_{side}")
        self.model_edit.editingFinished.connect(self._on_model_edit_finished)
        self.sampling_spins: dict[str, QDoubleSpinBox | QSpinBox] = {}
        form = QFormLayout()
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        form.addRow("Model", self.model_edit)
        for key, label, low, high, step, decimals in SAMPLING:
            spin = QDoubleSpinBox()
            spin.setRange(low, high)
            spin.setSingleStep(step)
            spin.setDecimals(decimals)
            self._add_spin(form, key, label, spin)
        tokens = QSpinBox()
        tokens.setRange(1, 4096)
        self._add_spin(form, "max_tokens", "max_tokens", tokens)
        self.sampling_box = QWidget()
        self.sampling_box.setLayout(form)
        self.sampling_box.setVisible(False)

        send_row = QHBoxLayout()
        send_row.addWidget(self.relay_label, 1)
        send_row.addWidget(self.send_button)
        voice_row = QHBoxLayout()
        voice_row.addWidget(QLabel("Voice"))
        voice_row.addWidget(self.voice_combo, 1)
        voice_row.addWidget(self.speak_check)
        column = QVBoxLayout(self)
        column.setContentsMargins(4, 4, 4, 4)
        column.setSpacing(4)
        column.addWidget(self.human_check)
        column.addWidget(self.heard_label)
        column.addLayout(send_row)
        column.addWidget(self.relay_box)
        column.addLayout(voice_row)
        column.addWidget(self.fold_button)
        column.addWidget(self.sampling_box)
        column.addStretch(1)
        self._speech_why = ""
        self._send_why = ""

    def _add_spin(self, form: QFormLayout, key: str, label: str,
                  spin: QDoubleSpinBox | QSpinBox) -> None:
        spin.setObjectName(f"{key}_{self.side}")
        spin.setKeyboardTracking(False)  # one edit per value, not per key typed
        spin.valueChanged.connect(lambda _v, k=key: self._on_sampling_changed(k))
        form.addRow(label, spin)
        self.sampling_spins[key] = spin

    # -- filling --------------------------------------------------------------------------
    def set_voices(self, voices: list[str], why_not: str) -> None:
        """The engine's voices, or why there is no speech (controls disabled)."""
        self._speech_why = why_not
        self.voice_combo.blockSignals(True)
        self.voice_combo.clear()
        self.voice_combo.addItem(NO_VOICE, "")
        for name in voices:
            self.voice_combo.addItem(name, name)
        self.voice_combo.blockSignals(False)

    def show_state(self, state: NegotiationState, *, blocked: str, send_why: str) -> None:
        """The seat as the state has it; `blocked`: why nothing may change; `send_why`:
        why this seat may not send now ("" when it may)."""
        seat = state.sides[self.side]
        self._filling = True
        try:
            self.human_check.setChecked(seat.human)
            wanted = box_text(state, self.side)
            if self.relay_box.toPlainText() == self._relay_loaded \
                    and wanted != self._relay_loaded:
                self.relay_box.setPlainText(wanted)
                self._relay_loaded = wanted
            heard = heard_line(state, self.side) if seat.human else ""
            other = state.sides[other_side(self.side)].name
            self.heard_label.setText(f"{other} said: “{heard}”" if heard else "")
            self.heard_label.setVisible(bool(heard))
            self.heard_label.setToolTip(f"What {other} said last: shown to answer, never "
                                        "sent.")
            index = max(0, self.voice_combo.findData(seat.voice or ""))
            self.voice_combo.setCurrentIndex(index)
            self.speak_check.setChecked(seat.speak)
            if not self.model_edit.hasFocus():
                self.model_edit.setText(seat.model)
                self._model_loaded = seat.model
            self.model_edit.setPlaceholderText(f"the session's: {state.model}")
            values = seat.sampling.model_dump()
            for key, spin in self.sampling_spins.items():
                if not spin.hasFocus():
                    spin.setValue(values[key])
        finally:
            self._filling = False
        self._send_why = blocked or send_why
        for widget in (self.human_check, self.relay_box, self.model_edit,
                       *self.sampling_spins.values()):
            widget.setEnabled(not blocked)
        self.human_check.setToolTip(blocked or "A person writes this side's lines in the relay "
                                    "box; the observer still models them.")
        speech = blocked or self._speech_why
        for widget in (self.voice_combo, self.speak_check):
            widget.setEnabled(not speech)
            widget.setToolTip(speech or "Read this side's replies aloud in this voice.")
        self.send_button.setEnabled(not self._send_why)
        self.send_button.setToolTip(self._send_why or f"Send the relay box as {seat.name}'s "
                                    "line (Ctrl+Shift+Return).")
        self.relay_label.setText("Relay box: you write here" if seat.human
                                 else f"Relay box: what {self.side} hears")
        self.relay_box.setPlaceholderText(
            f"Write {seat.name}'s line here, then Send." if seat.human else
            "The other side's last reply lands here; a human seat writes its line here.")

    def relay_text(self) -> str:
        return self.relay_box.toPlainText()

    def send_now(self) -> bool:
        """Send the relay box as this seat's line, if it may; False if not."""
        text = self.relay_box.toPlainText().strip()
        if self._send_why or not text:
            return False
        self._relay_pause.stop()
        self._relay_loaded = self.relay_box.toPlainText()  # sent: the state empties the box
        self.sendRequested.emit(self.side, text)
        return True

    # -- slots ------------------------------------------------------------------------------
    def _on_human_check_toggled(self, on: bool) -> None:
        if not self._filling:
            self.edited.emit(Edit(id=SET_SEAT, params={"seat": self.side, "human": on}))

    def _on_relay_box_text_changed(self) -> None:
        if not self._filling and self.relay_box.toPlainText() != self._relay_loaded:
            self._relay_pause.start()

    def _keep_relay(self) -> None:
        text = self.relay_box.toPlainText()
        if text != self._relay_loaded:
            self._relay_loaded = text
            self.edited.emit(Edit(id=EDIT_RELAY, params={"seat": self.side, "text": text}))

    def _on_send_clicked(self) -> None:
        if not self.send_now():
            self.relay_box.setFocus()

    def _on_voice_changed(self, *_args: object) -> None:
        if self._filling:
            return
        voice = self.voice_combo.currentData() or None
        self.edited.emit(Edit(id=SET_VOICE, params={
            "seat": self.side, "voice": voice, "speak": self.speak_check.isChecked()}))

    def _on_fold_button_toggled(self, open_: bool) -> None:
        self.sampling_box.setVisible(open_)
        self.fold_button.setArrowType(Qt.ArrowType.DownArrow if open_
                                      else Qt.ArrowType.RightArrow)

    def _on_model_edit_finished(self) -> None:
        model = self.model_edit.text().strip()
        if not self._filling and model != self._model_loaded:
            self._model_loaded = model
            self.edited.emit(Edit(id=SET_MODEL, params={"seat": self.side, "model": model}))

    def _on_sampling_changed(self, key: str) -> None:
        if self._filling:
            return
        spin = self.sampling_spins[key]
        self.edited.emit(Edit(id=SET_SAMPLING, params={
            "seat": self.side, "sampling": {key: float(spin.value())}}))


def heard_line(state: NegotiationState, side: str) -> str:
    """The other side's last line sent (its opening line before any), or ""."""
    other = other_side(side)
    return next((e.text for e in reversed(state.messages()) if e.who == other), "")


def box_text(state: NegotiationState, side: str) -> str:
    """What `side`'s relay box holds: the relay text, except that a human seat's box never
    holds the other side's words (relayed there when it was an AI seat, or still there
    from the other side's last reply): a person writes their own line in it."""
    seat = state.sides[side]
    if not seat.human:
        return seat.input_text
    theirs = {state.sides[other_side(side)].last_text.strip(), heard_line(state, side).strip()}
    text = seat.input_text
    return "" if text.strip() and text.strip() in theirs else text
