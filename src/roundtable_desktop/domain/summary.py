"""A kind-neutral account of a session: who takes part, what was said, what came of it.

Every kind builds one from its own state (its registry entry's `summarize`), so export,
the CLI and the window show any kind without knowing its state model. Must not import
anything but pydantic and the domain.
"""

from __future__ import annotations

from pydantic import BaseModel, Field, computed_field

from roundtable_desktop.domain.plural import count_of


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


class Progress(BaseModel):
    """How far a session has come, as fields a reader takes apart without parsing text.

    `step` counts the kind's steps, `step_name` says what one is ("Turn", "table round",
    "Commander message"); `counted` says the step reads as a count ("3 Commander
    messages") rather than as an ordinal ("Turn 3"); `limit` is the most there may be
    ("of at most 24"). `label` comes first (a mode, a deck, the phase a step is in),
    `detail` holds the other figures, each a phrase ("round 2", "4 minion messages"),
    and `phase` where the flow stands now, last. `text` joins them as the one line the
    status bar, exports and the CLI show.
    """

    step: int = 0
    step_name: str = ""
    counted: bool = False
    limit: int | None = None
    label: str = ""
    detail: list[str] = Field(default_factory=list)
    phase: str = ""

    @property
    def where(self) -> str:
        """The step alone: "Turn 9 of at most 24", "3 Commander messages", or ""."""
        if not self.step_name:
            return ""
        if self.counted:
            return count_of(self.step, self.step_name)
        limit = f" of at most {self.limit}" if self.limit is not None else ""
        return f"{self.step_name} {self.step}{limit}"

    @property
    def figures(self) -> list[str]:
        """The label, the step and the details, in order, the empty ones left out."""
        return [part for part in (self.label, self.where, *self.detail) if part]

    @property
    def text(self) -> str:
        """The whole line: "Turn 4 · round 2", "2 table rounds · 2 merges · map"."""
        return " · ".join([*self.figures, *([self.phase] if self.phase else [])])


class SessionSummary(BaseModel):
    kind: str
    title: str
    participants: list[Participant] = Field(default_factory=list)
    transcript: list[TranscriptEntry] = Field(default_factory=list)
    result: ResultSection
    ended: bool = False
    progress: Progress | None = None

    @computed_field  # type: ignore[prop-decorator]  # mypy does not know computed_field
    @property
    def progress_text(self) -> str:
        """`progress` as one line ("" when there is none): in exports as it was before."""
        return self.progress.text if self.progress is not None else ""

    def name_of(self, participant_id: str | None) -> str:
        if participant_id is None:
            return "System"
        for p in self.participants:
            if p.id == participant_id:
                return p.name
        return participant_id
