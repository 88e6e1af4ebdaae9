"""Roundtable turn rules (seed 001) beyond the invariants: refusals, ending, budget."""

from __future__ import annotations

from roundtable_desktop.domain.transcript import TranscriptKind
from roundtable_desktop.engine.base import Action, ActionUnavailable
from roundtable_desktop.kinds.roundtable.session import RoundtableSession
from roundtable_desktop.llm.errors import TransportError
from tests.engine_fixtures import act, run


def test_refusal_is_in_the_transcript_and_the_actors_next_window(meeting, scripted):
    meeting.state.current = 1  # a participant
    scripted.queue("CALL: endMeeting()\nCALL: rankCandidates(videoId)", "CALL: passTurn()")
    act(meeting, "infer")
    act(meeting, "run_tools")  # refused, then re-infers the same actor
    refusals = [t for t in meeting.state.transcript if t.kind == TranscriptKind.REFUSAL]
    assert len(refusals) == 2
    window = scripted.requests[1].user_text()
    assert "endMeeting is for the Administrator only" in window
    assert "placeholder" in window


def test_refusals_are_shown_once(meeting, scripted):
    meeting.state.current = 1
    scripted.queue("CALL: endMeeting()", "CALL: addWhiteboard(\"ok\")", "CALL: passTurn()")
    act(meeting, "infer")
    act(meeting, "run_tools")
    act(meeting, "run_tools")
    assert "did not run" in scripted.requests[1].user_text()
    assert "did not run" not in scripted.requests[2].user_text()


def test_unparseable_call_is_reported_in_the_transcript(meeting, scripted):
    scripted.queue('CALL: addWhiteboard("unterminated')
    act(meeting, "infer")
    assert any("could not parse" in t.text for t in meeting.state.transcript)


def test_end_meeting_freezes_the_meeting(meeting, scripted):
    scripted.queue("CALL: endMeeting()")
    act(meeting, "infer")
    act(meeting, "run_tools")
    assert meeting.ended
    enabled = [a.id for a in meeting.actions() if a.enabled]
    assert enabled == []
    try:
        act(meeting, "infer")
    except ActionUnavailable as exc:
        assert "ended" in str(exc)
    else:
        raise AssertionError("infer ran after the meeting ended")


def test_finalize_commits_exactly_the_given_ids(meeting, scripted):
    ids = [c.id for c in meeting.state.candidates[:3]]
    scripted.queue(f"CALL: finalizeMeeting({', '.join(ids)})")
    act(meeting, "infer")
    act(meeting, "run_tools")
    assert [s.candidate.id for s in meeting.state.suggestions] == ids
    assert meeting.ended


def test_next_turn_discards_unrun_calls_visibly(meeting, scripted):
    scripted.queue("CALL: addWhiteboard(\"never\")")
    act(meeting, "infer")
    act(meeting, "next_turn")
    assert meeting.state.whiteboard == []
    assert any("were not run" in t.text for t in meeting.state.transcript)
    assert meeting.state.current == 1


def test_actions_say_why_they_are_disabled(meeting):
    run_tools = next(a for a in meeting.actions() if a.id == "run_tools")
    assert not run_tools.enabled and "no reply" in run_tools.reason.lower()


def test_over_budget_call_is_refused_with_a_clear_message(meeting, scripted):
    meeting.budget = 100
    notices = []
    meeting.bus.subscribe(lambda e: notices.append(e) if e.type == "notice" else None)
    act(meeting, "infer")
    assert scripted.requests == []
    assert "over the budget" in notices[0].message


def test_human_seat_reply_follows_the_same_rules(meeting, scripted):
    meeting.state.actors[0].human = True
    infer = next(a for a in meeting.actions() if a.id == "infer")
    assert not infer.enabled
    run(meeting.perform(Action(id="send", text="CALL: addWhiteboard(\"from a human\")\n"
                                              "CALL: passTurn()")))
    act(meeting, "run_tools")
    assert scripted.requests == []
    assert meeting.state.whiteboard[0].text == "from a human"
    assert meeting.state.current == 1


def test_max_inferences_per_turn_stops_reinferring(meeting, scripted):
    scripted.default = "CALL: addWhiteboard(\"loop\")"
    act(meeting, "infer")
    for _ in range(5):
        if meeting.state.phase == "tools_pending":
            act(meeting, "run_tools")
    assert len(scripted.requests) == meeting.max_inferences_per_turn


def test_a_restored_session_is_not_connected_to_mcp(meeting, scripted, catalog):
    meeting.state.mcp_status, meeting.state.mcp_tools = "connected", ["search_videos"]
    restored = RoundtableSession.restore(meeting.state_dict(), client=scripted, source=catalog)
    assert restored.state.mcp_status == "not connected" and restored.state.mcp_tools == []
    assert "Status: not connected" in restored.pending_payloads()[0].document


def test_a_failed_call_stops_auto(meeting, scripted):
    scripted.queue(TransportError("Could not connect to the server."))
    act(meeting, "auto", steps=6)
    assert len(scripted.requests) == 1
    assert not meeting.busy and meeting.state.phase == "ready"
