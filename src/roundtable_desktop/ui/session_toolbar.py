"""The session toolbar, built from the protocol's `actions()`: kind, scenario, Infer, Run
tools, Next turn, Auto (with its step cap) and Stop.

Each action is a QAction with its shortcut (the Session menu holds the same objects, so
shortcuts work with the toolbar hidden). A disabled action says why in its tooltip.
Must not perform actions itself: it emits `actionRequested(Action)` for the window.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QComboBox, QLabel, QSpinBox, QToolBar, QToolButton, QWidget

from roundtable_desktop.paths import prompts_dir
from roundtable_desktop.protocols.base import Action
from roundtable_desktop.protocols.launch import KINDS, PLANNED_KINDS
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.session_runner import SessionRunner

TOOLBAR_ACTIONS: tuple[tuple[str, str, str], ...] = (
    # id, short label, shortcut
    ("infer", "Infer", "Ctrl+Return"),
    ("run_tools", "Run tools", "Ctrl+T"),
    ("next_turn", "Next turn", "Ctrl+Right"),
    ("auto", "Auto", "Ctrl+Shift+A"),
    ("stop", "Stop", "Esc"),
)
DEFAULT_AUTO_STEPS = 8
MAX_AUTO_STEPS = 200


def scenarios() -> list[str]:
    """"default" plus every folder under prompts/scenarios/."""
    found = ["default"]
    folder = prompts_dir() / "scenarios"
    if folder.is_dir():
        found += sorted(p.name for p in folder.iterdir() if p.is_dir() and p.name != "default")
    return found


class SessionToolBar(QToolBar):
    actionRequested = Signal(object)  # Action

    def __init__(
        self, runner: SessionRunner, bridge: EngineBridge, parent: QWidget | None = None
    ) -> None:
        super().__init__("Session", parent)
        self.setObjectName("sessionToolBar")
        self.setMovable(False)
        self.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self._runner = runner
        self._bridge = bridge

        self.addWidget(QLabel("Kind", self))
        self.kind_combo = QComboBox(self)
        self.kind_combo.setObjectName("kindCombo")
        self.kind_combo.setModel(_kind_model())
        # Sized for "Roundtable", not for the longest disabled entry's explanation.
        self.kind_combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.kind_combo.setMinimumContentsLength(12)
        self.kind_combo.setToolTip("Session kind for New session (Ctrl+N)")
        self.addWidget(self.kind_combo)
        self.addWidget(QLabel("Scenario", self))
        self.scenario_combo = QComboBox(self)
        self.scenario_combo.setObjectName("scenarioCombo")
        self.scenario_combo.addItems(scenarios())
        self.scenario_combo.setToolTip("Scenario for New session (Ctrl+N)")
        self.addWidget(self.scenario_combo)
        self.addSeparator()

        self.qactions: dict[str, QAction] = {}
        for action_id, label, shortcut in TOOLBAR_ACTIONS:
            qaction = QAction(label, self)
            qaction.setObjectName(f"action_{action_id}")
            qaction.setShortcut(QKeySequence(shortcut))
            qaction.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            qaction.triggered.connect(
                lambda _=False, aid=action_id: self._on_qaction_triggered(aid))
            self.qactions[action_id] = qaction
            if action_id == "auto":
                self.addSeparator()
            self.addAction(qaction)
            if action_id == "auto":
                self.steps_spin = QSpinBox(self)
                self.steps_spin.setObjectName("autoStepsSpin")
                self.steps_spin.setRange(1, MAX_AUTO_STEPS)
                self.steps_spin.setValue(DEFAULT_AUTO_STEPS)
                self.steps_spin.setSuffix(" steps")
                self.steps_spin.setToolTip("Auto runs at most this many steps; Stop ends it")
                self.addWidget(self.steps_spin)
                self.addSeparator()

        self._refresh_timer = QTimer(self)
        self._refresh_timer.setSingleShot(True)
        self._refresh_timer.setInterval(0)
        self._refresh_timer.timeout.connect(self.refresh)
        bridge.eventReceived.connect(self._on_bridge_event_received)
        bridge.sessionChanged.connect(self.schedule_refresh)
        runner.busyChanged.connect(self.schedule_refresh)
        self.refresh()

    # -- API ---------------------------------------------------------------------------------
    def session_kind(self) -> str:
        return str(self.kind_combo.currentData() or "roundtable")

    def scenario(self) -> str:
        return self.scenario_combo.currentText() or "default"

    def button(self, action_id: str) -> QToolButton | None:
        widget = self.widgetForAction(self.qactions[action_id])
        return widget if isinstance(widget, QToolButton) else None

    def schedule_refresh(self) -> None:
        if not self._refresh_timer.isActive():
            self._refresh_timer.start()

    def refresh(self) -> None:
        """Enable, label and explain each action from the protocol's current offer."""
        specs = {spec.id: spec for spec in self._runner.actions()}
        for action_id, qaction in self.qactions.items():
            spec = specs.get(action_id)
            shortcut = qaction.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
            if spec is None:
                qaction.setEnabled(False)
                why = ("Replay is read-only." if self._bridge.read_only
                       else "No session is running.")
                qaction.setToolTip(f"{qaction.text()}: {why}")
                continue
            qaction.setEnabled(spec.enabled)
            if action_id == "infer":
                qaction.setText(spec.label)
            qaction.setToolTip(
                f"{spec.label} ({shortcut})" if spec.enabled else f"{spec.label}: {spec.reason}")
        self.steps_spin.setEnabled(self.qactions["auto"].isEnabled())
        state = self._bridge.state()
        if state is not None:
            index = self.scenario_combo.findText(state.scenario)
            if index >= 0:
                self.scenario_combo.setCurrentIndex(index)

    # -- slots ---------------------------------------------------------------------------------
    def _on_qaction_triggered(self, action_id: str) -> None:
        steps = self.steps_spin.value() if action_id == "auto" else None
        self.actionRequested.emit(Action(id=action_id, steps=steps))

    def _on_bridge_event_received(self, _event: object) -> None:
        self.schedule_refresh()


def _kind_model() -> QStandardItemModel:
    model = QStandardItemModel()
    for kind in (*KINDS, *PLANNED_KINDS):
        item = QStandardItem(kind.capitalize() if kind in KINDS
                             else f"{kind.capitalize()} (not built yet)")
        item.setData(kind, Qt.ItemDataRole.UserRole)
        if kind not in KINDS:
            item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEnabled)
            item.setToolTip("Not built yet: only roundtable runs now.")
        model.appendRow(item)
    return model
