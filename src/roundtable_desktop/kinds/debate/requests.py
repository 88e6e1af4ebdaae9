"""The debate's requests, one builder per call purpose: claims, stance, answer, merge, map.

Prompt layers come from prompts/debate/ (snapshot on first use). An agent's round
request is its persona, the round rules, then the five context sources of seed 004, each
a marked runtime layer clipped to its share of the budget (debate_context.py), then the
answer format; the user message asks for the round's JSON. Every request is built from
the state as it is *before* the round's calls are sent, so no agent ever sees another's
answer of the same round. Must not call models or import Qt.
"""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

from pydantic import BaseModel

from roundtable_desktop.context.layers import PromptSnapshot, take_snapshot
from roundtable_desktop.domain.calls import ChatMessage, ChatRequest
from roundtable_desktop.domain.prompts import LayerText
from roundtable_desktop.engine.payloads import system_message
from roundtable_desktop.engine.structured_call import structured_request
from roundtable_desktop.kinds.debate.classical.text import conversation_lines
from roundtable_desktop.kinds.debate.context import (
    agent_context,
    clip_lines,
    positions_lines,
    rank_anchors,
)
from roundtable_desktop.kinds.debate.merge_groups import candidate_groups
from roundtable_desktop.kinds.debate.state import (
    Agent,
    AgentAnswer,
    Claim,
    ClaimsReply,
    DebateMap,
    DebateState,
    MergeReply,
    StanceReply,
    Table,
)

KIND = "debate"
CLAIMS, STANCE, ANSWER, MERGE, MAP = "claims", "stance", "answer", "merge", "map"
PURPOSES = (CLAIMS, STANCE, ANSWER, MERGE, MAP)
LAYER_NAMES = ["claims", "persona", "stance", "rules", "answer", "merge", "map",
               "classical", "plan", "speech", "update"]  # the last four: classical mode
MAP_TRANSCRIPT_TOKENS = 6000

Built = tuple[ChatRequest, list[LayerText]]


def prompt_snapshot(state: DebateState, provider: str) -> PromptSnapshot:
    if state.prompts is None:
        state.prompts = take_snapshot(KIND, LAYER_NAMES, scenario=state.deck,
                                      provider=provider)
    return state.prompts


@cache
def _schema(reply: type[BaseModel]) -> dict[str, Any]:
    """The reply's JSON schema, made once (a round builds one request per agent)."""
    return reply.model_json_schema()


def json_request(model: str, purpose: str, layers: list[LayerText], user: str,
             reply: type[BaseModel]) -> ChatRequest:
    request = ChatRequest(model=model, purpose=purpose, kind=KIND, messages=[
        *system_message(layers), ChatMessage(role="user", content=user)],
        response_schema=copy.deepcopy(_schema(reply)))
    return structured_request(request, reply)


def persona_layer(snapshot: PromptSnapshot, agent: Agent) -> LayerText:
    c = agent.contract
    policy = c.evidence_policy
    return snapshot.filled("persona", name=agent.name, handle=agent.handle,
                           pronouns=c.pronouns,
                           personality=c.personality, bias=c.bias, stakes=c.stakes,
                           epistemology=c.epistemology, time_horizon=c.time_horizon,
                           flip_conditions=c.flip_conditions,
                           accepts="; ".join(policy.acceptable),
                           rejects="; ".join(policy.unacceptable),
                           weighting="; ".join(policy.weighting_rules))


def claims_lines(claims: list[Claim]) -> list[str]:
    return [f"{c.id}: {c.text}\n  pro: {c.pro}\n  con: {c.con}" for c in claims]


# -- claims --
def claims_request(state: DebateState, snapshot: PromptSnapshot, model: str) -> Built:
    layers = [snapshot.filled("claims")]
    names = ", ".join(a.name for a in state.agents)
    user = f"TOPIC: {state.topic}\nDEBATERS: {names}\nWrite the claims now."
    return json_request(model, CLAIMS, layers, user, ClaimsReply), layers


# -- stance --
def stance_request(state: DebateState, snapshot: PromptSnapshot, model: str, agent: Agent,
                   claim: Claim) -> Built:
    layers = [persona_layer(snapshot, agent), snapshot.filled("stance")]
    anchors = rank_anchors(agent, f"{claim.text} {claim.pro} {claim.con}", 3)
    excerpts = "\n".join(f"- \"{a.text}\" ({a.source})" for a in anchors)
    user = "\n".join([
        f"TOPIC: {state.topic}",
        f"CLAIM {claim.id}: {claim.text}",
        f"PRO: {claim.pro}",
        f"CON: {claim.con}",
        "YOUR OWN WORDS ON THIS (anchor excerpts):",
        excerpts or "(none)",
        "Give your stance now.",
    ])
    return json_request(model, STANCE, layers, user, StanceReply), layers


# -- an agent's round answer --
def answer_request(state: DebateState, snapshot: PromptSnapshot, model: str, agent: Agent,
                   table: Table, round_index: int, final: bool,
                   listed: list[tuple[str, str, str]] | None = None) -> Built:
    where = "the final table" if final else f"table {table.id}"
    layers = [
        persona_layer(snapshot, agent),
        snapshot.filled("rules", round=str(round_index), table=where),
        *agent_context(state, agent, table, listed),
        snapshot.filled("answer"),
    ]
    ids = ", ".join(c.id for c in state.claims)
    user = (f"Round {round_index} at {where}. Give your contribution and a stance on every "
            f"claim ({ids}) as JSON.")
    return json_request(model, ANSWER, layers, user, AgentAnswer), layers


# -- merge --
def table_blackboard(state: DebateState, table: Table, round_index: int) -> str:
    record = next((r for r in state.rounds if r.index == round_index), None)
    turns = [t for t in (record.turns if record else []) if t.table == table.id]
    names = ", ".join(state.agent(a).name for a in table.agents)
    lines = [f"TABLE {table.id} ({names})", "Cruxes raised:"]
    lines += [f"- [{n.claim or '?'}] ({state.agent(t.agent).name}) {n.text}"
              for t in turns for n in t.new_cruxes] or ["- (none)"]
    lines.append("Flip triggers and conditions:")
    lines += [f"- {state.agent(t.agent).name}: {f}" for t in turns for f in t.flip_triggers] \
        or ["- (none)"]
    lines.append("Stances:")
    lines += [f"- {c.id} | {state.agent(t.agent).name} | {p.stance} | {p.confidence:.2f}"
              for t in turns for p in t.stances for c in state.claims if c.id == p.claim]
    return "\n".join(lines)


def merge_request(state: DebateState, snapshot: PromptSnapshot, model: str,
                  round_index: int) -> Built:
    layers = [snapshot.filled("merge")]
    boards = "\n\n".join(table_blackboard(state, t, round_index) for t in state.tables)
    known = [f"- {c.id} [{c.claim}] {c.text}{' (resolved)' if c.resolved else ''}"
             for c in state.cruxes]
    record = next((r for r in state.rounds if r.index == round_index), None)
    groups = candidate_groups(state, record) if record is not None else []
    grouped = [f"- group {i + 1}{' (like ' + ', '.join(ids) + ')' if ids else ''}: "
               + " || ".join(texts) for i, (texts, ids) in enumerate(groups)]
    user = "\n".join([
        f"TOPIC: {state.topic}", "CLAIMS:", *claims_lines(state.claims), "",
        f"KNOWN CRUXES BEFORE ROUND {round_index}:", *(known or ["- (none)"]), "",
        f"TABLE BLACKBOARDS OF ROUND {round_index}:", boards, "",
        "RAISED CRUXES PRE-GROUPED BY SIMILAR WORDING (a hint; you decide):",
        *(grouped or ["- (none raised)"]), "",
        "Merge them now."])
    return json_request(model, MERGE, layers, user, MergeReply), layers


# -- the disagreement map --
def map_request(state: DebateState, snapshot: PromptSnapshot, model: str) -> Built:
    layers = [snapshot.filled("map")]
    transcript = [f"[round {r.index}{' final' if r.final else ''} · "
                  f"{state.agent(t.agent).name}] {t.response}"
                  for r in state.rounds for t in r.turns if t.response]
    transcript += conversation_lines(state)  # classical mode's turns
    cruxes = [f"- {c.id} [{c.claim}] weight {c.weight:.2f} {c.text} | pro: "
              f"{', '.join(state.agent(a).name for a in c.pro) or '-'} | con: "
              f"{', '.join(state.agent(a).name for a in c.con) or '-'}"
              f"{' | resolved' if c.resolved else ''}" for c in state.cruxes]
    agents = []
    for a in state.agents:
        p = a.contract.evidence_policy
        raised = [f.text for f in state.flips if f.agent == a.id]
        # The final table's flips: no merge follows it to record them.
        raised += [text for r in state.rounds if r.final for t in r.turns
                   if t.agent == a.id for text in t.flip_triggers if text not in raised]
        pulled = [f"{p.tool}: {p.citation}" for p in state.pulls
                  if p.agent == a.id and p.ok and p.citation]
        agents.append(f"- {a.name}: flip conditions: {a.contract.flip_conditions} "
                      f"{' '.join(raised)} | accepts: {'; '.join(p.acceptable)} | rejects: "
                      f"{'; '.join(p.unacceptable)} | horizon: {a.contract.time_horizon} | "
                      f"pronouns: {a.contract.pronouns}"
                      f"{' | pulled: ' + ' || '.join(pulled) if pulled else ''}")
    outcomes = [f"- {o.claim}: {o.status} ({o.side or 'no side'} {o.share:.0%}, entropy "
                f"{o.entropy_bits:.2f} bits)" for o in state.outcomes]
    user = "\n".join([
        f"TOPIC: {state.topic}", "CLAIMS:", *claims_lines(state.claims), "",
        "FINAL POSITIONS:", *positions_lines(state), "",
        "OUTCOME PER CLAIM:", *(outcomes or ["- (not computed)"]), "",
        "CRUXES (ranked):", *(cruxes or ["- (none)"]), "",
        "AGENTS:", *agents, "",
        "TRANSCRIPT:", *clip_lines(transcript, MAP_TRANSCRIPT_TOKENS, newest=True), "",
        "Write the disagreement map now."])
    return json_request(model, MAP, layers, user, DebateMap), layers
