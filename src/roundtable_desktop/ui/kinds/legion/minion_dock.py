"""The Minion dock: the chosen minion's persona and model, its opinion scores (editable,
each with the mode its band gives), the diary of its last turn with the quiet lines of
the turns it stayed silent, the speed slider for predicted response times, and who
decides whether an unaddressed minion speaks (its plan, or the app's draw: a session
option).

Edits are the session's `edit_minion` edit (kinds/legion/edit.py validates them; the
engine announces them, so the store checkpoints them); a refused edit shows its sentence
here. The speed slider
compresses the minions' predicted response times for a demo (0 posts at once).
Must hold no engine logic.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSlider,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from roundtable_desktop.domain.refusal import Refusal
from roundtable_desktop.engine.base import Edit
from roundtable_desktop.kinds.legion.edit import EDIT_ACTION, MAX_SPEED
from roundtable_desktop.kinds.legion.state import (
    MAX_SCORE,
    MIN_SCORE,
    LegionState,
    Minion,
    mode_for,
)
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.kinds.legion.diary import diary_text
from roundtable_desktop.ui.kinds.legion.dock_base import LegionDock
from roundtable_desktop.ui.text_label import text_label
from roundtable_desktop.ui.window.session_runner import SessionRunner

QUIET_LINES = 5  # the last silent turns shown above the diary
SPEED_STEPS = 10  # slider ticks per unit of speed
ZWSP = "\u200b"  # a line may break here (after a mode's slash), nothing shows


class LegionMinionDock(LegionDock):
    def __init__(self, bridge: EngineBridge, parent: QWidget | None = None, *,
                 runner: SessionRunner | None = None) -> None:
        super().__init__("Minion", "legionMinionDock", bridge, parent, runner=runner)
        self._minion: str | None = None
        self._spins: dict[str, QSpinBox] = {}
        self._bands: dict[str, QLabel] = {}

        self.picker = QComboBox()
        self.picker.setObjectName("legionMinionPicker")
        self.picker.currentTextChanged.connect(self._on_picker_changed)
        self.persona = text_label("legionPersona")
        self.model = QLineEdit()
        self.model.setObjectName("legionMinionModel")
        self.model.editingFinished.connect(self._on_model_editing_finished)
        self.scores_box = QGroupBox("Opinion scores (1–100)")
        self._scores_grid = QGridLayout(self.scores_box)
        self.apply_scores = QPushButton("Apply scores")
        self.apply_scores.setObjectName("legionApplyScores")
        self.apply_scores.clicked.connect(self._on_apply_scores_clicked)
        self.speed = QSlider(Qt.Orientation.Horizontal)
        self.speed.setObjectName("legionSpeed")
        self.speed.setRange(0, int(MAX_SPEED * SPEED_STEPS))
        self.speed.setPageStep(SPEED_STEPS // 2)
        self.speed.sliderReleased.connect(self._on_speed_released)
        self.speed.valueChanged.connect(self._on_speed_value_changed)
        self.speed_label = text_label("legionSpeedLabel")
        self.who_speaks = text_label("legionWhoSpeaks")
        self.tools = text_label("legionTools")
        self.error = text_label("legionMinionError")
        self.diary = QPlainTextEdit()
        self.diary.setObjectName("legionMinionDiary")
        self.diary.setReadOnly(True)
        self.diary.setPlaceholderText("The diary of the minion's last turn shows here.")
        self.diary.setMinimumHeight(90)

        form = QFormLayout()
        form.addRow("Minion", self.picker)
        form.addRow("Persona", self.persona)
        form.addRow("Model", self.model)
        speed_row = QHBoxLayout()
        speed_row.addWidget(self.speed, 1)
        speed_row.addWidget(self.speed_label)
        form.addRow("Reply speed", speed_row)
        form.addRow("Who speaks", self.who_speaks)
        form.addRow("Tools", self.tools)
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.addLayout(form)
        layout.addWidget(self.scores_box)
        layout.addWidget(self.error)
        layout.addWidget(QLabel("Diary of the last turn"))
        layout.addWidget(self.diary, 1)
        self.setWidget(body)
        self.refresh()

    # -- reading (tests and the window) ------------------------------------------------------
    def minion_name(self) -> str | None:
        return self._minion

    def score_spin(self, participant: str) -> QSpinBox | None:
        return self._spins.get(participant)

    def band_of(self, participant: str) -> str:
        label = self._bands.get(participant)
        return label.text().replace(ZWSP, "") if label is not None else ""

    def show_minion(self, name: str) -> None:
        """Show `name` (a message of theirs was clicked in the chat)."""
        index = self.picker.findText(name)
        if index >= 0:
            self.picker.setCurrentIndex(index)
        self.show()
        self.raise_()

    # -- refresh ------------------------------------------------------------------------------
    def refresh(self) -> None:
        state = self.state()
        if state is None:
            self.picker.clear()
            self.persona.setText("No legion session is shown.")
            self.diary.clear()
            self._set_participants([])
            self._set_enabled("No legion session is running.")
            return
        names = [m.name for m in state.minions]
        if [self.picker.itemText(i) for i in range(self.picker.count())] != names:
            self.picker.blockSignals(True)
            self.picker.clear()
            self.picker.addItems(names)
            self.picker.blockSignals(False)
        if self._minion not in names:
            self._minion = names[0] if names else None
        self.picker.blockSignals(True)
        self.picker.setCurrentText(self._minion or "")
        self.picker.blockSignals(False)
        if self._minion is None:
            return
        minion = state.minion(self._minion)
        self.persona.setText(minion.persona)
        if not self.model.hasFocus():
            self.model.setText(minion.model or "")
        session_model = getattr(self.bridge.session(), "model", "") or "the session's"
        self.model.setPlaceholderText(f"the session's model ({session_model})")
        self._show_scores(minion)
        self._show_diary(state, minion)
        if not self.speed.isSliderDown():
            self.speed.blockSignals(True)
            self.speed.setValue(round(state.speed * SPEED_STEPS))
            self.speed.blockSignals(False)
        self.speed_label.setText(_speed_words(self.speed.value() / SPEED_STEPS))
        self.who_speaks.setText(_who_speaks_words(state.app_draws_speakers))
        self.who_speaks.setToolTip(
            "An addressed minion always speaks. " + (
                "Unaddressed, the app draws against its score and may silence its plan to "
                "speak (run option --app-draws-speakers on)." if state.app_draws_speakers else
                "Unaddressed, its own plan's action decides, weighing its score as the "
                "chance to speak (the seed's rule)."))
        self._set_enabled(self._edit_reason(state))
        self.tools.setText(_tools_words(self.bridge.session()))

    def _show_scores(self, minion: Minion) -> None:
        participants = list(minion.scores)
        self._set_participants(participants)
        for name in participants:
            spin = self._spins[name]
            if not spin.hasFocus():
                spin.blockSignals(True)
                spin.setValue(minion.scores[name])
                spin.blockSignals(False)
            self._bands[name].setText(_breakable(mode_for(spin.value())))

    def _set_participants(self, participants: list[str]) -> None:
        if list(self._spins) == participants:
            return
        while self._scores_grid.count():
            item = self._scores_grid.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None and widget is not self.apply_scores:
                widget.deleteLater()
        self._spins, self._bands = {}, {}
        for row, name in enumerate(participants):
            spin = QSpinBox()
            spin.setObjectName(f"legionScore_{name}")
            spin.setRange(MIN_SCORE, MAX_SCORE)
            spin.valueChanged.connect(lambda value, n=name: self._on_spin_changed(n, value))
            band = QLabel()
            band.setWordWrap(True)  # "Friendly/Proactive" breaks after its slash if narrow
            self._spins[name], self._bands[name] = spin, band
            self._scores_grid.addWidget(QLabel(name), row, 0)
            self._scores_grid.addWidget(spin, row, 1)
            self._scores_grid.addWidget(band, row, 2)
        if participants:
            self._scores_grid.addWidget(self.apply_scores, len(participants), 1, 1, 2)
        self._scores_grid.setColumnStretch(2, 1)

    def _show_diary(self, state: LegionState, minion: Minion) -> None:
        own = [d for d in state.diaries if d.minion == minion.name]
        quiet = [d.quiet_line() + f" (#{d.channel}, message {d.about})"
                 for d in own if d.outcome == "silent"][-QUIET_LINES:]
        parts = []
        if quiet:
            parts.append("Quiet lines:\n" + "\n".join(quiet))
        if own:
            parts.append(diary_text(own[-1]))
        elif minion.last_diary is None:
            parts.append(f"{minion.name} has not taken a turn yet.")
        text = "\n\n".join(parts)
        if self.diary.toPlainText() != text:
            self.diary.setPlainText(text)

    # -- editing ------------------------------------------------------------------------------
    def _edit_reason(self, state: LegionState) -> str:
        if self.bridge.read_only:
            return "Replay is read-only."
        if self.live_kind_session() is None:
            return "No legion session is running."
        if state.ended:
            return "The session has ended; its minions can no longer be changed."
        return ""

    def _set_enabled(self, why: str) -> None:
        for widget in (self.model, self.apply_scores, self.speed, *self._spins.values()):
            widget.setEnabled(not why)
            widget.setToolTip(why)

    def _edit(self, **params: object) -> None:
        """The `edit_minion` edit; a refusal's reason is shown under the form."""
        if self.live_kind_session() is None:
            return
        try:
            self.edit_session(Edit(id=EDIT_ACTION, params=params))
        except Refusal as exc:
            self.error.setText(exc.message)
        else:
            self.error.clear()

    def _on_picker_changed(self, name: str) -> None:
        if name:
            self._minion = name
            self.error.clear()
            self.refresh()

    def _on_spin_changed(self, participant: str, value: int) -> None:
        label = self._bands.get(participant)
        if label is not None:
            label.setText(_breakable(mode_for(value)))

    def _on_apply_scores_clicked(self) -> None:
        state, name = self.state(), self._minion
        if state is None or name is None:
            return
        current = state.minion(name).scores
        changed = {p: spin.value() for p, spin in self._spins.items()
                   if current.get(p) != spin.value()}
        if changed:
            self._edit(change="scores", minion=name, scores=changed)

    def _on_model_editing_finished(self) -> None:
        state, name = self.state(), self._minion
        if state is None or name is None or not self.model.isEnabled():
            return
        wanted = self.model.text().strip() or None
        if state.minion(name).model != wanted:
            self._edit(change="model", minion=name, model=wanted)

    def _on_speed_value_changed(self, value: int) -> None:
        self.speed_label.setText(_speed_words(value / SPEED_STEPS))
        if not self.speed.isSliderDown():  # keys and clicks: at once; a drag: on release
            self._on_speed_released()

    def _on_speed_released(self) -> None:
        state = self.state()
        speed = self.speed.value() / SPEED_STEPS
        if state is not None and state.speed != speed:
            self._edit(change="speed", speed=speed)


def _tools_words(session: object) -> str:
    """The MCP tools the minions may use, e.g. "file_system.list_files, …"."""
    toolbox = getattr(session, "toolbox", None)
    names = list(getattr(toolbox, "tool_names", []) or [])
    if names:
        return ", ".join(names)
    return "none yet (the scenario's servers start with the first message)"


def _breakable(mode: str) -> str:
    return mode.replace("/", "/" + ZWSP)


def _who_speaks_words(app_draws: bool) -> str:
    return "The app draws" if app_draws else "Each minion decides"


def _speed_words(speed: float) -> str:
    return "at once" if speed <= 0 else f"×{speed:g} of predicted"

