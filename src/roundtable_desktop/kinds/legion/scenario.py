"""The legion's bundled scenarios (resources/legion/*.json): read, validated, made into a
starting LegionState.

A scenario names the Commander, the minions (name, persona, optional model, starting
scores), the group channels, the minions-only channel, the channel lines go to when they
name none, and the MCP servers the scenario brings (the `mcpServers` JSON other MCP
clients use; `{resources}` in an argument stands for the bundled resources directory,
and a command `{app}` for this app's own command line, so the bundled file server runs
in the packaged app too), and whether the app draws who speaks (`app_draws_speakers`,
off by default: each minion's plan decides). A file that does not validate is refused
with the file and the bad field named. Must not connect to anything or import Qt.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from roundtable_desktop.domain.refusal import Refusal
from roundtable_desktop.kinds.legion.state import (
    MAX_SCORE,
    MIN_SCORE,
    NEUTRAL_SCORE,
    Channel,
    ChannelType,
    LegionState,
    Minion,
    ScorePoint,
    dm_channel_id,
)
from roundtable_desktop.paths import resources_dir

_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,31}$")
_CHANNEL = re.compile(r"^[a-z0-9][a-z0-9_-]{0,47}$")


class ScenarioError(Refusal):
    """A scenario file that cannot be used; the message names the file and the field."""


class MinionSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    persona: str = Field(min_length=1, max_length=2000)
    model: str | None = None
    scores: dict[str, int] = Field(default_factory=dict)

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not _NAME.match(value):
            raise ValueError("a minion's name is a letter then up to 31 letters, digits, "
                             "'-' or '_'")
        return value

    @field_validator("scores")
    @classmethod
    def _scores(cls, value: dict[str, int]) -> dict[str, int]:
        for who, score in value.items():
            if not MIN_SCORE <= score <= MAX_SCORE:
                raise ValueError(f"the score for {who} must be from {MIN_SCORE} to "
                                 f"{MAX_SCORE} (got {score})")
        return value


class GroupSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    members: list[str] = Field(min_length=1)
    title: str = ""

    @field_validator("name")
    @classmethod
    def _channel(cls, value: str) -> str:
        if not _CHANNEL.match(value):
            raise ValueError("a channel name is lower-case letters, digits, '-' or '_'")
        return value


class LegionScenario(BaseModel):
    model_config = ConfigDict(extra="forbid")

    title: str = Field(min_length=1, max_length=200)
    description: str = ""
    commander: str = Field(min_length=1, max_length=40)
    minions: list[MinionSpec] = Field(min_length=1, max_length=12)
    groups: list[GroupSpec] = Field(default_factory=list)
    minions_channel: str | None = "minions-only"
    default_channel: str | None = None
    mcpServers: dict[str, Any] = Field(default_factory=dict)
    # Off (the seed's rule): an unaddressed minion's own plan decides whether it speaks.
    app_draws_speakers: bool = False


def scenarios_dir() -> Path:
    return resources_dir() / "legion"


def scenario_files() -> list[Path]:
    return sorted(scenarios_dir().glob("*.json"))


def load_scenario(name: str) -> LegionScenario:
    path = scenarios_dir() / f"{name}.json"
    if not re.fullmatch(r"[a-z0-9_-]+", name) or not path.is_file():
        names = ", ".join(p.stem for p in scenario_files())
        raise ScenarioError(f"There is no legion scenario {name!r}; choose one of: {names}.")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ScenarioError(f"resources/legion/{path.name} is not readable JSON ({exc}).") \
            from None
    return parse_scenario(data, where=f"resources/legion/{path.name}")


def parse_scenario(data: Any, *, where: str = "the scenario") -> LegionScenario:
    """Validate `data`; the error names `where` and each bad field by its path."""
    try:
        scenario = LegionScenario.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(top)'}: {err['msg']}"
            for err in exc.errors()[:5])
        raise ScenarioError(f"{where} is not a valid legion scenario: {problems}.") from None
    names = [m.name.lower() for m in scenario.minions]
    if len(set(names)) != len(names):
        raise ScenarioError(f"{where}: minions: two minions share a name.")
    for group in scenario.groups:
        for member in group.members:
            if member.lower() not in names:
                raise ScenarioError(f"{where}: groups.{group.name}.members: no minion named "
                                    f"{member!r}.")
    return scenario


def new_state(name: str, *, seed: int = 0) -> LegionState:
    scenario = load_scenario(name)
    return state_from_scenario(name, scenario, seed=seed)


def state_from_scenario(name: str, scenario: LegionScenario, *, seed: int = 0) -> LegionState:
    """The starting state: every minion scores every other participant (50 unless the
    scenario says), a DM per minion, the groups, the minions-only channel."""
    everyone = [scenario.commander, *(m.name for m in scenario.minions)]
    minions = []
    for spec in scenario.minions:
        given = {k.lower(): v for k, v in spec.scores.items()}
        scores = {who: given.get(who.lower(), NEUTRAL_SCORE) for who in everyone
                  if who != spec.name}
        minions.append(Minion(id=spec.name.lower(), name=spec.name, persona=spec.persona,
                              model=spec.model, scores=scores))
    channels = [Channel(id=dm_channel_id(m.id), type=ChannelType.DM, members=[m.id],
                        title=f"{scenario.commander} and {m.name}") for m in minions]
    channels += [Channel(id=g.name, type=ChannelType.GROUP,
                         members=[member.lower() for member in g.members],
                         title=g.title or g.name) for g in scenario.groups]
    if scenario.minions_channel and len(minions) > 1:
        channels.append(Channel(id=scenario.minions_channel, type=ChannelType.MINIONS,
                                members=[m.id for m in minions], title="Minions only"))
    default = (scenario.default_channel or channels[0].id).lstrip("#")
    if default not in [c.id for c in channels]:
        raise ScenarioError(f"resources/legion/{name}.json: default_channel: no channel "
                            f"#{default}.")
    points = [ScorePoint(step=0, minion=m.name, participant=who, score=score)
              for m in minions for who, score in m.scores.items()]
    return LegionState(scenario=name, title=scenario.title, description=scenario.description,
                       commander=scenario.commander, minions=minions, channels=channels,
                       default_channel=default, scores=points,
                       mcp_servers=scenario.mcpServers, seed=seed,
                       app_draws_speakers=scenario.app_draws_speakers)
