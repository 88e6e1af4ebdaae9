"""The roundtable meeting as a kind-neutral SessionSummary: actors, transcript, suggestions.

Export, the CLI and the window show any kind through a SessionSummary; this is the
roundtable's. It reads a MeetingState (live) or a stored state dict (export, replay).
Must not change the meeting.
"""

from __future__ import annotations

from typing import Any

from roundtable_desktop.domain.summary import (
    Participant,
    Progress,
    ResultItem,
    ResultSection,
    SessionSummary,
    TranscriptEntry,
)
from roundtable_desktop.kinds.roundtable.meeting import MeetingState


def meeting_summary(state: MeetingState) -> SessionSummary:
    names = {a.id: a.name for a in state.actors}
    final = bool(state.final_ids)
    items = [
        ResultItem(
            title=s.candidate.title,
            detail=" · ".join(part for part in (s.candidate.channel, s.candidate.duration,
                                                s.candidate.id) if part),
            by=[names.get(a, a) for a in s.proposed_by],
        )
        for s in state.suggestions
    ]
    return SessionSummary(
        kind="roundtable",
        title=state.title,
        participants=[
            Participant(id=a.id, name=a.name, role=a.role.value, human=a.human)
            for a in state.actors
        ],
        transcript=[
            TranscriptEntry(
                speaker=names.get(line.actor_id, line.actor_id) if line.actor_id else "System",
                text=line.text, kind=line.kind.value, turn=line.turn,
            )
            for line in state.transcript
        ],
        result=ResultSection(
            heading="Suggestions",
            items=items, empty_text="No suggestions were committed.", final=final,
        ),
        ended=state.ended,
        progress=Progress(step=state.turn, step_name="Turn", detail=[f"round {state.round}"]),
    )


def stored_meeting_summary(state: dict[str, Any]) -> SessionSummary:
    """The summary of a stored roundtable state (`RoundtableSession.state_dict()`)."""
    return meeting_summary(MeetingState.model_validate(state["meeting"]))
