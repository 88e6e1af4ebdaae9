"""Negotiation scenarios: the pydantic model of a scenario file and the loader that refuses
a bad one with a message naming the field.

A scenario (resources/negotiation/<name>.json) gives each side (ALLY and KEEPER) its
name, emoji, base persona, initial 11-trait self profile (1-5), opening line, role style,
discouraged phrases, drives and taboos, plus the core conflict, the current obstacle and
the world (lore, constraints, leitmotifs). The trait names and the side names follow seed
000 (CB.HTML). Must not import Qt and must not hold session state.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from roundtable_desktop.llm.json_numbers import finite_number
from roundtable_desktop.paths import resources_dir

TRAITS: tuple[str, ...] = (
    "openness", "conscientious", "extraversion", "agreeableness", "neuroticism", "logic",
    "empathy", "authority", "risk", "uncertainty", "decisiveness",
)
TRAIT_MIN = 1.0
TRAIT_MAX = 5.0


def _trait() -> float:
    # pydantic's Field is typed Any: it stands in for the float the model validates.
    return cast(float, Field(ge=TRAIT_MIN, le=TRAIT_MAX))


class TraitProfile(BaseModel):
    """The 11 traits of seed 000, each 1-5 (a slider may give fractions)."""

    model_config = ConfigDict(extra="forbid")

    openness: float = _trait()
    conscientious: float = _trait()
    extraversion: float = _trait()
    agreeableness: float = _trait()
    neuroticism: float = _trait()
    logic: float = _trait()
    empathy: float = _trait()
    authority: float = _trait()
    risk: float = _trait()
    uncertainty: float = _trait()
    decisiveness: float = _trait()

    @field_validator(*TRAITS, mode="before")
    @classmethod
    def _finite(cls, value: Any) -> Any:
        """A number no float holds (NaN, 1e999, 400 digits) is refused like any bad
        value (llm/json_numbers.py); the range is the field's."""
        return finite_number(value)

    def as_dict(self) -> dict[str, float]:
        """Trait -> value in the seed's order; whole numbers as ints (the JSON the seed
        embeds reads `{"openness":4,...}`)."""
        return {name: _plain(getattr(self, name)) for name in TRAITS}

    def with_values(self, values: dict[str, float]) -> TraitProfile:
        """A copy with `values` applied, each clamped to 1-5; unknown names refused."""
        unknown = sorted(set(values) - set(TRAITS))
        if unknown:
            raise ValueError(f"Unknown trait(s): {', '.join(unknown)}; the traits are "
                             f"{', '.join(TRAITS)}.")
        merged = self.as_dict()
        for name, value in values.items():
            merged[name] = min(TRAIT_MAX, max(TRAIT_MIN, float(value)))
        return TraitProfile.model_validate(merged)

    def distance(self, other: TraitProfile) -> float:
        """Mean absolute difference over the 11 traits (0-4)."""
        total: float = sum(abs(getattr(self, t) - getattr(other, t)) for t in TRAITS)
        return total / len(TRAITS)


def neutral_profile() -> TraitProfile:
    return TraitProfile.model_validate(dict.fromkeys(TRAITS, 3))


def _plain(value: float) -> float:
    rounded = round(float(value), 2)
    return int(rounded) if rounded.is_integer() else rounded


class SideScenario(BaseModel):
    """One side of a scenario as the file gives it."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=60)
    emoji: str = Field(min_length=1, max_length=16)
    persona: str = Field(min_length=1, description="BASE_PERSONA")
    initial_self: TraitProfile
    opening: str = Field(min_length=1, description="the side's opening line")
    style: str = Field(min_length=1, description="STYLE: how this role speaks")
    discourage_phrases: list[str] = Field(default_factory=list)
    drives: str = Field(min_length=1, description="YOUR_ROLE_DRIVES")
    taboos: str = Field(min_length=1, description="YOUR_ROLE_TABOOS")


class WorldScenario(BaseModel):
    model_config = ConfigDict(extra="forbid")

    lore: str = Field(min_length=1)
    constraints: str = Field(min_length=1)
    leitmotifs: str = Field(min_length=1)


class NegotiationScenario(BaseModel):
    """One scenario file. `turn_cap`: the turn at which the game ends as terminated."""

    model_config = ConfigDict(extra="forbid")

    title: str = Field(min_length=1, max_length=120)
    description: str = ""
    ally: SideScenario
    keeper: SideScenario
    core_conflict: str = Field(min_length=1)
    current_obstacle: str = Field(min_length=1)
    world: WorldScenario
    turn_cap: int = Field(default=24, ge=2, le=200)


class ScenarioError(ValueError):
    """A scenario that cannot be used; the message names the file and the field."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def scenarios_dir() -> Path:
    return resources_dir() / "negotiation"


def scenario_names() -> list[str]:
    """Bundled scenario names, the default first."""
    names = sorted(p.stem for p in scenarios_dir().glob("*.json"))
    return sorted(names, key=lambda n: (n != "default", n))


def parse_scenario(data: object, *, source: str = "scenario") -> NegotiationScenario:
    """Validate `data`; a missing or out-of-range field raises ScenarioError naming it."""
    try:
        return NegotiationScenario.model_validate(data)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            where = ".".join(str(part) for part in err["loc"]) or "(the whole file)"
            problems.append(f"{where}: {err['msg']}")
        raise ScenarioError(f"{source} is not a valid negotiation scenario: "
                            + "; ".join(problems)) from None


def load_scenario(name: str, *, directory: Path | None = None) -> NegotiationScenario:
    """The scenario `name` from resources/negotiation/ (or `directory`)."""
    base = directory or scenarios_dir()
    path = base / f"{name}.json"
    if not path.is_file():
        names = ", ".join(scenario_names()) if directory is None else ""
        raise ScenarioError(f"There is no negotiation scenario {name!r}"
                            + (f"; choose one of: {names}." if names else "."))
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ScenarioError(f"{path.name} cannot be read as JSON: {exc}") from None
    return parse_scenario(data, source=path.name)
