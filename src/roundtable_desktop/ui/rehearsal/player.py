"""Play one kind in the real window from its start to its end, as a presenter would
click, and note what an audience would see wrong.

At every step the player does what the status line says to do next: it finds that
action's toolbar button (it must be in plain view: not behind "»", not squeezed, not
outside the window), clicks it, and waits for the window to be idle again, timing the
step against its budget. A human seat gets the kind's rehearsal lines (WindowKind.
rehearsal) in order, then the kind's finishing action. A click the kind asks about
first (End the session: the toolbar's question) is answered yes, as the presenter
would, once the question is checked to fit the screen. At the start and the end the
layout is checked (layout_checks.py), at the end also the result and the dialogs the
window opens. `--shots` keeps a screenshot of the start, the middle and the end.
Must not reach into a kind's state: it reads the bridge, the toolbar and the widgets.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtGui import QImage
from PySide6.QtWidgets import QDialog

from roundtable_desktop.domain.plural import count_of
from roundtable_desktop.engine.headless import send_step
from roundtable_desktop.ui.dialogs.settings_dialog import SettingsDialog
from roundtable_desktop.ui.docks.calls_dock import CallsDock
from roundtable_desktop.ui.kinds.registry import window_kind
from roundtable_desktop.ui.rehearsal import layout_checks
from roundtable_desktop.ui.window.main_window import MainWindow

POLL_S = 0.02


class StepTimeout(Exception):
    pass


@dataclass
class KindReport:
    kind: str
    steps: int = 0
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)
    shots: list[Path] = field(default_factory=list)

    def note(self, problem: str) -> None:
        if problem and problem not in self.problems:
            self.problems.append(problem)

    @property
    def ok(self) -> bool:
        return not self.problems

    def line(self) -> str:
        """One line: `ok   legion  (12 steps, 8.1 s)` or `FAIL legion: what is wrong; …`."""
        done = f"{count_of(self.steps, 'step')}, {self.seconds:.1f} s"
        if self.ok:
            return f"ok   {self.kind:<12} ({done})"
        return f"FAIL {self.kind:<12} ({done}): " + "; ".join(self.problems)


class RehearsalPlayer:
    """Plays kinds one after another in one window (as a presenter switching kinds)."""

    def __init__(self, window: MainWindow, *, shots: Path | None = None,
                 step_budget_s: float = 15.0, max_steps: int = 400) -> None:
        self.window = window
        self.shots = shots
        self.step_budget_s = step_budget_s
        self.max_steps = max_steps
        self._events = 0  # engine events seen: a click has started when this grows
        window.bridge.eventReceived.connect(self._on_bridge_event_received)

    async def play(self, kind: str) -> KindReport:
        report = KindReport(kind)
        began = time.monotonic()
        try:
            await self._play(kind, report)
        except StepTimeout as exc:
            report.note(str(exc))
        report.seconds = time.monotonic() - began
        return report

    async def _play(self, kind: str, report: KindReport) -> None:
        window, rehearsal = self.window, window_kind(kind).rehearsal
        await self._until(lambda: not window.runner.busy, "the window to be idle")
        await window.runner.start_new(kind, rehearsal.scenario)
        await self._settle()
        self._check_layout(report)
        self._shoot(report, "start")
        lines = deque(rehearsal.lines)
        kept: dict[int, QImage] = {}  # frames at steps 1, 2, 4, 8 ...: one is the middle
        while not window.bridge.ended() and report.steps < self.max_steps:
            session = window.bridge.session()
            if session is None:
                report.note("no session is open")
                return
            step = session.next_step()
            if step is not None:
                await self._click(step.id, report)
            elif session.awaiting_human() and lines:
                await self._timed(window.runner.perform(send_step(lines.popleft())), report)
            elif rehearsal.finish:  # the presenter's choice, not what the status line names
                await self._click(rehearsal.finish, report, named=False)
                if not window.bridge.ended():
                    report.note(f"{rehearsal.finish!r} did not end the session")
                    return
            else:
                seat = session.awaiting_human()
                report.note(f"it waits for {seat} with no line rehearsed" if seat
                            else "it stopped before its end with nothing to click")
                return
            report.steps += 1
            if report.steps & (report.steps - 1) == 0 and self.shots is not None:
                # The page of this step, not the last one: Chromium paints a new
                # document a few frames after the step has finished.
                await self._settle()
                kept[report.steps] = self.window.grab().toImage()
        await self._settle()
        if not window.bridge.ended():
            report.note(f"it had not ended after {count_of(report.steps, 'step')}")
        else:
            await self._check_result(report)
        self._check_layout(report)
        self._check_dialogs(report)
        if kept:
            middle = min(kept, key=lambda n: abs(n - report.steps / 2))
            self._save(report, "middle", kept[middle])
        self._shoot(report, "end")

    async def _check_result(self, report: KindReport) -> None:
        """The result reads whole: in the centre, or once the presenter brings it up full
        size (the end panel's Full size, F10)."""
        window = self.window
        cut = layout_checks.result_cut(window)
        if cut and window.end_panel.isVisible():
            window.end_panel.full_button.setChecked(True)
            await self._until(lambda: not window.end_panel.fitting, "the result to fit", 5.0,
                              quiet=True)
            await self._frames()
            self._shoot(report, "result")
            cut = layout_checks.result_cut(window)
            cut = cut and f"{cut}, even at full size"
            window.end_panel.full_button.setChecked(False)
            await self._frames()
        report.note(cut)

    async def _frames(self, count: int = 5) -> None:
        for _ in range(count):  # layouts settle over a few passes of the loop
            await asyncio.sleep(0.02)

    async def _click(self, action_id: str, report: KindReport, *, named: bool = True) -> None:
        """Click the toolbar button of `action_id`, after checking it is in plain view
        when the status line names it (else from the More menu, as a presenter would)."""
        window = self.window
        await self._until(lambda: action_id in window.toolbar.qactions
                          and window.toolbar.qactions[action_id].isEnabled(),
                          f"{action_id!r} to be offered")
        await self._until(lambda: (b := window.toolbar.button(action_id)) is not None
                          and b.isVisible(), "its button", 1.0, quiet=True)
        await self._frames(3)  # a new label's width reaches the bar's layout
        if named:
            report.note(layout_checks.hidden_action(window, action_id))
        for problem in layout_checks.elided_texts(window):
            if problem.startswith("phase"):  # the status line that names the action
                report.note(problem)
        button = window.toolbar.button(action_id)
        before = self._events
        if button is not None and button.isVisible():
            button.click()
        else:  # in More (or behind "»": the problem is noted above)
            window.toolbar.qactions[action_id].trigger()
        question = window.toolbar.question
        if question is not None:  # the kind asks first: the presenter says yes
            await self._frames(2)
            report.note(layout_checks.too_tall(question, window.available_geometry()))
            question.yes_button.click()
        # Every action says it started (an engine event), however fast it is over.
        await self._until(lambda: self._events > before, "the click to start", 5.0,
                          quiet=True)
        await self._timed(None, report)

    def _on_bridge_event_received(self, _event: object) -> None:
        self._events += 1

    async def _timed(self, task: asyncio.Task[object] | None, report: KindReport) -> None:
        began = time.monotonic()
        if task is not None:
            await asyncio.wait_for(asyncio.shield(task), self.step_budget_s * 4)
        await self._until(lambda: not self.window.runner.busy, "a step to finish",
                          self.step_budget_s * 4)
        took = time.monotonic() - began
        if took > self.step_budget_s:
            report.note(f"a step took {took:.1f} s (budget {self.step_budget_s:g} s)")

    async def _settle(self) -> None:
        await self._until(lambda: not self.window.runner.busy, "the window to be idle")
        await asyncio.sleep(0)  # the toolbar and docks refresh on the next loop pass
        await self._until(lambda: self.window.context_view.loaded, "the context view", 20.0,
                          quiet=True)
        await self._frames()  # the toolbar fits itself and the docks settle

    def _check_layout(self, report: KindReport) -> None:
        report.note(layout_checks.larger_than_screen(self.window))
        for problem in layout_checks.outside(self.window):
            report.note(f"{problem} lies outside the window")
        report.note(layout_checks.overflowing_toolbar(self.window))
        for problem in layout_checks.elided_texts(self.window):
            report.note(problem)

    def _check_dialogs(self, report: KindReport) -> None:
        """The dialogs a presenter opens mid-talk fit the screen: Settings and the last
        call's inspector."""
        window = self.window
        available = window.available_geometry()
        dialogs: list[QDialog] = [SettingsDialog(window.settings, window.key_store, window)]
        calls = window.docks.get("callsDock")
        if isinstance(calls, CallsDock) and calls.model.records:
            opened = calls.open_call(len(calls.model.records) - 1)
            if opened is not None:
                dialogs.append(opened)
        for dialog in dialogs:
            dialog.show()
            report.note(layout_checks.too_tall(dialog, available))
            dialog.reject()

    async def _until(self, predicate: Callable[[], bool], what: str,
                     timeout_s: float = 60.0, *, quiet: bool = False) -> None:
        deadline = time.monotonic() + timeout_s
        while not predicate():
            if time.monotonic() > deadline:
                if quiet:
                    return
                raise StepTimeout(f"waited {timeout_s:g} s for {what}")
            await asyncio.sleep(POLL_S)

    def _shoot(self, report: KindReport, moment: str) -> None:
        if self.shots is not None:
            self._save(report, moment, self.window.grab().toImage())

    def _save(self, report: KindReport, moment: str, image: QImage) -> None:
        assert self.shots is not None
        self.shots.mkdir(parents=True, exist_ok=True)
        path = self.shots / f"{report.kind}-{moment}.png"
        image.save(str(path))
        report.shots.append(path)
