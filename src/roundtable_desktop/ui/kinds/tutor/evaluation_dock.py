"""The evaluation checklist of the exercise, ticked once the debrief is written from the
verdict on each item (spotted: checked, partly: half-checked, missed: empty; the
student's words in the tooltip), with the debrief below it, headed by the count of the
same verdicts. Read-only. Until the debrief the checklist is the answer key (what the
student is to spot): it is covered (answer_key.py) unless the teacher asks for it, and
covered again for every other exercise; once the debrief is written it shows to all.
Must hold no engine logic.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from roundtable_desktop.domain.plural import count_of
from roundtable_desktop.kinds.tutor.summary import checklist_verdicts, debrief_text
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.kinds.tutor.answer_key import AnswerKeyView, exercise_key
from roundtable_desktop.ui.kinds.tutor.dock_base import TutorDock
from roundtable_desktop.ui.window.session_runner import SessionRunner

_CHECKS = {"spotted": Qt.CheckState.Checked, "partly": Qt.CheckState.PartiallyChecked,
           "missed": Qt.CheckState.Unchecked}


class TutorEvaluationDock(TutorDock):
    def __init__(self, bridge: EngineBridge, parent: QWidget | None = None, *,
                 runner: SessionRunner | None = None) -> None:
        super().__init__("Evaluation", "tutorEvaluationDock", bridge, parent, runner=runner)
        self._exercise: tuple[str, int] | None = None
        self.checklist = QListWidget()
        self.checklist.setObjectName("tutorChecklist")
        self.checklist.setWordWrap(True)
        self.answer_key = AnswerKeyView(self.checklist, "", "tutorChecklistKey")
        self.debrief = QPlainTextEdit()
        self.debrief.setObjectName("tutorDebrief")
        self.debrief.setReadOnly(True)
        self.debrief.setPlaceholderText("The debrief comes when the task ends.")
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.addWidget(QLabel("Checklist (ticked from what the student spotted):"))
        layout.addWidget(self.answer_key, 1)
        layout.addWidget(QLabel("Debrief:"))
        layout.addWidget(self.debrief, 2)
        self.setWidget(body)
        self.answer_key.set_colours(self.theme_palette())
        self.refresh()

    def _on_theme_changed(self) -> None:
        self.answer_key.set_colours(self.theme_palette())

    def ticks(self) -> list[tuple[str, bool]]:
        return [(self.checklist.item(i).text(),
                 self.checklist.item(i).checkState() == Qt.CheckState.Checked)
                for i in range(self.checklist.count())]

    def refresh(self) -> None:
        state = self.state()
        exercise = exercise_key(self.bridge, state)
        if exercise != self._exercise:  # another exercise: its checklist starts covered
            self._exercise = exercise
            self.answer_key.cover()
        self.checklist.clear()
        if state is None:
            self.debrief.clear()
            return
        items = len(state.cartridge.evaluation.checklist)
        self.answer_key.cover_label.setText(
            f"{count_of(items, 'checklist item')} to spot: each shows here, ticked from what "
            "the student spotted, once the debrief is written. Until then the checklist is "
            "the answer key.")
        self.answer_key.make_public(state.debrief is not None)
        for text, verdict in checklist_verdicts(state):
            item = QListWidgetItem(text)
            item.setFlags(Qt.ItemFlag.ItemIsEnabled)  # shown, never ticked by hand
            item.setCheckState(_CHECKS[verdict.verdict] if verdict is not None
                               else Qt.CheckState.Unchecked)
            if verdict is not None and verdict.quote:
                item.setToolTip(f"{verdict.verdict}: “{verdict.quote}”")
            self.checklist.addItem(item)
        shown = debrief_text(state)
        if self.debrief.toPlainText() != shown:
            self.debrief.setPlainText(shown)
