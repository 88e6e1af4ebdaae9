"""Classical mode's requests: `plan` (an agent's action plan), `speech` (what the speaker
says, plain sentences, streamed) and `update` (the speaker's stances, cruxes and
citations after speaking).

Prompt layers come from prompts/debate/ (classical.md, plan.md, speech.md, update.md) in
the debate's snapshot. Each agent's plan and speech payload carries blitz's blackboard
(claims, positions, ranked cruxes) as it stands now and the conversation so far, each a
marked runtime layer clipped to its budget; the speech payload also carries the
speaker's own excerpts, which it may use but never quotes with their sources: citations
go to the sidebar through the update. Must not call models or import Qt.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from roundtable_desktop.context.layers import PromptSnapshot
from roundtable_desktop.domain.calls import ChatMessage, ChatRequest
from roundtable_desktop.domain.prompts import LayerText
from roundtable_desktop.domain.words import WORD, words
from roundtable_desktop.engine.payloads import system_message
from roundtable_desktop.kinds.debate.classical.state import ActionPlan, ClassicalTurn
from roundtable_desktop.kinds.debate.classical.text import conversation_lines, turn_line
from roundtable_desktop.kinds.debate.context import (
    blackboard_text,
    picks_for,
    positions_lines,
    rank_anchors,
    section,
    snippet_line,
    tools_lines,
)
from roundtable_desktop.kinds.debate.deck import Anchor
from roundtable_desktop.kinds.debate.requests import (
    KIND,
    claims_lines,
    json_request,
    persona_layer,
)
from roundtable_desktop.kinds.debate.state import (
    Agent,
    ClaimPosition,
    CruxNote,
    DebateState,
    ToolRequest,
)

PLAN, SPEECH, UPDATE = "plan", "speech", "update"
LAYER_NAMES = ["classical", "plan", "speech", "update"]
SPEECH_ANCHORS = 3
HEARD_TURNS = 4

Built = tuple[ChatRequest, list[LayerText]]


class SpeechUpdate(BaseModel):
    """The reply of an `update` call: where the speaker stands after speaking."""

    model_config = ConfigDict(extra="ignore")

    stances: list[ClaimPosition] = Field(min_length=1)
    new_cruxes: list[CruxNote] = Field(default_factory=list, max_length=3)
    flip_triggers: list[str] = Field(default_factory=list, max_length=3)
    cited: list[str] = Field(default_factory=list, max_length=5)  # excerpt ids: "e1"
    tool_requests: list[ToolRequest] = Field(default_factory=list, max_length=5)


def board_lines(state: DebateState) -> list[str]:
    """Blitz's blackboard, headed by the turn it stands after."""
    done = len(state.classical.turns) if state.classical else 0
    head = f"State after turn {done}" if done else "State before the first turn"
    # Blitz heads its board with the rounds played; a classical debate plays none.
    return [head if line.startswith(("State after round", "State before the first round"))
            else line for line in blackboard_text(state)]


def _shared(state: DebateState, snapshot: PromptSnapshot, agent: Agent) -> list[LayerText]:
    b = state.budget
    return [persona_layer(snapshot, agent), snapshot.filled("classical"),
            section("blackboard", "BLACKBOARD", b.blackboard, board_lines(state)),
            section("conversation", "CONVERSATION SO FAR", b.neighbourhood,
                     conversation_lines(state), newest=True, empty="(nobody has spoken)")]


def _first_names(agent: Agent) -> set[str]:
    return {agent.name.lower(), agent.name.split()[0].lower()}


def addressed_in(state: DebateState, sentence: str, speaker: str | None) -> list[str]:
    """The ids of the agents `sentence` names (full or first name), the speaker left out.
    A one-word name must be a whole word of it; a longer one ("Ada Brennan", "Jean-Luc")
    is looked for as it is written."""
    said = set(words(sentence))
    low = sentence.lower()
    return [a.id for a in state.agents if a.id != speaker and any(
        (n in said if WORD.fullmatch(n) else n in low) for n in _first_names(a))]


def _versus(state: DebateState, agent: Agent, speaker: str | None) -> list[str]:
    lines = []
    for claim in state.claims:
        mine = state.latest_stance(agent.id, claim.id)
        part = f"- {claim.id}: you {mine.stance} {mine.confidence:.2f}" if mine \
            else f"- {claim.id}: you (no stance)"
        if speaker is not None:
            theirs = state.latest_stance(speaker, claim.id)
            name = state.agent(speaker).name
            part += f" | {name} {theirs.stance} {theirs.confidence:.2f}" if theirs \
                else f" | {name} (no stance)"
        lines.append(part)
    return lines


# -- plan --
def plan_request(state: DebateState, snapshot: PromptSnapshot, model: str, agent: Agent,
                 turn_index: int, live: ClassicalTurn | None) -> Built:
    layers = [*_shared(state, snapshot, agent), snapshot.filled("plan")]
    lines = [f"TURN: {turn_index}", f"YOU: {agent.name}"]
    if live is None or live.speaker is None:
        lines += ["SPEAKER: nobody (the floor is open)", "LAST SENTENCE: (none)",
                  "ADDRESSED: nobody", "YOUR POSITIONS:", *_versus(state, agent, None)]
    else:
        speaker = state.agent(live.speaker)
        last = live.sentences[-1] if live.sentences else ""
        named = [state.agent(a).name for a in addressed_in(state, last, speaker.id)]
        lines += [f"SPEAKER: {speaker.name}", f"SPEAKER URGENCY: {live.urgency:.2f}",
                  "SAID SO FAR THIS TURN:", *[f"- {s}" for s in live.sentences],
                  f"LAST SENTENCE: {last}", f"ADDRESSED: {', '.join(named) or 'nobody'}",
                  "YOUR POSITIONS VS THE SPEAKER'S:", *_versus(state, agent, speaker.id)]
    lines.append("Give your plan now as JSON.")
    return json_request(model, PLAN, layers, "\n".join(lines), ActionPlan), layers


# -- speech --
def speech_anchors(state: DebateState, agent: Agent) -> list[Anchor]:
    """The speaker's excerpts: retrieval's corpus picks for this turn (its own corpus
    nearest the claims and the heaviest open crux), or else its anchors nearest the last
    turn and that crux."""
    picks = picks_for(state, agent)
    if picks is not None and picks.corpus:
        return [Anchor(text=p.text, source=p.source or agent.contract.handle)
                for p in picks.corpus[:SPEECH_ANCHORS]]
    turns = state.classical.turns if state.classical else []
    last = next((t.text for t in reversed(turns) if t.sentences), "")
    open_cruxes = sorted((c for c in state.cruxes if not c.resolved), key=lambda c: -c.weight)
    about = " ".join([last, open_cruxes[0].text if open_cruxes else "",
                      *(c.text for c in state.claims)])
    return rank_anchors(agent, about, SPEECH_ANCHORS)


def said_lines(state: DebateState, agent: Agent) -> list[str]:
    """What the others said earlier that retrieval found nearest the crux (never the
    speaker's own words)."""
    picks = picks_for(state, agent)
    return [snippet_line(state, x) for x in picks.snippets] if picks else []


def excerpt_lines(anchors: list[Anchor]) -> list[str]:
    return [f"- [e{i}] \"{a.text}\" ({a.source})" for i, a in enumerate(anchors, 1)]


def speech_request(state: DebateState, snapshot: PromptSnapshot, model: str, agent: Agent,
                   turn: ClassicalTurn, anchors: list[Anchor]) -> Built:
    layers = [*_shared(state, snapshot, agent),
              section("corpus", "YOUR EXCERPTS", state.budget.corpus,
                      excerpt_lines(anchors)),
              section("snippets", "RETRIEVED SNIPPETS", state.budget.snippets,
                      said_lines(state, agent),
                      empty="(no past messages of the others retrieved)"),
              *([section("tools", "TOOL OUTPUTS", state.budget.tools, tools_lines(
                  state, agent, [], last_pulled(state, agent)))]
                if any(p.agent == agent.id for p in state.pulls) else []),
              snapshot.filled("speech")]
    lines = [f"TURN: {turn.index}", f"YOUR INTENT: {turn.intent or '(say where you stand)'}"]
    if turn.interrupts:
        before = state.classical.turns[-1] if state.classical and state.classical.turns \
            else None
        said = before.sentences[-1] if before and before.sentences else ""
        lines.append(f"YOU CUT IN ON: {state.agent(turn.interrupts).name}, who had just "
                     f"said: \"{said}\"")
    lines.append("Speak now, in plain sentences.")
    request = ChatRequest(model=model, purpose=SPEECH, kind=KIND, messages=[
        *system_message(layers), ChatMessage(role="user", content="\n".join(lines))])
    return request, layers


# -- update --
def last_pulled(state: DebateState, agent: Agent) -> int:
    """The turn of the agent's latest tool calls (-1: none yet)."""
    return max((p.round for p in state.pulls if p.agent == agent.id), default=-1)


def update_request(state: DebateState, snapshot: PromptSnapshot, model: str, agent: Agent,
                   turn: ClassicalTurn, anchors: list[Anchor],
                   listed: list[tuple[str, str, str]] | None = None) -> Built:
    """The speaker's update after its speech: where it stands, and (TOOL OUTPUTS) the
    tools it may call for its next turn with what its last calls brought back."""
    layers = [persona_layer(snapshot, agent),
              section("tools", "TOOL OUTPUTS", state.budget.tools,
                      tools_lines(state, agent, listed or [], last_pulled(state, agent))),
              snapshot.filled("update")]
    mine = [f"- {c.id} | {s.stance} | {s.confidence:.2f}" for c in state.claims
            if (s := state.latest_stance(agent.id, c.id)) is not None]
    others = [line for line in positions_lines(state) if f"| {agent.name} |" not in line]
    turns = state.classical.turns if state.classical else []
    heard = [t for t in turns if t.index < turn.index][-HEARD_TURNS:]
    user = "\n".join([
        f"TOPIC: {state.topic}", "CLAIMS:", *claims_lines(state.claims), "",
        "YOUR POSITIONS BEFORE YOU SPOKE:", *(mine or ["- (none)"]),
        "THE OTHERS' POSITIONS:", *(others or ["- (none)"]), "",
        "WHAT YOU HEARD BEFORE SPEAKING:",
        *([f"- {turn_line(state, t)}" for t in heard] or ["- (nothing)"]), "",
        f"WHAT YOU JUST SAID (turn {turn.index}):", turn.text, "",
        "EXCERPTS YOU HAD:", *(excerpt_lines(anchors) or ["- (none)"]), "",
        "Give your update now as JSON."])
    return json_request(model, UPDATE, layers, user, SpeechUpdate), layers
