"""Replies post in the order and at the pace the minions predicted (predictedResponseTime),
not in the order their model calls happen to finish; the speed factor scales the wait,
and is read live."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from roundtable_desktop.domain.calls import ChatRequest, Usage
from roundtable_desktop.engine.base import SEND, Action
from roundtable_desktop.kinds.legion.pacing import ReplyRound
from roundtable_desktop.kinds.legion.state import DEFAULT_SPEED, LegionState
from roundtable_desktop.llm.client import ChatClient, Delta, Finish, StreamItem
from tests.kinds.legion.conftest import plan, session_for

PREDICTED = {"Alpha": 900, "Beta": 100, "Gamma": 500}


class SoonestWritesLastClient(ChatClient):
    """Plans each minion's reply in PREDICTED ms; Beta (predicted soonest) gets its reply
    written only after Alpha's and Gamma's have finished."""

    name = "soonest-last"
    endpoint = "scripted://soonest-last"

    def __init__(self) -> None:
        self.finished: list[str] = []
        self.others_done = asyncio.Event()

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamItem]:
        system = request.messages[0].content
        name = next(n for n in PREDICTED if f'"{n}"' in system)
        if request.purpose == "perception":
            text = plan("SPEAK", 60, ms=PREDICTED[name])
        else:
            if name == "Beta":
                await self.others_done.wait()
            text = f"{name} reporting."
        yield Delta(text)
        yield Finish(Usage(prompt_tokens=1, completion_tokens=1), "stop")
        if request.purpose == "response" and name != "Beta":
            self.finished.append(name)
            if len(self.finished) == 2:
                self.others_done.set()


def test_replies_post_in_predicted_order_when_the_soonest_is_written_last():
    client = SoonestWritesLastClient()
    session = session_for(client, autochat_rounds=0)
    assert asyncio.run(session.perform(Action(id=SEND, text="Status, everyone?",
                                              params={"channel": "war-room"})))
    assert client.finished == ["Gamma", "Alpha"] or client.finished == ["Alpha", "Gamma"]
    posted = [m.speaker for m in session.state.messages if m.role == "minion"]
    assert posted == ["Beta", "Gamma", "Alpha"]  # 100, 500, 900 ms


def test_a_reply_is_due_its_predicted_time_times_the_speed_after_the_message():
    now = [10.0]
    speed = [1.0]
    pace = ReplyRound(["Alpha"], speed=lambda: speed[0], clock=lambda: now[0])
    pace.planned("Alpha", 1200)
    now[0] = 10.5
    assert round(pace.due_in("Alpha"), 3) == 0.7
    speed[0] = 0.25  # the slider, moved while the reply waits
    assert round(pace.due_in("Alpha"), 3) == -0.2


def test_a_reply_waits_for_every_minion_not_yet_planned_or_predicted_sooner():
    pace = ReplyRound(["Alpha", "Beta", "Gamma"], speed=lambda: 0.0)
    pace.planned("Gamma", 300)
    assert pace.waiting_for("Gamma") == ["Alpha", "Beta"]  # not planned yet
    pace.planned("Alpha", 900)
    pace.planned("Beta", 100)
    assert pace.waiting_for("Gamma") == ["Beta"]
    pace.leave("Beta")  # posted (or stayed silent)
    assert pace.waiting_for("Gamma") == [] and pace.waiting_for("Alpha") == ["Gamma"]


def test_the_default_speed_paces_replies_and_is_not_zero():
    state_default = LegionState.model_fields["speed"].default
    assert state_default == DEFAULT_SPEED and 0 < DEFAULT_SPEED <= 1


def test_stop_posts_a_waiting_reply_at_once():
    async def run() -> None:
        stopped = [False]
        pace = ReplyRound(["Alpha"], speed=lambda: 10.0, hurry=lambda: stopped[0])
        pace.planned("Alpha", 60_000)  # ten minutes at this speed
        waiting = asyncio.ensure_future(pace.wait_turn("Alpha"))
        await asyncio.sleep(0)
        assert not waiting.done()
        stopped[0] = True
        await asyncio.wait_for(waiting, timeout=5)

    asyncio.run(run())
