"""The seed's three turns against the fake OpenAI-compatible server (a real HTTP peer),
and a group of three minions answering one message at once."""

from __future__ import annotations

import asyncio
import time

from roundtable_desktop.engine.base import SEND, Action
from roundtable_desktop.llm.openai_compat import OpenAICompatClient
from tests.kinds.legion.conftest import FILES, FakeFiles, plan, session_for

LIST = {"name": "file_system.list_files", "arguments": {"path": "components/"}}


async def _no_wait(_s: float) -> None:
    return None


def _client(fake) -> OpenAICompatClient:
    return OpenAICompatClient(fake.base_url, "sk-test-legion-0000", sleep=_no_wait)


def _purpose(request_body: dict) -> str:
    text = request_body["messages"][-1]["content"]
    return "perception" if text.startswith("PREVIOUS STATE:") else "response"


def test_the_seeds_three_turns_in_order_against_the_fake_server(fake_openai):
    fake_openai.reset()
    fake_openai.script([
        {"kind": "ok", "text": plan("SPEAK", 51, text="Return the greeting.")},
        {"kind": "ok", "text": "Hello, Commander. How can I assist you today?"},
        {"kind": "ok", "text": plan("SPEAK", 68, text="Acknowledge the praise warmly.")},
        {"kind": "ok", "text": "That's incredibly kind of you to say, Commander."},
        {"kind": "ok", "text": plan("USE_TOOL", 69, tool=LIST, text="List the folder.")},
        {"kind": "ok", "text": plan("SPEAK", 69, text="Present the list of files.")},
        {"kind": "ok", "text": "The `components` directory contains: " + ", ".join(FILES)},
    ])

    async def run():
        client = _client(fake_openai)
        session = session_for(client)
        session.attach_mcp(FakeFiles())
        try:
            for line in ("hi", "ur amazing ily",
                         "Can you tell me what files are in the `components` directory?"):
                assert await session.perform(Action(id=SEND, text=line))
        finally:
            await client.aclose()
        return session

    session = asyncio.run(run())
    bodies = [r["body"] for r in fake_openai.requests()]
    assert [_purpose(b) for b in bodies] == ["perception", "response", "perception", "response",
                                             "perception", "perception", "response"]
    assert "<tool_output>" in bodies[-1]["messages"][-1]["content"]
    assert "[TOOL OUTPUT]" in bodies[5]["messages"][-1]["content"]
    assert bodies[0]["response_format"] == {"type": "json_object"}
    assert "response_format" not in bodies[1]
    assert session.state.trajectory("Alpha", "Rowan") == [50, 51, 68, 69]
    assert "AnalyticsDashboard.tsx" in session.state.messages[-1].text
    assert session.state.diaries[-1].tool_steps[0].name == "file_system.list_files"


def test_a_group_of_three_answers_one_message_concurrently(fake_openai):
    fake_openai.reset()
    latency = 0.4
    fake_openai.script([{"kind": "ok", "latency_s": latency, "repeat": 3,
                         "text": plan("SPEAK", 90, text="Answer.")},
                        {"kind": "ok", "latency_s": latency, "repeat": 3, "text": "On it."}])

    async def run():
        client = _client(fake_openai)
        session = session_for(client, autochat_rounds=0)
        for minion in session.state.minions:
            minion.scores["Rowan"] = 100  # every draw speaks
        try:
            started = time.perf_counter()
            assert await session.perform(Action(id=SEND, text="Status, everyone?",
                                                params={"channel": "war-room"}))
            return session, time.perf_counter() - started
        finally:
            await client.aclose()

    session, _wall = asyncio.run(run())  # the figures: bench/legion_group_answer.py
    assert fake_openai.stats()["max_in_flight"] == 3
    assert sorted(m.speaker for m in session.state.messages if m.role == "minion") == \
        ["Alpha", "Beta", "Gamma"]


def test_in_a_group_run_every_plan_to_speak_is_followed(fake_openai):
    """Five messages to the war room, three minions, fifteen plans that say SPEAK with a low
    score (a draw would silence most): fifteen responses are asked for and posted."""
    fake_openai.reset()
    fake_openai.script([{"kind": "ok", "repeat": 3, "text": plan("SPEAK", 30, text="Answer.")},
                        {"kind": "ok", "repeat": 3, "text": "On it."}] * 5)
    lines = ["Status, anyone?", "Any news from the depot?", "Who has the logs?",
             "Anything else to report?", "Good, carry on then."]

    async def run():
        client = _client(fake_openai)
        session = session_for(client, autochat_rounds=0)
        try:
            for line in lines:
                assert await session.perform(Action(id=SEND, text=line,
                                                    params={"channel": "war-room"}))
        finally:
            await client.aclose()
        return session

    session = asyncio.run(run())
    bodies = [r["body"] for r in fake_openai.requests()]
    assert [_purpose(b) for b in bodies].count("perception") == 15
    assert [_purpose(b) for b in bodies].count("response") == 15
    assert sum(m.role == "minion" for m in session.state.messages) == 15
    assert all(d.outcome == "spoke" and d.roll is None for d in session.state.diaries)
