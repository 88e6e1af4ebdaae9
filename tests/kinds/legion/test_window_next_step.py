"""What the legion's chat dock tells the Commander to do next, and how a diary reads:
plain functions over the state, no window."""

from __future__ import annotations

from roundtable_desktop.kinds.legion.scenario import new_state
from roundtable_desktop.kinds.legion.state import Diary, PerceptionPlan, ToolStep
from roundtable_desktop.ui.kinds.legion.diary import diary_text
from roundtable_desktop.ui.kinds.legion.next_step import (
    at_work_lines,
    next_sentence,
    thinking_sentence,
)


def test_with_nothing_going_on_the_commander_is_told_to_write():
    state = new_state("default")

    sentence = next_sentence(state, channel="commander-alpha", read_only=False)

    assert sentence.startswith("Write to your minions: pick a channel and press Enter")


def test_while_minions_think_the_commander_is_told_they_may_keep_writing():
    state = new_state("default")
    thinking = {("Beta", "war-room"), ("Alpha", "war-room")}

    sentence = next_sentence(state, channel="war-room", read_only=False, thinking=thinking)

    assert sentence.startswith("Alpha and Beta are thinking in #war-room…")
    assert "You may keep writing" in sentence


def test_the_minions_only_channel_asks_for_a_topic():
    state = new_state("default")

    assert "write a topic" in next_sentence(state, channel="minions-only", read_only=False)


def test_an_auto_chat_waiting_names_its_keys_and_an_ended_session_says_so():
    state = new_state("default")
    state.autochat_left, state.autochat_channel = 2, "war-room"
    assert "Ctrl+Shift+Return" in next_sentence(state, channel="war-room", read_only=False)
    state.ended = True
    assert next_sentence(state, channel="war-room", read_only=False).startswith(
        "The session has ended")


def test_thinking_in_another_channel_is_not_shown_under_this_one():
    assert thinking_sentence({("Gamma", "commander-gamma")}, "war-room") == ""
    assert thinking_sentence({("Gamma", "commander-gamma")}) == (
        "Gamma is thinking in #commander-gamma…")


def test_a_diary_shows_the_plan_the_tool_and_the_quiet_line():
    plan = PerceptionPlan(perceptionAnalysis="A file question.", action="USE_TOOL",
                          selectedResponseMode="Friendly/Proactive",
                          responsePlan="List the directory.",
                          toolCall={"name": "file_system.list_files",
                                    "arguments": {"path": "components/"}})
    spoke = Diary(minion="Alpha", channel="commander-alpha", about=5, plans=[plan],
                  outcome="spoke", addressed=True,
                  tool_steps=[ToolStep(name="file_system.list_files",
                                       arguments={"path": "components/"},
                                       output='["A.tsx"]')])
    silent = Diary(minion="Beta", channel="war-room", about=7, plans=[plan],
                   outcome="silent", chance=40, roll=71)

    text = diary_text(spoke)
    assert "Perception: A file question." in text
    assert '[TOOL CALL] file_system.list_files({"path": "components/"})' in text
    assert '"perceptionAnalysis": "A file question."' in text
    assert "Beta stayed silent (drew 71 against a chance of 40)." in diary_text(silent)


def test_a_diary_says_a_minion_chose_to_speak_with_its_chance_when_nothing_was_drawn():
    spoke = Diary(minion="Beta", channel="war-room", about=1, outcome="spoke", chance=40)
    assert "Chose to speak (a chance of 40 to speak)." in diary_text(spoke)


def test_each_minion_at_work_in_the_channel_has_its_own_line_typing_first():
    thinking = {("Alpha", "war-room"), ("Beta", "war-room"), ("Gamma", "commander-gamma")}
    typing = {("Beta", "war-room")}
    assert at_work_lines(thinking, typing, "war-room") == "Beta is typing…\nAlpha is thinking…"
    assert at_work_lines(thinking, typing, "minions-only") == ""
