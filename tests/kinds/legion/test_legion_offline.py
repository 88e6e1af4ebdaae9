"""The offline legion policies read the real payloads: greetings and praise raise the
score, insults lower it, a file question uses the file tool, the tool's answer is
presented, and the reply lists the files; a message is read for what it asks and answered
from the minion's own text bank, never echoed; an unaddressed minion's silence is the
engine's draw."""

from __future__ import annotations

import json
import re

import pytest

from roundtable_desktop.context.layers import take_snapshot
from roundtable_desktop.domain.words import sentences, words
from roundtable_desktop.kinds.legion.offline import legion_perception, legion_response
from roundtable_desktop.kinds.legion.offline_bank import SLOTS, banks, key_of
from roundtable_desktop.kinds.legion.offline_read import classify
from roundtable_desktop.kinds.legion.prompts import (
    LAYER_NAMES,
    perception_request,
    response_request,
    tool_call_line,
    tool_output_line,
)
from roundtable_desktop.kinds.legion.scenario import load_scenario, new_state
from roundtable_desktop.kinds.legion.state import PerceptionPlan, speaking_roll
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


# -- the text banks and what the offline minion answers --------------------------------------
REQUIRED = {"greeting", "farewell", "praise", "thanks", "insult", "smalltalk", "howareyou",
            "statement", "order", "order_quoted", "question", "opinion", "yesno", "who",
            "when", "howmany", "status", "defer", "files", "files_one", "files_empty",
            "file_read", "tool_failed", "no_tool", "peer_chat", "peer_work", "peer_answer",
            "peer_unsure", "peer_question", "peer_answer_topic", "peer_work_topic", "hostile"}
SINGLE = {"files_one", "files_empty"}  # one situation, one fact: one line is enough


def _templates(entry) -> list[str]:
    return entry if isinstance(entry, list) else [t for ts in entry.values() for t in ts]


@pytest.mark.parametrize("scenario", ["default", "newsroom", "starship"])
def test_every_minion_of_a_scenario_has_a_bank_in_its_own_voice(scenario):
    bank = banks()[scenario]
    for minion in load_scenario(scenario).minions:
        voice = bank.voices[minion.name.lower()]
        assert voice.persona == minion.persona
        assert set(voice.lines) >= REQUIRED, REQUIRED - set(voice.lines)
        for key, entry in voice.lines.items():
            assert len(_templates(entry)) >= (1 if key in SINGLE else 2), (minion.name, key)
        assert set(voice.topics) == {t.id for t in bank.topics}
        for parts in voice.topics.values():
            assert len(parts["answer"]) >= 3 and len(parts["order"]) >= 2


@pytest.mark.parametrize("scenario", ["default", "newsroom", "starship"])
def test_bank_lines_are_whole_sentences_with_slots_only_for_names_numbers_files_quotes(
        scenario):
    for voice in banks()[scenario].voices.values():
        lines = [t for e in voice.lines.values() for t in _templates(e)]
        lines += [t for parts in voice.topics.values() for ts in parts.values() for t in ts]
        seen: dict[str, str] = {}
        for template in lines:
            assert set(re.findall(r"\{(\w+)\}", template)) <= SLOTS, template
            assert template[-1] in ".!?\"", template  # it ends as a sentence ends
            for sentence in sentences(template):  # no two lines share a sentence
                assert sentence.lower() not in seen, (voice.name, sentence, template)
                seen[sentence.lower()] = template


@pytest.mark.parametrize(("text", "kind", "asks"), [
    ("hi", "greeting", ""),
    ("ur amazing ily", "praise", ""),
    ("The weather is nice today", "smalltalk", ""),
    ("What do you know about the supply depot?", "question", "what"),
    ("What do you think of the new dashboard?", "question", "opinion"),
    ("Should we take the shortcut?", "question", "advice"),
    ("How many open bugs do we have?", "question", "howmany"),
    ("When will the port coil be fixed?", "question", "when"),
    ("Who is handling the captions?", "question", "who"),
    ("Is the build green?", "question", "yesno"),
    ("Beta, draft a release checklist for Friday.", "order", ""),
    ("Can you check the logs?", "order", ""),
    ("Can you tell me what files are in the `components` directory?", "files", ""),
    ("Read the README.md file for me.", "read", ""),
    ("How are you?", "howareyou", ""),
    ("Thanks for your help today.", "thanks", ""),
    ("You are useless.", "insult", ""),
    ("See you tomorrow.", "farewell", ""),
    ("The inspectors arrive tomorrow.", "statement", ""),
])
def test_a_message_is_read_for_what_it_asks(text, kind, asks):
    act = classify(text)
    assert (act.kind, act.asks) == (kind, asks)


def reply_to(text: str, *, seed: int = 0, mode: str = "Neutral/Standard",
             minion: str = "alpha", persona: str | None = None) -> str:
    state = new_state("default")
    snapshot = take_snapshot("legion", LAYER_NAMES)
    who = state.minion(minion)
    if persona is not None:
        who.persona = persona
    plan = PerceptionPlan(action="SPEAK", selectedResponseMode=mode,
                          responsePlan="Answer Rowan (in private).")
    request, _ = response_request(snapshot, "m", who, plan, [f"[COMMANDER Rowan]: {text}"],
                                  None, None)
    return legion_response(request, seed)


@pytest.mark.parametrize("text", ["The weather is nice today",
                                  "On what do you think, I have doubts",
                                  "What do you know about the supply depot?"])
def test_the_commanders_words_are_answered_not_echoed(text):
    for seed in range(4):
        reply = reply_to(text, seed=seed).lower()
        assert text.lower().rstrip("?") not in reply
        asked = words(text)
        grams = {tuple(asked[i:i + 3]) for i in range(len(asked) - 2)}
        said = words(reply)
        assert not any(tuple(said[i:i + 3]) in grams for i in range(len(said) - 2)), reply


def test_a_question_about_a_topic_is_answered_with_that_topics_facts():
    voice = banks()["default"].voices["alpha"]
    reply = reply_to("How many open bugs do we have?", seed=1)
    assert key_of(banks()["default"], "Alpha", reply) == "topic:bugs:answer"
    assert re.search(r"\d+", reply)  # a number, since a number was asked for
    assert voice.topics["bugs"]["answer"]


def test_two_seeds_say_different_things_to_the_same_message():
    lines = ["hi", "What do you know about the supply depot?", "Draft the release notes.",
             "Thanks!", "How are you?"]
    assert [reply_to(t, seed=0) for t in lines] != [reply_to(t, seed=1) for t in lines]


def test_a_minion_with_a_persona_the_banks_do_not_know_speaks_in_the_nearest_voice():
    grumpy = reply_to("hi", minion="alpha",
                      persona="A grumpy, sarcastic engineer who dislikes chatter.")
    assert key_of(banks()["default"], "Beta", grumpy) == "greeting"


def perceive_in(channel: str, text: str, *, score: int, seed: int = 0) -> tuple[dict, str]:
    state = new_state("default")
    snapshot = take_snapshot("legion", LAYER_NAMES)
    beta = state.minion("beta")
    beta.scores["Rowan"] = score
    lines = [f"[COMMANDER Rowan]: {text}"]
    request, _ = perception_request(snapshot, "m", beta, state.channel(channel), "Rowan",
                                    lines, [])
    return json.loads(legion_perception(request, seed)), "\n".join(lines)


def test_unaddressed_a_minion_speaks_when_the_engines_draw_is_within_its_new_score():
    for seed in range(12):
        reply, history = perceive_in("war-room", "status update, anyone?", score=50,
                                     seed=seed)
        roll = speaking_roll(seed, "Beta", history)
        chance = reply["finalOpinions"]["Rowan"]
        assert reply["action"] == ("SPEAK" if roll <= chance else "STAY_SILENT")
        assert (reply["responsePlan"] == "") == (reply["action"] == "STAY_SILENT")


def test_addressed_by_name_or_in_its_dm_a_minion_always_plans_to_speak():
    for seed in range(12):
        named, _ = perceive_in("war-room", "Beta, status update?", score=1, seed=seed)
        direct, _ = perceive_in("commander-beta", "status update?", score=1, seed=seed)
        assert named["action"] == direct["action"] == "SPEAK"


def test_an_order_for_another_minion_is_left_to_it():
    for seed in range(12):
        reply, _ = perceive_in("war-room", "Gamma, draft the release notes.", score=100,
                               seed=seed)
        assert reply["action"] == "SPEAK" and reply["responsePlan"].startswith(
            "Leave this one to Gamma")


def _respond(text: str, earlier: list[str], seed: int, mode: str = "Neutral/Standard") -> str:
    state = new_state("default")
    snapshot = take_snapshot("legion", LAYER_NAMES)
    plan = PerceptionPlan(action="SPEAK", selectedResponseMode=mode,
                          responsePlan="Answer the Commander (in front of the group).")
    request, _ = response_request(snapshot, "m", state.minion("alpha"), plan,
                                  [f"[COMMANDER Rowan]: {text}"], None, None,
                                  [f"[#commander-alpha] {line}" for line in earlier])
    return legion_response(request, seed)


@pytest.mark.parametrize("text", ["Thanks for your help today.", "How are you holding up?",
                                  "What do you know about the supply depot?"])
def test_a_minion_never_says_again_what_its_earlier_lines_elsewhere_hold(text):
    for seed in range(8):
        said: list[str] = []
        for _ in range(4):  # four answers in a row, each seeing the ones before
            reply = _respond(text, said, seed)
            assert not set(sentences(reply)) & {s for line in said for s in sentences(line)}
            said.append(reply)
