"""Tutor cartridges: the schema of one exercise and the loader that reads them.

A cartridge (resources/tutor/cartridges/<task_id>.json) is the source of truth for an
exercise's state machine: its phases (static phases with choices, freeform phases with
`min_exchanges` / `max_exchanges`, end phases that lead to the debrief), the trickster's
`ai_config`, what the exercise teaches (`evaluation`), its `safety` block (required: a
cartridge without one is refused) and `ai_transitions` (which phase each transition
signal leads to). The loader reports every invalid field of a file at once, each named
with the file and the field's path. Must not import Qt, build prompts or call models.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from roundtable_desktop.domain.refusal import Refusal
from roundtable_desktop.paths import resources_dir

# Language code -> (name for the language instruction, characters per token estimate).
LANGUAGES: dict[str, tuple[str, float]] = {"en": ("English", 4.0), "lt": ("Lithuanian", 3.0)}
SIGNALS = ("understood", "partial", "max_reached")
_ID = r"^[a-z0-9][a-z0-9_-]{0,63}$"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Choice(_Strict):
    label: str = Field(min_length=1, max_length=300)
    # What the trickster is told the student chose (layer 8); none: the choice is not told.
    context_label: str | None = Field(default=None, max_length=300)
    next_phase: str | None = None  # default: the phase after this one


class StaticPhase(_Strict):
    id: str = Field(pattern=_ID)
    type: Literal["static"]
    title: str = Field(min_length=1, max_length=200)
    content: str = Field(min_length=1)
    choices: list[Choice] = Field(min_length=1, max_length=9)


class Transitions(_Strict):
    """Which phase each transition signal leads to."""

    on_success: str
    on_partial: str
    on_max_exchanges: str

    def target(self, signal: str) -> str:
        return {"understood": self.on_success, "partial": self.on_partial,
                "max_reached": self.on_max_exchanges}[signal]


class FreeformPhase(_Strict):
    id: str = Field(pattern=_ID)
    type: Literal["freeform"]
    title: str = Field(min_length=1, max_length=200)
    content: str = Field(min_length=1)
    min_exchanges: int = Field(ge=1, le=50)
    max_exchanges: int = Field(ge=1, le=100)
    ai_transitions: Transitions | None = None  # default: the cartridge's


class EndPhase(_Strict):
    id: str = Field(pattern=_ID)
    type: Literal["end"]
    title: str = Field(min_length=1, max_length=200)
    content: str = ""


Phase = Annotated[StaticPhase | FreeformPhase | EndPhase, Field(discriminator="type")]


class AiConfig(_Strict):
    persona_mode: str = Field(min_length=1, max_length=80)
    context_requirements: list[str] = Field(default_factory=lambda: ["session_only"])


class Pattern(_Strict):
    """A manipulation technique the trickster embeds and the student should name."""

    id: str = Field(pattern=_ID)
    name: str = Field(min_length=1, max_length=120)
    description: str = Field(min_length=1)
    example: str = Field(min_length=1, description="how the trickster might use it")
    signals: list[str] = Field(min_length=1, description="words a student naming it uses")
    partial_signals: list[str] = Field(
        default_factory=list, description="words of a student who felt it without naming it")


class ChecklistItem(_Strict):
    id: str = Field(pattern=_ID)
    text: str = Field(min_length=1)
    pattern: str | None = None  # ticked when the student spotted this pattern


class PassConditions(_Strict):
    understood: str = Field(min_length=1)
    partial: str = Field(min_length=1)


class Evaluation(_Strict):
    patterns_embedded: list[Pattern] = Field(min_length=1)
    checklist: list[ChecklistItem] = Field(min_length=1)
    pass_conditions: PassConditions


class ContentBoundary(_Strict):
    """A topic the trickster must not touch; `terms` (case-insensitive words or phrases)
    and `patterns` (regular expressions) are how the rule check finds it in a reply."""

    id: str = Field(pattern=_ID)
    rule: str = Field(min_length=1)
    terms: list[str] = Field(default_factory=list)
    patterns: list[str] = Field(default_factory=list)


class Safety(_Strict):
    content_boundaries: list[ContentBoundary] = Field(min_length=1)
    intensity_ceiling: int = Field(ge=1, le=5)
    model_check: bool = False  # also ask a model (purpose "safety") after the rules pass


class Cartridge(_Strict):
    task_id: str = Field(pattern=_ID)
    version: int = Field(default=1, ge=1)
    title: str = Field(min_length=1, max_length=200)
    language: str
    description: str = ""
    phases: list[Phase] = Field(min_length=2)
    ai_config: AiConfig
    evaluation: Evaluation
    safety: Safety
    ai_transitions: Transitions

    @property
    def language_name(self) -> str:
        return LANGUAGES[self.language][0]

    @property
    def chars_per_token(self) -> float:
        return LANGUAGES[self.language][1]

    def phase(self, phase_id: str) -> StaticPhase | FreeformPhase | EndPhase:
        for phase in self.phases:
            if phase.id == phase_id:
                return phase
        raise KeyError(phase_id)

    def phase_after(self, phase_id: str) -> str | None:
        ids = [p.id for p in self.phases]
        at = ids.index(phase_id)
        return ids[at + 1] if at + 1 < len(ids) else None

    def transitions_of(self, phase: FreeformPhase) -> Transitions:
        return phase.ai_transitions or self.ai_transitions


class CartridgeError(Refusal):
    """A cartridge file that cannot be used; `problems` lists every invalid field."""

    def __init__(self, file: str, problems: list[str]) -> None:
        self.file = file
        self.problems = problems
        listed = "; ".join(problems)
        super().__init__(f"The cartridge {file} cannot be used: {listed}.",
                         "Fix the fields named, then start the exercise again.")


def cartridges_dir() -> Path:
    return resources_dir() / "tutor" / "cartridges"


def cartridge_paths() -> list[Path]:
    return sorted(cartridges_dir().glob("*.json"))


def load_cartridge(path: Path) -> Cartridge:
    """The cartridge in `path`; CartridgeError naming the file and every bad field."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise CartridgeError(path.name, [f"not readable JSON ({exc})"]) from None
    return parse_cartridge(data, path.name)


def parse_cartridge(data: object, file: str) -> Cartridge:
    problems: list[str] = []
    if isinstance(data, dict) and "safety" not in data:
        problems.append("safety: required (every cartridge needs content_boundaries and an "
                        "intensity_ceiling)")
    try:
        cartridge = Cartridge.model_validate(data)
    except ValidationError as exc:
        for error in exc.errors():
            where = ".".join(str(part) for part in error["loc"]
                             if part not in ("static", "freeform", "end"))
            if where == "safety" and error["type"] == "missing":
                continue  # said above, with what the block must hold
            problems.append(f"{where or 'cartridge'}: {error['msg']}")
        raise CartridgeError(file, problems) from None
    problems += _cross_checks(cartridge)
    if problems:
        raise CartridgeError(file, problems)
    return cartridge


def _cross_checks(c: Cartridge) -> list[str]:
    """What field validation cannot see: names that must refer to something."""
    problems = []
    if c.language not in LANGUAGES:
        problems.append(f"language: {c.language!r} is not one of {', '.join(LANGUAGES)}")
    ids = [p.id for p in c.phases]
    for dup in sorted({i for i in ids if ids.count(i) > 1}):
        problems.append(f"phases: the id {dup!r} is used twice")
    if not any(p.type == "end" for p in c.phases):
        problems.append("phases: an end phase is needed (it leads to the debrief)")
    patterns = {p.id for p in c.evaluation.patterns_embedded}

    def refer(where: str, target: str | None) -> None:
        if target is not None and target not in ids:
            problems.append(f"{where}: no phase {target!r}")

    for field_name in ("on_success", "on_partial", "on_max_exchanges"):
        refer(f"ai_transitions.{field_name}", getattr(c.ai_transitions, field_name))
    for i, phase in enumerate(c.phases):
        if isinstance(phase, StaticPhase):
            for j, choice in enumerate(phase.choices):
                refer(f"phases.{i}.choices.{j}.next_phase", choice.next_phase)
        elif isinstance(phase, FreeformPhase):
            if phase.max_exchanges < phase.min_exchanges:
                problems.append(f"phases.{i}.max_exchanges: less than min_exchanges")
            if phase.ai_transitions is not None:
                for field_name in ("on_success", "on_partial", "on_max_exchanges"):
                    refer(f"phases.{i}.ai_transitions.{field_name}",
                          getattr(phase.ai_transitions, field_name))
    for i, item in enumerate(c.evaluation.checklist):
        if item.pattern is not None and item.pattern not in patterns:
            problems.append(f"evaluation.checklist.{i}.pattern: no pattern {item.pattern!r}")
    for i, boundary in enumerate(c.safety.content_boundaries):
        for j, pattern in enumerate(boundary.patterns):
            try:
                re.compile(pattern)
            except re.error as exc:
                problems.append(f"safety.content_boundaries.{i}.patterns.{j}: {exc}")
    return problems
