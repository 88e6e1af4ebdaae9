"""The transition tool: absent before min_exchanges, present after; a signal follows the
cartridge's transitions; max_exchanges ends the phase by rule; a CALL: line where the
endpoint has no native tools."""

from __future__ import annotations

import json

from roundtable_desktop.domain.calls import ToolCallRequest
from roundtable_desktop.kinds.tutor.requests import TOOL_REFUSALS
from roundtable_desktop.llm.errors import HTTPStatusError
from tests.fakes.scripted_model import ScriptedClient, ScriptedReply


def tool(signal: str) -> ToolCallRequest:
    return ToolCallRequest(id="c1", name="transition_phase",
                           arguments=json.dumps({"signal": signal}))


def tool_names(request) -> list[str]:
    return [t["function"]["name"] for t in request.tools or []]


def test_the_tool_is_absent_before_min_exchanges_and_present_from_then_on(tutor_at_chat):
    client = ScriptedClient("one", "two", "three")
    tutor = tutor_at_chat(client)  # the chat phase: min 2, max 6

    for line in ("first", "second", "third"):
        tutor.say(line)

    offered = [tool_names(r) for r in client.requests]
    assert offered == [[], ["transition_phase"], ["transition_phase"]]
    assert "tools" not in client.requests[0].to_body()
    assert client.requests[1].to_body()["tools"][0]["function"]["parameters"][
        "properties"]["signal"]["enum"] == ["understood", "partial", "max_reached"]


def test_understood_follows_the_cartridges_on_success(tutor_at_chat):
    client = ScriptedClient("hm", ScriptedReply("Fine, you got me.", (tool("understood"),)))
    tutor = tutor_at_chat(client)

    tutor.say("Who is your cousin?")
    tutor.say("It is too good to be true.")

    assert tutor.state.phase == "reveal"
    assert tutor.done_events()[-1] == {"phase_transition": "understood",
                                       "next_phase": "reveal", "exchanges_count": 2}
    assert tutor.state.transitions[-1].by == "tool"
    assert tutor.session.next_step().id == "debrief"


def test_partial_follows_on_partial_to_another_freeform_phase(tutor_at_chat):
    client = ScriptedClient("hm", ScriptedReply("Maybe.", (tool("partial"),)))
    tutor = tutor_at_chat(client)

    tutor.say("a")
    tutor.say("b")

    assert tutor.state.phase == "second_look"
    assert tutor.state.exchange_count() == 0
    assert tutor.session.awaiting_human() == "Student"


def test_a_signal_before_the_tool_was_offered_is_ignored(tutor_at_chat):
    client = ScriptedClient(ScriptedReply("Ha.", (tool("understood"),)))
    tutor = tutor_at_chat(client)

    tutor.say("first line")

    assert tutor.state.phase == "chat"
    assert tutor.done_events()[-1]["phase_transition"] is None


def test_max_exchanges_ends_the_phase_with_max_reached_by_rule(tutor_at_chat):
    client = ScriptedClient(*["Keep talking."] * 6)
    tutor = tutor_at_chat(client)

    for n in range(6):
        tutor.say(f"line {n}")

    assert tutor.state.phase == "reveal"
    last = tutor.state.transitions[-1]
    assert (last.signal, last.by, last.exchanges) == ("max_reached", "rule", 6)
    assert tutor.done_events()[-1] == {"phase_transition": "max_reached",
                                       "next_phase": "reveal", "exchanges_count": 6}


def test_in_prompt_mode_the_tool_is_a_call_line_the_prompt_explains(tutor_at_chat):
    client = ScriptedClient("one", 'You win.\nCALL: transition_phase("understood")')
    tutor = tutor_at_chat(client, tool_mode="prompt")

    tutor.say("first")
    tutor.say("second")

    first, second = client.requests
    assert first.tools is None and second.tools is None
    assert "CALL: transition_phase(" not in first.messages[0].content
    assert 'CALL: transition_phase("understood")' in second.messages[0].content
    assert tutor.state.phase == "reveal"
    assert tutor.state.exchanges[-1].text == "You win."


def test_an_endpoint_that_refuses_tools_gets_the_call_line_instead(tutor_at_chat):
    refusal = HTTPStatusError("scripted://test answered HTTP 400: tools are not supported.",
                              status=400)
    client = ScriptedClient("one", refusal, 'Right.\nCALL: transition_phase("partial")')
    client.endpoint = "scripted://no-tools"
    tutor = tutor_at_chat(client)

    tutor.say("first")
    assert tutor.say("second")

    assert [bool(r.tools) for r in client.requests] == [False, True, False]
    assert tutor.state.tool_mode == "prompt" and tutor.state.phase == "second_look"
    assert TOOL_REFUSALS.refused("scripted://no-tools", "m")


def test_a_tool_call_in_an_unknown_form_changes_nothing(tutor_at_chat):
    bad = ToolCallRequest(id="x", name="transition_phase", arguments='{"signal": "win"}')
    client = ScriptedClient("one", ScriptedReply("Hm.", (bad,)))
    tutor = tutor_at_chat(client)

    tutor.say("a")
    tutor.say("b")

    assert tutor.state.phase == "chat"

