"""The negotiation as a kind-neutral SessionSummary: the two sides, the transcript with
each message's act, the adjudication (outcome, reason, final models, influence) and the
belief trajectories (the observer's model of each side, trait by trait, over the turns).

Export, the CLI and the window's end panel read it. Must not change the state.
"""

from __future__ import annotations

import json
from typing import Any

from roundtable_desktop.domain.summary import (
    Participant,
    Progress,
    ResultItem,
    ResultSection,
    SessionSummary,
    TranscriptEntry,
)
from roundtable_desktop.kinds.negotiation.scenario import TRAITS
from roundtable_desktop.kinds.negotiation.state import SIDES, NegotiationState

_SPOKEN = {"MESSAGE"}
_SHOWN = {"MESSAGE", "LOOP", "ADJUDICATION", "TRAITS"}


def _value(v: float) -> str:
    return f"{v:g}"


def belief_trajectories(state: NegotiationState) -> str:
    """One line per side and trait: the observer's value at each recorded turn, and
    the side's self value now."""
    lines = []
    turns = [p.turn for p in state.trait_history]
    lines.append("Belief trajectories (observer's model at turns "
                 + ", ".join(str(t) for t in turns) + "; self profile now):")
    for side in SIDES:
        name = state.sides[side].name
        for trait in TRAITS:
            series = " → ".join(_value(p.observed[side][trait]) for p in state.trait_history)
            own = _value(state.sides[side].self_profile.as_dict()[trait])
            lines.append(f"{name} · {trait}: {series} (self {own})")
    lines.append("Influence over time: " + ", ".join(
        f"turn {p.turn}: ALLY {p.ally:.2f} / KEEPER {p.keeper:.2f}"
        for p in state.influence_history))
    return "\n".join(lines)


def negotiation_summary(state: NegotiationState) -> SessionSummary:
    names: dict[str, str] = {sid: state.sides[sid].name for sid in SIDES}
    transcript = []
    for entry in state.log:
        if entry.type not in _SHOWN:
            continue
        spoken = entry.type in _SPOKEN
        text = f"[{entry.act or 'NONE'}] {entry.text}" if spoken else entry.text
        transcript.append(TranscriptEntry(
            speaker=names.get(entry.who, entry.who.title()), text=text,
            kind="spoken" if spoken else "system", turn=entry.turn))
    items = []
    adj = state.adjudication
    if adj is not None:
        items.append(ResultItem(title=f"{adj.outcome.upper()}: {adj.reason}",
                                detail=f"decided by the {adj.decided_by} at turn {adj.turn} "
                                       f"(trigger: {adj.trigger})"))
        for sid, model in adj.final_models.items():
            items.append(ResultItem(
                title=f"Final model of {names.get(sid, sid)}",
                detail=json.dumps(model.dims.as_dict(), separators=(",", ":"))
                + (f" · tone: {model.tone}" if model.tone else "")))
        items.append(ResultItem(title="Influence", detail=" · ".join(
            f"{names.get(sid, sid)} {score:.2f}" for sid, score in adj.influence.items())))
    return SessionSummary(
        kind="negotiation",
        title=f"Negotiation: {state.scenario.title}",
        participants=[Participant(id=sid, name=names[sid], role=sid.lower(),
                                  human=state.sides[sid].human) for sid in SIDES],
        transcript=transcript,
        result=ResultSection(heading="Adjudication", items=items,
                             text=belief_trajectories(state),
                             empty_text="Not adjudicated yet.", final=adj is not None),
        ended=adj is not None,
        progress=Progress(step=state.turn_count, step_name="Turn", limit=state.scenario.turn_cap,
                          phase=adj.outcome if adj else state.phase),
    )


def stored_negotiation_summary(state: dict[str, Any]) -> SessionSummary:
    return negotiation_summary(NegotiationState.model_validate(state["negotiation"]))
