"""Classical mode in the debate's SessionSummary: each turn as a transcript entry (who
spoke, whom they cut in on, who cut them off, silent turns), the sidebar's citations
after their turn, and a progress line. Export, the CLI and the session list show it
through debate_summary. Reads the state; must not change it or import Qt.
"""

from __future__ import annotations

from roundtable_desktop.domain.plural import count_of
from roundtable_desktop.domain.summary import Progress, TranscriptEntry
from roundtable_desktop.kinds.debate.state import DebateState


def classical_entries(state: DebateState) -> list[TranscriptEntry]:
    c = state.classical
    if c is None:
        return []
    name = {a.id: a.name for a in state.agents}
    entries = []
    for turn in c.turns:
        channel = f"classical · turn {turn.index}"
        if turn.silent:
            entries.append(TranscriptEntry(speaker="Silence", kind="silent", turn=turn.index,
                                           channel=channel,
                                           text="Everyone chose to listen."))
            continue
        text = turn.text or "(said nothing)"
        if turn.interrupts:
            text = f"(cutting in on {name.get(turn.interrupts, turn.interrupts)}) {text}"
        if turn.interrupted_by:
            text += f" — cut off by {name.get(turn.interrupted_by, turn.interrupted_by)}"
        if turn.failed:
            text += f" ({turn.failed})"
        entries.append(TranscriptEntry(
            speaker=name.get(turn.speaker or "", turn.speaker or "?"), text=text,
            kind="interrupted" if turn.interrupted_by else "spoken", turn=turn.index,
            channel=channel))
        for cite in (e for e in c.sidebar if e.turn == turn.index):
            entries.append(TranscriptEntry(
                speaker=name.get(cite.agent, cite.agent), kind=cite.kind, turn=turn.index,
                channel="sidebar", text=f"{cite.source}: \"{cite.snippet}\""))
    return entries


def classical_progress(state: DebateState) -> Progress:
    c = state.classical
    turns = len(c.turns) if c else 0
    cut = len(c.interruptions()) if c else 0
    silent = len(c.silent_turns()) if c else 0
    return Progress(label="classical", step=turns, step_name="turn", counted=True,
                    detail=[count_of(cut, "interruption"), f"{silent} silent"],
                    phase=state.phase)
