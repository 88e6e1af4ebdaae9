"""Create a new roundtable meeting from the bundled roster, prompts and mock data.

Must not run turns; it only builds the starting MeetingState.
"""

from __future__ import annotations

from roundtable_desktop.context.layers import resolve_layer
from roundtable_desktop.domain.transcript import TranscriptKind
from roundtable_desktop.kinds.roundtable.actor_prompt import parse_actor_prompt
from roundtable_desktop.kinds.roundtable.actors import Actor
from roundtable_desktop.kinds.roundtable.meeting import MeetingState, TranscriptLine
from roundtable_desktop.kinds.roundtable.sources.base import CandidateSource
from roundtable_desktop.kinds.roundtable.sources.mock_data import (
    load_facts,
    load_meeting_roster,
    load_user_profile,
    load_watch_history,
)
from roundtable_desktop.sources.errors import SourceError


def load_actors(roster: str = "default", *, scenario: str = "default",
                provider: str = "offline") -> tuple[str, list[Actor]]:
    meeting = load_meeting_roster(roster)
    actors = []
    for entry in meeting.actors:
        layer = resolve_layer("roundtable", entry.prompt, scenario=scenario, provider=provider)
        if layer is None:
            raise SourceError(f"No prompt file for actor {entry.id!r} ({entry.prompt}.md).")
        actor = parse_actor_prompt(entry.id, layer.text, source=layer.source)
        actors.append(actor.model_copy(update={"name": entry.name or actor.name,
                                               "role": entry.role or actor.role}))
    return meeting.title, actors


async def new_meeting_state(
    source: CandidateSource, *, roster: str = "default", scenario: str = "default",
    provider: str = "offline",
) -> MeetingState:
    title, actors = load_actors(roster, scenario=scenario, provider=provider)
    state = MeetingState(
        title=title,
        scenario=scenario,
        user=load_user_profile(),
        actors=actors,
        facts=load_facts(),
        watch_history=load_watch_history(),
    )
    result = await source.search(None)
    state.candidates = result.candidates
    state.candidate_source = result.source
    state.candidate_notice = result.notice
    state.transcript.append(TranscriptLine(actor_id=None, kind=TranscriptKind.SYSTEM, turn=1,
                                           text=f"Turn 1: {state.actor.name}."))
    return state
