"""Classical debate mode as data: the plan call's contract and what the state keeps.

`ActionPlan` is the JSON an agent answers a `plan` call with (speak / interrupt / listen,
urgency 0-1, intent). `ClassicalState` (the `classical` field of a DebateState whose
`mode` is "classical") keeps every plan made (`plans`), the turns spoken so far (`turns`,
each with its speaker, its sentences, who cut in, or `silent`), the turn being spoken now
(`live`), an interrupter waiting for the floor (`next_speaker`), the sidebar of citations
and tool results (`sidebar`), and the settings (turn cap, re-planning cap).
See kinds/debate/classical/session.py for how the window reads these.
Must not call models, read files or import Qt; must not import debate_state (it imports
this module).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from roundtable_desktop.llm.json_numbers import share

PlanAction = Literal["speak", "interrupt", "listen"]
ACTION_WORDS = {"speak": "speak", "talk": "speak", "say": "speak", "respond": "speak",
                "reply": "speak", "interrupt": "interrupt", "cut in": "interrupt",
                "interject": "interrupt", "listen": "listen", "wait": "listen",
                "pass": "listen", "silent": "listen", "silence": "listen"}
DEFAULT_MAX_TURNS = 8
DEFAULT_REPLAN_SENTENCES = 3
MAX_REPLAN_SENTENCES = 10


def _action(value: Any) -> Any:
    if isinstance(value, str):
        return ACTION_WORDS.get(value.strip().lower(), value)
    return value


def _urgency(value: Any) -> float | None:
    """0-1 ("70" meant 70%); None, refused, for what is no finite number (NaN, 1e999,
    400 digits: llm/json_numbers.py)."""
    return share(value)


class ActionPlan(BaseModel):
    """The reply of a `plan` call."""

    model_config = ConfigDict(extra="ignore")

    action: PlanAction
    urgency: float = Field(ge=0.0, le=1.0)
    intent: str = Field(default="", max_length=400)

    _a = field_validator("action", mode="before")(_action)
    _u = field_validator("urgency", mode="before")(_urgency)


class PlanRecord(BaseModel):
    """One plan an agent made: at the start of a turn (`after_sentence` 0) or after the
    speaker's n-th sentence of that turn. A plan that could not be read counts as
    listening, with `failed` saying why."""

    agent: str
    turn: int
    after_sentence: int = 0
    action: PlanAction = "listen"
    urgency: float = 0.0
    intent: str = ""
    failed: str = ""


class ClassicalTurn(BaseModel):
    """One turn of the conversation.

    `speaker` None and `silent` True: everyone chose to listen. `sentences` are the whole
    sentences that were said (the transcript); when someone cut in, `interrupted_by`
    names them and `cut_off` keeps the unfinished sentence the speaker was saying (also
    when the speech failed or was stopped: `failed` says why), which is not part of the
    transcript (the speech call's record keeps all of it).
    `interrupts` names the agent this turn's speaker cut in on (the previous turn).
    """

    index: int
    speaker: str | None = None
    silent: bool = False
    sentences: list[str] = Field(default_factory=list)
    urgency: float = 0.0
    intent: str = ""
    interrupted_by: str | None = None
    interrupts: str | None = None
    cut_off: str = ""
    replans: int = 0  # plan rounds run during this speech (capped)
    failed: str = ""  # the speech or its update could not be had (a failed call, Stop)

    @property
    def text(self) -> str:
        return " ".join(self.sentences)


class SidebarEntry(BaseModel):
    """A citation or a tool result, shown beside the conversation, never inline."""

    turn: int
    agent: str
    kind: Literal["citation", "tool"] = "citation"
    source: str = ""  # the anchor's URL or the tool's name
    snippet: str = ""  # the excerpt cited, or the tool's result


class ClassicalState(BaseModel):
    turns: list[ClassicalTurn] = Field(default_factory=list)
    live: ClassicalTurn | None = None  # the turn being spoken now (sentences so far)
    plans: list[PlanRecord] = Field(default_factory=list)
    next_speaker: PlanRecord | None = None  # an interrupter's plan: it speaks next
    sidebar: list[SidebarEntry] = Field(default_factory=list)
    max_turns: int = Field(default=DEFAULT_MAX_TURNS, ge=1)
    # Re-plan after each of the first N sentences of a speech (0: never): each re-plan is
    # one call per listener, so a 5-sentence speech among 6 agents costs up to 5N calls.
    replan_sentences: int = Field(default=DEFAULT_REPLAN_SENTENCES, ge=0,
                                  le=MAX_REPLAN_SENTENCES)

    def current_plans(self) -> dict[str, PlanRecord]:
        """Each agent's latest plan (the window's urgency bars)."""
        latest: dict[str, PlanRecord] = {}
        for plan in self.plans:
            latest[plan.agent] = plan
        return latest

    def spoken_turns(self, agent: str) -> int:
        return sum(1 for t in self.turns if t.speaker == agent)

    def interruptions(self) -> list[ClassicalTurn]:
        return [t for t in self.turns if t.interrupted_by]

    def silent_turns(self) -> list[ClassicalTurn]:
        return [t for t in self.turns if t.silent]
