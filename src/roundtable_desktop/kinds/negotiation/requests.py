"""The four requests of a negotiation turn, built from the state: observer, planner, draft
(purpose `reply`) and adjudicate, each as a ChatRequest plus the layers of its system
prompt (so the view marks each layer and shown is sent).

The draft's system prompt is seed 000's `buildSystemPrompt`: BASE_PERSONA, PACT, CONTEXT,
YOUR_LAST_ACT, COUNTERPART_INTENT, ANTI_MIRROR_CUE, MODEL_OF_OTHER(JSON), STYLE,
DISCOURAGE_PHRASES, WORLD_LORE, WORLD_CONSTRAINTS, WORLD_LEITMOTIFS, YOUR_ROLE_DRIVES,
YOUR_ROLE_TABOOS, TRAIT_PROFILE, FOCUS_THIS_TURN, each one layer; then the last 10
messages, the side's own as `assistant` and the other's as `user`. The observer sees the
last 8 messages as `WHO: text`. Prompt files come from the session's PromptSnapshot
(prompts/negotiation/, overridable per scenario and provider). The memo is computed
here too (MEMO_REFRESH), from the state alone, so a preview equals what is sent.
Must not call models, change the state or import Qt.
"""

from __future__ import annotations

import json
from typing import Literal

from pydantic import BaseModel, Field, RootModel

from roundtable_desktop.context.layers import PromptSnapshot, take_snapshot
from roundtable_desktop.domain.calls import ChatMessage, ChatRequest
from roundtable_desktop.domain.prompts import LayerText
from roundtable_desktop.engine.payloads import system_message
from roundtable_desktop.engine.structured_call import structured_request
from roundtable_desktop.kinds.negotiation.scenario import TRAITS, TraitProfile
from roundtable_desktop.kinds.negotiation.state import (
    NegotiationState,
    PlanOption,
    other_side,
)

KIND = "negotiation"
HISTORY_MESSAGES = 10
OBSERVER_MESSAGES = 8
PLANNER_MESSAGES = 6
ADJUDICATOR_MESSAGES = 16
PROMPT_FILES = ("pact", "anti_mirror_cue", "observer", "planner", "planner_diversity",
                "adjudicator")
_FALLBACK_TEXT = {
    "pact": "Both sides must move toward a resolution; no loops, no empty courtesy.",
    "anti_mirror_cue": "Do not mirror the counterpart's last wording; reframe and advance.",
    "observer": "You are a neutral analyst. Return STRICT JSON with keys dims, prior, "
                "posterior, myth, tone, rationale.",
    "planner": "Return ONLY a JSON array of 4-6 objects with \"text\" and \"act\".",
    "planner_diversity": "FORCE_DIVERSITY: every option must use a different act.",
    "adjudicator": "Return STRICT JSON {\"outcome\", \"reason\"}.",
}


class ObserverReply(BaseModel):
    """What the observer must return (strict JSON)."""

    dims: TraitProfile
    prior: str = Field(max_length=600)
    posterior: str = Field(max_length=600)
    myth: str = Field(max_length=600)
    tone: str = Field(max_length=200)
    rationale: str = Field(min_length=1, max_length=1200)


class PlannerReply(RootModel[list[PlanOption]]):
    """The planner's options: a JSON array of 4-6 {text, act}."""

    root: list[PlanOption] = Field(min_length=4, max_length=6)


class AdjudicatorReply(BaseModel):
    outcome: Literal["released", "terminated", "stalled", "continue"]
    reason: str = Field(min_length=1, max_length=800)


def prompt_snapshot(scenario: str, provider: str) -> PromptSnapshot:
    return take_snapshot(KIND, list(PROMPT_FILES), scenario=scenario, provider=provider)


def _file_layer(snapshot: PromptSnapshot | None, name: str, label: str,
                sep: str = " ") -> LayerText:
    found = snapshot.get(name) if snapshot is not None else None
    body = found.text if found is not None else _FALLBACK_TEXT[name]
    source = found.source if found is not None else "runtime"
    text = f"{label}:{sep}{body}" if label else body
    return LayerText(name=label or name.upper(), source=source, text=text)


def _runtime(name: str, text: str) -> LayerText:
    return LayerText(name=name, source="runtime", text=text)


def _number(value: float) -> str:
    return f"{float(value):.1f}"


def model_of_other_json(state: NegotiationState, side: str) -> str:
    """The observer's current model of `side`'s counterpart, as compact JSON (11 traits)."""
    dims = state.sides[other_side(side)].observed.dims.as_dict()
    return json.dumps(dims, ensure_ascii=False, separators=(",", ":"))


def refresh_memo(state: NegotiationState) -> str:
    """CONTEXT: who wants what, each side's strongest observed traits, the turn, the last
    exchange. A function of the state alone (MEMO_REFRESH)."""
    parts = []
    for sid, verb in (("ALLY", "seeks"), ("KEEPER", "holds")):
        side = state.sides[sid]
        dims = side.observed.dims.as_dict()
        top = sorted(TRAITS, key=lambda t: (-dims[t], TRAITS.index(t)))[:2]
        shown = ", ".join(f"{t}:{_number(dims[t])}" for t in top)
        parts.append(f"{sid} ({side.name}) {verb} ground ({shown}).")
    cap = state.scenario.turn_cap
    parts.append(f"Turn {state.turn_count + 1} of at most {cap}.")
    recent = state.messages()[-2:]
    if recent:
        said = "; ".join(f"{e.who} {e.act or 'NONE'}: \"{_clip(e.text, 80)}\"" for e in recent)
        parts.append(f"Last exchange: {said}.")
    if state.kpis.loop_trips:
        parts.append(f"Loop guard trips so far: {state.kpis.loop_trips}.")
    return " ".join(parts)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


# -- the draft (purpose "reply") ---------------------------------------------------------
def focus_text(option: PlanOption) -> str:
    """FOCUS_THIS_TURN for a chosen option: its act, then its text."""
    return f"[{option.act}] {option.text}"


def draft_layers(state: NegotiationState, side: str, focus: str, memo: str,
                 snapshot: PromptSnapshot | None) -> list[LayerText]:
    me = state.sides[side]
    sc = me.scenario
    world = state.scenario.world
    traits = "\n".join(f"- {name}: {_number(value)}"
                       for name, value in me.self_profile.as_dict().items())
    layers = [
        _runtime("BASE_PERSONA", f"BASE_PERSONA:\n{sc.persona}"),
        _file_layer(snapshot, "pact", "PACT"),
        _runtime("CONTEXT", f"CONTEXT: {memo}"),
        _runtime("YOUR_LAST_ACT", f"YOUR_LAST_ACT: {me.last_act}"),
        _runtime("COUNTERPART_INTENT", f"COUNTERPART_INTENT: {me.counterpart_intent}"),
        _file_layer(snapshot, "anti_mirror_cue", "ANTI_MIRROR_CUE"),
        _runtime("MODEL_OF_OTHER", f"MODEL_OF_OTHER(JSON): {model_of_other_json(state, side)}"),
        _runtime("STYLE", f"STYLE: {sc.style}"),
        _runtime("DISCOURAGE_PHRASES", "DISCOURAGE_PHRASES: "
                 + json.dumps(sc.discourage_phrases, ensure_ascii=False)),
        _runtime("WORLD_LORE", f"WORLD_LORE: {world.lore}"),
        _runtime("WORLD_CONSTRAINTS", f"WORLD_CONSTRAINTS: {world.constraints}"),
        _runtime("WORLD_LEITMOTIFS", f"WORLD_LEITMOTIFS: {world.leitmotifs}"),
        _runtime("YOUR_ROLE_DRIVES", f"YOUR_ROLE_DRIVES: {sc.drives}"),
        _runtime("YOUR_ROLE_TABOOS", f"YOUR_ROLE_TABOOS: {sc.taboos}"),
        _runtime("TRAIT_PROFILE", f"TRAIT_PROFILE:\n{traits}"),
    ]
    if focus:
        layers.append(_runtime("FOCUS_THIS_TURN", f"FOCUS_THIS_TURN: {focus}"))
    return layers


def history_messages(state: NegotiationState, side: str) -> list[ChatMessage]:
    """The last 10 messages: `side`'s own as assistant, the other's as user."""
    return [ChatMessage(role="assistant" if e.who == side else "user", content=e.text)
            for e in state.messages()[-HISTORY_MESSAGES:]]


def draft_request(state: NegotiationState, side: str, focus: str, memo: str,
                  snapshot: PromptSnapshot | None) -> tuple[ChatRequest, list[LayerText]]:
    layers = draft_layers(state, side, focus, memo, snapshot)
    me = state.sides[side]
    s = me.sampling
    request = ChatRequest(
        model=me.model or state.model,
        messages=[*system_message(layers), *history_messages(state, side)],
        temperature=s.temperature, top_p=s.top_p, presence_penalty=s.presence_penalty,
        frequency_penalty=s.frequency_penalty, max_tokens=s.max_tokens,
        purpose="reply", kind=KIND,
    )
    return request, layers


# -- the observer ------------------------------------------------------------------------
def chat_snippet(state: NegotiationState, count: int) -> str:
    return "\n".join(f"{e.who}: {e.text}" for e in state.messages()[-count:])


def observer_request(state: NegotiationState, about: str,
                     snapshot: PromptSnapshot | None) -> tuple[ChatRequest, list[LayerText]]:
    layers = []
    if state.observer_guidance.strip():
        layers.append(_runtime("OBSERVER_GUIDANCE",
                               f"OBSERVER_GUIDANCE: {state.observer_guidance.strip()}"))
    layers.append(_file_layer(snapshot, "observer", ""))
    side = state.sides[about]
    user = (f"Model {about} ({side.name}).\n"
            f"CHAT SNIPPET (most recent turns):\n{chat_snippet(state, OBSERVER_MESSAGES)}")
    request = ChatRequest(
        model=state.model,
        messages=[*system_message(layers), ChatMessage(role="user", content=user)],
        temperature=0.2, purpose="observer", kind=KIND,
    )
    return structured_request(request, ObserverReply), layers


# -- the planner -------------------------------------------------------------------------
def planner_request(state: NegotiationState, side: str, memo: str,
                    snapshot: PromptSnapshot | None) -> tuple[ChatRequest, list[LayerText]]:
    layers = []
    if state.planner_guidance.strip():
        layers.append(_runtime("PLANNER_GUIDANCE",
                               f"PLANNER_GUIDANCE: {state.planner_guidance.strip()}"))
    layers.append(_file_layer(snapshot, "planner", ""))
    forced = state.force_diversity.get(side, False)
    if forced:
        layers.append(_file_layer(snapshot, "planner_diversity", ""))
    me, other = state.sides[side], state.sides[other_side(side)]
    last_other = next((e.text for e in reversed(state.messages()) if e.who != side), "")
    user = "\n".join([
        f"ROLE: {side} ({me.name})",
        f"MEMO: {memo}",
        f"CHAT SNIPPET:\n{chat_snippet(state, PLANNER_MESSAGES)}",
        f"ANTI_MIRROR: do not reuse the wording of: \"{_clip(last_other, 160)}\"",
        f"LAST_SELF_ACT: {me.last_act}",
        f"LAST_OTHER_ACT: {other.last_act}",
        f"CORE_CONFLICT: {state.scenario.core_conflict}",
        f"CURRENT_OBSTACLE: {state.scenario.current_obstacle}",
        f"FORCE_DIVERSITY: {'yes' if forced else 'no'}",
    ])
    request = ChatRequest(
        model=me.model or state.model,
        messages=[*system_message(layers), ChatMessage(role="user", content=user)],
        temperature=0.7, purpose="planner", kind=KIND,
    )
    return structured_request(request, PlannerReply), layers


# -- the adjudicator ---------------------------------------------------------------------
def adjudicate_request(state: NegotiationState, trigger: str,
                       snapshot: PromptSnapshot | None) -> tuple[ChatRequest, list[LayerText]]:
    layers = [_file_layer(snapshot, "adjudicator", "")]
    ally, keeper = state.sides["ALLY"], state.sides["KEEPER"]
    transcript = "\n".join(f"{e.who} [{e.act or 'NONE'}]: {e.text}"
                           for e in state.messages()[-ADJUDICATOR_MESSAGES:])
    user = "\n".join([
        f"TRIGGER: {trigger}",
        f"TURN: {state.turn_count} of at most {state.scenario.turn_cap}",
        f"LOOP_GUARD_TRIPS: {state.kpis.loop_trips} (stalled at {state.loop.max_trips})",
        f"CORE_CONFLICT: {state.scenario.core_conflict}",
        f"LAST_ACTS: ALLY={ally.last_act}, KEEPER={keeper.last_act}",
        f"TRANSCRIPT (with acts):\n{transcript}",
    ])
    request = ChatRequest(
        model=state.model,
        messages=[*system_message(layers), ChatMessage(role="user", content=user)],
        temperature=0.0, purpose="adjudicate", kind=KIND,
    )
    return structured_request(request, AdjudicatorReply), layers
