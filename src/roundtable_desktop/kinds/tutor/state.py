"""The state of one tutor exercise: the cartridge, where the student is, what was said.

Everything a reopened session needs is here, the cartridge included (a cartridge file
edited later does not change a running exercise), with the prompt snapshot of the task
attempt. Exchanges keep what was shown and sent; a redacted reply keeps its original too
(the call's stored outcome also holds it). Must not import Qt, read files or call models.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from roundtable_desktop.context.budget import DEFAULT_BUDGET
from roundtable_desktop.context.layers import PromptSnapshot
from roundtable_desktop.kinds.tutor.cartridge import (
    Cartridge,
    EndPhase,
    FreeformPhase,
    StaticPhase,
)
from roundtable_desktop.kinds.tutor.verdict import ItemVerdict, judge

STUDENT: Literal["student"] = "student"
TRICKSTER: Literal["trickster"] = "trickster"
ToolMode = Literal["native", "prompt"]


class Exchange(BaseModel):
    role: Literal["student", "trickster"]
    text: str  # as shown to the student and as later requests send it
    phase: str
    redacted: bool = False
    original: str | None = None  # the withheld reply, for the teacher and the inspector
    reason: str = ""


class ChoiceMade(BaseModel):
    phase: str
    index: int
    label: str
    context_label: str | None = None


class TransitionRecord(BaseModel):
    phase: str
    signal: str  # understood / partial / max_reached, or "choice"
    next_phase: str
    by: Literal["tool", "rule", "choice"]
    exchanges: int = 0


class TutorState(BaseModel):
    cartridge: Cartridge
    scenario: str
    provider: str = "offline"
    phase: str
    exchanges: list[Exchange] = Field(default_factory=list)
    choices: list[ChoiceMade] = Field(default_factory=list)
    transitions: list[TransitionRecord] = Field(default_factory=list)
    snapshot: PromptSnapshot | None = None  # taken on the attempt's first call
    attempt: int = 1
    last_redaction_reason: str | None = None  # one-shot: cleared once a call carried it
    budget_tokens: int = Field(default=DEFAULT_BUDGET, ge=1)
    tool_mode: ToolMode = "native"
    last_dropped: int = 0  # exchange pairs the last dialogue request left out
    replies: int = 0
    debrief: str | None = None
    # The verdict per checklist item, fixed when the debrief is written (verdict.py).
    verdicts: list[ItemVerdict] | None = None
    ended: bool = False

    @classmethod
    def start(cls, cartridge: Cartridge, scenario: str, provider: str) -> TutorState:
        return cls(cartridge=cartridge, scenario=scenario, provider=provider,
                   phase=cartridge.phases[0].id)

    def current(self) -> StaticPhase | FreeformPhase | EndPhase:
        return self.cartridge.phase(self.phase)

    def exchange_count(self) -> int:
        """Student lines in the current phase (the one being answered included)."""
        return sum(1 for e in self.exchanges if e.phase == self.phase and e.role == STUDENT)

    def last_in_phase(self) -> Exchange | None:
        here = [e for e in self.exchanges if e.phase == self.phase]
        return here[-1] if here else None

    def awaiting_student(self) -> bool:
        if self.ended:
            return False
        phase = self.current()
        if isinstance(phase, StaticPhase):
            return True
        if isinstance(phase, FreeformPhase):
            last = self.last_in_phase()
            return last is None or last.role == TRICKSTER
        return False

    def awaiting_reply(self) -> bool:
        last = self.last_in_phase()
        return (not self.ended and isinstance(self.current(), FreeformPhase)
                and last is not None and last.role == STUDENT)

    def awaiting_debrief(self) -> bool:
        return not self.ended and isinstance(self.current(), EndPhase) and self.debrief is None

    def context_labels(self) -> list[str]:
        return [c.context_label for c in self.choices if c.context_label]

    def student_lines(self) -> list[str]:
        return [e.text for e in self.exchanges if e.role == STUDENT]

    def current_verdicts(self) -> list[ItemVerdict]:
        """The verdicts fixed at the debrief, or (before it, and for a session stored
        before verdicts existed) as the student's lines stand now."""
        if self.verdicts is not None:
            return self.verdicts
        return judge(self.cartridge, self.student_lines())
