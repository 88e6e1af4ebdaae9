"""The offline roundtable policy reads the payload it is given and acts plausibly."""

from __future__ import annotations

import re

from roundtable_desktop.domain.calls import ChatMessage, ChatRequest
from roundtable_desktop.kinds.roundtable.catalog import Suggestion, WatchItem
from roundtable_desktop.kinds.roundtable.meeting import Note
from roundtable_desktop.kinds.roundtable.tools import ROUNDTABLE_TOOLS
from roundtable_desktop.llm.offline import OfflineClient
from roundtable_desktop.tools.parser import parse_reply


def _reply(meeting) -> str:
    return OfflineClient(delay_s=0).reply_for(meeting.pending_payloads()[0].request)


def _calls(text: str) -> list[str]:
    return [c.name for c in parse_reply(text, ROUNDTABLE_TOOLS.keys()).calls]


def test_same_payload_gives_the_same_reply(meeting):
    assert _reply(meeting) == _reply(meeting)


def test_participant_fetches_a_list_for_its_interests_on_its_first_turn(meeting):
    meeting.state.current = 1
    assert _calls(_reply(meeting))[-2:] == ["addActorNote", "awaitResults"]
    assert "fetchCandidates" in _calls(_reply(meeting))


def test_participant_commits_real_visible_ids_once_it_has_notes(meeting):
    meeting.state.current = 1
    actor = meeting.state.actor
    meeting.state.notes[actor.id] = [Note(author=actor.id, text="Fetched earlier")]
    reply = _reply(meeting)
    assert _calls(reply) == ["rankCandidates", "updateSuggestions", "addActorNote",
                             "addWhiteboard", "addTranscript", "passTurn"]
    ranked = re.search(r"rankCandidates\(([^)]*)\)", reply).group(1).split(", ")
    visible = {c.id for c in meeting.state.candidates}
    assert ranked and set(ranked) <= visible


def test_participant_never_picks_a_watched_video(meeting):
    meeting.state.current = 1
    actor = meeting.state.actor
    meeting.state.notes[actor.id] = [Note(author=actor.id, text="Fetched earlier")]
    first_pick = re.search(r"rankCandidates\((\w[\w-]*)", _reply(meeting)).group(1)
    watched = meeting.state.candidate(first_pick)
    meeting.state.watch_history.append(WatchItem(title=watched.title, video_id=watched.id))
    assert first_pick not in re.search(r"rankCandidates\(([^)]*)\)", _reply(meeting)).group(1)


def test_participant_with_committed_picks_only_passes(meeting):
    meeting.state.current = 1
    actor = meeting.state.actor
    meeting.state.suggestions = [
        Suggestion(candidate=c, proposed_by=[actor.id]) for c in meeting.state.candidates[:3]
    ]
    assert _reply(meeting) == "CALL: passTurn()"


def test_administrator_finalizes_a_balanced_list_in_round_three(meeting):
    state = meeting.state
    state.turn = 2 * len(state.actors) + 1  # round 3, the Administrator's seat
    by = [a.id for a in state.actors[1:]]
    state.suggestions = [
        Suggestion(candidate=c, proposed_by=[by[i // 2]])
        for i, c in enumerate(state.candidates[:6])
    ]
    reply = _reply(meeting)
    assert _calls(reply)[-1] == "finalizeMeeting"
    ids = re.search(r"finalizeMeeting\(([^)]*)\)", reply).group(1).split(", ")
    assert ids[:3] == [state.candidates[0].id, state.candidates[2].id, state.candidates[4].id]


def test_a_payload_that_is_not_a_context_window_gets_a_pass():
    request = ChatRequest(model="offline", kind="roundtable", messages=[
        ChatMessage(role="user", content='<main data-kind="roundtable"><unclosed>')])
    assert OfflineClient(delay_s=0).reply_for(request) == "CALL: passTurn()"
