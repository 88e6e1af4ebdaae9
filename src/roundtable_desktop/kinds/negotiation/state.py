"""The state of a negotiation session (seed 000, CB.HTML's `orchestratorState`), as pydantic.

Two sides, ALLY and KEEPER, each with its scenario persona, its self profile (11 traits,
1-5), a human-seat flag, its sampling and model, a voice for text-to-speech, and the
observer's model of it; the memo, the last acts and counterpart intents, the append-only
log (every message with both sides' self snapshots), KPIs, the sequencer's phase and the
turn in progress (planner options waiting for a pick, the draft), the flow mode, the loop
guards, the adjudication, and per-turn trait and influence histories for the plots.

The session (kinds/negotiation/session.py) is the only writer; the window reads it. Must not
import Qt, must not call models and must not do I/O.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from roundtable_desktop.context.layers import PromptSnapshot
from roundtable_desktop.kinds.negotiation.loop_guard import LoopGuard
from roundtable_desktop.kinds.negotiation.scenario import (
    TRAITS,
    NegotiationScenario,
    SideScenario,
    TraitProfile,
)

__all__ = [
    "ACTS", "ALLY", "FLOW_MODES", "KEEPER", "OUTCOMES", "PHASES", "SIDES", "TRAITS",
    "Adjudication", "InfluencePoint", "Kpis", "LogEntry", "NegotiationState",
    "ObserverModel", "PlanOption", "Policies", "Sampling", "SideState", "TraitPoint",
    "TurnInProgress", "other_side",
]

Side = Literal["ALLY", "KEEPER"]
ALLY: Side = "ALLY"
KEEPER: Side = "KEEPER"
SIDES: tuple[Side, Side] = (ALLY, KEEPER)

# The discourse acts of the planner and of act extraction; NONE before a side has spoken.
Act = Literal["ASK", "PROPOSE", "EVALUATE", "COMMIT", "CHALLENGE", "USE_CUNNING"]
ACTS: tuple[Act, ...] = ("ASK", "PROPOSE", "EVALUATE", "COMMIT", "CHALLENGE", "USE_CUNNING")

# The sequencer's phases in order; IDLE between turns, ENDED once adjudicated.
PHASES: tuple[str, ...] = ("MEMO_REFRESH", "OBSERVE", "MODEL", "PLAN", "DRAFT", "SPEAK",
                           "SEND")
HUMAN_PHASES: tuple[str, ...] = ("MEMO_REFRESH", "OBSERVE", "MODEL", "SEND")
Phase = Literal["IDLE", "MEMO_REFRESH", "OBSERVE", "MODEL", "PLAN", "DRAFT", "SPEAK", "SEND",
                "ENDED"]

FlowMode = Literal["manual", "confirm", "auto"]
FLOW_MODES: tuple[FlowMode, ...] = ("manual", "confirm", "auto")

Outcome = Literal["released", "terminated", "stalled"]
OUTCOMES: tuple[Outcome, ...] = ("released", "terminated", "stalled")


# Action ids (kinds/negotiation/session.py performs them); EDIT_DRAFT is an edit.
TAKE_TURN = "take_turn"
PICK_OPTION = "pick_option"
EDIT_DRAFT = "edit_draft"
SEND_DRAFT = "send_draft"
ADJUDICATE = "adjudicate"
# Settings: edits (kinds/negotiation/settings.py) accepted at any time (even while a turn
# runs), not on the toolbar.
SET_TRAITS = "set_traits"
SET_SEAT = "set_seat"
SET_FLOW = "set_flow"
SET_SAMPLING = "set_sampling"
SET_MODEL = "set_model"
SET_VOICE = "set_voice"
SET_LOOP_GUARD = "set_loop_guard"
SET_GUIDANCE = "set_guidance"
SET_RELAY = "set_relay"
EDIT_RELAY = "edit_relay"
SET_POLICIES = "set_policies"
SETTINGS_ACTIONS: tuple[str, ...] = (
    SET_TRAITS, SET_SEAT, SET_FLOW, SET_SAMPLING, SET_MODEL, SET_VOICE, SET_LOOP_GUARD,
    SET_GUIDANCE, SET_RELAY, EDIT_RELAY, SET_POLICIES,
)


def other_side(side: str) -> Side:
    return KEEPER if side == ALLY else ALLY


_T = TypeVar("_T")


def _per_side(make: Callable[[], _T]) -> Callable[[], dict[str, _T]]:
    """A default factory: one fresh `make()` per side, ALLY first."""
    return lambda: {side: make() for side in SIDES}


class Sampling(BaseModel):
    """Sampling for one side's draft call; defaults are the seed's `llmReply` body."""

    model_config = ConfigDict(extra="forbid")

    temperature: float = Field(default=0.8, ge=0.0, le=2.0)
    top_p: float = Field(default=0.9, gt=0.0, le=1.0)
    presence_penalty: float = Field(default=0.1, ge=-2.0, le=2.0)
    frequency_penalty: float = Field(default=0.2, ge=-2.0, le=2.0)
    max_tokens: int = Field(default=90, ge=1, le=4096)


class ObserverModel(BaseModel):
    """The observer's model of one side (`observerModelOfAlly` / `...OfKeeper`): the 11
    dims plus the seed's prior, posterior, myth, tone and rationale. `turn` is the turn
    it was made at (0: the scenario's initial profile, no observer call yet); `error` the
    last failed update (the model above is then the older one, kept)."""

    dims: TraitProfile
    prior: str = ""
    posterior: str = ""
    myth: str = ""
    tone: str = ""
    rationale: str = ""
    turn: int = 0
    error: str = ""


class SideState(BaseModel):
    """One seat. `scenario` is the side as the scenario file gave it (persona, style,
    discouraged phrases, drives, taboos); `self_profile` starts as its `initial_self`
    and moves with the beliefs dock's sliders."""

    id: Side
    scenario: SideScenario
    self_profile: TraitProfile
    observed: ObserverModel  # the observer's model OF this side
    human: bool = False
    model: str = ""  # "" = the session's model
    sampling: Sampling = Field(default_factory=Sampling)
    voice: str | None = None  # text-to-speech voice name (the window's)
    speak: bool = False  # read this side's replies aloud
    last_act: str = "NONE"  # this side's last discourse act
    counterpart_intent: str = "none"  # the intent of the other side's last message
    input_text: str = ""  # the relay box: the other side's last reply lands here
    last_text: str = ""  # this side's last message (what text-to-speech reads)

    @property
    def name(self) -> str:
        return self.scenario.name

    @property
    def emoji(self) -> str:
        return self.scenario.emoji

    @property
    def persona(self) -> str:
        return self.scenario.persona


class PlanOption(BaseModel):
    """One planner option: concise text and its discourse act."""

    text: str = Field(min_length=1, max_length=400)
    act: Act


class TurnInProgress(BaseModel):
    """The turn the sequencer is in. `phase` is the last phase entered. In confirm mode
    the turn waits at PLAN with `options` until one is picked, then at SEND with
    `draft` (editable) until it is sent."""

    side: Side
    human: bool = False
    turn: int
    phase: Phase = "MEMO_REFRESH"
    options: list[PlanOption] = Field(default_factory=list)
    chosen: int | None = None  # index into options
    focus: str = ""  # FOCUS_THIS_TURN (the chosen option's text)
    draft: str = ""  # the sanitized reply, or the human's line, before SEND
    act: str = ""
    intent: str = ""
    draft_failed: str = ""


class LogEntry(BaseModel):
    """One append-only log entry (the seed's `logEntry`). `type`: MESSAGE, MODEL, PLAN,
    TRAITS, LOOP, ADJUDICATION, NOTE. Both sides' self profiles are snapshotted on each."""

    ts: float = Field(default_factory=time.time)
    turn: int
    who: str  # ALLY, KEEPER, OBSERVER, PLANNER, ADJUDICATOR, PRESENTER
    type: str
    text: str
    act: str = ""
    intent: str = ""
    human: bool = False
    ally_self: dict[str, float] = Field(default_factory=dict)
    keeper_self: dict[str, float] = Field(default_factory=dict)


class Policies(BaseModel):
    """The seed's `policies` beside `relayMode` (NegotiationState.relay): `observer` is
    `useModeler` (off: MODEL makes no observer call, so MODEL_OF_OTHER is not updated),
    `planner` is `strategicPlanningEnabled` (off: PLAN makes no planner call, so the
    draft goes without a FOCUS_THIS_TURN directive), and `wait_for_speech` holds the
    sequencer at SPEAK until a side's line has been read aloud (the seed awaits
    `speakTTS`; it applies only while that side reads aloud and the window can speak).
    The seed's `autoConverse` is the flow mode `auto`; `useLLM` is the choice of model
    (the offline one, or a human seat)."""

    model_config = ConfigDict(extra="forbid")

    observer: bool = True
    planner: bool = True
    wait_for_speech: bool = True


class LoopSettings(BaseModel):
    """Loop guard settings: similarity threshold, window, trips before stalled."""

    threshold: float = Field(default=0.6, gt=0.0, le=1.0)
    window: int = Field(default=5, ge=1, le=50)
    max_trips: int = Field(default=3, ge=1, le=50)


class Kpis(BaseModel):
    """Per-side counters (the seed's `kpis`): directive (FOCUS_THIS_TURN) history, acts
    used, messages, loop guard trips caused."""

    directive_history: dict[str, list[str]] = Field(default_factory=_per_side(list))
    acts: dict[str, dict[str, int]] = Field(default_factory=_per_side(dict))
    messages: dict[str, int] = Field(default_factory=_per_side(lambda: 0))
    loop_trips: int = 0  # total trips so far (stalled at LoopSettings.max_trips)
    observer_failures: int = 0
    planner_failures: int = 0


class TraitPoint(BaseModel):
    """Both sides' self profile and observed model after a turn (for the plots)."""

    turn: int
    self_profile: dict[str, dict[str, float]]  # side -> trait -> value
    observed: dict[str, dict[str, float]]


class InfluencePoint(BaseModel):
    turn: int
    ally: float
    keeper: float


class Adjudication(BaseModel):
    """The end of the game: released / terminated / stalled, why, who decided
    (`adjudicator` call or `rule`), the final models and the influence scores."""

    outcome: Outcome
    reason: str
    decided_by: Literal["adjudicator", "rule"] = "rule"
    trigger: str = ""  # what asked for adjudication: commit, turn_cap, stalled, presenter
    turn: int = 0
    final_models: dict[str, ObserverModel] = Field(default_factory=dict)
    influence: dict[str, float] = Field(default_factory=dict)


class NegotiationState(BaseModel):
    """Everything a negotiation session is; `state_dict()` saves it whole."""

    scenario_name: str
    scenario: NegotiationScenario
    provider: str = "offline"
    model: str = "offline"
    sides: dict[str, SideState]
    turn_side: Side = ALLY  # whose turn is next
    turn_count: int = 0  # messages sent so far (the opening lines are not counted)
    memo: str = ""  # CONTEXT: refreshed in MEMO_REFRESH
    log: list[LogEntry] = Field(default_factory=list)
    kpis: Kpis = Field(default_factory=Kpis)
    phase: Phase = "IDLE"
    flow: FlowMode = "manual"
    current: TurnInProgress | None = None
    relay: bool = True
    policies: Policies = Field(default_factory=Policies)
    observer_guidance: str = ""
    planner_guidance: str = ""
    loop: LoopSettings = Field(default_factory=LoopSettings)
    # One guard per side, fed the OTHER side's utterances (the seed's lastOtherUtterances).
    guard_fed: int = 0  # MESSAGE entries already fed to the loop guards
    guards: dict[str, LoopGuard] = Field(default_factory=_per_side(LoopGuard))
    force_diversity: dict[str, bool] = Field(default_factory=_per_side(lambda: False))
    adjudication: Adjudication | None = None
    trait_history: list[TraitPoint] = Field(default_factory=list)
    influence: dict[str, float] = Field(default_factory=_per_side(lambda: 0.5))
    influence_history: list[InfluencePoint] = Field(default_factory=list)
    seed: int = 0
    prompts: PromptSnapshot | None = None  # prompt files as at the session's start

    def side(self, side: str) -> SideState:
        return self.sides[side]

    def messages(self) -> list[LogEntry]:
        return [e for e in self.log if e.type == "MESSAGE"]

    @property
    def ended(self) -> bool:
        return self.adjudication is not None

    def self_snapshot(self) -> tuple[dict[str, float], dict[str, float]]:
        return (self.sides[ALLY].self_profile.as_dict(),
                self.sides[KEEPER].self_profile.as_dict())


def new_state(scenario_name: str, scenario: NegotiationScenario, *, model: str,
              provider: str, seed: int = 0) -> NegotiationState:
    """A fresh game: both opening lines in the log, every model at the initial profile."""

    def side(sid: Side, sc: SideScenario) -> SideState:
        return SideState(id=sid, scenario=sc, self_profile=sc.initial_self,
                         observed=ObserverModel(dims=sc.initial_self,
                                                rationale="The scenario's initial profile."))

    state = NegotiationState(
        scenario_name=scenario_name, scenario=scenario, model=model, provider=provider,
        sides={ALLY: side(ALLY, scenario.ally), KEEPER: side(KEEPER, scenario.keeper)},
        seed=seed,
    )
    ally_self, keeper_self = state.self_snapshot()
    for sid, sc in ((ALLY, scenario.ally), (KEEPER, scenario.keeper)):
        state.log.append(LogEntry(turn=0, who=sid, type="MESSAGE", text=sc.opening,
                                  act="NONE", intent="opening", ally_self=ally_self,
                                  keeper_self=keeper_self))
    # The keeper's opening question is the last word: the ally answers first.
    state.turn_side = ALLY
    state.trait_history.append(TraitPoint(
        turn=0,
        self_profile={s: state.sides[s].self_profile.as_dict() for s in SIDES},
        observed={s: state.sides[s].observed.dims.as_dict() for s in SIDES},
    ))
    state.influence_history.append(InfluencePoint(turn=0, ally=0.5, keeper=0.5))
    return state

