"""The whole state of a roundtable meeting: everything the context window renders.

The application owns this state; the model only ever sees what the context document
renders from it. Must not render, parse or call anything.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from roundtable_desktop.domain.tools import ParseIssue, ToolCall, ToolResult
from roundtable_desktop.domain.transcript import TranscriptKind
from roundtable_desktop.kinds.roundtable.actors import Actor, Role, UserProfile
from roundtable_desktop.kinds.roundtable.catalog import Candidate, Fact, Suggestion, WatchItem


class TurnPhase(StrEnum):
    """Where the current actor's turn stands."""

    READY = "ready"  # waiting for the user to ask for an inference
    TOOLS_PENDING = "tools_pending"  # a reply was parsed; its calls wait for Run tools
    ENDED = "ended"


class TranscriptLine(BaseModel):
    """One line of the meeting's transcript. Frozen: a saved line never changes, so the
    saved state's encoder may reuse its JSON by identity (kinds/roundtable/saved.py)."""

    model_config = ConfigDict(frozen=True)

    actor_id: str | None
    text: str
    kind: TranscriptKind = TranscriptKind.SPOKEN
    turn: int = 0


class Note(BaseModel):
    """A whiteboard line or a private note. Frozen, like TranscriptLine."""

    model_config = ConfigDict(frozen=True)

    author: str
    text: str
    turn: int = 0


class MeetingState(BaseModel):
    """Serializable meeting state; `model_dump_json` is what the store keeps."""

    title: str = "Recommendation meeting"
    scenario: str = "default"
    user: UserProfile
    actors: list[Actor]
    current: int = 0
    turn: int = 1
    inferences_this_turn: int = 0
    phase: TurnPhase = TurnPhase.READY
    candidates: list[Candidate] = Field(default_factory=list)
    candidate_source: str = "mock"
    candidate_query: str = ""
    # Why the list came from another source than asked (a YouTube failure), else "".
    candidate_notice: str = ""
    ranked: list[str] = Field(default_factory=list)
    suggestions: list[Suggestion] = Field(default_factory=list)
    facts: list[Fact] = Field(default_factory=list)
    whiteboard: list[Note] = Field(default_factory=list)
    notes: dict[str, list[Note]] = Field(default_factory=dict)
    watch_history: list[WatchItem] = Field(default_factory=list)
    transcript: list[TranscriptLine] = Field(default_factory=list)
    pending_calls: list[ToolCall] = Field(default_factory=list)
    parse_issues: list[ParseIssue] = Field(default_factory=list)
    last_reply: str = ""
    # Refusals and errors shown in that actor's next context window, then cleared.
    feedback: dict[str, list[ToolResult]] = Field(default_factory=dict)
    mcp_status: str = "not connected"
    mcp_tools: list[str] = Field(default_factory=list)
    ended: bool = False
    final_ids: list[str] = Field(default_factory=list)

    @property
    def actor(self) -> Actor:
        return self.actors[self.current]

    @property
    def round(self) -> int:
        return (self.turn - 1) // max(len(self.actors), 1) + 1

    def actor_by_id(self, actor_id: str) -> Actor | None:
        return next((a for a in self.actors if a.id == actor_id), None)

    def candidate(self, cid: str) -> Candidate | None:
        found = next((c for c in self.candidates if c.id == cid), None)
        if found is None:
            found = next((s.candidate for s in self.suggestions if s.candidate.id == cid), None)
        return found

    def fact(self, fid: str) -> Fact | None:
        return next((f for f in self.facts if f.id == fid), None)

    def is_admin(self, actor_id: str) -> bool:
        a = self.actor_by_id(actor_id)
        return a is not None and a.role == Role.ADMINISTRATOR
