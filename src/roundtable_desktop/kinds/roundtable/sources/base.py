"""The interface of a candidate source and the result it returns.

Must not touch meeting state: the executor decides what a result changes.
"""

from __future__ import annotations

from typing import Protocol

from pydantic import BaseModel, Field

from roundtable_desktop.kinds.roundtable.catalog import Candidate


class SourceResult(BaseModel):
    """Candidates found, which source they came from, and a message if it fell back."""

    candidates: list[Candidate] = Field(default_factory=list)
    source: str
    notice: str = ""


class CandidateSource(Protocol):
    name: str

    async def search(self, query: str | None, limit: int = 12) -> SourceResult: ...

    def lookup(self, video_id: str) -> Candidate | None: ...
