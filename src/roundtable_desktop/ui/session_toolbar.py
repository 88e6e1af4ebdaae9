"""The session toolbar, built from the protocol's `actions()`: kind, scenario, Infer, Run
tools, Next turn, Auto (with its step cap) and Stop.

Each action is a QAction with its shortcut (the Session menu holds the same objects, so
shortcuts work with the toolbar hidden). A disabled action says why in its tooltip.
On a narrow window the entries that do not fit move into the toolbar's "»" overflow
menu, last ones first: so the session's actions, Stop included, come first and the kind
and scenario pickers (needed only for a new session, each with its label) last. The "»"
button is sized for its glyph at the current zoom (Qt's own is 12 px wide and blank
in the dark theme).
Must not perform actions itself: it emits `actionRequested(Action)` for the window.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QProxyStyle,
    QSpinBox,
    QStyle,
    QStyleOption,
    QToolBar,
    QToolButton,
    QWidget,
)

from roundtable_desktop.paths import prompts_dir
from roundtable_desktop.protocols.base import Action
from roundtable_desktop.protocols.kinds import PLANNED_KINDS, all_kinds
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
OVERFLOW_TEXT = "»"


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
        self._overflow_style = _OverflowStyle()
        self._overflow_style.setParent(self)
        self.setStyle(self._overflow_style)
        self._runner = runner
        self._bridge = bridge

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
        self.addSeparator()

        self.kind_combo = QComboBox(self)
        self.kind_combo.setObjectName("kindCombo")
        self.kind_combo.setModel(_kind_model())
        # Sized for "Roundtable", not for the longest disabled entry's explanation.
        self.kind_combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.kind_combo.setMinimumContentsLength(12)
        self.kind_combo.setToolTip("Session kind for New session (Ctrl+N)")
        self.addWidget(_labelled("Kind", self.kind_combo, self))
        self.scenario_combo = QComboBox(self)
        self.scenario_combo.setObjectName("scenarioCombo")
        self.scenario_combo.addItems(scenarios())
        self.scenario_combo.setToolTip("Scenario for New session (Ctrl+N)")
        self.addWidget(_labelled("Scenario", self.scenario_combo, self))
        overflow = self.overflow_button()
        if overflow is not None:
            overflow.setText(OVERFLOW_TEXT)
            overflow.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
            overflow.setToolTip("More: what does not fit on the toolbar")

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

    def overflow_button(self) -> QToolButton | None:
        """The "»" button that opens what does not fit (hidden while everything fits)."""
        return self.findChild(QToolButton, "qt_toolbar_ext_button")

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


class _OverflowStyle(QProxyStyle):
    """Makes room for the "»" button: Qt's fixed 12 px extent cannot hold a glyph at a
    readable size, and a stylesheet width only pushes the button out of the window."""

    def pixelMetric(self, metric: QStyle.PixelMetric, option: QStyleOption | None = None,
                    widget: QWidget | None = None) -> int:
        if metric == QStyle.PixelMetric.PM_ToolBarExtensionExtent and widget is not None:
            metrics = widget.fontMetrics()
            return metrics.horizontalAdvance(OVERFLOW_TEXT) + 2 * metrics.height()
        return super().pixelMetric(metric, option, widget)


def _labelled(text: str, field: QWidget, parent: QWidget) -> QWidget:
    """A label and its field as one toolbar entry, so they overflow together."""
    box = QWidget(parent)
    row = QHBoxLayout(box)
    row.setContentsMargins(0, 0, 0, 0)
    row.setSpacing(2)
    row.addWidget(QLabel(text, box))
    row.addWidget(field)
    return box


def _kind_model() -> QStandardItemModel:
    model = QStandardItemModel()
    for spec in all_kinds():
        item = QStandardItem(spec.name.capitalize())
        item.setData(spec.name, Qt.ItemDataRole.UserRole)
        item.setToolTip(spec.description)
        model.appendRow(item)
    for kind in PLANNED_KINDS:
        item = QStandardItem(f"{kind.capitalize()} (not built yet)")
        item.setData(kind, Qt.ItemDataRole.UserRole)
        item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEnabled)
        item.setToolTip("Not built yet.")
        model.appendRow(item)
    return model
