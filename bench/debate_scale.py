"""A debate's calls, stages, critical path, wall time and memory by hand size: the demo
hand (6 cards), 8 cards and 16 cards (two decks mixed; four tables of four).

Two runs per hand: offline (the offline model, its default 0.01 s per streamed token,
the deck's records server on, tool calls included) and against the fake
OpenAI-compatible server (tests/fakes/openai_server.py, a real HTTP peer) at `--latency`
seconds per call with `--parallel` calls in flight, the offline model's own replies
scripted (so the same debate). A stage is one step (claims, stances, a round, a merge,
the final table, the map). The critical path is the slowest call of each stage, summed
(`ratio` = wall / critical path); `ratio@N` compares with the least a stage can take
with N in flight (its calls in waves of N: ceil(calls / N) x its slowest call). Memory is
this process's peak resident size. Not a test: run it with
`.venv/bin/python bench/debate_scale.py [--latency 0.2] [--parallel 8]`.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import resource
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fakes.openai_fixture import FakeOpenAI, start_fake_openai, stop_fake_openai

from roundtable_desktop.domain.events import CallFinished, Event
from roundtable_desktop.engine.bus import EventBus
from roundtable_desktop.kinds.debate.deck import load_deck
from roundtable_desktop.kinds.debate.offline import POLICIES
from roundtable_desktop.kinds.debate.session import DebateSession
from roundtable_desktop.kinds.debate.setup import new_state
from roundtable_desktop.llm.offline import OfflineClient, OfflinePolicies
from roundtable_desktop.llm.openai_compat import OpenAICompatClient

CHUNK = 32
TOPIC = "Should frontier AI models need a licence before public release?"


def hands() -> dict[str, list[str]]:
    ai = [c.id for c in load_deck("ai-regulation").cards if not c.locked]
    remote = [f"remote-work/{c.id}" for c in load_deck("remote-work").cards if not c.locked]
    return {"demo (6)": [], "8 cards": ai[:8], "16 cards": (ai + remote)[:16]}


@dataclass
class Figures:
    calls: int = 0
    stages: int = 0
    wall: float = 0.0
    critical: float = 0.0
    waves: float = 0.0
    tools: int = 0
    tables: list[int] = field(default_factory=list)


def policies() -> OfflinePolicies:
    found = OfflinePolicies()
    for purpose, policy in POLICIES.items():
        found.register("debate", purpose, policy)
    return found


async def play(hand: list[str], parallel: int, fake: FakeOpenAI | None,
               latency: float, tools: bool = True, offline_delay: float = 0.01) -> Figures:
    stage: list[float] = []
    bus = EventBus()

    def seen(e: Event) -> None:
        if isinstance(e, CallFinished):
            stage.append(e.outcome.latency_ms / 1000)

    bus.subscribe(seen)
    offline = OfflineClient(delay_s=offline_delay, policies=policies())
    client = offline if fake is None else OpenAICompatClient(fake.base_url, "sk-bench-0000")
    options = {"topic": TOPIC, "bundled_tools": tools, **({"hand": hand} if hand else {})}
    state = new_state("ai-regulation", options)
    session = DebateSession(state, client=client, bus=bus, model="bench", parallel=parallel)
    figures = Figures()
    try:
        while not session.ended:
            if fake is not None:  # the offline model's replies, served by the fake server
                payloads = session.pending_payloads()
                texts = [offline.reply_for(p.request) for p in payloads]
                fake.script([{"kind": "ok", "latency_s": latency, "chunk_size": CHUNK,
                              "text": t} for t in texts])
            stage.clear()
            started = time.perf_counter()
            if not await session.perform(session.next_step()):
                raise SystemExit(f"the {state.phase} step failed")
            figures.wall += time.perf_counter() - started
            if stage:
                figures.stages += 1
                figures.calls += len(stage)
                figures.critical += max(stage)
                figures.waves += math.ceil(len(stage) / parallel) * max(stage)
            if state.phase == "merge" and not figures.tables:
                figures.tables = [len(t.agents) for t in state.tables]
        figures.tools = len(state.pulls)
    finally:
        await session.aclose()
        if fake is not None:
            await client.aclose()  # type: ignore[attr-defined]
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--parallel", type=int, default=8)
    parser.add_argument("--no-tools", action="store_true",
                        help="leave the deck's records server out (no tool calls)")
    parser.add_argument("--offline-delay", type=float, default=0.01,
                        help="the offline model's seconds per streamed token (default 0.01)")
    parser.add_argument("--hands", default="",
                        help="the hands to play, comma-separated by their first word "
                             "(demo, 8, 16; default: all)")
    args = parser.parse_args()
    wanted = {w.strip() for w in args.hands.split(",") if w.strip()}
    process, fake = start_fake_openai()
    rows = []
    try:
        for name, hand in hands().items():
            if wanted and name.split()[0] not in wanted:
                continue
            offline = asyncio.run(play(hand, args.parallel, None, 0.0, not args.no_tools,
                                       args.offline_delay))
            fake.reset()
            served = asyncio.run(play(hand, args.parallel, fake, args.latency,
                                      not args.no_tools))
            rows.append((name, offline, served, fake.stats()["max_in_flight"]))
    finally:
        stop_fake_openai(process, fake)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"--parallel {args.parallel}; fake server at {args.latency:g} s per call")
    for name, off, srv, peak in rows:
        print(f"{name}: tables {srv.tables}; {srv.calls} calls in {srv.stages} stages, "
              f"{srv.tools} tool calls")
        print(f"  offline: wall {off.wall:.2f} s (critical path {off.critical:.2f} s, "
              f"ratio {off.wall / off.critical:.2f})")
        print(f"  fake server: wall {srv.wall:.2f} s, critical path {srv.critical:.2f} s, "
              f"ratio {srv.wall / srv.critical:.2f}, ratio@{args.parallel} "
              f"{srv.wall / srv.waves:.2f}, at most {peak} in flight")
    print(f"peak memory of this process: {peak_mb:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
