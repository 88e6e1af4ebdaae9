"""An agent's context for one round, from seed 004's five sources, within its budget.

1. blackboard: the claims, everyone's positions after the previous round, the ranked
   open cruxes with their sides, and the last merge's cross-table disagreement map;
2. local neighbourhood: the last answers involving this agent (its own and its table's,
   from the previous round it took part in; before round one, the initial reasons);
3. retrieved snippets: the 3-5 past messages of the other agents nearest the heaviest
   open crux (or the claims before any crux), each ~200 tokens, saying who said it and
   in which round; never the agent's own;
4. corpus grounding: the agent's own corpus chunks (anchor excerpts, corpus posts)
   nearest the claims and the crux, each with its source URL;
5. tool outputs: the tools the agent may call this turn (kinds/debate/tools.py lists
   them), the budget of calls, how to ask, what its calls of the previous round brought
   back (each with its citation, or the error line), and its tool-pull triggers.
3 and 4 are what retrieval stored in the state for this round (`state.retrieved`,
kinds/debate/retrieval/search.py); a state without picks for this round (one saved before
retrieval existed) gets no snippets and its anchors ranked by trigram overlap. Each
source is a runtime layer with a header, clipped to its share of the budget by whole
lines. Reads only state written before the round: never an answer of the round being
built, so the payload shown is the payload sent. Must not call models or import Qt.
"""

from __future__ import annotations

import json

from roundtable_desktop.domain.prompts import LayerText
from roundtable_desktop.domain.tokens import estimate_tokens
from roundtable_desktop.kinds.debate.deck import Anchor
from roundtable_desktop.kinds.debate.retrieval.retrieved import AgentPicks, Snippet
from roundtable_desktop.kinds.debate.state import Agent, DebateState, Table
from roundtable_desktop.metrics.similarity import jaccard, trigrams

SOURCES = ("blackboard", "neighbourhood", "snippets", "corpus", "tools")


def clip_lines(lines: list[str], budget: int, *, newest: bool = False) -> list[str]:
    """Whole lines within `budget` tokens: the first ones, or the last ones (`newest`)."""
    kept: list[str] = []
    used = 0
    for line in (reversed(lines) if newest else lines):
        cost = estimate_tokens(line) + 1
        if used + cost > budget:
            break
        kept.append(line)
        used += cost
    return list(reversed(kept)) if newest else kept


def rank_anchors(agent: Agent, about: str, k: int, skip: set[str] | None = None
                 ) -> list[Anchor]:
    skip = skip or set()
    wanted = trigrams(about)  # once: `about` may be every claim's text
    scored = [(jaccard(trigrams(a.text), wanted), i, a)
              for i, a in enumerate(agent.contract.anchors) if a.text not in skip]
    scored.sort(key=lambda x: (-x[0], x[1]))
    return [a for _, _, a in scored[:k]]


def positions_lines(state: DebateState) -> list[str]:
    """`- c1 | Name | pro | 0.70` for every agent's latest stance on every claim."""
    lines = []
    for claim in state.claims:
        for agent in state.agents:
            s = state.latest_stance(agent.id, claim.id)
            if s is not None:
                lines.append(f"- {claim.id} | {agent.name} | {s.stance} | {s.confidence:.2f}")
    return lines


def blackboard_text(state: DebateState) -> list[str]:
    done = state.table_rounds()
    lines = [f"Topic: {state.topic}",
             f"State after round {done}" if done else "State before the first round",
             "Claims:"]
    lines += [f"- {c.id}: {c.text} (pro: {c.pro} / con: {c.con})" for c in state.claims]
    lines.append("Positions (claim | agent | stance | confidence):")
    lines += positions_lines(state)
    open_cruxes = sorted((c for c in state.cruxes if not c.resolved), key=lambda c: -c.weight)
    lines.append("Open cruxes (heaviest first):")
    lines += [f"- {c.id} [{c.claim}] weight {c.weight:.2f}: {c.text} (pro: "
              f"{', '.join(state.agent(a).name for a in c.pro) or '-'}; con: "
              f"{', '.join(state.agent(a).name for a in c.con) or '-'})"
              for c in open_cruxes] or ["- (none yet)"]
    if state.merges:
        last = state.merges[-1]
        lines.append("Cross-table disagreement:")
        lines += [f"- {d}" for d in last.disagreement] or ["- (none)"]
    return lines


def neighbourhood_lines(state: DebateState, agent: Agent, table: Table) -> list[str]:
    last = next((r for r in reversed(state.rounds)
                 if any(t.agent == agent.id for t in r.turns)), None)
    if last is None:
        lines = []
        for member in table.agents:
            name = state.agent(member).name
            for s in state.stances:
                if s.agent == member and s.round == 0 and s.reason:
                    lines.append(f"[initial · {name} on {s.claim}] {s.reason}")
        return lines
    mine = next(t for t in last.turns if t.agent == agent.id)
    involved = [t for t in last.turns if t.table == mine.table or t.agent == agent.id]
    return [f"[round {last.index} · {state.agent(t.agent).name}] {t.response}"
            for t in involved if t.response]


def next_exchange(state: DebateState) -> int:
    """The number of the next round (blitz) or turn (classical): what picks are for."""
    if state.mode == "classical":
        return len(state.classical.turns) + 1 if state.classical else 1
    return len(state.rounds) + 1


def picks_for(state: DebateState, agent: Agent) -> AgentPicks | None:
    """What retrieval stored for `agent`'s next round or turn, or None (no picks)."""
    found = state.retrieved
    if found is None or found.round != next_exchange(state):
        return None
    return found.agents.get(agent.id)


def snippet_line(state: DebateState, snippet: Snippet) -> str:
    """`- [round 2 · Name] text` (`initial stance on c1 · Name` for round 0)."""
    try:
        name = state.agent(snippet.agent).name
    except KeyError:
        name = snippet.agent
    step = "turn" if state.mode == "classical" else "round"
    where = f"{step} {snippet.round}" if snippet.round else (snippet.source or "initial")
    return f"- [{where} · {name}] {snippet.text}"


def corpus_line(snippet: Snippet) -> str:
    return f"- \"{snippet.text}\" ({snippet.source or 'no source'})"


def section(name: str, title: str, budget: int, lines: list[str], *,
             newest: bool = False, empty: str = "(nothing yet)") -> LayerText:
    header = f"## {title} (budget ~{budget} tokens)"
    body = clip_lines(lines, budget - estimate_tokens(header) - 2, newest=newest)
    return LayerText(name=name, source=f"runtime: {name}",
                     text="\n".join([header, *(body or [empty])]))


def tools_lines(state: DebateState, agent: Agent, listed: list[tuple[str, str, str]],
                last: int) -> list[str]:
    """Source 5: what came back from the agent's calls of exchange `last`, the tools it
    may call now and its triggers."""
    lines = []
    pulls = [p for p in state.pulls if p.agent == agent.id and p.round == last]
    if pulls:
        lines.append("What your tool calls brought back last time:")
        for p in pulls:
            args = json.dumps(p.arguments, ensure_ascii=False, separators=(",", ":"))
            cited = f" [cited: {p.citation}]" if p.ok and p.citation else ""
            lines.append(f"- {p.tool}({args}) →{cited}")
            lines += [f"  {line}" for line in p.text.splitlines()]
    if listed and state.tool_calls:
        lines.append(f"Tools you may call this turn (at most {state.tool_calls} calls; "
                     f"what they return is shown here next time):")
        lines += [f"- {name}({args}): {what}" for name, args, what in listed]
        lines.append('To call one, add {"tool": "<name>", "arguments": {"<argument>": '
                     '"..."}} to "tool_requests".')
    else:
        lines.append("No tool is connected for this turn.")
    policy = agent.contract.evidence_policy
    lines.append(f"Your tool-pull triggers: {'; '.join(policy.tool_pull_triggers)}.")
    return lines


def agent_context(state: DebateState, agent: Agent, table: Table,
                  listed: list[tuple[str, str, str]] | None = None) -> list[LayerText]:
    """The five marked sections of `agent`'s payload at `table` for the next round."""
    b = state.budget
    picks = picks_for(state, agent)
    if picks is not None:
        snippets = [snippet_line(state, x) for x in picks.snippets]
        corpus = [corpus_line(x) for x in picks.corpus]
    else:
        claims = " ".join(f"{c.text} {c.pro} {c.con}" for c in state.claims)
        snippets = []
        corpus = [f"- \"{a.text}\" ({a.source})"
                  for a in rank_anchors(agent, claims, len(agent.contract.anchors))]
    tools = tools_lines(state, agent, listed or [], next_exchange(state) - 1)
    return [
        section("blackboard", "BLACKBOARD", b.blackboard, blackboard_text(state)),
        section("neighbourhood", "LOCAL NEIGHBOURHOOD", b.neighbourhood,
                 neighbourhood_lines(state, agent, table), newest=True),
        section("snippets", "RETRIEVED SNIPPETS", b.snippets, snippets,
                 empty="(no past messages of the others retrieved)"),
        section("corpus", "CORPUS GROUNDING", b.corpus, corpus),
        section("tools", "TOOL OUTPUTS", b.tools, tools),
    ]
