"""Things the meeting works with: candidate videos, fact cards, watch history.

Must not fetch anything; sources/ fills these models.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Candidate(BaseModel):
    """A video that may be recommended. Every field is untrusted text. Frozen: a change is
    a new object, so the context window may cache what it rendered for one."""

    model_config = ConfigDict(frozen=True)

    id: str
    title: str
    channel: str = ""
    duration: str = ""
    published: str = ""
    thumbnail_url: str = ""
    description: str = ""
    source: str = "mock"
    tags: list[str] = Field(default_factory=list)


class Fact(BaseModel):
    """A fact card; only expanded facts are in the payload."""

    id: str
    title: str
    detail: str
    expanded: bool = False


class WatchItem(BaseModel):
    """A line of watch history."""

    title: str
    video_id: str | None = None
    when: str = ""


class Suggestion(BaseModel):
    """A committed recommendation, with who proposed it."""

    candidate: Candidate
    proposed_by: list[str] = Field(default_factory=list)
