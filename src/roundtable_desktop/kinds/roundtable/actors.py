"""Who takes part in a session: actors, their roles, and the mock user they serve.

Must not hold behaviour beyond validation; protocols decide what actors do.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field


class Role(StrEnum):
    """What an actor may do. Tools check the caller's role (DESIGN.md invariant 8)."""

    ADMINISTRATOR = "administrator"
    PARTICIPANT = "participant"


class Actor(BaseModel):
    """One seat at the table. Its prompt text lives in prompt files, not here."""

    id: str = Field(pattern=r"^[a-z][a-z0-9_-]{0,31}$")
    name: str
    role: Role = Role.PARTICIPANT
    personality: str = ""
    goal: str = ""
    grounding: str = ""
    interests: list[str] = Field(default_factory=list)
    model: str | None = None
    human: bool = False


class UserProfile(BaseModel):
    """The person the meeting recommends for (mock data in offline mode)."""

    name: str
    summary: str
    interests: list[str] = Field(default_factory=list)
