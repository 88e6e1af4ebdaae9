"""The legion's state as data: minions, channels, messages with their diaries, opinion
scores over time, and the perception plan (the JSON contract of the perception call).

A minion has a name, a persona, its own model (or the session's), an opinion score of
1-100 for every other participant and the diary of its last turn. Channels are a DM per
minion (`#commander-<minion>`), group channels and one minions-only channel; each has a
type that the perception prompt names, with its own context rules. Every perception a
minion makes about a message is kept as a `Diary` (spoken, silent, failed), and every
score change as a `ScorePoint` (the Opinions plot). Scores are clamped to 1-100 wherever
they enter. Must not call models, read files or import Qt.
"""

from __future__ import annotations

import hashlib
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from roundtable_desktop.context.layers import PromptSnapshot
from roundtable_desktop.llm.json_numbers import clamped_whole

MIN_SCORE, MAX_SCORE = 1, 100
NEUTRAL_SCORE = 50
DEFAULT_SPEED = 0.5  # predicted response times at half: a demo stays brisk
ACTIONS = ("SPEAK", "STAY_SILENT", "USE_TOOL")
SPEAK, STAY_SILENT, USE_TOOL = ACTIONS

# The response modes by score band (the seed's five bands).
BANDS: tuple[tuple[int, int, str], ...] = (
    (1, 20, "Hostile/Minimal"),
    (21, 45, "Wary/Reluctant"),
    (46, 65, "Neutral/Standard"),
    (66, 85, "Friendly/Proactive"),
    (86, 100, "Obsessed/Eager"),
)
MODES = tuple(mode for _, _, mode in BANDS)


def clamp_score(value: Any, default: int = NEUTRAL_SCORE) -> int:
    """A score as a whole number from 1 to 100; text, junk and numbers no float holds
    (NaN, infinities, 400 digits: llm/json_numbers.py) become `default`."""
    score = clamped_whole(value, MIN_SCORE, MAX_SCORE)
    return default if score is None else score


def mode_for(score: int) -> str:
    """The response mode of a score's band."""
    score = clamp_score(score)
    for low, high, mode in BANDS:
        if low <= score <= high:
            return mode
    return MODES[2]


def speaking_roll(seed: int, minion: str, history: str) -> int:
    """1..100: the draw of an unaddressed minion's chance to speak (it may speak when this
    is within its score for the speaker). Drawn from the session's seed, the minion's name
    and the channel history up to the message, exactly as its perception request shows
    it: the offline model makes its own choice with it, from its request alone; the app
    draws the same only when it draws who speaks (LegionState.app_draws_speakers); a
    replay draws the same."""
    raw = hashlib.sha256(f"{seed}:{minion}:{history}".encode()).digest()
    return int.from_bytes(raw[:4], "big") % 100 + 1


def same_mode(chosen: str, expected: str) -> bool:
    """The chosen mode names the expected band (case and spacing aside; either half of
    "Friendly/Proactive" counts)."""
    said = "".join(chosen.lower().split())
    want = "".join(expected.lower().split())
    return said == want or said in want.split("/")


# -- the perception plan (the seed's JSON contract) ----------------------------------------
class OpinionUpdate(BaseModel):
    model_config = ConfigDict(extra="ignore")

    participantName: str = Field(min_length=1, max_length=80)
    newScore: int
    reasonForChange: str = ""

    @field_validator("newScore", mode="before")
    @classmethod
    def _clamped(cls, value: Any) -> int:
        return clamp_score(value)


class ToolCallPlan(BaseModel):
    model_config = ConfigDict(extra="ignore")

    name: str = Field(min_length=1, max_length=200)
    arguments: dict[str, Any] = Field(default_factory=dict)


class PerceptionPlan(BaseModel):
    """What one perception call answers; also the message's internal diary."""

    model_config = ConfigDict(extra="ignore")

    perceptionAnalysis: str = ""
    opinionUpdates: list[OpinionUpdate] = Field(default_factory=list)
    finalOpinions: dict[str, int] = Field(default_factory=dict)
    selectedResponseMode: str = ""
    personalNotes: str = ""
    action: Literal["SPEAK", "STAY_SILENT", "USE_TOOL"]
    responsePlan: str = ""
    predictedResponseTime: int = 800
    toolCall: ToolCallPlan | None = None

    @field_validator("finalOpinions", mode="before")
    @classmethod
    def _scores_clamped(cls, value: Any) -> Any:
        if isinstance(value, dict):
            return {str(k): clamp_score(v) for k, v in value.items()}
        return value

    @field_validator("action", mode="before")
    @classmethod
    def _action_upper(cls, value: Any) -> Any:
        if isinstance(value, str):
            return value.strip().upper().replace(" ", "_").replace("-", "_")
        return value

    @field_validator("predictedResponseTime", mode="before")
    @classmethod
    def _time_in_range(cls, value: Any) -> int:
        ms = clamped_whole(value, 0, 60_000)
        return 800 if ms is None else ms


# -- minions, channels, messages ------------------------------------------------------------
class ChannelType(StrEnum):
    DM = "user_minion_dm"
    GROUP = "user_minion_group"
    MINIONS = "minion_minion_group"


class Minion(BaseModel):
    id: str  # the lower-case name: channel names and action args use it
    name: str
    persona: str
    model: str | None = None  # None: the session's model
    scores: dict[str, int] = Field(default_factory=dict)  # participant name -> 1..100
    last_diary: PerceptionPlan | None = None

    def score_for(self, participant: str) -> int:
        return self.scores.get(participant, NEUTRAL_SCORE)


class Channel(BaseModel):
    id: str  # without the leading '#'
    type: ChannelType
    members: list[str]  # minion ids (the Commander is in every channel but minions-only)
    title: str = ""

    @property
    def commander_writes(self) -> bool:
        return self.type != ChannelType.MINIONS


class ToolStep(BaseModel):
    """One tool call of a minion's turn: what it asked for and what came back. `output`
    is what the model was shown of the answer (clipped: kinds/legion/prompts.py
    TOOL_OUTPUT_CHARS); `original_chars` and `sha256` tell the whole answer (0 and ""
    in a diary stored before they were kept)."""

    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    output: str
    ok: bool = True
    original_chars: int = 0
    sha256: str = ""


class Diary(BaseModel):
    """A minion's turn about one message: every plan it made (one per perception call;
    more after tool calls), what it did, and why (addressed, or the chance it drew)."""

    minion: str
    channel: str
    about: int  # the message it reacted to
    plans: list[PerceptionPlan] = Field(default_factory=list)
    outcome: Literal["spoke", "silent", "failed"] = "failed"
    addressed: bool = False
    chance: int | None = None  # the speaker's score: the chance to speak when not addressed
    roll: int | None = None  # 1..100, drawn only when the app draws who speaks
    tool_steps: list[ToolStep] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)  # band corrections, overrides, failures
    message_id: int | None = None  # what it posted

    @property
    def plan(self) -> PerceptionPlan | None:
        return self.plans[-1] if self.plans else None

    def quiet_line(self) -> str:
        """The line the window shows for a silent turn."""
        if self.chance is None:
            return f"{self.minion} stayed silent."
        if self.roll is None:  # its plan chose silence
            return f"{self.minion} chose to stay silent (a chance of {self.chance} to speak)."
        if self.roll <= self.chance:  # the draw allowed it to speak: its plan chose not to
            return (f"{self.minion} chose to stay silent (drew {self.roll} against a chance "
                    f"of {self.chance}).")
        return f"{self.minion} stayed silent (drew {self.roll} against a chance of {self.chance})."


class LegionMessage(BaseModel):
    id: int
    channel: str
    speaker: str  # a name
    role: Literal["commander", "minion", "system"]
    text: str
    turn: int = 0
    diary: int | None = None  # index into LegionState.diaries (a minion's message)


class ScorePoint(BaseModel):
    step: int  # the id of the message the minion was reacting to (0: the start)
    minion: str
    participant: str
    score: int


class LegionState(BaseModel):
    scenario: str
    title: str
    description: str = ""
    commander: str
    minions: list[Minion]
    channels: list[Channel]
    default_channel: str
    messages: list[LegionMessage] = Field(default_factory=list)
    diaries: list[Diary] = Field(default_factory=list)
    scores: list[ScorePoint] = Field(default_factory=list)
    mcp_servers: dict[str, Any] = Field(default_factory=dict)  # the scenario's own servers
    prompts: PromptSnapshot | None = None
    seed: int = 0
    turn: int = 0  # Commander messages (and topics) so far
    max_tool_steps: int = 3
    autochat_rounds: int = 2  # minion-to-minion rounds after each message in a group
    autochat_left: int = 0
    autochat_channel: str | None = None
    # The pace of replies: a post waits (from the message it answers) its minion's
    # predicted response time times this (0: no waiting); replies of one round always
    # post in the order of their predicted times.
    speed: float = DEFAULT_SPEED
    # The seed's rule: an unaddressed minion's own plan decides whether it speaks. On, the
    # app also draws (speaking_roll) and silences a SPEAK plan whose draw exceeds the score.
    app_draws_speakers: bool = False
    history_lines: int = 30
    ended: bool = False

    # -- lookups ----------------------------------------------------------------------
    def minion(self, key: str) -> Minion:
        wanted = key.strip().lstrip("@").lower()
        for m in self.minions:
            if m.id == wanted or m.name.lower() == wanted:
                return m
        raise KeyError(key)

    def channel(self, key: str) -> Channel:
        wanted = key.strip().lstrip("#").lower()
        for c in self.channels:
            if c.id == wanted:
                return c
        raise KeyError(key)

    def channel_messages(self, channel: str) -> list[LegionMessage]:
        return [m for m in self.messages if m.channel == channel]

    def next_message_id(self) -> int:
        return (self.messages[-1].id + 1) if self.messages else 1

    def participants(self) -> list[str]:
        return [self.commander, *(m.name for m in self.minions)]

    def trajectory(self, minion: str, participant: str) -> list[int]:
        return [p.score for p in self.scores
                if p.minion == minion and p.participant == participant]


def dm_channel_id(minion_id: str) -> str:
    return f"commander-{minion_id}"
