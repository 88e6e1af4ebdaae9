"""The session toolbar, built from the live session's `actions()`, and the kind and
scenario pickers that start a new session.

Every action the kind offers now gets a QAction with the spec's label and shortcut; a
disabled one says why in its tooltip. The list is rebuilt when the offered ids change
(another kind, or a kind that offers other actions later); labels, enabled state and
reasons follow every refresh. Order: the kind's own actions as it lists them, then
those with a step cap (Auto) with the step spin box beside the first, then the pickers;
Stop is last, on a bar of its own right after this one (toolbar_widgets.StopBar), so
however narrow the window it is never cut. What does not fit moves into this bar's "»"
overflow menu, last ones first: the pickers (needed only for a new session) before any
action. The "»" button is sized for its glyph at the current zoom (Qt's own is 12 px
wide and blank in the dark theme). `actionsRebuilt` tells the Session menu to list the
new QActions (the same objects, so shortcuts work with the toolbar hidden). In replay
the live session's actions stay listed, disabled: replay is read-only.

An action that needs text takes it from the kind's human seat dock when it has one
(the dock's `send_from_toolbar()`: it sends what is written there, or brings its editor
forward), else from a small text prompt. Choosing a kind or a scenario in the pickers
starts a new session of that kind and scenario, as New session (Ctrl+N) does.
Must not perform actions itself: it emits `actionRequested(Action)` for the window.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QComboBox,
    QDockWidget,
    QInputDialog,
    QMainWindow,
    QToolBar,
    QToolButton,
    QWidget,
    QWidgetAction,
)

from roundtable_desktop.engine.base import STOP, Action, ActionSpec
from roundtable_desktop.engine.registry import UnknownKind, kind_spec
from roundtable_desktop.store.errors import StoreError
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.kinds.registry import window_kind
from roundtable_desktop.ui.window.session_runner import SessionRunner
from roundtable_desktop.ui.window.toolbar_widgets import (
    KIND_NAME,
    OVERFLOW_TEXT,
    ElidingCombo,
    OverflowStyle,
    StopBar,
    WholeSpinBox,
    keys_text,
    kind_model,
    labelled,
)

DEFAULT_AUTO_STEPS = 8
MAX_AUTO_STEPS = 200
DEFAULT_KIND = "roundtable"
READ_ONLY = "Replay is read-only."
_NAME = KIND_NAME


class SessionToolBar(QToolBar):
    actionRequested = Signal(object)  # Action
    actionsRebuilt = Signal()  # qactions holds other QActions now

    def __init__(
        self, runner: SessionRunner, bridge: EngineBridge, parent: QWidget | None = None
    ) -> None:
        super().__init__("Session", parent)
        self.setObjectName("sessionToolBar")
        self.setMovable(False)
        self.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self._overflow_style = OverflowStyle()
        self._overflow_style.setParent(self)
        self.setStyle(self._overflow_style)
        self._runner = runner
        self._bridge = bridge
        self.qactions: dict[str, QAction] = {}  # what the live session offers, by id
        self._specs: dict[str, ActionSpec] = {}
        self._placed: list[QAction] = []  # toolbar entries of the current actions
        self._ids: tuple[str, ...] = ()
        self._shown_session: str | None = None  # the session the pickers were synced to
        self.text_prompt: QInputDialog | None = None
        self.stop_bar: StopBar | None = None
        self.visibilityChanged.connect(self._on_visibility_changed)

        self.steps_spin = WholeSpinBox(self)
        self.steps_spin.setObjectName("autoStepsSpin")
        self.steps_spin.setRange(1, MAX_AUTO_STEPS)
        self.steps_spin.setValue(DEFAULT_AUTO_STEPS)
        self.steps_spin.setSuffix(" steps")
        self.steps_spin.setToolTip("Auto runs at most this many steps; Stop ends it")
        # One holder for the spin box, moved next to whichever action takes steps.
        self._spin_action = QWidgetAction(self)
        self._spin_action.setDefaultWidget(self.steps_spin)

        self.kind_combo = ElidingCombo(self)
        self.kind_combo.setObjectName("kindCombo")
        self.kind_combo.setModel(kind_model())
        # Sized for "Roundtable", not for the longest disabled entry's explanation.
        self.kind_combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.kind_combo.setMinimumContentsLength(10)
        self.kind_combo.setToolTip("Choose a kind to start a new session of it (Ctrl+N "
                                   "starts another)")
        self.scenario_combo = ElidingCombo(self)
        self.scenario_combo.setObjectName("scenarioCombo")
        self.scenario_combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.scenario_combo.setMinimumContentsLength(10)
        self.scenario_combo.view().setTextElideMode(Qt.TextElideMode.ElideNone)
        # One entry: the two pickers overflow together, and one label saves room.
        self._pickers = self.addWidget(
            labelled("New:", (self.kind_combo, self.scenario_combo), self))
        self._fill_scenarios(self.session_kind())
        self.kind_combo.activated.connect(self._on_kind_combo_activated)
        self.scenario_combo.activated.connect(self._on_scenario_combo_activated)
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
        runner.failed.connect(self._on_runner_failed)
        self.refresh()

    # -- API ---------------------------------------------------------------------------------
    def session_kind(self) -> str:
        """The kind chosen in the picker (what New session starts)."""
        return str(self.kind_combo.currentData(_NAME) or DEFAULT_KIND)

    def scenario(self) -> str:
        """The scenario chosen in the picker, by name."""
        return str(self.scenario_combo.currentData(_NAME) or "default")

    def spec(self, action_id: str) -> ActionSpec | None:
        """The spec a toolbar action was last refreshed from."""
        return self._specs.get(action_id)

    def button(self, action_id: str) -> QToolButton | None:
        qaction = self.qactions.get(action_id)
        if qaction is None:
            return None
        bar = self.stop_bar if action_id == STOP and self.stop_bar is not None else self
        widget = bar.widgetForAction(qaction)
        return widget if isinstance(widget, QToolButton) else None

    def overflow_button(self) -> QToolButton | None:
        """The "»" button that opens what does not fit (hidden while everything fits)."""
        return self.findChild(QToolButton, "qt_toolbar_ext_button")

    def schedule_refresh(self) -> None:
        if not self._refresh_timer.isActive():
            self._refresh_timer.start()

    def refresh(self) -> None:
        """List, label, enable and explain each action from the live session's offer."""
        specs = self._offered()
        ids = tuple(spec.id for spec in specs)
        if ids != self._ids:
            self._rebuild(specs)
        self._specs = {spec.id: spec for spec in specs}
        for spec in specs:
            qaction = self.qactions[spec.id]
            qaction.setText(spec.label.replace("&", "&&"))
            keys = keys_text(spec.shortcut)
            if qaction.shortcut().toString() != QKeySequence(spec.shortcut).toString():
                qaction.setShortcut(QKeySequence(spec.shortcut))
            qaction.setEnabled(spec.enabled)
            qaction.setToolTip(
                (f"{spec.label} ({keys})" if keys else spec.label) if spec.enabled
                else f"{spec.label}: {spec.reason or 'not available now.'}")
        stepped = [s for s in specs if s.needs_steps]
        self.steps_spin.setEnabled(any(s.enabled for s in stepped))
        self._sync_pickers()

    # -- building ------------------------------------------------------------------------------
    def _offered(self) -> list[ActionSpec]:
        """The live session's actions; in replay the same, disabled (replay is read-only)."""
        handle = self._runner.handle
        if handle is None:
            return []
        if self._bridge.read_only:
            return [spec.model_copy(update={"enabled": False, "reason": READ_ONLY})
                    for spec in handle.session.actions()]
        return self._runner.actions()

    def _rebuild(self, specs: list[ActionSpec]) -> None:
        for placed in self._placed:
            self.removeAction(placed)
        self._placed = []
        old, self.qactions = self.qactions, {}
        own = [s for s in specs if not s.needs_steps and s.id != STOP]
        stepped = [s for s in specs if s.needs_steps and s.id != STOP]
        # No separators: when the bar runs out of room Qt drops only the last entry that
        # fitted to make room for "»"; a separator there is too narrow to make it, and the
        # bar then squeezes every button ("Infer (Mar…rite Osei)").
        for group in (own, stepped):
            for spec in group:
                qaction = old.pop(spec.id, None) or self._new_qaction(spec.id)
                self.qactions[spec.id] = qaction
                self._place(qaction)
                if stepped and spec is stepped[0]:
                    self._place(self._spin_action)  # one cap, beside the first that takes it
        if STOP in {spec.id for spec in specs}:
            stop = old.pop(STOP, None) or self._new_qaction(STOP)
            self.qactions[STOP] = stop  # on its own bar, after this one (StopBar)
            self._stop_bar_now().set_stop(stop)
        elif self.stop_bar is not None:
            self.stop_bar.set_stop(None)
        for gone in old.values():
            gone.deleteLater()
        self._ids = tuple(spec.id for spec in specs)
        self.actionsRebuilt.emit()

    def _stop_bar_now(self) -> StopBar:
        """The Stop bar, placed after this toolbar on its line the first time it is needed
        (the window adds this toolbar after building it)."""
        if self.stop_bar is None:
            self.stop_bar = StopBar(self)
            window = self.parentWidget()
            if isinstance(window, QMainWindow) and window.toolBarArea(self) != \
                    Qt.ToolBarArea.NoToolBarArea:
                window.addToolBar(window.toolBarArea(self), self.stop_bar)
        return self.stop_bar

    def _place(self, qaction: QAction) -> None:
        self.insertAction(self._pickers, qaction)
        self._placed.append(qaction)

    def _new_qaction(self, action_id: str) -> QAction:
        qaction = QAction(action_id, self)
        qaction.setObjectName(f"action_{action_id}")
        qaction.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        qaction.triggered.connect(lambda _=False, aid=action_id: self._on_qaction_triggered(aid))
        return qaction

    # -- the pickers ---------------------------------------------------------------------------
    def _sync_pickers(self) -> None:
        """Show the live session's kind and scenario (once per session shown)."""
        handle = self._runner.handle
        if handle is None or handle.session_id == self._shown_session:
            return
        self._shown_session = handle.session_id
        kind = handle.kind or handle.session.kind
        index = self.kind_combo.findData(kind, _NAME)
        if index < 0:  # a kind registered after the window was built (tests)
            self.kind_combo.setModel(kind_model())
            index = self.kind_combo.findData(kind, _NAME)
        if index >= 0 and index != self.kind_combo.currentIndex():
            self.kind_combo.setCurrentIndex(index)
        self._fill_scenarios(kind)
        try:
            scenario = handle.store.get_session(handle.session_id).scenario
        except StoreError:
            return
        index = self.scenario_combo.findData(scenario, _NAME)
        if index >= 0:
            self.scenario_combo.setCurrentIndex(index)

    def _fill_scenarios(self, kind: str) -> None:
        try:
            scenarios = kind_spec(kind).scenarios()
        except UnknownKind:
            scenarios = []
        combo = self.scenario_combo
        if [combo.itemData(i, _NAME) for i in range(combo.count())] == [
                s.name for s in scenarios]:
            return
        combo.blockSignals(True)
        combo.clear()
        for scenario in scenarios:
            combo.addItem(scenario.title or scenario.name, scenario.name)
            tip = f"{scenario.title} ({scenario.name})" + (
                f"\n{scenario.description}" if scenario.description else "")
            combo.setItemData(combo.count() - 1, tip, Qt.ItemDataRole.ToolTipRole)
        combo.blockSignals(False)
        combo.setToolTip("Choose a scenario to start a new session of it")
        view = combo.view()  # the list shows whole titles, however narrow the box
        view.setMinimumWidth(view.sizeHintForColumn(0) + 2 * view.frameWidth() + 24)

    def _start_chosen(self) -> None:
        self._runner.start_new(self.session_kind(), self.scenario())

    # -- text for an action that needs it ------------------------------------------------------
    def _ask_for_text(self, spec: ActionSpec) -> None:
        dock = self._human_seat_dock()
        send = getattr(dock, "send_from_toolbar", None)
        if dock is not None and callable(send):
            dock.show()
            dock.raise_()
            send()
            return
        self._open_text_prompt(spec)

    def _human_seat_dock(self) -> QDockWidget | None:
        handle = self._runner.handle
        name = window_kind(handle.kind or handle.session.kind).human_seat_dock \
            if handle is not None else ""
        window = self.window()
        return window.findChild(QDockWidget, name) if name and window is not None else None

    def _open_text_prompt(self, spec: ActionSpec) -> None:
        """A small prompt that stays open beside the window (streams go on, Stop works)."""
        if self.text_prompt is not None:
            self.text_prompt.raise_()
            return
        prompt = QInputDialog(self.window())
        prompt.setObjectName("textPrompt")
        prompt.setWindowTitle(spec.label)
        seat = self._runner.handle.session.awaiting_human() if self._runner.handle else None
        prompt.setLabelText(f"What {seat} says:" if seat else f"{spec.label}:")
        prompt.setOption(QInputDialog.InputDialogOption.UsePlainTextEditForTextInput)
        prompt.setOkButtonText(spec.label)
        prompt.setModal(False)
        prompt.textValueSelected.connect(
            lambda text, aid=spec.id: self._on_text_prompt_selected(aid, text))
        prompt.finished.connect(self._on_text_prompt_finished)
        self.text_prompt = prompt
        prompt.show()

    # -- slots ---------------------------------------------------------------------------------
    def _on_qaction_triggered(self, action_id: str) -> None:
        spec = self._specs.get(action_id)
        if spec is None:
            return
        if spec.needs_text:
            self._ask_for_text(spec)
            return
        steps = self.steps_spin.value() if spec.needs_steps else None
        self.actionRequested.emit(Action(id=action_id, steps=steps))

    def _on_text_prompt_selected(self, action_id: str, text: str) -> None:
        if text.strip():
            self.actionRequested.emit(Action(id=action_id, text=text.strip()))

    def _on_text_prompt_finished(self, _result: int) -> None:
        prompt, self.text_prompt = self.text_prompt, None
        if prompt is not None:
            prompt.deleteLater()

    def _on_kind_combo_activated(self, _index: int) -> None:
        self._fill_scenarios(self.session_kind())
        self._start_chosen()

    def _on_scenario_combo_activated(self, _index: int) -> None:
        self._start_chosen()

    def _on_bridge_event_received(self, _event: object) -> None:
        self.schedule_refresh()

    def _on_runner_failed(self, _level: str, _message: str, _hint: str) -> None:
        self._shown_session = None  # a session that failed to start: show the live one's
        self.schedule_refresh()

    def _on_visibility_changed(self, visible: bool) -> None:
        if self.stop_bar is not None:  # View › Docks hides the session toolbar: Stop too
            self.stop_bar.setVisible(visible and self.stop_bar.stop is not None)
