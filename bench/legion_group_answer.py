"""Wall time of a legion group answer against the sum of its calls.

Three minions in a group channel answer one Commander message: each makes a perception
call and a response call, against the fake OpenAI-compatible server (a real HTTP peer)
with a fixed latency per call. Prints the wall time of the whole answer, the sum of the
six calls' latencies (what one-after-another would cost), their ratio, and the most
calls the server saw at once. Not a test: run it with
`.venv/bin/python bench/legion_group_answer.py [--latency 0.5] [--runs 3]`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fakes.openai_fixture import start_fake_openai, stop_fake_openai

from roundtable_desktop.domain.events import CallFinished
from roundtable_desktop.engine.base import SEND, Action
from roundtable_desktop.engine.bus import EventBus
from roundtable_desktop.kinds.legion.scenario import new_state
from roundtable_desktop.kinds.legion.session import LegionSession
from roundtable_desktop.llm.openai_compat import OpenAICompatClient

PLAN = json.dumps({"perceptionAnalysis": "A question.", "opinionUpdates": [],
                   "finalOpinions": {"Rowan": 90}, "selectedResponseMode": "Obsessed/Eager",
                   "personalNotes": "", "action": "SPEAK", "responsePlan": "Answer.",
                   "predictedResponseTime": 500, "toolCall": None})


async def one_answer(base_url: str) -> tuple[float, float]:
    latencies: list[float] = []
    bus = EventBus()
    bus.subscribe(lambda e: latencies.append(e.outcome.latency_ms / 1000)
                  if isinstance(e, CallFinished) else None)
    client = OpenAICompatClient(base_url, "sk-bench-0000")
    state = new_state("default")
    state.autochat_rounds = 0
    for minion in state.minions:
        minion.scores["Rowan"] = 100
    session = LegionSession(state, client=client, bus=bus, model="bench",
                            scenario_tools=False)
    try:
        started = time.perf_counter()
        await session.perform(Action(id=SEND, text="Status, everyone?",
                                     params={"channel": "war-room"}))
        return time.perf_counter() - started, sum(latencies)
    finally:
        await client.aclose()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency", type=float, default=0.5)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    process, fake = start_fake_openai()
    try:
        walls, sums = [], []
        for _ in range(args.runs):
            fake.reset()
            fake.script([{"kind": "ok", "latency_s": args.latency, "repeat": 3, "text": PLAN},
                         {"kind": "ok", "latency_s": args.latency, "repeat": 3,
                          "text": "On it, Commander."}])
            wall, total = asyncio.run(one_answer(fake.base_url))
            walls.append(wall)
            sums.append(total)
        peak = fake.stats()["max_in_flight"]
    finally:
        stop_fake_openai(process, fake)
    wall, total = statistics.median(walls), statistics.median(sums)
    print(f"group of 3 minions, 6 calls of {args.latency:g} s latency each, {args.runs} runs")
    print(f"wall time of the group answer (median): {wall:.3f} s")
    print(f"sum of the calls' latencies (median):   {total:.3f} s")
    print(f"ratio wall / sum: {wall / total:.2f}; most calls in flight at once: {peak}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
