"""The teacher view: the cartridge (persona mode, patterns, safety, transitions), the
layers of the next request (each with its source), the student's path, the transitions
taken and every withheld reply with why; and the dialogue's token budget, editable (the
next request is trimmed to it; the session's `set_budget` edit). Not for the student's
eyes, nor the room's: it is the answer key (answer_key.py), covered, the budget with
it, until the teacher clicks "Show the answer key" (or Session › Show the answer key),
and covered again for every other exercise and in every new window. Covered, it takes
a line and a button, so in presenter mode's shared tab groups the student's chat
keeps the height. Must hold no engine logic.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QFormLayout,
    QPlainTextEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from roundtable_desktop.domain.plural import count_of
from roundtable_desktop.domain.prompts import LayerText
from roundtable_desktop.domain.refusal import Refusal
from roundtable_desktop.engine.base import Edit
from roundtable_desktop.kinds.tutor.edit import SET_BUDGET
from roundtable_desktop.kinds.tutor.session import TutorSession
from roundtable_desktop.kinds.tutor.state import TutorState
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.kinds.tutor.answer_key import AnswerKeyView, exercise_key
from roundtable_desktop.ui.kinds.tutor.dock_base import TutorDock
from roundtable_desktop.ui.window.session_runner import SessionRunner

MIN_BUDGET, MAX_BUDGET = 500, 2_000_000
COVERED_TEXT = "The answer key is hidden: teacher only."


class TutorTeacherDock(TutorDock):
    def __init__(self, bridge: EngineBridge, parent: QWidget | None = None, *,
                 runner: SessionRunner | None = None) -> None:
        super().__init__("Teacher view", "tutorTeacherDock", bridge, parent, runner=runner)
        self._exercise: tuple[str, int] | None = None
        self.text = QPlainTextEdit()
        self.text.setObjectName("tutorTeacherText")
        self.text.setReadOnly(True)
        self.budget = QSpinBox()
        self.budget.setObjectName("tutorBudget")
        self.budget.setRange(MIN_BUDGET, MAX_BUDGET)
        self.budget.setSingleStep(1000)
        self.budget.setGroupSeparatorShown(True)
        self.budget.setSuffix(" tokens")
        self.budget.setToolTip("The dialogue's context budget: over it, the oldest "
                               "student and trickster pairs are left out of the request.")
        self.budget.editingFinished.connect(self._on_budget_editing_finished)
        form = QFormLayout()
        form.addRow("Budget", self.budget)
        key = QWidget()
        layout = QVBoxLayout(key)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(form)
        layout.addWidget(self.text, 1)
        self.answer_key = AnswerKeyView(key, COVERED_TEXT, "tutorAnswerKey")
        self.setWidget(self.answer_key)
        self.answer_key.set_colours(self.theme_palette())
        self.refresh()

    def show_answer_key(self) -> None:
        """The teacher's explicit action: this dock in front, the key uncovered."""
        self.show()
        self.raise_()
        self.answer_key.show_key()

    def _on_theme_changed(self) -> None:
        self.answer_key.set_colours(self.theme_palette())

    def _on_budget_editing_finished(self) -> None:
        session = self.live_session()
        state = self.state()
        if isinstance(session, TutorSession) and state is not None \
                and self.budget.value() != state.budget_tokens:
            try:
                self.edit_session(Edit(id=SET_BUDGET, params={"tokens": self.budget.value()}))
            except Refusal as exc:  # the spin box's range keeps this from happening
                self.budget.setToolTip(exc.message)

    def refresh(self) -> None:
        state = self.state()
        exercise = exercise_key(self.bridge, state)
        if exercise != self._exercise:  # another exercise: its key starts covered
            self._exercise = exercise
            self.answer_key.cover()
        text = "No tutor exercise is shown." if state is None else self._describe(state)
        if self.text.toPlainText() != text:
            self.text.setPlainText(text)
        editable = state is not None and isinstance(self.live_session(), TutorSession)
        self.budget.setEnabled(editable)
        if state is not None and not self.budget.hasFocus():
            self.budget.setValue(state.budget_tokens)

    def _describe(self, s: TutorState) -> str:
        c = s.cartridge
        layers: list[LayerText] = getattr(self.bridge.session(), "layers_now", lambda: [])()
        if not layers and s.snapshot is not None:
            layers = list(s.snapshot.layers.values())
        lines = [f"Cartridge: {c.title} ({c.task_id}, v{c.version}, {c.language_name})",
                 f"Persona mode: {c.ai_config.persona_mode}",
                 f"Budget: {s.budget_tokens:,} tokens · tool: {s.tool_mode} · "
                 f"attempt {s.attempt}", "", "Patterns embedded:",
                 *(f"  {p.name}: {p.description}" for p in c.evaluation.patterns_embedded),
                 "", f"Safety: intensity ceiling {c.safety.intensity_ceiling} of 5",
                 *(f"  {b.id}: {b.rule}" for b in c.safety.content_boundaries),
                 "", "Transitions: " + ", ".join(
                     f"{k} → {v}" for k, v in c.ai_transitions.model_dump().items()),
                 "", "Layers of the next request:" if layers else "Layers: none pending",
                 *(f"  {layer.name} · {layer.source}" for layer in layers),
                 "", "The student's path:",
                 *(f"  {ch.phase}: {ch.label}" + (f" → “{ch.context_label}”"
                                                  if ch.context_label else "")
                   for ch in s.choices)]
        if s.transitions:
            lines += ["", "Transitions taken:",
                      *(f"  {t.phase} → {t.next_phase} ({t.signal}, by {t.by})"
                        for t in s.transitions)]
        withheld = [e for e in s.exchanges if e.redacted]
        if withheld:
            lines += ["", "Withheld replies:",
                      *(f"  [{e.reason}] {e.original}" for e in withheld)]
        if s.last_dropped:
            lines += ["", f"{count_of(s.last_dropped, 'earlier exchange')} not sent (budget)."]
        return "\n".join(lines)
