"""The debate as a kind-neutral SessionSummary: the disagreement map first (the result),
then the claims, initial stances, every round's answers and every merge (the transcript).

Export (HTML, Markdown, JSON), the CLI and the session list show a debate through this.
Reads a DebateState (live) or a stored state dict; must not change either.
"""

from __future__ import annotations

from typing import Any

from roundtable_desktop.domain.plural import count_of
from roundtable_desktop.domain.summary import (
    Participant,
    Progress,
    ResultItem,
    ResultSection,
    SessionSummary,
    TranscriptEntry,
)
from roundtable_desktop.kinds.debate.classical.summary import (
    classical_entries,
    classical_progress,
)
from roundtable_desktop.kinds.debate.progress import outcome_sentence
from roundtable_desktop.kinds.debate.state import ClaimPosition, DebateState


def _positions(turn_stances: list[ClaimPosition]) -> str:
    return ", ".join(f"{p.claim} {p.stance} {p.confidence:.2f}" for p in turn_stances)


def _map_items(state: DebateState) -> list[ResultItem]:
    items = [ResultItem(title=f"{o.claim}: {o.status}",
                        detail=f"{state.claim(o.claim).text} — {o.side or 'no side'} "
                               f"{o.share:.0%} of confidence; entropy {o.entropy_bits:.2f} "
                               f"bits; distance {o.distance:.2f}; heavy open cruxes "
                               f"{o.heavy_open}")
             for o in state.outcomes]
    m = state.map
    if m is None:
        return items
    items += [ResultItem(title=f"Crux: {c.text}", detail=c.why) for c in m.cruxes]
    items += [ResultItem(title=f"Fault line ({f.category})", detail=f.description,
                         by=f.agents) for f in m.fault_lines]
    items += [ResultItem(title=f"Flip conditions of {f.agent}",
                         detail="; ".join(f.conditions), by=[f.agent])
              for f in m.flip_conditions]
    items += [ResultItem(title=f"Evidence ledger of {e.agent}",
                         detail=f"accepts: {'; '.join(e.accepts) or '-'}; rejects: "
                                f"{'; '.join(e.rejects) or '-'}"
                                f"{'; why: ' + e.why if e.why else ''}", by=[e.agent])
              for e in m.evidence_ledger]
    items += [ResultItem(title="Resolution path", detail=p) for p in m.resolution_paths]
    return items


def _entries(state: DebateState) -> list[TranscriptEntry]:
    name = {a.id: a.name for a in state.agents}
    entries = [TranscriptEntry(speaker="Claims", kind="system",
                               text=f"{c.id}: {c.text} (pro: {c.pro} / con: {c.con})")
               for c in state.claims]
    for s in state.stances:
        if s.round == 0:
            entries.append(TranscriptEntry(
                speaker=name.get(s.agent, s.agent), kind="stance", turn=0,
                text=f"{s.claim}: {s.stance} {s.confidence:.2f} — "
                     f"{s.reason or s.failed or '-'}"))
    merges = {m.round: m for m in state.merges}
    for r in state.rounds:
        where = "final table" if r.final else "round"
        for t in r.turns:
            text = t.response if not t.failed else f"(no answer: {t.failed})"
            if t.stances:
                text += f" [{_positions(t.stances)}]"
            entries.append(TranscriptEntry(speaker=name.get(t.agent, t.agent), text=text,
                                           kind="spoken" if not t.failed else "failed",
                                           turn=r.index, channel=f"{where} · table {t.table}"))
        if (m := merges.get(r.index)) is not None and not r.final:
            text = " | ".join(m.disagreement) or "no open crux"
            if m.failed:
                text += f" ({m.failed})"
            entries.append(TranscriptEntry(speaker="Merge", kind="system", turn=r.index,
                                           text=text))
    return entries + classical_entries(state)


def debate_summary(state: DebateState) -> SessionSummary:
    stop = outcome_sentence(state) if state.stop_reason else ""
    return SessionSummary(
        kind="debate",
        title=f"{state.topic} ({state.deck_title or state.deck}"
              f"{', classical' if state.mode == 'classical' else ''})",
        participants=[Participant(id=a.id, name=a.name, role=f"{a.suite} {a.handle}")
                      for a in state.agents],
        transcript=_entries(state),
        result=ResultSection(heading="Disagreement map", items=_map_items(state),
                             text=stop, final=state.ended,
                             empty_text="No map yet: the debate is still running."),
        ended=state.ended,
        progress=classical_progress(state) if state.mode == "classical" else
        Progress(step=state.table_rounds(), step_name="table round", counted=True,
                 detail=[count_of(len(state.merges), "merge")], phase=state.phase),
    )


def stored_debate_summary(state: dict[str, Any]) -> SessionSummary:
    return debate_summary(DebateState.model_validate(state["debate"]))
