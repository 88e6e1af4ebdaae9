"""Compare…: two branches of one replayed step, side by side, stepped together.

The user names what differs (each side's model and offline seed), presses Start
(engine/compare.py makes both branches and stores the comparison), then Step both: the
same action on both sides at once, a line in "Say to both" going to a human seat on both;
Auto steps both N times, until neither side can step without a human line.
Two columns in a splitter show each side: its context view (the request it sends next,
as sent: `payloads_as_sent()`, rendered as the main window's view renders it) over its
conversation (each step's replies and figures, or why it did not step, said plainly);
the pane under them shows the two requests' difference by part (settings, layers,
messages). Export report… writes the stored comparison as one
HTML page. Work runs as asyncio tasks held here (qasync keeps no reference); closing
the dialog waits for a step in flight and gives the two sessions' locks back.
Must not reach into a kind: it uses the compare engine and the stored calls only.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QDialog,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from roundtable_desktop.domain.plural import count_of
from roundtable_desktop.domain.refusal import Refusal
from roundtable_desktop.engine.compare import Comparison, SideSpec, start_comparison
from roundtable_desktop.engine.compare_report import (
    read_comparison,
    render_comparison_html,
    side_figures,
)
from roundtable_desktop.engine.request_diff import diff_requests
from roundtable_desktop.engine.session_settings import SessionSettings
from roundtable_desktop.llm.client import ChatClient
from roundtable_desktop.store.database import SessionStore, StoreError
from roundtable_desktop.store.records import CallRecord
from roundtable_desktop.ui.context.payload_web_view import PayloadWebView
from roundtable_desktop.ui.task_set import TaskSet, cancel_and_wait, task_failure


class _SideForm(QWidget):
    def __init__(self, name: str, seed: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = QLineEdit()
        self.model.setPlaceholderText("the session's own model")
        self.model.setObjectName(f"compare{name}Model")
        self.seed = QSpinBox()
        self.seed.setRange(0, 2**31 - 1)
        self.seed.setValue(seed)
        self.seed.setObjectName(f"compare{name}Seed")
        form = QFormLayout(self)
        form.addRow(QLabel(f"<b>{name}</b>"))
        form.addRow("Model", self.model)
        form.addRow("Offline seed", self.seed)

    def side(self) -> SideSpec:
        model = self.model.text().strip() or None
        return SideSpec(settings=SessionSettings(model=model), seed=self.seed.value())


class CompareDialog(QDialog):
    stepped = Signal(int)  # steps run so far
    failed = Signal(str)  # one sentence

    def __init__(self, store: SessionStore, session_id: str, step: int, client: ChatClient,
                 *, provider: str = "", parallel: int = 4,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("compareDialog")
        self.setWindowTitle(f"Compare from step {step}")
        self.resize(1100, 700)
        self.store, self.session_id, self.at = store, session_id, step
        self._client, self._provider, self._parallel = client, provider, parallel
        self.comparison: Comparison | None = None
        self._tasks = TaskSet(self._on_task_done)
        self._closing = False

        self.left_form = _SideForm("Left", 1)
        self.right_form = _SideForm("Right", 2)
        self.start_button = QPushButton("Start")
        self.step_button = QPushButton("Step both")
        self.auto_steps = QSpinBox()
        self.auto_steps.setRange(1, 200)
        self.auto_steps.setValue(5)
        self.auto_steps.setPrefix("Auto ×")
        self.auto_button = QPushButton("Auto")
        self.auto_button.setToolTip("Step both sides this many times, until neither can "
                                    "step without a human line")
        self.say = QLineEdit()
        self.say.setPlaceholderText("Say to both (a human seat's line)")
        self.export_button = QPushButton("Export report…")
        self.status = QLabel(f"Two branches of step {step} of session {session_id[:8]}: "
                             "choose what differs, then Start.")
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setWordWrap(True)
        self.left_pane, self.right_pane, self.diff_pane = (
            self._pane("compareLeft"), self._pane("compareRight"), self._pane("compareDiff"))
        self.left_view, self.right_view = PayloadWebView(self), PayloadWebView(self)
        self.left_view.setObjectName("compareLeftView")
        self.right_view.setObjectName("compareRightView")

        forms = QHBoxLayout()
        forms.addWidget(self.left_form)
        forms.addWidget(self.right_form)
        controls = QHBoxLayout()
        for widget in (self.start_button, self.step_button, self.auto_steps,
                       self.auto_button, self.say, self.export_button):
            controls.addWidget(widget)
        sides = QSplitter(Qt.Orientation.Horizontal)
        for view, pane in ((self.left_view, self.left_pane), (self.right_view, self.right_pane)):
            column = QSplitter(Qt.Orientation.Vertical)
            column.addWidget(view)
            column.addWidget(pane)
            column.setStretchFactor(0, 3)
            column.setStretchFactor(1, 2)
            column.setSizes([300, 200])  # a web view asks for no height of its own
            sides.addWidget(column)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(sides)
        split.addWidget(self.diff_pane)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(forms)
        layout.addLayout(controls)
        layout.addWidget(self.status)
        layout.addWidget(split, 1)

        self.start_button.clicked.connect(self._on_start_button_clicked)
        self.step_button.clicked.connect(self._on_step_button_clicked)
        self.auto_button.clicked.connect(self._on_auto_button_clicked)
        self.export_button.clicked.connect(self._on_export_button_clicked)
        self._update_controls()

    @staticmethod
    def _pane(name: str) -> QPlainTextEdit:
        pane = QPlainTextEdit()
        pane.setObjectName(name)
        pane.setReadOnly(True)
        return pane

    # -- driving ------------------------------------------------------------------------
    def start(self) -> None:
        """Make both branches (stored) with what each side's form says."""
        if self.comparison is not None:
            return
        try:
            self.comparison = start_comparison(
                self.store, self.session_id, self.at,
                (self.left_form.side(), self.right_form.side()), client=self._client,
                provider=self._provider, parallel=self._parallel)
        except (Refusal, StoreError, ValueError) as exc:
            self._say(str(exc).splitlines()[0])
            return
        left, right = self.comparison.sides
        for pane, handle in ((self.left_pane, left), (self.right_pane, right)):
            origin = self.store.branch_origin(handle.session_id)
            changes = "; ".join(origin.changes) if origin and origin.changes else "nothing"
            pane.setPlainText(f"Session {handle.session_id[:8]} · changed: {changes}\n")
        self._show_next()
        self._say("Both branches are ready: Step both runs the same action on each.")
        self._update_controls()

    def step_both(self) -> asyncio.Task[Any] | None:
        if self.comparison is None or self.running:
            return None
        line = self.say.text().strip() or None
        self.say.clear()
        task = self._tasks.spawn(self._step(self.comparison, line), "compare step")
        self._update_controls()
        return task

    def auto(self, steps: int) -> asyncio.Task[Any] | None:
        """Step both up to `steps` times; stops once neither side can step alone."""
        if self.comparison is None or self.running:
            return None
        task = self._tasks.spawn(self._auto(self.comparison, steps), "compare auto")
        self._update_controls()
        return task

    async def _auto(self, comparison: Comparison, steps: int) -> None:
        for _ in range(steps):
            if comparison.finished():
                self._say("Neither side can step without a human line: Auto stopped.")
                return
            await self._step(comparison, None)

    @property
    def running(self) -> bool:
        """A step was started and its end not yet taken in (the buttons follow this)."""
        return any(True for _ in self._tasks)

    def export_report(self, path: Path) -> None:
        if self.comparison is None:
            return
        text = render_comparison_html(read_comparison(self.store,
                                                      self.comparison.comparison_id))
        path.write_text(text, encoding="utf-8")
        self._say(f"Wrote {path}.")

    async def _step(self, comparison: Comparison, line: str | None) -> None:
        done = await comparison.step(line)
        calls = {c.id: c for h in comparison.sides for c in self.store.calls(h.session_id)}
        left = [calls[c] for c in done.left_calls if c in calls]
        right = [calls[c] for c in done.right_calls if c in calls]
        number = self.at + len(comparison.steps)
        self._show(self.left_pane, number, left, done.left_note)
        self._show(self.right_pane, number, right, done.right_note)
        self._show_next()
        diffs = [f"Step {number}"]
        for n, (a, b) in enumerate(zip(left, right, strict=False), 1):
            diff = diff_requests(a, b)
            diffs.append(f"  request {n}: {diff.sentence()}")
            for part in diff.changed():
                diffs += [f"    {part.part}: {part.state}"] + \
                    [f"      {line}" for line in part.lines[:6]]
        if not left and not right:
            diffs.append("  no request on either side (a human line, or a step with no call)")
        elif len(left) != len(right):
            diffs.append(f"  the sides made {count_of(len(left), 'call')} and "
                         f"{count_of(len(right), 'call')}: they no longer align call by call")
        self.diff_pane.appendPlainText("\n".join(diffs))
        self._say(f"Step {number} done on both sides.")
        self.stepped.emit(len(comparison.steps))

    @staticmethod
    def _show(pane: QPlainTextEdit, number: int, calls: list[CallRecord], note: str) -> None:
        lines = [f"── Step {number} · {note or side_figures(calls)}"]
        for call in calls:
            lines.append(f"{call.label or call.purpose} · {call.model} · {call.status.value}")
            lines.append(call.response_text or "(no text)")
        pane.appendPlainText("\n".join(lines))

    def _show_next(self) -> None:
        """Each side's context view: the request it sends next, exactly as sent."""
        if self.comparison is None:
            return
        for view, handle in zip((self.left_view, self.right_view), self.comparison.sides,
                                strict=True):
            payloads = handle.session.payloads_as_sent()
            if payloads:
                view.show_document(payloads[0].document, f"Next: {payloads[0].label}")

    # -- plumbing -----------------------------------------------------------------------
    def _say(self, text: str) -> None:
        self.status.setText(text)

    def _update_controls(self) -> None:
        started = self.comparison is not None
        self.start_button.setEnabled(not started)
        self.left_form.setEnabled(not started)
        self.right_form.setEnabled(not started)
        self.step_button.setEnabled(started and not self.running)
        self.auto_button.setEnabled(started and not self.running)
        self.export_button.setEnabled(started and not self.running)

    def _on_task_done(self, task: asyncio.Task[Any]) -> None:
        exc = task_failure(task)
        if exc is not None:
            message = exc.message if isinstance(exc, Refusal) else str(exc)
            self._say(message.splitlines()[0] if message else type(exc).__name__)
            self.failed.emit(message)
        if self._closing and not self.running and self.comparison is not None:
            self.comparison.close()  # the step the close cancelled has ended: unlock
        self._update_controls()

    def _on_start_button_clicked(self) -> None:
        self.start()

    def _on_step_button_clicked(self) -> None:
        self.step_both()

    def _on_auto_button_clicked(self) -> None:
        self.auto(self.auto_steps.value())

    def _on_export_button_clicked(self) -> None:
        name, _ = QFileDialog.getSaveFileName(self, "Export the comparison", "compare.html",
                                              "HTML (*.html)")
        if name:
            self.export_report(Path(name))

    async def aclose(self) -> None:
        """Wait for a step in flight, then give both sessions' locks back."""
        await cancel_and_wait(list(self._tasks))
        if self.comparison is not None:
            self.comparison.close()

    def closeEvent(self, event: QCloseEvent) -> None:
        self._closing = True
        self._tasks.cancel()
        if self.comparison is not None and not self.running:
            self.comparison.close()
        super().closeEvent(event)
