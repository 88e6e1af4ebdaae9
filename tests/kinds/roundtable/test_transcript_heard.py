"""What the actors are sent as the transcript (issue 30 point 3, seed 001): the lines
spoken with addTranscript and the turn changes that place them, not an action log. Tool
calls stay in the state (the Transcript dock, the exports), and a refusal still reaches
the actor that made it, in its own next context window."""

from __future__ import annotations

from lxml import etree

from roundtable_desktop.domain.transcript import TranscriptKind
from tests.engine_fixtures import act

NS = {"x": "http://www.w3.org/1999/xhtml"}


def transcript_sent(request) -> list[tuple[str, str]]:
    """The transcript section's lines of a request as the model reads them: (class, text)."""
    root = etree.fromstring(request.user_text().encode())
    items = root.xpath("//x:section[@id='transcript']//x:li", namespaces=NS)
    return [(li.get("class"), li.xpath("string()")) for li in items]


def refusals_sent(request) -> list[str]:
    root = etree.fromstring(request.user_text().encode())
    return [li.xpath("string()") for li in root.xpath("//*[@class='refusals']//x:li",
                                                      namespaces=NS)]


def test_the_transcript_sent_holds_spoken_lines_and_turn_changes_not_tool_calls(
    meeting, scripted
):
    ids = [c.id for c in meeting.state.candidates[:2]]
    scripted.queue(
        f"CALL: rankCandidates({', '.join(ids)})\nCALL: updateSuggestions(2)\n"
        'CALL: addWhiteboard("two picks committed")\n'
        'CALL: addTranscript("I committed two picks for the LLM interest.")\n'
        "CALL: passTurn()",
        "CALL: passTurn()",
    )
    act(meeting, "infer")
    act(meeting, "run_tools")  # the Administrator passes
    act(meeting, "infer")  # the next actor

    sent = transcript_sent(scripted.requests[-1])
    assert {kind for kind, _ in sent} == {"spoken", "system"}
    assert any("I committed two picks" in text for kind, text in sent if kind == "spoken")
    assert not any("rankCandidates" in text or "updateSuggestions" in text
                   or "addWhiteboard" in text for _, text in sent)
    assert sent[-1][0] == "system" and sent[-1][1].startswith("Turn 2")


def test_tool_calls_stay_in_the_state_and_the_summary_the_window_and_exports_show(
    meeting, scripted
):
    scripted.queue('CALL: addWhiteboard("shared")\nCALL: passTurn()')
    act(meeting, "infer")
    act(meeting, "run_tools")

    tools = [t.text for t in meeting.state.transcript if t.kind == TranscriptKind.TOOL]
    assert 'addWhiteboard("shared")' in tools
    entries = meeting.summary().transcript
    assert any('addWhiteboard("shared")' in e.text and e.kind == "tool" for e in entries)


def test_a_refusal_reaches_the_actor_that_made_it_and_no_other(meeting, scripted):
    meeting.state.current = 1  # a participant: endMeeting is refused
    scripted.queue("CALL: endMeeting()", "CALL: passTurn()", "CALL: passTurn()")
    act(meeting, "infer")
    act(meeting, "run_tools")  # refused, so the same actor infers again
    act(meeting, "run_tools")  # it passes
    act(meeting, "infer")  # the next actor

    own, other = scripted.requests[1], scripted.requests[2]
    assert any("endMeeting is for the Administrator only" in r for r in refusals_sent(own))
    assert "endMeeting" not in "".join(text for _, text in transcript_sent(other))
    assert refusals_sent(other) == []


def test_a_line_that_could_not_be_parsed_reaches_its_actors_next_context(meeting, scripted):
    scripted.queue('CALL: addWhiteboard("unterminated\nCALL: awaitResults()', "CALL: passTurn()")
    act(meeting, "infer")
    act(meeting, "run_tools")

    assert any("could not parse" in line for line in refusals_sent(scripted.requests[1]))


def test_turns_passed_in_silence_leave_only_the_latest_turn_change(meeting, scripted):
    scripted.queue('CALL: addTranscript("Science fiction first.")\nCALL: passTurn()',
                   *["CALL: passTurn()"] * 3)
    for _ in range(3):
        act(meeting, "infer")
        act(meeting, "run_tools")
    act(meeting, "infer")

    sent = transcript_sent(scripted.requests[-1])
    assert [kind for kind, _ in sent] == ["system", "spoken", "system"]
    assert sent[0][1].startswith("Turn 1") and sent[2][1].startswith("Turn 4")
    turns = [t for t in meeting.state.transcript if t.text.startswith("Turn ")]
    assert len(turns) == 4  # the state keeps every turn change


def test_nothing_said_yet_is_one_sentence(meeting, scripted):
    scripted.queue("CALL: passTurn()", "CALL: passTurn()")
    act(meeting, "infer")
    act(meeting, "run_tools")
    act(meeting, "infer")

    root = etree.fromstring(scripted.requests[-1].user_text().encode())
    section = root.xpath("//x:section[@id='transcript']", namespaces=NS)[0]
    assert "Nothing has been said yet." in section.xpath("string()")
    assert transcript_sent(scripted.requests[-1]) == []
