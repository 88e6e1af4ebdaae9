"""New session… (Ctrl+N, and the toolbar's New button): choose a kind and a scenario, then
Start. Choosing in the lists starts nothing: only Start does. When the offline model
answers, a seed box (starting at the Settings value) chooses the session's seed: the same
seed plays the same session again.

It opens on the live session's kind and scenario and says, in one line, what becomes of
the live session (it stays saved and can be reopened; a running Auto is stopped first),
so leaving the audience's session is never a surprise. `chosen()` is read after it is
accepted. Must not start sessions itself: the caller does, on `accepted`.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from roundtable_desktop.engine.registry import UnknownKind, kind_spec
from roundtable_desktop.llm.providers import MAX_SEED
from roundtable_desktop.ui.window.toolbar_widgets import KIND_NAME, kind_model


class NewSessionDialog(QDialog):
    def __init__(self, kind: str, scenario: str, leaving: str = "",
                 parent: QWidget | None = None, *, seed: int | None = None) -> None:
        """`seed`: the offline model's seed to start from (Settings'), or None when
        another model answers (no seed box then)."""
        super().__init__(parent)
        self.setObjectName("newSessionDialog")
        self.setWindowTitle("New session")
        self.kind_combo = QComboBox(self)
        self.kind_combo.setObjectName("kindCombo")
        self.kind_combo.setModel(kind_model())
        self.scenario_combo = QComboBox(self)
        self.scenario_combo.setObjectName("scenarioCombo")
        self.scenario_combo.view().setTextElideMode(Qt.TextElideMode.ElideNone)
        self.description = QLabel(self)
        self.description.setObjectName("scenarioDescription")
        self.description.setWordWrap(True)
        self.leaving = QLabel(leaving, self)
        self.leaving.setObjectName("leavingNote")
        self.leaving.setWordWrap(True)
        self.leaving.setVisible(bool(leaving))
        self.seed_spin = QSpinBox(self)
        self.seed_spin.setObjectName("seedSpin")
        self.seed_spin.setRange(0, MAX_SEED)
        self.seed_spin.setValue(min(max(seed or 0, 0), MAX_SEED))
        self.seed_spin.setToolTip("The offline model's seed: the same seed plays the same "
                                  "session again, another seed plays another one.")
        form = QFormLayout()
        form.addRow("&Kind:", self.kind_combo)
        form.addRow("&Scenario:", self.scenario_combo)
        self._offers_seed = seed is not None
        if self._offers_seed:
            form.addRow("S&eed:", self.seed_spin)
        else:
            self.seed_spin.hide()
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        start = buttons.button(QDialogButtonBox.StandardButton.Ok)
        start.setText("&Start")
        start.setObjectName("startButton")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        column = QVBoxLayout(self)
        column.addLayout(form)
        column.addWidget(self.description)
        column.addWidget(self.leaving)
        column.addWidget(buttons)
        index = self.kind_combo.findData(kind, KIND_NAME)
        self.kind_combo.setCurrentIndex(max(index, 0))
        self._fill_scenarios(scenario)
        self.kind_combo.currentIndexChanged.connect(self._on_kind_combo_changed)
        self.scenario_combo.currentIndexChanged.connect(self._on_scenario_combo_changed)

    def chosen(self) -> tuple[str, str]:
        """The kind and scenario chosen, by name."""
        return (str(self.kind_combo.currentData(KIND_NAME) or ""),
                str(self.scenario_combo.currentData(KIND_NAME) or "default"))

    def chosen_seed(self) -> int | None:
        """The seed chosen, or None when there is no seed box (another model answers)."""
        return self.seed_spin.value() if self._offers_seed else None

    def _fill_scenarios(self, wanted: str = "default") -> None:
        try:
            scenarios = kind_spec(str(self.kind_combo.currentData(KIND_NAME))).scenarios()
        except UnknownKind:
            scenarios = []
        combo = self.scenario_combo
        combo.blockSignals(True)
        combo.clear()
        for scenario in scenarios:
            combo.addItem(scenario.title or scenario.name, scenario.name)
            combo.setItemData(combo.count() - 1, scenario.description,
                              Qt.ItemDataRole.ToolTipRole)
        combo.setCurrentIndex(max(combo.findData(wanted, KIND_NAME), 0))
        combo.blockSignals(False)
        self._on_scenario_combo_changed()

    def _on_kind_combo_changed(self, _index: int) -> None:
        self._fill_scenarios()

    def _on_scenario_combo_changed(self, _index: int = 0) -> None:
        tip = self.scenario_combo.currentData(Qt.ItemDataRole.ToolTipRole)
        self.description.setText(str(tip or ""))
        self.description.setVisible(bool(tip))
