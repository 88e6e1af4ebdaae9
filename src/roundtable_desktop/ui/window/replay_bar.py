"""The replay bar: step through a stored session read-only, one model call at a time.

Each step is one recorded call. The bar emits `callShown` with that call's record (the
window shows its whole request as stored, system prompt with its layers marked and every
message, byte for byte as it was sent, with the reply under it) and `payloadChanged`
with that request rendered (stored_calls.request_document), and hands the bridge the
session as it was right after the action that made the call (`bridge.show_replay`), so
every dock shows that moment. Steps are matched to checkpoints by the order of the
recorded events (CallStarted, then the ActionFinished or SessionEnded that closed its
action), falling back to timestamps.
Must not write to the store or run anything; leaving replay is the window's business
(it re-attaches the live session on `closed`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QKeySequence, QResizeEvent
from PySide6.QtWidgets import (
    QLabel,
    QMenu,
    QSizePolicy,
    QSlider,
    QToolBar,
    QToolButton,
    QWidget,
)

from roundtable_desktop.engine.base import SessionProtocol
from roundtable_desktop.engine.branching import inherited_calls
from roundtable_desktop.engine.launch import stored_seed
from roundtable_desktop.engine.replay_state import CheckpointMatch, replay_session
from roundtable_desktop.store.database import SessionStore
from roundtable_desktop.store.errors import StoreError
from roundtable_desktop.store.records import CallRecord
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.context.stored_calls import request_document
from roundtable_desktop.ui.elided_label import ElidedLabel

__all__ = ["ReplayBar", "ReplayStep", "replay_steps", "request_document"]


TITLE_MAX_EM = 24  # the replay title's widest, in lines of its text


class ReplayStep:
    """One call and the stored state that goes with it. The call's request and the state
    are read from the store when first asked for, so a session of a thousand calls opens
    with their summaries only and each step reads what it shows."""

    def __init__(self, store: SessionStore, session_id: str, summary: CallRecord,
                 checkpoint: int | None, action: str,
                 latest: Callable[[], dict[str, Any]], *, step: int | None = None) -> None:
        self._store, self._session_id = store, session_id
        self.summary = summary  # the call without its request body and layers
        self._checkpoint = checkpoint  # the seq of the checkpoint after it, if any
        self.action = action
        self._latest = latest
        self._call: CallRecord | None = None
        self._state: dict[str, Any] | None = None
        self.step = step  # the step (checkpoint) along the session's whole history
        self.inherited_from: str | None = None  # a branch's call made by an ancestor

    @property
    def call(self) -> CallRecord:
        if self._call is None:
            try:
                self._call = self._store.call(self.summary.id)
            except StoreError:
                self._call = self.summary
        return self._call

    @property
    def state(self) -> dict[str, Any]:
        if self._state is None:
            found = None
            if self._checkpoint is not None:
                found = self._store.checkpoint_state(self._session_id, self._checkpoint)
            self._state = found if found is not None else self._latest()
        return self._state


def replay_steps(store: SessionStore, session_id: str) -> list[ReplayStep]:
    """Every call of a session's history, each with the state right after the action
    that made it (read when a step is shown): a branch's inherited calls first (marked),
    then its own."""
    origin = store.branch_origin(session_id)
    inherited: list[ReplayStep] = []
    if origin is not None:
        made_by = {h.call.id: h.inherited_from for h in inherited_calls(store, session_id)}
        for step in replay_steps(store, origin.parent_id):
            if step.summary.id in made_by:
                step.inherited_from = step.inherited_from or made_by[step.summary.id]
                inherited.append(step)
    return inherited + _own_steps(store, session_id, origin.step if origin else 0)


def _own_steps(store: SessionStore, session_id: str, offset: int) -> list[ReplayStep]:
    calls = store.call_summaries(session_id)
    if not calls:
        return []
    checkpoints = store.checkpoint_marks(session_id)
    latest: list[dict[str, Any]] = []

    def latest_state() -> dict[str, Any]:
        if not latest:
            latest.append(store.get_session(session_id).state)
        return latest[0]

    match = CheckpointMatch(store, session_id, [ts for _seq, _action, ts in checkpoints])
    steps = []
    for call in calls:
        index = match.index_after(call.id, call.started_at)
        checkpoint = checkpoints[index] if index is not None else None
        steps.append(ReplayStep(
            store, session_id, call, checkpoint[0] if checkpoint else None,
            checkpoint[1] if checkpoint else "latest state", latest_state,
            step=offset + checkpoint[0] if checkpoint else None))
    return steps


class ReplayBar(QToolBar):
    payloadChanged = Signal(str)
    callShown = Signal(object, str)  # the step's CallRecord (None: no calls), its kind
    stepChanged = Signal(int, int)  # index, count
    closed = Signal()
    branchRequested = Signal(str, int)  # the session replayed, the step to branch after
    compareRequested = Signal(str, int)  # the session replayed, the step to compare from

    def __init__(self, bridge: EngineBridge, parent: QWidget | None = None) -> None:
        super().__init__("Replay", parent)
        self.setObjectName("replayBar")
        self.setMovable(False)
        self.bridge = bridge
        self._store: SessionStore | None = None
        self._session_id: str | None = None
        self._steps: list[ReplayStep] = []
        self._index = -1
        self._kind = ""
        self._seed = 0  # the session's seed: its replayed states use it
        self._states: dict[int, SessionProtocol | None] = {}

        self.title_label = ElidedLabel("Replay")
        self.title_label.setObjectName("replayTitle")
        # A fixed width the bar works out (_fit_title): the toolbar gives an Ignored-width
        # label nothing, and a label as wide as its text would push Leave replay out.
        self.title_label.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Preferred)
        font = self.title_label.font()
        font.setBold(True)
        self.title_label.setFont(font)
        self.prev_action = QAction("◀ Previous", self)
        self.prev_action.setShortcut(QKeySequence("Alt+Left"))
        self.prev_action.setToolTip("Previous call (Alt+Left)")
        self.next_action = QAction("Next ▶", self)
        self.next_action.setShortcut(QKeySequence("Alt+Right"))
        self.next_action.setToolTip("Next call (Alt+Right)")
        self.leave_action = QAction("Leave replay", self)
        self.branch_action = QAction("Branch from here", self)
        self.branch_action.setToolTip("A new live session from the state after this step: "
                                      "nothing before it is sent again (the arrow: "
                                      "Compare from here…)")
        self.compare_action = QAction("Compare from here…", self)
        self.branch_menu = QMenu(self)
        self.branch_menu.addAction(self.compare_action)
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setObjectName("replaySlider")
        self.slider.setFixedWidth(150)  # room for Branch from here at 1366 wide
        self.slider.setPageStep(1)
        self.step_label = QLabel()
        self.step_label.setTextFormat(Qt.TextFormat.PlainText)

        self.addWidget(self.title_label)
        self.addSeparator()
        self.addAction(self.prev_action)
        self.addWidget(self.slider)
        self.addAction(self.next_action)
        self.addWidget(self.step_label)
        self.addSeparator()
        self.addAction(self.branch_action)
        branch_button = self.widgetForAction(self.branch_action)
        if isinstance(branch_button, QToolButton):
            branch_button.setMenu(self.branch_menu)
            branch_button.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)
        self.addAction(self.leave_action)

        self.prev_action.triggered.connect(self.prev_step)
        self.next_action.triggered.connect(self.next_step)
        self.leave_action.triggered.connect(self.leave)
        self.branch_action.triggered.connect(self._on_branch_action_triggered)
        self.compare_action.triggered.connect(self._on_compare_action_triggered)
        self.slider.valueChanged.connect(self._on_slider_value_changed)
        self._update_controls()

    # -- reading --------------------------------------------------------------------------
    def step(self) -> int:
        return self._index

    def step_count(self) -> int:
        return len(self._steps)

    def current_call(self) -> CallRecord | None:
        return self._steps[self._index].call if 0 <= self._index < len(self._steps) else None

    def session_id(self) -> str | None:
        return self._session_id

    # -- driving --------------------------------------------------------------------------
    def open_session(self, store: SessionStore, session_id: str) -> int:
        """Load a stored session and show its first call; returns the number of steps."""
        record = store.get_session(session_id)
        self._store, self._session_id = store, session_id
        self._kind = record.kind
        self._seed = stored_seed(record.meta)
        self._steps = replay_steps(store, session_id)
        self._states = {}
        self._index = -1
        # Whole words then "…" (never a word cut in the middle); the tooltip has it all.
        self.title_label.set_full_text(
            f"Replay: {record.title} ({record.kind}, {session_id[:8]})")
        self._fit_title()
        self.slider.blockSignals(True)
        self.slider.setRange(0, max(0, len(self._steps) - 1))
        self.slider.setValue(0)
        self.slider.blockSignals(False)
        self.show()
        if self._steps:
            self.set_step(0)
        else:
            session = replay_session(record.kind, record.state, self._seed)
            if session is not None:
                self.bridge.show_replay(store, session_id, session)
            self.step_label.setText("This session has no model calls.")
            self.payloadChanged.emit("")
            self.callShown.emit(None, self._kind)
            self._update_controls()
        return len(self._steps)

    def set_step(self, index: int) -> None:
        if not self._steps or self._store is None or self._session_id is None:
            return
        index = max(0, min(index, len(self._steps) - 1))
        self._index = index
        step = self._steps[index]
        if index not in self._states:
            self._states[index] = replay_session(self._kind, step.state, self._seed)
        state = self._states[index]
        if state is not None:
            self.bridge.show_replay(self._store, self._session_id, state)
        self.slider.blockSignals(True)
        self.slider.setValue(index)
        self.slider.blockSignals(False)
        short, full = self._describe(step, state)
        self.step_label.setText(short)
        self.step_label.setToolTip(full)
        self._fit_title()  # the step's label may be wider or narrower
        self._update_controls()
        self.payloadChanged.emit(request_document(step.call, self._kind))
        self.callShown.emit(step.call, self._kind)
        self.stepChanged.emit(index, len(self._steps))

    def next_step(self) -> None:
        self.set_step(self._index + 1)

    def prev_step(self) -> None:
        self.set_step(self._index - 1)

    def leave(self) -> None:
        """Stop replaying and hide; the window re-attaches the live session on `closed`
        (`bridge.attach` ends the replay state)."""
        self._steps, self._states, self._index = [], {}, -1
        self._store = self._session_id = None
        self._update_controls()
        self.hide()
        self.closed.emit()

    # -- plumbing -----------------------------------------------------------------------
    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_title()

    def _fit_title(self) -> None:
        """The title takes what the controls leave of the bar, up to its whole text and
        at most TITLE_MAX_EM wide; whole words then "…" (the tooltip has it all)."""
        metrics = self.title_label.fontMetrics()
        layout = self.layout()
        assert layout is not None  # a toolbar always has its layout
        spacing = layout.spacing()
        widgets = [widget for action in self.actions() if action.isVisible()
                   and (widget := self.widgetForAction(action)) is not None]
        others = sum(max(w.sizeHint().width(), w.minimumWidth()) + spacing
                     for w in widgets if w is not self.title_label)
        margins = layout.contentsMargins()
        room = self.width() - others - margins.left() - margins.right() - 2 * spacing \
            - metrics.height()  # a little slack: never push Leave replay into "»"
        whole = metrics.horizontalAdvance(self.title_label.full_text()) + 8
        width = max(metrics.horizontalAdvance("Replay: …") + 8,
                    min(room, whole, TITLE_MAX_EM * metrics.height()))
        if self.title_label.minimumWidth() != width or self.title_label.maximumWidth() != width:
            self.title_label.setFixedWidth(width)
            layout.invalidate()  # the toolbar caches its items' sizes

    def _describe(self, step: ReplayStep, state: SessionProtocol | None) -> tuple[str, str]:
        """A short label for the bar and a full sentence for its tooltip."""
        call = step.call
        who = call.actor_id or "no actor"
        summary = state.summary() if state is not None else None
        if summary is not None and call.actor_id:
            who = summary.name_of(call.actor_id)
        progress = summary.progress if summary else None
        # The step ("turn 4"); a kind with no steps names where it is ("deck x").
        where = (progress.where or next(iter(progress.figures), "")) if progress else ""
        turn = f" · {where.lower()}" if where else ""
        mine = f" · inherited from {step.inherited_from[:8]}" if step.inherited_from else ""
        short = f"{self._index + 1}/{len(self._steps)} · {who}{turn}{mine}"
        full = (f"Call {self._index + 1} of {len(self._steps)} by {who}{turn}, "
                f"{call.status.value}; the docks show the state after its action "
                f"“{step.action}”, the view shows its payload exactly as sent."
                + (f" Inherited from session {step.inherited_from[:8]}: read-only here."
                   if step.inherited_from else ""))
        return short, full

    def current_branch_step(self) -> int | None:
        """The step "Branch from here" branches after: the one this call's action ended."""
        if not 0 <= self._index < len(self._steps):
            return None
        return self._steps[self._index].step

    def _on_branch_action_triggered(self) -> None:
        step = self.current_branch_step()
        if step is not None and self._session_id is not None:
            self.branchRequested.emit(self._session_id, step)

    def _on_compare_action_triggered(self) -> None:
        step = self.current_branch_step()
        if step is not None and self._session_id is not None:
            self.compareRequested.emit(self._session_id, step)

    def _update_controls(self) -> None:
        self.branch_action.setEnabled(self.current_branch_step() is not None)
        self.compare_action.setEnabled(self.current_branch_step() is not None)
        has = bool(self._steps)
        self.prev_action.setEnabled(has and self._index > 0)
        self.next_action.setEnabled(has and self._index < len(self._steps) - 1)
        self.slider.setEnabled(len(self._steps) > 1)

    def _on_slider_value_changed(self, value: int) -> None:
        if value != self._index:
            self.set_step(value)
