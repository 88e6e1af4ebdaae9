"""A kind-neutral account of a session: who takes part, what was said, what came of it.

Every kind builds one from its own state (its registry entry's `summarize`), so export,
the CLI and the window show any kind without knowing its state model. Must not import
anything but pydantic and the domain.
"""

from __future__ import annotations

from pydantic import BaseModel, Field


class Participant(BaseModel):
    id: str
    name: str
    role: str = ""
    human: bool = False


class TranscriptEntry(BaseModel):
    """One line of what happened, in order. `kind`: spoken, tool, refusal, system..."""

    speaker: str
    text: str
    kind: str = "spoken"
    turn: int = 0
    channel: str = ""


class ResultItem(BaseModel):
    title: str
    detail: str = ""
    by: list[str] = Field(default_factory=list)


class ResultSection(BaseModel):
    """The session's outcome, as the kind names it ("Final suggestions", "Deal", ...)."""

    heading: str
    items: list[ResultItem] = Field(default_factory=list)
    text: str = ""
    empty_text: str = "No result yet."
    final: bool = False


class SessionSummary(BaseModel):
    kind: str
    title: str
    participants: list[Participant] = Field(default_factory=list)
    transcript: list[TranscriptEntry] = Field(default_factory=list)
    result: ResultSection
    ended: bool = False
    progress: str = ""  # "Turn 4 of the meeting", "Round 2"...

    def name_of(self, participant_id: str | None) -> str:
        if participant_id is None:
            return "System"
        for p in self.participants:
            if p.id == participant_id:
                return p.name
        return participant_id
