"""Whole offline legion sessions, as a presenter would show them: every bundled scenario ×
seeds 0-3, the Commander's lines from resources/legion/scripts/offline_<scenario>.txt and a
topic for the minions-only channel, the bundled file server attached. Each minion answers
the kind of message it got, in sentences of its own text bank; none repeats itself; an
unaddressed minion sometimes chooses silence, an addressed one always speaks."""

from __future__ import annotations

import asyncio
import re
import sys
from collections import defaultdict
from dataclasses import dataclass, field

import pytest

from roundtable_desktop.domain.events import CallFinished, CallStarted
from roundtable_desktop.domain.words import sentences, words
from roundtable_desktop.engine.base import SEND, Action
from roundtable_desktop.engine.bus import EventBus
from roundtable_desktop.engine.headless import HumanLine
from roundtable_desktop.kinds.legion.offline_bank import banks, key_of
from roundtable_desktop.kinds.legion.scenario import new_state
from roundtable_desktop.kinds.legion.session import LegionSession
from roundtable_desktop.kinds.legion.state import STAY_SILENT, LegionState, PerceptionPlan
from roundtable_desktop.llm.offline import OfflineClient
from roundtable_desktop.paths import resources_dir
from roundtable_desktop.sources.mcp_servers_config import parse_servers
from roundtable_desktop.sources.mcp_toolbox import McpToolbox

SEEDS = (0, 1, 2, 3)
SAMPLE = resources_dir() / "legion" / "sample_project"
SCRIPTS = resources_dir() / "legion" / "scripts"
# What each scripted line is, in order (the test's own reading, not the model's).
KINDS = {
    "default": ["greeting", "praise", "files", "smalltalk", "question", "files", "question",
                "order", "question", "thanks", "howareyou", "read", "farewell"],
    "starship": ["greeting", "question", "order", "files", "insult", "question", "question",
                 "question", "praise", "howareyou", "farewell"],
    "newsroom": ["smalltalk", "question", "order", "files", "question", "question", "praise",
                 "question", "thanks", "farewell"],
}
TOPICS = {"default": ("Sort out who fixes the open bugs this week.", "order"),
          "starship": ("How should we split the night watch?", "question"),
          "newsroom": ("What should the front page say tomorrow?", "question")}
ANSWERS = {"question", "opinion", "yesno", "who", "when", "howmany", "status"}
ALLOWED = {
    "question": ANSWERS, "order": {"order", "order_quoted"},
    "files": {"files", "files_one", "files_empty"}, "read": {"file_read"},
}
SAMPLE_NAMES = {p.name + ("/" if p.is_dir() else "") for p in SAMPLE.rglob("*")}


@dataclass
class Run:
    scenario: str
    seed: int
    state: LegionState
    kinds: dict[int, str] = field(default_factory=dict)  # message id -> expected kind
    purposes: list[str] = field(default_factory=list)
    perceptions: list[str] = field(default_factory=list)  # raw perception replies


def script(scenario: str) -> list[HumanLine]:
    raw = (SCRIPTS / f"offline_{scenario}.txt").read_text(encoding="utf-8").splitlines()
    return [HumanLine.parse(line) for line in raw if line.strip()]


async def _play(scenario: str, seed: int, toolbox: McpToolbox) -> Run:
    bus = EventBus()
    state = new_state(scenario, seed=seed)
    state.speed = 0.0  # the predicted order, without the wait
    session = LegionSession(state,
                            client=OfflineClient(delay_s=0, seed=seed), bus=bus,
                            model="offline", provider="offline", scenario_tools=False)
    session.attach_mcp(toolbox)
    run = Run(scenario, seed, session.state)

    def listen(event: object) -> None:
        if isinstance(event, CallStarted):
            run.purposes.append(event.purpose)
        if isinstance(event, CallFinished) and event.purpose == "perception":
            run.perceptions.append(event.outcome.text)

    bus.subscribe(listen)
    lines = script(scenario)
    assert len(lines) == len(KINDS[scenario])
    topic, topic_kind = TOPICS[scenario]
    steps = [(Action(id=SEND, text=line.text, params={"channel": line.channel}), kind)
             for line, kind in zip(lines, KINDS[scenario], strict=True)]
    steps.append((Action(id="topic", text=topic), topic_kind))
    for action, kind in steps:
        run.kinds[session.state.next_message_id()] = kind  # the id the line is posted as
        assert await session.perform(action)
        while (step := session.next_step()) is not None:
            assert await session.perform(step)
    return run


@pytest.fixture(scope="module")
def runs() -> list[Run]:
    async def play_all() -> list[Run]:
        toolbox = McpToolbox()
        await toolbox.connect_all(parse_servers({"file_system": {
            "command": sys.executable,
            "args": ["-m", "roundtable_desktop.kinds.legion.file_server", str(SAMPLE)]}}))
        try:
            return [await _play(scenario, seed, toolbox)
                    for scenario in KINDS for seed in SEEDS]
        finally:
            await toolbox.close()

    return asyncio.run(play_all())


def direct_replies(run: Run):
    """(message, reply, diary) for each minion message that answers a Commander line or
    the topic directly (not a colleague)."""
    state = run.state
    by_id = {m.id: m for m in state.messages}
    for reply in state.messages:
        if reply.role != "minion" or reply.diary is None:
            continue
        diary = state.diaries[reply.diary]
        message = by_id[diary.about]
        if message.role != "minion":
            yield message, reply, diary


def bank_for(run: Run):
    return banks()[run.scenario]


def others_named(run: Run, message, minion: str) -> bool:
    names = [m.name for m in run.state.minions if m.name != minion]
    return any(re.search(rf"\b{re.escape(n)}\b", message.text) for n in names)


def test_every_scripted_line_gets_a_reply_of_its_kind_from_the_minions_own_lines(runs):
    for run in runs:
        for message, reply, diary in direct_replies(run):
            kind = run.kinds[message.id]
            key = key_of(bank_for(run), reply.speaker, reply.text)
            allowed = set(ALLOWED.get(kind, {kind}))
            if kind == "question":
                allowed |= {k for k in _topic_keys(run, reply.speaker) if k.endswith("answer")}
            if kind == "order":
                allowed |= {k for k in _topic_keys(run, reply.speaker) if k.endswith("order")}
            if not diary.addressed and others_named(run, message, reply.speaker):
                allowed.add("defer")  # the Commander asked someone else
            assert key in allowed, (run.scenario, run.seed, message.text, reply.speaker,
                                    reply.text, key)


def _topic_keys(run: Run, minion: str) -> set[str]:
    voice = bank_for(run).voices[minion.lower()]
    return {f"topic:{t}:{part}" for t, parts in voice.topics.items() for part in parts}


def test_a_file_request_uses_the_file_tool_and_names_files_it_returned(runs):
    checked = 0
    for run in runs:
        for message, reply, diary in direct_replies(run):
            if run.kinds[message.id] not in ("files", "read") or not diary.tool_steps:
                continue
            step = diary.tool_steps[-1]
            assert step.ok and step.name.startswith("file_system.")
            if step.name.endswith("read_file"):  # names the file, quotes its opening
                assert f"`{step.arguments['path']}`" in reply.text
                assert re.search(r'"([^"]+)"', reply.text)[1] in step.output
            else:  # names files of the sample project that the tool listed
                named = {w.strip("`,.!:;\"") for w in reply.text.split()} & SAMPLE_NAMES
                assert named, (reply.speaker, reply.text)
                assert all(name in step.output for name in named), (reply.text, step.output)
            checked += 1
    assert checked >= len(runs)  # every session asked for files at least once


def test_the_addressed_minion_answers_a_file_request_with_the_tool(runs):
    for run in runs:
        for message, _reply, diary in direct_replies(run):
            if run.kinds[message.id] in ("files", "read") and diary.addressed:
                assert [s.name.rpartition(".")[2] for s in diary.tool_steps] in (
                    ["list_files"], ["read_file"])


def test_no_minion_repeats_one_of_its_own_sentences_in_a_session(runs):
    for run in runs:
        said: dict[str, set[str]] = defaultdict(set)
        for message in run.state.messages:
            if message.role != "minion":
                continue
            for sentence in sentences(message.text):
                assert sentence not in said[message.speaker], (run.scenario, run.seed,
                                                               message.speaker, sentence)
                said[message.speaker].add(sentence)


def test_no_reply_echoes_the_commanders_words_outside_quotation_marks(runs):
    for run in runs:
        for message, reply, _ in direct_replies(run):
            # Quoted phrases and `names` (of files, folders) are slots, not echoes.
            unquoted = re.sub(r'"[^"]*"|`[^`]*`', " ", reply.text)
            asked = words(re.sub(r"`[^`]*`", " ", message.text))
            grams = {tuple(asked[i:i + 4]) for i in range(len(asked) - 3)}
            said = words(unquoted)
            for i in range(len(said) - 3):
                assert tuple(said[i:i + 4]) not in grams, (message.text, reply.text)


def test_an_unaddressed_minion_sometimes_decides_to_stay_silent_in_every_scenario(runs):
    for scenario in KINDS:
        silent = [d for run in runs if run.scenario == scenario for d in run.state.diaries
                  if d.outcome == "silent" and not d.addressed
                  and d.plans[0].action == STAY_SILENT]
        assert silent, scenario


def test_every_silence_is_the_minions_own_choice_and_every_plan_to_speak_is_followed(runs):
    unaddressed = [d for run in runs for d in run.state.diaries
                   if not d.addressed and d.outcome != "failed"]
    assert unaddressed
    for diary in unaddressed:
        assert diary.roll is None  # the app drew nothing: it is off by default
        assert (diary.outcome == "silent") == (diary.plans[0].action == STAY_SILENT)


def test_an_addressed_minion_always_speaks(runs):
    for run in runs:
        addressed = [d for d in run.state.diaries if d.addressed]
        assert addressed
        assert all(d.outcome == "spoke" and d.plans[0].action != STAY_SILENT
                   for d in addressed)


def test_every_perception_is_valid_json_of_the_plan_contract_with_its_modes_band(runs):
    for run in runs:
        assert "repair" not in run.purposes
        for text in run.perceptions:
            PerceptionPlan.model_validate_json(text)
        for diary in run.state.diaries:
            assert not diary.notes or all(n.startswith("Not addressed") for n in diary.notes)


def test_two_seeds_read_differently(runs):
    for scenario in KINDS:
        texts = {run.seed: [m.text for m in run.state.messages if m.role == "minion"]
                 for run in runs if run.scenario == scenario}
        assert texts[0] != texts[1] and texts[2] != texts[3]


def test_the_topic_is_answered_by_every_minion_to_the_group_not_the_commander(runs):
    for run in runs:
        topic = next(m for m in run.state.messages if m.role == "system")
        replies = [r for m, r, _ in direct_replies(run) if m.id == topic.id]
        assert {r.speaker for r in replies} == {m.name for m in run.state.minions}
        assert not any(run.state.commander in r.text for r in replies)


def test_the_same_seed_plays_the_same_session_again(runs):
    async def again() -> Run:
        toolbox = McpToolbox()
        await toolbox.connect_all(parse_servers({"file_system": {
            "command": sys.executable,
            "args": ["-m", "roundtable_desktop.kinds.legion.file_server", str(SAMPLE)]}}))
        try:
            return await _play("starship", 2, toolbox)
        finally:
            await toolbox.close()

    first = next(r for r in runs if (r.scenario, r.seed) == ("starship", 2))
    second = asyncio.run(again())
    assert [m.text for m in second.state.messages] == [m.text for m in first.state.messages]
