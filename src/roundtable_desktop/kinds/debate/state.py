"""The debate's state as data, and the JSON contracts of its calls (seed 004, blitz mode).

Calls: `claims` (ClaimsReply), `stance` (StanceReply), `answer` (AgentAnswer, an agent's
round contribution), `merge` (MergeReply) and `map` (DebateMap). The state keeps the
hand (agents with their contracts), the claims, every stance with its round, the
seating, every round's answers, the ranked cruxes (each naming its agents on each side),
flip conditions, merges with their blackboards, metrics per claim per event, the stop
decision, the outcome per claim and the disagreement map. In classical mode (`mode`)
`classical` keeps the turns, plans and sidebar (debate_classical_state.py).
Must not call models, read files or import Qt.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from roundtable_desktop.context.layers import PromptSnapshot
from roundtable_desktop.kinds.debate.classical.state import ClassicalState
from roundtable_desktop.kinds.debate.convergence import Stance
from roundtable_desktop.kinds.debate.deck import Contract
from roundtable_desktop.kinds.debate.retrieval.retrieved import Retrieved
from roundtable_desktop.kinds.debate.stop_conditions import DebateSnapshot
from roundtable_desktop.llm.json_numbers import share

Phase = Literal["claims", "stances", "round", "merge", "final", "turn", "map", "ended"]
Mode = Literal["blitz", "classical"]  # classical: kinds/debate/classical/session.py
STANCE_WORDS = {"pro": "pro", "for": "pro", "yes": "pro", "agree": "pro",
                "con": "con", "against": "con", "no": "con", "disagree": "con",
                "uncertain": "uncertain", "unsure": "uncertain", "neutral": "uncertain"}


def _stance(value: Any) -> Any:
    if isinstance(value, str):
        return STANCE_WORDS.get(value.strip().lower(), value)
    return value


def _confidence(value: Any) -> float | None:
    """0-1 ("70" meant 70%); None, refused, for what is no finite number (NaN, 1e999,
    400 digits: llm/json_numbers.py)."""
    return share(value)


# -- call contracts --
class ClaimDraft(BaseModel):
    model_config = ConfigDict(extra="ignore")

    text: str = Field(min_length=3, max_length=400)
    pro: str = Field(min_length=3, max_length=400)
    con: str = Field(min_length=3, max_length=400)


class ClaimsReply(BaseModel):
    model_config = ConfigDict(extra="ignore")

    claims: list[ClaimDraft] = Field(min_length=2, max_length=4)


class StanceReply(BaseModel):
    model_config = ConfigDict(extra="ignore")

    stance: Stance
    confidence: float = Field(ge=0.0, le=1.0)
    reason: str = Field(min_length=1, max_length=600)

    _s = field_validator("stance", mode="before")(_stance)
    _c = field_validator("confidence", mode="before")(_confidence)


class ClaimPosition(BaseModel):
    model_config = ConfigDict(extra="ignore")

    claim: str = Field(min_length=1, max_length=20)
    stance: Stance
    confidence: float = Field(ge=0.0, le=1.0)

    _s = field_validator("stance", mode="before")(_stance)
    _c = field_validator("confidence", mode="before")(_confidence)


class CruxNote(BaseModel):
    model_config = ConfigDict(extra="ignore")

    claim: str = Field(default="", max_length=20)
    text: str = Field(min_length=3, max_length=300)


class ToolRequest(BaseModel):
    """A tool an agent asks to run: its name as listed in TOOL OUTPUTS, its arguments."""

    model_config = ConfigDict(extra="ignore")

    tool: str = Field(min_length=1, max_length=200)
    arguments: dict[str, Any] = Field(default_factory=dict)


class AgentAnswer(BaseModel):
    """One agent's structured contribution to a round."""

    model_config = ConfigDict(extra="ignore")

    response: str = Field(min_length=1, max_length=3000)
    stances: list[ClaimPosition] = Field(min_length=1)
    new_cruxes: list[CruxNote] = Field(default_factory=list, max_length=5)
    flip_triggers: list[str] = Field(default_factory=list, max_length=5)
    tool_requests: list[ToolRequest] = Field(default_factory=list, max_length=5)


class MergedCrux(BaseModel):
    """One distinct crux after the dedupe: `same_as` names the known crux it is (its id),
    or is empty for a new one; `merged_from` lists the raised texts it stands for."""

    model_config = ConfigDict(extra="ignore")

    claim: str = Field(default="", max_length=20)
    text: str = Field(min_length=3, max_length=300)
    same_as: str = Field(default="", max_length=20)
    merged_from: list[str] = Field(default_factory=list)


class MergedFlip(BaseModel):
    model_config = ConfigDict(extra="ignore")

    agent: str = Field(min_length=1, max_length=80)
    text: str = Field(min_length=3, max_length=300)


class MergeReply(BaseModel):
    model_config = ConfigDict(extra="ignore")

    cruxes: list[MergedCrux] = Field(default_factory=list, max_length=12)
    flip_conditions: list[MergedFlip] = Field(default_factory=list, max_length=24)
    summary: str = Field(default="", max_length=2000)


class MapCrux(BaseModel):
    model_config = ConfigDict(extra="ignore")

    text: str = Field(min_length=1)
    why: str = ""


class FaultLine(BaseModel):
    model_config = ConfigDict(extra="ignore")

    category: Literal["time horizon", "assumptions", "identity/values"]
    description: str = Field(min_length=1)
    agents: list[str] = Field(default_factory=list)

    @field_validator("category", mode="before")
    @classmethod
    def _category(cls, value: Any) -> Any:
        if isinstance(value, str):
            low = value.strip().lower()
            if "time" in low or "horizon" in low:
                return "time horizon"
            if "assum" in low:
                return "assumptions"
            if "ident" in low or "value" in low:
                return "identity/values"
        return value


class AgentFlips(BaseModel):
    model_config = ConfigDict(extra="ignore")

    agent: str = Field(min_length=1)
    conditions: list[str] = Field(default_factory=list)


class LedgerEntry(BaseModel):
    model_config = ConfigDict(extra="ignore")

    agent: str = Field(min_length=1)
    accepts: list[str] = Field(default_factory=list)
    rejects: list[str] = Field(default_factory=list)
    why: str = ""
    cited: list[str] = Field(default_factory=list)  # what its tool pulls brought, cited


class DebateMap(BaseModel):
    """The disagreement map (seed 004's final outputs)."""

    model_config = ConfigDict(extra="ignore")

    cruxes: list[MapCrux] = Field(min_length=1)
    fault_lines: list[FaultLine] = Field(default_factory=list)
    flip_conditions: list[AgentFlips] = Field(default_factory=list)
    evidence_ledger: list[LedgerEntry] = Field(default_factory=list)
    resolution_paths: list[str] = Field(default_factory=list)


# -- the state --
class Agent(BaseModel):
    id: str
    name: str
    handle: str
    suite: str
    avatar: str  # the PNG's path (absolute when dealt from a bundled deck)
    deck: str = ""  # the card's deck (a hand may mix decks; "" in older sessions)
    contract: Contract


class Claim(BaseModel):
    id: str
    text: str
    pro: str
    con: str


class AgentStance(BaseModel):
    agent: str
    claim: str
    stance: Stance
    confidence: float
    reason: str = ""
    round: int = 0  # 0: the initial stance call
    failed: str = ""  # why this counts as uncertain (a reply that could not be read)


class AgentTurn(BaseModel):
    agent: str
    table: int
    round: int
    response: str = ""
    stances: list[ClaimPosition] = Field(default_factory=list)
    new_cruxes: list[CruxNote] = Field(default_factory=list)
    flip_triggers: list[str] = Field(default_factory=list)
    failed: str = ""


class Table(BaseModel):
    id: int
    agents: list[str]


class RoundRecord(BaseModel):
    index: int
    final: bool = False
    tables: list[Table]
    turns: list[AgentTurn] = Field(default_factory=list)


class Crux(BaseModel):
    id: str
    text: str
    claim: str = ""
    weight: float = 0.0
    tables: list[int] = Field(default_factory=list)
    pro: list[str] = Field(default_factory=list)
    con: list[str] = Field(default_factory=list)
    resolved: bool = False
    round: int = 0


class ToolPull(BaseModel):
    """One tool call an agent made: what ran, what came back (clipped to its share of the
    tools budget) or the error line, and the citation of what came back."""

    agent: str
    round: int
    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    ok: bool = True
    text: str = ""
    citation: str = ""
    ms: int = 0


class FlipCondition(BaseModel):
    agent: str
    text: str
    round: int = 0


class MergeRecord(BaseModel):
    round: int
    blackboard: str
    disagreement: list[str] = Field(default_factory=list)
    tables: list[Table] = Field(default_factory=list)
    uncovered: list[str] = Field(default_factory=list)
    raised: int = 0  # cruxes the agents raised this round
    new_cruxes: list[str] = Field(default_factory=list)  # crux ids this merge added
    reshuffled: bool = False  # the tables were reseated by affinity (a merge cycle)
    failed: str = ""


class MetricPoint(BaseModel):
    event: int
    claim: str
    entropy_bits: float
    distance: float
    share: float
    side: str | None = None


class ClaimOutcome(BaseModel):
    claim: str
    status: Literal["converged", "split"]
    side: str | None = None
    share: float = 0.0
    entropy_bits: float = 0.0
    distance: float = 0.0
    heavy_open: int = 0


class ContextBudget(BaseModel):
    """Tokens per source of an agent's context (seed 004: ~6-8K per turn)."""

    blackboard: int = 1000
    neighbourhood: int = 2000
    snippets: int = 1500
    corpus: int = 2000
    tools: int = 1000

    @property
    def total(self) -> int:
        return self.blackboard + self.neighbourhood + self.snippets + self.corpus + self.tools


class DebateState(BaseModel):
    deck: str
    deck_title: str = ""
    topic: str
    agents: list[Agent]
    claims: list[Claim] = Field(default_factory=list)
    stances: list[AgentStance] = Field(default_factory=list)
    tables: list[Table] = Field(default_factory=list)
    rounds: list[RoundRecord] = Field(default_factory=list)
    cruxes: list[Crux] = Field(default_factory=list)
    flips: list[FlipCondition] = Field(default_factory=list)
    pulls: list[ToolPull] = Field(default_factory=list)  # every tool call, in order
    bundled_tools: bool = True  # the deck's bundled records server (when it has records)
    tool_calls: int = 2  # per agent per turn
    merges: list[MergeRecord] = Field(default_factory=list)
    metrics: list[MetricPoint] = Field(default_factory=list)
    snapshots: list[DebateSnapshot] = Field(default_factory=list)  # one per table round
    steps: int = 0  # actions done: what `run --turns N` counts
    outcomes: list[ClaimOutcome] = Field(default_factory=list)
    map: DebateMap | None = None
    phase: Phase = "claims"
    mode: Mode = "blitz"
    classical: ClassicalState | None = None  # set when mode is "classical"
    rounds_per_table: int = 3  # table rounds before the final table, a merge after each
    merge_cycles: int = 2  # merges that reseat the tables by affinity (3 for 7+ agents)
    max_events: int = 12  # the safety cap: table rounds at most (each with its merge)
    final_rounds: int = 1
    next_crux: int = 1  # the number of the next crux id (ids are never reused)
    stop_reason: str = ""
    stop_detail: str = ""
    budget: ContextBudget = Field(default_factory=ContextBudget)
    retrieved: Retrieved | None = None  # the next round's picks (debate_retrieval.py)
    prompts: PromptSnapshot | None = None
    failures: list[str] = Field(default_factory=list)
    ended: bool = False

    # -- lookups ---------------------------------------------------------------------
    def agent(self, agent_id: str) -> Agent:
        for a in self.agents:
            if a.id == agent_id:
                return a
        raise KeyError(agent_id)

    def claim(self, claim_id: str) -> Claim:
        for c in self.claims:
            if c.id == claim_id:
                return c
        raise KeyError(claim_id)

    def latest_stance(self, agent: str, claim: str) -> AgentStance | None:
        for s in reversed(self.stances):
            if s.agent == agent and s.claim == claim:
                return s
        return None

    def table_rounds(self) -> int:
        return sum(1 for r in self.rounds if not r.final)

    def last_round(self) -> RoundRecord | None:
        return self.rounds[-1] if self.rounds else None
