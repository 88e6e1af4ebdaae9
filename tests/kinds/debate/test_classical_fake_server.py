"""An interruption between two sentences against the fake OpenAI-compatible server (a
real HTTP peer streaming slowly): the listeners re-plan after the first sentence while
the speech still streams, one cuts in, the speech's HTTP stream is closed by the client,
and the transcript keeps only the first sentence."""

from __future__ import annotations

import asyncio
import json

from roundtable_desktop.domain.calls import CallStatus
from roundtable_desktop.domain.events import CallFinished, CallStarted
from roundtable_desktop.engine.base import Action
from roundtable_desktop.kinds.debate.classical.state import PlanRecord
from roundtable_desktop.llm.openai_compat import OpenAICompatClient
from tests.fakes.openai_fixture import fake_openai  # noqa: F401
from tests.kinds.debate.conftest import make_session, run_steps

SPEECH = "First point here. Second point goes on and on, and on, and on, and on."
UPDATE = {"stances": [{"claim": "c1", "stance": "con", "confidence": 0.7}],
          "new_cruxes": [], "flip_triggers": [], "cited": []}


async def _no_wait(_s: float) -> None:
    return None


def test_a_slow_speech_is_cut_off_after_its_first_sentence(fake_openai, events_of):  # noqa: F811
    session = make_session(mode="classical")
    assert run_steps(session, until="turn")  # claims and stances offline
    s = session.state
    speaker = s.agents[0]
    listeners = len(s.agents) - 1
    # The speaker has the floor (as after an interruption): the turn starts with its speech.
    s.classical.next_speaker = PlanRecord(agent=speaker.id, turn=1, action="interrupt",
                                          urgency=0.5, intent="Make the point.")
    fake_openai.reset()
    fake_openai.script([
        {"kind": "ok", "text": SPEECH, "chunk_size": 4, "delay_s": 0.08},
        {"kind": "ok", "repeat": listeners,
         "text": json.dumps({"action": "interrupt", "urgency": 0.95, "intent": "Stop."})},
        {"kind": "ok", "text": json.dumps(UPDATE)},
    ])
    events = events_of(session)

    async def run() -> bool:
        client = OpenAICompatClient(fake_openai.base_url, "sk-test-classical-0000",
                                    sleep=_no_wait)
        session.client = client
        try:
            return await session.perform(Action(id="turn"))
        finally:
            await client.aclose()

    assert asyncio.run(run())
    turn = s.classical.turns[0]
    assert turn.speaker == speaker.id and turn.sentences == ["First point here."]
    assert turn.interrupted_by is not None and turn.interrupted_by != speaker.id
    assert s.classical.next_speaker.agent == turn.interrupted_by
    # How much of the second sentence streamed before the cut depends on timing: some of
    # it, and none of it in the transcript.
    assert turn.cut_off and SPEECH.removeprefix("First point here. ").startswith(turn.cut_off)
    speech = next(e for e in events if isinstance(e, CallStarted) and e.purpose == "speech")
    done = next(e for e in events if isinstance(e, CallFinished) and e.call_id == speech.call_id)
    assert done.outcome.status == CallStatus.CANCELLED
    assert done.outcome.text.startswith("First point here. " + turn.cut_off)
    assert len(done.outcome.text) < len(SPEECH)
    assert fake_openai.wait_outcome(0) == "client_disconnected"
    bodies = [r["body"] for r in fake_openai.requests()]
    plans = [b for b in bodies[1:1 + listeners]]
    assert all("LAST SENTENCE: First point here." in b["messages"][-1]["content"]
               for b in plans)
    assert s.latest_stance(speaker.id, "c1").stance == "con"  # the update came after
