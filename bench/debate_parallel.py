"""Wall time of an 8-agent debate against the sum of its calls, at a fixed latency.

An 8-card hand debates against the fake OpenAI-compatible server (a real HTTP peer,
tests/fakes/openai_server.py) with `--latency` seconds per call: claims, 8 x 3 initial
stances, two table rounds of 8 (two tables of four) with a merge after each, the final
table and the map. Before each step the server is scripted with one valid reply per
request that step sends. Prints the wall time of the whole debate, the sum of its calls'
latencies (what one-after-another would cost), the speed-up and the most calls the
server saw at once. Not a test: run it with
`.venv/bin/python bench/debate_parallel.py [--latency 0.2] [--parallel 8]`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fakes.openai_fixture import FakeOpenAI, start_fake_openai, stop_fake_openai

from roundtable_desktop.domain.events import CallFinished
from roundtable_desktop.engine.bus import EventBus
from roundtable_desktop.kinds.debate.session import DebateSession
from roundtable_desktop.kinds.debate.setup import new_state
from roundtable_desktop.llm.openai_compat import OpenAICompatClient

# Characters per streamed delta: a few tokens, as batching providers send them (the
# fake server's default of 4 makes the bench measure SSE parsing on a loaded machine).
CHUNK = 32
HAND = ["mara-okafor", "dev-lindqvist", "ines-barros", "tomas-reyes", "yuki-tanaka",
        "sam-achebe", "kofi-mensah", "lena-hartmann"]
CLAIMS = {"claims": [{"text": f"Claim {i} about licences.", "pro": "Yes, it holds.",
                      "con": "No, it does not."} for i in (1, 2, 3)]}


def reply_for(purpose: str, index: int) -> str:
    if purpose == "claims":
        return json.dumps(CLAIMS)
    if purpose == "stance":
        return json.dumps({"stance": ("pro", "con")[index % 2], "confidence": 0.7,
                           "reason": "My contract says so."})
    if purpose == "answer":
        side = ("pro", "con")[index % 2]
        return json.dumps({"response": f"Answer {index}.", "stances": [
            {"claim": f"c{i}", "stance": side, "confidence": 0.6} for i in (1, 2, 3)],
            "new_cruxes": [{"claim": "c1", "text": "Whether the audits are honest"}],
            "flip_triggers": []})
    if purpose == "merge":
        return json.dumps({"cruxes": [{"claim": "c1", "text": "Whether the audits are honest",
                                       "merged_from": []}], "flip_conditions": [],
                           "summary": "The tables split on c1."})
    return json.dumps({"cruxes": [{"text": "Whether the audits are honest", "why": "c1"}]})


async def debate(fake: FakeOpenAI, latency: float, parallel: int) -> tuple[float, float, int]:
    latencies: list[float] = []
    bus = EventBus()
    bus.subscribe(lambda e: latencies.append(e.outcome.latency_ms / 1000)
                  if isinstance(e, CallFinished) else None)
    client = OpenAICompatClient(fake.base_url, "sk-bench-0000")
    state = new_state("ai-regulation", {"hand": HAND, "topic": "Licences for AI models?"})
    session = DebateSession(state, client=client, bus=bus, model="bench", parallel=parallel)
    wall = 0.0
    try:
        while not session.ended:
            payloads = session.pending_payloads()
            fake.script([{"kind": "ok", "latency_s": latency, "chunk_size": CHUNK,
                          "text": reply_for(p.request.purpose, i)}
                         for i, p in enumerate(payloads)])
            started = time.perf_counter()
            ok = await session.perform(session.next_step())
            wall += time.perf_counter() - started  # scripting the server is not counted
            if not ok:
                raise SystemExit(f"the {state.phase} step failed")
    finally:
        await client.aclose()
    return wall, sum(latencies), len(latencies)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--parallel", type=int, default=8)
    args = parser.parse_args()
    process, fake = start_fake_openai()
    try:
        results = {}
        for parallel in sorted({1, args.parallel}):
            fake.reset()
            results[parallel] = asyncio.run(debate(fake, args.latency, parallel))
            results[parallel] += (fake.stats()["max_in_flight"],)
    finally:
        stop_fake_openai(process, fake)
    print(f"8-agent debate, {args.latency:g} s latency per call")
    for parallel, (wall, total, calls, peak) in results.items():
        print(f"--parallel {parallel}: {calls} calls, wall {wall:.2f} s, sum of calls "
              f"{total:.2f} s, {total / wall:.1f}x faster than one after another, "
              f"at most {peak} in flight")
    wall_1, wall_n = results[1][0], results[max(results)][0]
    print(f"wall time --parallel 1 / --parallel {max(results)}: {wall_1 / wall_n:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
