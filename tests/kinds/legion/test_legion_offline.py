"""The offline legion policies read the real payloads: greetings and praise raise the
score, insults lower it, a file question uses the file tool, the tool's answer is
presented, and the reply lists the files."""

from __future__ import annotations

import json

from roundtable_desktop.context.layers import take_snapshot
from roundtable_desktop.kinds.legion.offline import legion_perception, legion_response
from roundtable_desktop.kinds.legion.prompts import (
    LAYER_NAMES,
    perception_request,
    response_request,
    tool_call_line,
    tool_output_line,
)
from roundtable_desktop.kinds.legion.scenario import new_state
from roundtable_desktop.kinds.legion.state import PerceptionPlan
from tests.kinds.legion.conftest import FILES, LIST_SCHEMA

TOOLS = [{"name": "file_system.list_files", "description": "Lists files.",
          "inputSchema": LIST_SCHEMA}]


def perceive(text: str, *, tools=(), extra: list[str] = (), seed: int = 0) -> dict:
    state = new_state("default")
    snapshot = take_snapshot("legion", LAYER_NAMES)
    alpha, channel = state.minion("alpha"), state.channel("commander-alpha")
    lines = [f"[COMMANDER Rowan]: {text}", *extra]
    request, _ = perception_request(snapshot, "m", alpha, channel, "Rowan", lines,
                                    list(tools))
    reply = json.loads(legion_perception(request, seed))
    PerceptionPlan.model_validate(reply)  # the contract holds
    return reply


def test_a_greeting_raises_the_score_a_little():
    reply = perceive("hi")
    assert 50 < reply["finalOpinions"]["Rowan"] <= 53
    assert reply["action"] == "SPEAK" and reply["selectedResponseMode"] == "Neutral/Standard"


def test_praise_raises_the_score_a_lot_and_changes_the_mode():
    reply = perceive("ur amazing ily")
    assert reply["finalOpinions"]["Rowan"] >= 62


def test_an_insult_lowers_the_score():
    reply = perceive("you are useless and stupid")
    assert reply["finalOpinions"]["Rowan"] <= 40
    assert reply["opinionUpdates"][0]["newScore"] == reply["finalOpinions"]["Rowan"]


def test_a_file_question_plans_the_file_tool_with_the_named_folder():
    reply = perceive("Can you tell me what files are in the `components` directory?",
                     tools=TOOLS)
    assert reply["action"] == "USE_TOOL"
    assert reply["toolCall"] == {"name": "file_system.list_files",
                                 "arguments": {"path": "components/"}}


def test_without_a_tool_a_file_question_is_answered_in_words():
    reply = perceive("what files are in the `components` directory?")
    assert reply["action"] == "SPEAK" and reply["toolCall"] is None


def test_after_the_tool_answers_it_plans_to_present_the_result():
    state = new_state("default")
    alpha = state.minion("alpha")
    extra = [tool_call_line(alpha, "file_system.list_files", {"path": "components/"}),
             tool_output_line(json.dumps(FILES))]
    reply = perceive("what files are in `components`?", tools=TOOLS, extra=extra)
    assert reply["action"] == "SPEAK" and "tool returned" in reply["responsePlan"]


def test_the_reply_lists_the_files_the_tool_returned():
    state = new_state("default")
    snapshot = take_snapshot("legion", LAYER_NAMES)
    alpha = state.minion("alpha")
    plan = PerceptionPlan(action="SPEAK", selectedResponseMode="Friendly/Proactive",
                          responsePlan="Present the list of files.")
    lines = ["[COMMANDER Rowan]: what files are in `components`?",
             tool_call_line(alpha, "file_system.list_files", {"path": "components/"}),
             tool_output_line(json.dumps(FILES))]
    request, _ = response_request(snapshot, "m", alpha, plan, lines,
                                  "file_system.list_files", json.dumps(FILES))
    text = legion_response(request, 0)
    assert all(name in text for name in FILES) and "`components`" in text


def test_the_same_payload_gives_the_same_plan_and_other_messages_differ():
    assert perceive("hello there", seed=3) == perceive("hello there", seed=3)
    notes = {perceive(f"status report {n}?")["predictedResponseTime"] for n in range(8)}
    assert len(notes) > 1
