"""The session toolbar, built from the live session's `actions()`, and its New button.

Every action the kind offers now gets a QAction with the spec's label and shortcut; a
disabled one says why in its tooltip. The list is rebuilt when the offered ids change
(another kind, or a kind that offers other actions later); labels, enabled state and
reasons follow every refresh. Order: the kind's own actions as it lists them, then
those with a step cap (Auto) with the step spin box beside the first, then New…
(the New session dialog: choosing a kind or scenario starts nothing until Start); Stop
is last, on a bar of its own right after this one (toolbar_widgets.StopBar), so however
narrow the window it is never cut. What does not fit goes into a "More ▾" menu button,
last ones first, never the action the status line names next (the session's next step,
or the human seat's send): Qt's own "»" extension is never needed, so no row of
buttons is ever drawn over the docks. `actionsRebuilt` tells the Session menu to list
the new QActions (the same objects, so shortcuts work wherever the button is). In
replay the live session's actions stay listed, disabled: replay is read-only.

An action that needs text takes it from the kind's human seat dock when it has one
(the dock's `send_from_toolbar()`: it sends what is written there, or brings its editor
forward), else from a small text prompt. An action the kind asks about first
(WindowKind.ask_first: one that throws work away) is requested only once the question
(ui/dialogs/ask_first.py, opened beside the window, never blocking) is answered yes.
Must not perform actions itself: it emits `actionRequested(Action)` for the window and
`newRequested` for New session.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence, QResizeEvent
from PySide6.QtWidgets import (
    QDockWidget,
    QInputDialog,
    QMainWindow,
    QMenu,
    QToolBar,
    QToolButton,
    QWidget,
    QWidgetAction,
)

from roundtable_desktop.engine.base import SEND, STOP, Action, ActionSpec
from roundtable_desktop.engine.registry import kind_names
from roundtable_desktop.store.errors import StoreError
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.dialogs.ask_first import AskFirstBox, open_question
from roundtable_desktop.ui.kinds.registry import window_kind
from roundtable_desktop.ui.window.session_runner import SessionRunner
from roundtable_desktop.ui.window.toolbar_widgets import (
    OVERFLOW_TEXT,
    OverflowStyle,
    StopBar,
    WholeSpinBox,
    keys_text,
)

DEFAULT_AUTO_STEPS = 8
MAX_AUTO_STEPS = 200
READ_ONLY = "Replay is read-only."


class SessionToolBar(QToolBar):
    actionRequested = Signal(object)  # Action
    actionsRebuilt = Signal()  # qactions holds other QActions now
    newRequested = Signal()  # New…: the window opens the New session dialog

    def __init__(
        self, runner: SessionRunner, bridge: EngineBridge, parent: QWidget | None = None
    ) -> None:
        super().__init__("Session", parent)
        self._fit_timer = QTimer(self)  # first: setting the style below calls changeEvent
        self._fit_timer.setSingleShot(True)
        self._fit_timer.setInterval(0)
        self._fit_timer.timeout.connect(self.fit)
        self.setObjectName("sessionToolBar")
        self.forecast_notes: dict[str, str] = {}  # action id -> its forecast, as a sentence
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
        self.text_prompt: QInputDialog | None = None
        self.question: AskFirstBox | None = None  # asked before an action, while open
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

        self.new_button = QToolButton(self)
        self.new_button.setObjectName("newSessionButton")
        self.new_button.setText("New…")
        self.new_button.setToolTip("Start a new session: choose the kind and the scenario "
                                   "(Ctrl+N)")
        self.new_button.clicked.connect(self.newRequested)
        self._pickers = self.addWidget(self.new_button)
        self.more_button = QToolButton(self)
        self.more_button.setObjectName("moreButton")
        self.more_button.setText("More ▾")
        self.more_button.setToolTip("The actions that do not fit on the toolbar")
        self.more_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.more_button.setMenu(QMenu(self.more_button))
        self._more = self.addWidget(self.more_button)
        self._more.setVisible(False)
        self._probe = QToolButton(self)  # measures a button that is not on the bar
        self._probe.hide()
        self._moved: list[QAction] = []  # in the More menu now
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
        """The live session's kind (what New session offers first)."""
        handle = self._runner.handle
        if handle is not None:
            return handle.kind or handle.session.kind
        return next(iter(kind_names()), "")  # before any session: the first built kind

    def scenario(self) -> str:
        """The live session's scenario, by name."""
        handle = self._runner.handle
        if handle is None:
            return "default"
        try:
            return handle.store.get_session(handle.session_id).scenario
        except StoreError:
            return "default"

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
            self._note_forecast(spec.id, qaction, spec.enabled)
        stepped = [s for s in specs if s.needs_steps]
        self.steps_spin.setEnabled(any(s.enabled for s in stepped))
        self.fit()  # labels change width ("Infer (Marguerite Osei)")

    def show_forecasts(self, notes: dict[str, str]) -> None:
        """What each action is about to cost (ui/window/forecast_hint.py), in its tooltip
        and its status tip (the status line shows it while the pointer is on it)."""
        self.forecast_notes = notes
        self.refresh()

    def _note_forecast(self, action_id: str, qaction: QAction, enabled: bool) -> None:
        note = self.forecast_notes.get(action_id, "") if enabled else ""
        if note:
            qaction.setToolTip(f"{qaction.toolTip()}\n{note}")
        qaction.setStatusTip(note)

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
        self.more_button.menu().clear()
        self._moved = []
        self._more.setVisible(False)
        self._fit_timer.start()
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

    # -- fitting: what does not fit goes into More ▾ ------------------------------------------
    def fit(self) -> None:
        """Keep on the bar what fits in the window's width, in order; move the rest into
        the More menu, last ones first, never the action the status line names."""
        if not self._placed:
            return
        keep = self._named_entries()
        spacing = self._spacing()
        widths = {a: self._entry_width(a) + spacing for a in self._placed}
        room = self._room() - self._overhead() - self._entry_width(self._pickers)
        moved: list[QAction] = []
        total = sum(widths.values())
        if total > room:
            room -= self.more_button.sizeHint().width() + spacing
            for entry in reversed(self._placed):
                if total <= room:
                    break
                if entry in keep:
                    continue
                moved.append(entry)
                total -= widths[entry]
        if moved == self._moved:
            return
        menu = self.more_button.menu()
        menu.clear()
        for entry in self._placed:
            self.removeAction(entry)
        for entry in self._placed:
            if entry in moved:
                if entry is not self._spin_action:  # Auto keeps the cap it was given
                    menu.addAction(entry)
            else:
                self.insertAction(self._pickers, entry)
        self._moved = moved
        self._more.setVisible(bool(moved))

    def moved_ids(self) -> list[str]:
        """The actions now in the More menu, by id."""
        return [aid for aid, qaction in self.qactions.items() if qaction in self._moved]

    def _named_entries(self) -> set[QAction]:
        """The action the status line names next (and Auto's spin box beside it)."""
        handle = self._runner.handle
        if handle is None or self._bridge.read_only:
            return set()
        step = handle.session.next_step()
        named = step.id if step is not None else (
            SEND if handle.session.awaiting_human() else None)
        qaction = self.qactions.get(named or "")
        if qaction is None:
            return set()
        spec = self._specs.get(named or "")
        return {qaction, self._spin_action} if spec is not None and spec.needs_steps \
            else {qaction}

    def _entry_width(self, entry: QAction) -> int:
        if entry is self._spin_action:
            return self.steps_spin.sizeHint().width()
        if entry is self._pickers:
            return self.new_button.sizeHint().width()
        widget = self.widgetForAction(entry)
        if widget is not None and widget.isVisible():
            return widget.sizeHint().width()
        probe = self._probe
        probe.setFont(self.font())
        probe.setToolButtonStyle(self.toolButtonStyle())
        probe.setText(entry.text())
        return probe.sizeHint().width()

    def _spacing(self) -> int:
        layout = self.layout()
        return max(layout.spacing(), 0) if layout is not None else 0

    def _room(self) -> int:
        """The width this bar may fill. The window gives a toolbar line's spare width to
        its last bar (Stop), so this bar's room is its width plus Stop's spare width."""
        room = self.width()
        stop = self.stop_bar
        window = self.parentWidget()
        if stop is not None and window is not None and stop.isVisibleTo(window):
            room += max(stop.width() - stop.sizeHint().width(), 0)
        return room

    def _overhead(self) -> int:
        """What the bar needs beyond its entries' widths and spacing (frame, margins,
        handle), read from its own size hint as it is laid out now."""
        on_bar = [a for a in self.actions() if a.isVisible()]
        spacing = self._spacing()
        entries = sum(self._entry_width(a) for a in on_bar if a is not self._more) + (
            self.more_button.sizeHint().width() if self._more.isVisible() else 0)
        return max(self.sizeHint().width() - entries - spacing * max(len(on_bar) - 1, 0), 0)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_timer.start()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._fit_timer.start()  # zoom: the same labels take more room

    def _new_qaction(self, action_id: str) -> QAction:
        qaction = QAction(action_id, self)
        qaction.setObjectName(f"action_{action_id}")
        qaction.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        qaction.triggered.connect(lambda _=False, aid=action_id: self._on_qaction_triggered(aid))
        return qaction

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
        self._request(Action(id=action_id, steps=steps))

    def _request(self, action: Action) -> None:
        """Request `action`, once the kind's question about it is answered yes."""
        handle = self._runner.handle
        question = window_kind(handle.kind or handle.session.kind).ask_first(
            handle.session, action) if handle is not None else None
        if question is None:
            self.actionRequested.emit(action)
            return
        if self.question is not None:  # one question at a time
            self.question.raise_()
            return
        self.question = open_question(self.window(), question,
                                      lambda: self.actionRequested.emit(action))
        self.question.finished.connect(self._on_question_finished)

    def _on_question_finished(self, _result: int) -> None:
        self.question = None

    def _on_text_prompt_selected(self, action_id: str, text: str) -> None:
        if text.strip():
            self.actionRequested.emit(Action(id=action_id, text=text.strip()))

    def _on_text_prompt_finished(self, _result: int) -> None:
        prompt, self.text_prompt = self.text_prompt, None
        if prompt is not None:
            prompt.deleteLater()

    def _on_bridge_event_received(self, _event: object) -> None:
        self.schedule_refresh()

    def _on_runner_failed(self, _level: str, _message: str, _hint: str) -> None:
        self.schedule_refresh()

    def _on_visibility_changed(self, visible: bool) -> None:
        if self.stop_bar is not None:  # View › Docks hides the session toolbar: Stop too
            self.stop_bar.setVisible(visible and self.stop_bar.stop is not None)
