"""The debate as a kind-neutral SessionSummary: the disagreement map first (the result),
then the claims, initial stances, every round's answers and every merge (the transcript).

The result reads as one: its text is one sentence built from the claims' outcomes
("Stopped after 2 merge cycles: c1 converged (pro 100%), c3 converged (con 100%), c2
split."), each claim's item is titled with the same words, and why the debate stopped
(the stop condition and its figures, as they stood at that event) is an item of its own,
worded so it never contradicts the outcomes. `claim_figures` reads a claim item's detail
back into the claim's text and its figures (the window shows them on two lines).

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
from roundtable_desktop.kinds.debate.state import ClaimOutcome, ClaimPosition, DebateState

FIGURES_SEP = " — "  # between a claim's text and its figures (the figures never hold it)
WHY_TITLE = "Why it stopped"
# How each stop condition of seed 004 reads beside the outcomes (never "diverged" beside
# "converged": the condition speaks of the debate at that event, the outcomes of its end).
STOP_WORDS = {"converged": "the tables agreed", "diverged": "the disagreement held",
              "cap": "it reached the most it may run",
              "schedule": "the schedule was played out"}


def outcome_words(outcome: ClaimOutcome) -> str:
    """"c1 converged (pro 100%)", "c2 split (con 60%)", "c2 split" (no side leads)."""
    lead = f" ({outcome.side} {outcome.share:.0%})" if outcome.side else ""
    return f"{outcome.claim} {outcome.status}{lead}"


def is_outcome_title(title: str) -> bool:
    """Whether a result item's title is a claim's outcome ("c1 converged (pro 100%)")."""
    head, _, rest = title.partition(" ")
    return bool(head) and head[0] == "c" and head[1:].isdigit() and \
        rest.split(" ")[0] in ("converged", "split")


def claim_figures(detail: str) -> tuple[str, str]:
    """A claim item's detail as (the claim's text, its figures)."""
    text, sep, figures = detail.rpartition(FIGURES_SEP)
    return (text, figures) if sep else (detail, "")


def _so_far(state: DebateState) -> str:
    """"2 merge cycles" (blitz) or "12 turns" (classical): how far the debate went."""
    if state.mode == "classical":
        return count_of(len(state.classical.turns) if state.classical else 0, "turn")
    return count_of(len(state.merges), "merge cycle")


def result_sentence(state: DebateState) -> str:
    """"Stopped after 2 merge cycles: c1 converged (pro 100%), c3 converged (con 100%), c2
    split." — converged claims first; "" before any claim has an outcome."""
    if not state.outcomes:
        return ""
    ordered = sorted(state.outcomes, key=lambda o: o.status != "converged")
    return f"{stopped_words(state)}: {', '.join(outcome_words(o) for o in ordered)}."


def stopped_words(state: DebateState) -> str:
    """"Stopped after 2 merge cycles", "Stopped at the cap of 1 merge cycle", "Stopped
    after 12 turns" ("Ended after …" when no stop condition was met)."""
    if state.stop_reason == "cap":
        cap = _so_far(state) if state.mode == "classical" else \
            count_of(state.max_events, "event")
        return f"Stopped at the cap of {cap}"
    return f"{'Stopped' if state.stop_reason else 'Ended'} after {_so_far(state)}"


def _why(state: DebateState) -> list[ResultItem]:
    if not state.stop_reason:
        return []
    words = STOP_WORDS.get(state.stop_reason, state.stop_reason)
    detail = f"{words}: {state.stop_detail}" if state.stop_detail else words
    return [ResultItem(title=WHY_TITLE, detail=f"{detail[:1].upper()}{detail[1:]}.")]


def _positions(turn_stances: list[ClaimPosition]) -> str:
    return ", ".join(f"{p.claim} {p.stance} {p.confidence:.2f}" for p in turn_stances)


def _map_items(state: DebateState) -> list[ResultItem]:
    items = [ResultItem(title=outcome_words(o),
                        detail=f"{state.claim(o.claim).text}{FIGURES_SEP}"
                               f"{o.side or 'no side'} {o.share:.0%} of confidence; entropy "
                               f"{o.entropy_bits:.2f} bits; distance {o.distance:.2f}; "
                               f"{count_of(o.heavy_open, 'heavy open crux', 'heavy open cruxes')}")
             for o in state.outcomes]
    items += _why(state)
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
                                f"{'; why: ' + e.why if e.why else ''}"
                                f"{'; cited: ' + '; '.join(e.cited) if e.cited else ''}",
                         by=[e.agent])
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
    return SessionSummary(
        kind="debate",
        title=f"{state.topic} ({state.deck_title or state.deck}"
              f"{', classical' if state.mode == 'classical' else ''})",
        participants=[Participant(id=a.id, name=a.name, role=f"{a.suite} {a.handle}")
                      for a in state.agents],
        transcript=_entries(state),
        result=ResultSection(heading="Disagreement map", items=_map_items(state),
                             text=result_sentence(state), final=state.ended,
                             empty_text="No map yet: the debate is still running."),
        ended=state.ended,
        progress=classical_progress(state) if state.mode == "classical" else
        Progress(step=state.table_rounds(), step_name="table round", counted=True,
                 detail=[count_of(len(state.merges), "merge")], phase=state.phase),
    )


def stored_debate_summary(state: dict[str, Any]) -> SessionSummary:
    return debate_summary(DebateState.model_validate(state["debate"]))
