"""The debate session (seed 004, blitz mode): a hand of persona cards on a topic.

Steps, each one action (next_step() gives it; Auto and the headless driver follow it):
`claims` (one call), `stances` (agent x claim, all at once), `round` (every agent of
every table at once, each from the state after the previous round), `merge` (one call:
the model-assisted crux dedupe, then ranking, the merged blackboard, reseating by
affinity at the first `merge_cycles` merges, coverage after every merge), repeated for
`rounds_per_table` rounds (default 3) unless a stop condition (converged, diverged, the
event cap `max_events`) ends it sooner, then `final` (3-5 representatives on the merged
blackboard) and `map` (the disagreement map). `deal` re-deals the hand before the
claims are drawn. All model replies go through the shared structured path (one repair).
In classical mode (state.mode, kinds/debate/classical/session.py) the rounds and merges are
replaced by `turn` steps: plans, a streamed speech that may be cut off, an update.
Retrieval (kinds/debate/retrieval/search.py): each round's answers are indexed at once and
embedded in the background; the action before a round stores each agent's snippets and
corpus picks in the state, which the round's payloads read; `aclose` awaits the
embeddings still running.
Events: StateChanged parts hand, claims, stances, tables, answer (detail: agent id),
round, merge, metrics, map, phase, retrieval; SessionEnded with the map.
Must not import Qt.
"""

from __future__ import annotations

import asyncio
from typing import Any, Final

from pydantic import BaseModel, ConfigDict, Field

from roundtable_desktop.context.layers import PromptSnapshot
from roundtable_desktop.domain.events import SessionEnded, StateChanged
from roundtable_desktop.domain.summary import SessionSummary
from roundtable_desktop.engine.base import (
    Action,
    ActionSpec,
    ActionUnavailable,
    PendingPayload,
    SessionProtocol,
)
from roundtable_desktop.engine.bus import EventBus
from roundtable_desktop.engine.model_calls import DEFAULT_PARALLEL
from roundtable_desktop.engine.params import read_params
from roundtable_desktop.engine.payloads import chat_payload
from roundtable_desktop.engine.structured_call import StructuredResult, call_structured
from roundtable_desktop.kinds.debate.classical.session import TURN, play_turn, turn_payloads
from roundtable_desktop.kinds.debate.context import next_exchange
from roundtable_desktop.kinds.debate.deck import load_deck
from roundtable_desktop.kinds.debate.hand import agents_from, resolve_hand
from roundtable_desktop.kinds.debate.merge import apply_answer, apply_merge, final_table
from roundtable_desktop.kinds.debate.progress import (
    outcomes,
    record_metrics,
    snapshot,
    stop_decision,
)
from roundtable_desktop.kinds.debate.requests import (
    Built,
    answer_request,
    claims_request,
    map_request,
    merge_request,
    prompt_snapshot,
    stance_request,
)
from roundtable_desktop.kinds.debate.retrieval.search import DebateRetrieval
from roundtable_desktop.kinds.debate.state import (
    AgentAnswer,
    AgentStance,
    Claim,
    ClaimsReply,
    DebateMap,
    DebateState,
    MergeReply,
    Phase,
    RoundRecord,
    StanceReply,
)
from roundtable_desktop.kinds.debate.summary import debate_summary, result_sentence
from roundtable_desktop.kinds.debate.tables import (
    assign_tables,
    rank_cruxes,
    representatives,
)
from roundtable_desktop.kinds.debate.tools import DebateTools
from roundtable_desktop.llm.client import ChatClient

# Final: each name has its Literal type, so the phases among them are a `Phase`.
DEAL: Final = "deal"
CLAIMS: Final = "claims"
STANCES: Final = "stances"
ROUND: Final = "round"
MERGE: Final = "merge"
FINAL: Final = "final"
MAP: Final = "map"
LABELS = {CLAIMS: "Draw the claims", STANCES: "Take initial stances",
          ROUND: "Play a round", MERGE: "Merge the tables", FINAL: "Final table",
          TURN: "Next turn", MAP: "Draw the disagreement map"}
BLITZ_STEPS = (CLAIMS, STANCES, ROUND, MERGE, FINAL, MAP)
CLASSICAL_STEPS = (CLAIMS, STANCES, TURN, MAP)


class DealParams(BaseModel):
    """The params of `deal`: the cards of the hand, each an id of the debate's deck or
    "deck/id" of another deck (kinds/debate/hand.py); the action's text is the topic."""

    model_config = ConfigDict(extra="forbid")

    cards: list[str] = Field(default_factory=list)


class DebateSession(SessionProtocol):
    kind = "debate"

    def __init__(self, state: DebateState, *, client: ChatClient, bus: EventBus | None = None,
                 model: str = "offline", provider: str = "offline",
                 parallel: int = DEFAULT_PARALLEL) -> None:
        super().__init__(client=client, bus=bus, parallel=parallel)
        self.state = state
        self.model = model
        self.provider = provider
        self.retrieval = DebateRetrieval(lambda: self.state, lambda: self.client, self.emit)
        self.tools = DebateTools(lambda: self.state, self.emit)
        self._tool_runs: list[asyncio.Task[Any]] = []  # a round's tool calls, still running

    # -- what the user may do ---------------------------------------------------------------
    def actions(self) -> list[ActionSpec]:
        s = self.state
        why = "The debate has ended." if s.ended else (
            "The agents are still answering." if self.running else None)
        specs = [ActionSpec(id=DEAL, label="Deal a hand",
                            enabled=why is None and not s.claims,
                            reason=why or ("The hand is dealt: the claims are drawn."
                                           if s.claims else ""), needs_text=True)]
        for step in CLASSICAL_STEPS if s.mode == "classical" else BLITZ_STEPS:
            now = s.phase == step
            specs.append(ActionSpec(
                id=step, label=LABELS[step], enabled=why is None and now,
                reason=why or ("" if now else f"Now: {LABELS.get(s.phase, s.phase)}."),
                shortcut="Ctrl+Return" if now else ""))
        specs += self.common_specs(auto_why="The debate has ended." if s.ended else None)
        return specs

    def next_step(self) -> Action | None:
        return None if self.state.ended else Action(id=self.state.phase)

    def progress(self) -> int:
        return self.state.steps

    async def _perform(self, action: Action) -> bool:
        steps = {CLAIMS: self._claims, STANCES: self._stances, ROUND: self._round,
                 MERGE: self._merge, FINAL: self._final, MAP: self._map,
                 TURN: self._turn}
        if action.id == DEAL:
            self._deal(action)
            return True
        if action.id not in steps:
            raise ActionUnavailable(f"Unknown action {action.id!r}.")
        ok = await steps[action.id]()
        if ok:
            self.state.steps += 1
        if self.state.phase in (ROUND, FINAL, TURN):
            await self._retrieve()
        return ok

    async def _retrieve(self) -> None:
        """The next round's (or turn's) snippets and corpus picks, stored in the state
        before its payloads are shown (so what is shown is what is sent)."""
        s = self.state
        agents = [a.id for a in s.agents] if s.phase == TURN else \
            list(dict.fromkeys(a for t in s.tables for a in t.agents))
        await self.retrieval.prepare(agents, next_exchange(s))
        self.emit(StateChanged(part="retrieval"))

    # -- for the step modules (classical mode) ------------------------------------------------
    def set_phase(self, phase: Phase) -> None:
        self.state.phase = phase
        self.emit(StateChanged(part="phase", detail=phase))

    # -- steps ----------------------------------------------------------------------------------
    def _deal(self, action: Action) -> None:
        s = self.state
        deck = load_deck(s.deck)
        cards = read_params(DealParams, action.params, "Deal a hand").cards
        pairs, s.topic = resolve_hand(deck, cards, action.text or s.topic)
        s.agents = agents_from(pairs)
        self.emit(StateChanged(part="hand", detail=",".join(a.id for a in s.agents)))

    def snapshot(self) -> PromptSnapshot:
        """The debate's prompt layers, taken once and kept in the state."""
        return prompt_snapshot(self.state, self.provider)

    async def _claims(self) -> bool:
        request, layers = claims_request(self.state, self.snapshot(), self.model)
        result = await call_structured(self, None, request, ClaimsReply, label="claims",
                                       layers=layers)
        if result.value is None:
            return False
        self.state.claims = [Claim(id=f"c{i + 1}", text=c.text, pro=c.pro, con=c.con)
                             for i, c in enumerate(result.value.claims)]
        self.emit(StateChanged(part="claims"))
        self.set_phase(STANCES)
        return True

    def _stance_calls(self) -> list[tuple[str, str, Built]]:
        s, snap = self.state, self.snapshot()
        return [(a.id, c.id, stance_request(s, snap, self.model, a, c))
                for a in s.agents for c in s.claims]

    async def _stances(self) -> bool:
        s = self.state
        self.tools.warm()  # the deck's records server starts while the stances come

        async def one(agent: str, claim: str, built: Built) -> None:
            request, layers = built
            label = f"{s.agent(agent).name} · stance on {claim}"
            result = await call_structured(self, agent, request, StanceReply, label=label,
                                           layers=layers)
            reply = result.value
            if reply is None:
                s.failures.append(f"{label}: {result.error}")
            s.stances.append(AgentStance(
                agent=agent, claim=claim, round=0,
                stance=reply.stance if reply else "uncertain",
                confidence=reply.confidence if reply else 0.0,
                reason=reply.reason if reply else "",
                failed="" if reply else f"counted as uncertain: {result.error}"))
            self.emit(StateChanged(part="stances", detail=agent))

        before = list(s.stances)
        await asyncio.gather(*(one(a, c, b) for a, c, b in self._stance_calls()))
        if all(x.failed for x in s.stances[len(before):]):
            s.stances = before  # no reply at all (a rejected key, Stop): try the step again
            return False
        order = {(a.id, c.id): i for i, (a, c) in
                 enumerate((a, c) for a in s.agents for c in s.claims)}
        s.stances.sort(key=lambda x: (x.round, order.get((x.agent, x.claim), 0)))
        self.retrieval.index_messages()  # the initial reasons: past messages from round 1
        s.tables = assign_tables(s)  # by the disputed claims: no crux is named yet
        record_metrics(s, 0)
        self.emit(StateChanged(part="tables"))
        self.emit(StateChanged(part="metrics"))
        self.set_phase(TURN if s.mode == "classical" else ROUND)
        return not self.stopped()

    def stopped(self) -> bool:
        """Stop was pressed: a step ends after its calls instead of going on."""
        return self._stop_requested

    def _answer_calls(self, final: bool) -> list[tuple[str, int, Built]]:
        """Every agent's request for the next round, all built before any is sent."""
        s, snap = self.state, self.snapshot()
        index = len(s.rounds) + 1
        calls = []
        listed = self.tools.listed()
        for table in s.tables:
            for agent in table.agents:  # each agent sits at exactly one table
                calls.append((agent, table.id, answer_request(
                    s, snap, self.model, s.agent(agent), table, index, final, listed)))
        return calls

    async def _play(self, final: bool) -> RoundRecord | None:
        """One round; None (nothing changed) when no agent's reply could be read."""
        s = self.state
        calls = self._answer_calls(final)
        record = RoundRecord(index=len(s.rounds) + 1, final=final,
                             tables=[t.model_copy() for t in s.tables])

        async def one(agent: str, table: int, built: Built
                      ) -> tuple[str, int, StructuredResult[AgentAnswer]]:
            request, layers = built
            label = f"{s.agent(agent).name} · round {record.index}"
            result = await call_structured(self, agent, request, AgentAnswer, label=label,
                                           layers=layers)
            if result.value is None:
                s.failures.append(f"{label}: {result.error}")
            elif result.value.tool_requests:  # run now; the merge waits for them
                self._tool_runs.append(asyncio.ensure_future(
                    self.tools.run(agent, record.index, result.value.tool_requests)))
            self.emit(StateChanged(part="answer", detail=agent))
            return agent, table, result

        results = await asyncio.gather(*(one(a, t, b) for a, t, b in calls))
        if not any(result.ok for _, _, result in results):
            return None
        for agent, table, result in results:  # applied together, after all have answered
            apply_answer(s, record, agent, table, result.value,
                         f"counted as uncertain: {result.error}")
        s.rounds.append(record)
        self.retrieval.index_messages()  # FTS now; vectors in the background
        self.emit(StateChanged(part="round", detail=str(record.index)))
        return record

    async def _round(self) -> bool:
        if await self._play(final=False) is None:
            return False
        self.set_phase(MERGE)
        return not self.stopped()

    async def _turn(self) -> bool:
        ok = await play_turn(self)
        self.retrieval.index_messages()  # the speech: FTS now, vectors in the background
        return ok

    async def settle_tools(self) -> None:
        """Wait for the last round's tool calls (each ends by its deadline) and keep
        their pulls in the hand's order."""
        runs, self._tool_runs = self._tool_runs, []
        # A run started under another event loop (a caller that drives each step with
        # its own asyncio.run) was cancelled when that loop closed: nothing to wait for.
        loop = asyncio.get_running_loop()
        runs = [run for run in runs if run.get_loop() is loop]
        if runs:
            await asyncio.gather(*runs, return_exceptions=True)
            order = {a.id: i for i, a in enumerate(self.state.agents)}
            self.state.pulls.sort(key=lambda p: (p.round, order.get(p.agent, 0)))
            self.emit(StateChanged(part="tools"))

    async def _merge(self) -> bool:
        s = self.state
        record = s.rounds[-1]
        request, layers = merge_request(s, self.snapshot(), self.model, record.index)
        # The tools run beside the merge call: the next round's requests read both.
        result, _ = await asyncio.gather(
            call_structured(self, None, request, MergeReply,
                            label=f"merge after round {record.index}", layers=layers),
            self.settle_tools())
        apply_merge(s, record, result.value, result.error)
        event = s.table_rounds()
        record_metrics(s, event)
        s.snapshots.append(snapshot(s))
        decision = stop_decision(s, s.snapshots)
        self.emit(StateChanged(part="merge", detail=str(record.index)))
        self.emit(StateChanged(part="tables"))
        self.emit(StateChanged(part="metrics"))
        if decision.reason is not None:
            s.stop_reason, s.stop_detail = decision.reason, decision.detail
            s.tables = final_table(representatives(s))
            self.emit(StateChanged(part="tables"))
            self.set_phase(FINAL)
        else:
            self.set_phase(ROUND)
        return True

    async def _final(self) -> bool:
        s = self.state
        played = await self._play(final=True)
        await self.settle_tools()  # the map reads what the final table pulled
        if played is None:
            return False
        done = sum(1 for r in s.rounds if r.final)
        record_metrics(s, s.table_rounds() + done)
        rank_cruxes(s)  # the crux sides and weights as the final table left them
        s.outcomes = outcomes(s)
        self.emit(StateChanged(part="metrics"))
        if done >= s.final_rounds:
            self.set_phase(MAP)
        return not self.stopped()

    async def _map(self) -> bool:
        s = self.state
        if not s.outcomes:
            s.outcomes = outcomes(s)
        request, layers = map_request(s, self.snapshot(), self.model)
        result = await call_structured(self, None, request, DebateMap,
                                       label="disagreement map", layers=layers)
        if result.value is None:
            return False
        s.map = result.value
        s.ended = True
        self.emit(StateChanged(part="map"))
        self.set_phase("ended")
        self.emit(SessionEnded(reason=result_sentence(s)))
        return True

    # -- payloads, persistence, summary -----------------------------------------------------------
    def pending_payloads(self) -> list[PendingPayload]:
        s = self.state
        if s.ended or self.running:
            return []
        snap = self.snapshot()
        if s.phase == CLAIMS:
            request, layers = claims_request(s, snap, self.model)
            return [chat_payload(None, "claims", request, layers)]
        if s.phase == STANCES:
            return [chat_payload(a, f"{s.agent(a).name} · stance on {c}", r, ly)
                    for a, c, (r, ly) in self._stance_calls()]
        if s.phase in (ROUND, FINAL):
            index = len(s.rounds) + 1
            return [chat_payload(a, f"{s.agent(a).name} · round {index}", r, ly)
                    for a, _, (r, ly) in self._answer_calls(s.phase == FINAL)]
        if s.phase == MERGE and s.rounds:
            index = s.rounds[-1].index
            request, layers = merge_request(s, snap, self.model, index)
            return [chat_payload(None, f"merge after round {index}", request, layers)]
        if s.phase == TURN:
            return turn_payloads(self)
        if s.phase == MAP:
            request, layers = map_request(s, snap, self.model)
            return [chat_payload(None, "disagreement map", request, layers)]
        return []

    def state_dict(self) -> dict[str, Any]:
        return {"debate": self.state.model_dump(mode="json"), "model": self.model,
                "provider": self.provider}

    @property
    def ended(self) -> bool:
        return self.state.ended

    async def aclose(self) -> None:
        await self.retrieval.aclose()
        await self.settle_tools()
        await self.tools.close()

    def attach_mcp(self, connection: Any) -> bool:
        """Use a connection's tools (a toolbox: all of its servers) in the agents' turns."""
        self.tools.attach(connection)
        return True

    def detach_mcp(self) -> None:
        self.tools.detach()

    def summary(self) -> SessionSummary:
        return debate_summary(self.state)
