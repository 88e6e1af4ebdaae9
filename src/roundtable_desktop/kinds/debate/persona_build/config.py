"""The persona builder's input: deck-config.json, validated, with its paths resolved.

A deck-config.json (seed 004's `data/seed/deck-config.json`) names the deck and lists the
personas to build, each with where its corpus comes from:

    {
      "name": "city-transit",                 // the deck's folder name (a-z, 0-9, -)
      "title": "City transit",
      "topic": "Should cities make public transit free at the point of use?",
      "description": "",                      // optional, shown with the deck
      "limits": {"feed_posts": 20, "x_posts": 100, "folder_files": 200,
                 "max_chars": 2000, "keep": 50, "excerpt_chars": 1200},   // optional
      "personas": [
        {"id": "ada-brennan", "name": "Ada Brennan", "handle": "@ada_moves",
         "avatar": "avatars/ada.png",         // optional: a PNG next to the config
         "suite": "Analyst",                  // optional (default "Custom")
         "locked": false,                     // optional
         "sources": {"feed": "ada/feed.xml",  // an RSS/Atom URL or file
                     "x": "ada_moves",         // an X username (needs the X token)
                     "folder": "ada/notes",    // text / Markdown files
                     "manual": "ada/excerpts.json"},  // hand-written excerpts
         "limits": {"feed_posts": 10}}        // optional, per persona, over the deck's
      ]
    }

Any subset of the four sources, at least one. Relative paths (feed, folder, manual,
avatar) are read relative to the config file; a feed that starts with http:// or
https:// is a URL. Every error is a `DeckConfigError` naming the file and the field
(`personas.1.sources: give at least one of feed, x, folder, manual`).
Must not read the sources, call models or import Qt.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Annotated

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    field_validator,
    model_validator,
)

from roundtable_desktop.domain.refusal import Refusal

_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")
DEFAULT_SUITE = "Custom"
Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]


class DeckConfigError(Refusal):
    """A deck-config.json that cannot be used; the message names the file and field."""


def _check_id(value: str) -> str:
    if not _ID.match(value):
        raise ValueError("must be lower-case letters, digits and dashes (at most 40)")
    return value


class BuildLimits(BaseModel):
    """How much of each source is read, and how much of it the model sees."""

    model_config = ConfigDict(extra="forbid")

    feed_posts: int = Field(default=20, ge=1, le=500)
    x_posts: int = Field(default=100, ge=5, le=3200)
    folder_files: int = Field(default=200, ge=1, le=5000)
    max_chars: int = Field(default=2000, ge=200, le=20000)  # per item, as read
    keep: int = Field(default=50, ge=10, le=200)            # what the filter keeps
    excerpt_chars: int = Field(default=1200, ge=100, le=20000)  # per item, in a prompt


class PersonaSources(BaseModel):
    """Where one persona's corpus comes from; paths as written in the config."""

    model_config = ConfigDict(extra="forbid")

    feed: Text | None = None
    x: Text | None = None
    folder: Text | None = None
    manual: Text | None = None

    @field_validator("x")
    @classmethod
    def _username(cls, value: str | None) -> str | None:
        if value is None:
            return None
        name = value.removeprefix("@")
        if not re.fullmatch(r"[A-Za-z0-9_]{1,15}", name):
            raise ValueError("must be an X username: 1-15 letters, digits or _")
        return name

    @model_validator(mode="after")
    def _at_least_one(self) -> PersonaSources:
        if not any((self.feed, self.x, self.folder, self.manual)):
            raise ValueError("give at least one of feed, x, folder, manual")
        return self

    def named(self) -> list[str]:
        """The sources given, as `kind: where` lines (the corpus records them)."""
        return [f"{kind}: {where}" for kind in ("feed", "x", "folder", "manual")
                if (where := getattr(self, kind))]


class PersonaConfig(BaseModel):
    """One persona to build: the card's identity and its sources."""

    model_config = ConfigDict(extra="forbid")

    id: str
    name: Text
    handle: Text
    avatar: Text | None = None
    suite: Text = DEFAULT_SUITE
    locked: bool = False
    sources: PersonaSources
    limits: dict[str, int] = Field(default_factory=dict)  # over the deck's limits

    @field_validator("id")
    @classmethod
    def _id_shape(cls, value: str) -> str:
        return _check_id(value)

    @field_validator("handle")
    @classmethod
    def _handle(cls, value: str) -> str:
        return value if value.startswith("@") else f"@{value}"


class DeckConfig(BaseModel):
    """deck-config.json. `folder` (not in the file) is where it was read from: relative
    paths resolve against it."""

    model_config = ConfigDict(extra="forbid")

    name: str
    title: Text
    topic: Text
    description: str = ""
    limits: BuildLimits = Field(default_factory=BuildLimits)
    personas: list[PersonaConfig] = Field(min_length=1)
    folder: str = Field(default=".", exclude=True)

    @field_validator("name")
    @classmethod
    def _name_shape(cls, value: str) -> str:
        return _check_id(value)

    @model_validator(mode="after")
    def _distinct_ids(self) -> DeckConfig:
        seen: set[str] = set()
        for persona in self.personas:
            if persona.id in seen:
                raise ValueError(f"persona id {persona.id!r} appears twice")
            seen.add(persona.id)
        return self

    def persona(self, persona_id: str) -> PersonaConfig:
        for persona in self.personas:
            if persona.id == persona_id:
                return persona
        known = ", ".join(p.id for p in self.personas)
        raise DeckConfigError(f"The deck config has no persona {persona_id!r}; its personas "
                              f"are: {known}.")

    def limits_for(self, persona: PersonaConfig) -> BuildLimits:
        """The deck's limits with the persona's own on top (an unknown name is refused)."""
        try:
            return BuildLimits.model_validate({**self.limits.model_dump(), **persona.limits})
        except ValidationError as exc:
            raise DeckConfigError(f"personas.{persona.id}.limits: "
                                  f"{_first_error(exc)}.") from None

    def resolve(self, where: str) -> str:
        """A source or avatar path as written, made absolute against the config's folder
        (URLs are kept as they are)."""
        if where.startswith(("http://", "https://")):
            return where
        path = Path(where).expanduser()
        return str(path if path.is_absolute() else Path(self.folder) / path)


def _first_error(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "(the whole file)"
    message = str(first["msg"]).removeprefix("Value error, ")
    return f"{where}: {message}"


def parse_deck_config(data: object, *, folder: Path | str = ".",
                      shown: str = "deck-config.json") -> DeckConfig:
    """A deck config from already-read JSON (the window's dialog builds one this way)."""
    try:
        config = DeckConfig.model_validate(data)
    except ValidationError as exc:
        raise DeckConfigError(f"{shown} is not a valid deck config: field "
                              f"{_first_error(exc)}.") from None
    for persona in config.personas:
        config.limits_for(persona)  # refuse bad per-persona limits now, not mid-build
    return config.model_copy(update={"folder": str(Path(folder).resolve())})


def load_deck_config(path: Path | str) -> DeckConfig:
    """Read and validate deck-config.json; a DeckConfigError names the file and field."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DeckConfigError(f"There is no deck config at {path}.") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DeckConfigError(f"{path.name} is not readable JSON "
                              f"({type(exc).__name__}: {exc}).") from None
    return parse_deck_config(data, folder=path.parent, shown=path.name)
