"""Loads the bundled mock data: the user profile, fact cards, watch history, meeting rosters.

Every loader reads one JSON file under `resources/` (or a path given for tests) and
returns validated pydantic models; a missing, unreadable or malformed file raises
`SourceError` with a one-sentence message naming the file. Must not cache, write files
or touch meeting state: callers build the meeting from what these return.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, Field, TypeAdapter, ValidationError, model_validator

from roundtable_desktop import paths
from roundtable_desktop.kinds.roundtable.actors import Role, UserProfile
from roundtable_desktop.kinds.roundtable.catalog import Fact, WatchItem
from roundtable_desktop.sources.errors import SourceError

T = TypeVar("T")

# The design allows an Administrator plus 2..6 participants (DESIGN.md section 1).
MIN_PARTICIPANTS = 2
MAX_PARTICIPANTS = 6


class RosterEntry(BaseModel):
    """One seat in a meeting roster; `prompt` names a layer under prompts/roundtable/."""

    id: str = Field(pattern=r"^[a-z][a-z0-9_-]{0,31}$")
    name: str = Field(min_length=1)
    role: Role = Role.PARTICIPANT
    prompt: str = Field(min_length=1)
    model: str | None = None
    human: bool = False


class MeetingRoster(BaseModel):
    """Who sits at a meeting: the Administrator first, then the participants."""

    title: str = Field(min_length=1)
    scenario: str = "default"
    actors: list[RosterEntry]

    @model_validator(mode="after")
    def _administrator_first_and_ids_unique(self) -> MeetingRoster:
        if not self.actors or self.actors[0].role != Role.ADMINISTRATOR:
            raise ValueError("the first actor must be the administrator")
        admins = [a.id for a in self.actors if a.role == Role.ADMINISTRATOR]
        if len(admins) > 1:
            raise ValueError(f"only one administrator is allowed, found {len(admins)}")
        ids = [a.id for a in self.actors]
        duplicates = sorted({i for i in ids if ids.count(i) > 1})
        if duplicates:
            raise ValueError(f"actor ids must be unique, repeated: {', '.join(duplicates)}")
        participants = len(self.actors) - 1
        if not MIN_PARTICIPANTS <= participants <= MAX_PARTICIPANTS:
            raise ValueError(
                f"a meeting needs {MIN_PARTICIPANTS} to {MAX_PARTICIPANTS} participants "
                f"besides the administrator, found {participants}"
            )
        return self

    @property
    def participants(self) -> list[RosterEntry]:
        return self.actors[1:]


def mock_dir() -> Path:
    return paths.resources_dir() / "roundtable" / "mock"


def meetings_dir() -> Path:
    return paths.resources_dir() / "roundtable" / "meetings"


def read_json(path: Path, what: str) -> Any:
    """Parse a bundled JSON file, turning every failure into a `SourceError` naming it."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SourceError(
            f"The {what} file {path} is missing; restore it or reinstall the application."
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SourceError(f"The {what} file {path} could not be read ({exc}).") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise SourceError(
            f"The {what} file {path} is not valid JSON (line {exc.lineno}, column {exc.colno}: "
            f"{exc.msg}); fix or restore it."
        ) from None


def validate_as(data: Any, kind: type[T], path: Path, what: str) -> T:
    """Validate parsed JSON against a model or type, reporting the first problem."""
    try:
        return TypeAdapter(kind).validate_python(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "top level"
        raise SourceError(
            f"The {what} file {path} has invalid data at {where}: {first['msg']}; "
            "fix or restore it."
        ) from None


def load_user_profile(path: Path | None = None) -> UserProfile:
    path = path or mock_dir() / "user_profile.json"
    what = "mock user profile"
    return validate_as(read_json(path, what), UserProfile, path, what)


def load_facts(path: Path | None = None) -> list[Fact]:
    path = path or mock_dir() / "facts.json"
    what = "mock facts"
    facts: list[Fact] = validate_as(read_json(path, what), list[Fact], path, what)
    ids = [f.id for f in facts]
    if len(set(ids)) != len(ids):
        raise SourceError(f"The {what} file {path} repeats a fact id; each id must be unique.")
    return facts


def load_watch_history(path: Path | None = None) -> list[WatchItem]:
    path = path or mock_dir() / "watch_history.json"
    what = "mock watch history"
    return validate_as(read_json(path, what), list[WatchItem], path, what)


def load_meeting_roster(name: str = "default", path: Path | None = None) -> MeetingRoster:
    """The roster `resources/roundtable/meetings/<name>.json` (or `path`)."""
    if path is None:
        if not name or "/" in name or "\\" in name or name.startswith("."):
            raise SourceError(f"{name!r} is not a valid meeting name; use a plain file name.")
        path = meetings_dir() / f"{name}.json"
    what = "meeting roster"
    return validate_as(read_json(path, what), MeetingRoster, path, what)
