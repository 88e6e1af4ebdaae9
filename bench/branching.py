"""How long branching a long session takes, and what compare costs over running its two
sides one after the other.

1. Branch: a session of `--kind` (default legion: it runs as long as the Commander
   speaks) is run offline for `--steps` steps (default 1,000), then branched at its middle
   and at its last step; prints the wall time of each branch (it reads one checkpoint,
   not the history) and, for scale, of reading the whole history.
2. Compare: a roundtable meeting against the fake OpenAI-compatible server (a real HTTP
   peer, tests/fakes/openai_server.py) answering every call after `--latency` seconds
   (default 0.2); two branches of its step 2 run `--compare-steps` steps one after the
   other, then the same two as one comparison (the sides' calls concurrent, `--parallel`
   8); prints both wall times, their ratio and the most calls the server saw at once.
Not a test: run it with `.venv/bin/python bench/branching.py [--steps 1000]`.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fakes.openai_fixture import FakeOpenAI, start_fake_openai, stop_fake_openai

from roundtable_desktop.engine.branching import BranchRequest, branch_session
from roundtable_desktop.engine.compare import SideSpec, run_steps, start_comparison
from roundtable_desktop.engine.launch import start_session
from roundtable_desktop.engine.session_settings import SessionSettings
from roundtable_desktop.kinds.built import register_built_kinds
from roundtable_desktop.llm.offline import OFFLINE_MODEL, OfflineClient
from roundtable_desktop.llm.openai_compat import OpenAICompatClient
from roundtable_desktop.store.database import SessionStore


def _lines(session) -> list[str]:  # type: ignore[no-untyped-def]
    send = [a for a in session.actions() if a.id == "send"]
    return ["1" if send and send[0].options else "Report what you found, please."]


async def _long_session(store: SessionStore, kind: str, steps: int) -> str:
    handle = await start_session(kind, store=store, client=OfflineClient(delay_s=0),
                                 model=OFFLINE_MODEL, provider="offline")
    line = _lines(handle.session)[0]
    await run_steps(handle.session, steps, [line] * steps)
    handle.close()
    return handle.session_id


def bench_branch(kind: str, steps: int, folder: Path) -> None:
    store = SessionStore.open(folder / "long.db")
    started = time.perf_counter()
    parent = asyncio.run(_long_session(store, kind, steps))
    built = time.perf_counter() - started
    count = store.step_count(parent)
    print(f"{kind}: a session of {count} steps, {len(store.calls(parent))} calls, "
          f"built in {built:.1f} s")
    store.close()
    for at in (count // 2, count):
        store = SessionStore.open(folder / "long.db")  # a cold store, as a new process has
        started = time.perf_counter()
        handle = branch_session(BranchRequest(parent_id=parent, at=at), store=store,
                                client=OfflineClient(delay_s=0))
        took = time.perf_counter() - started
        handle.close()
        print(f"branch at step {at} of {count}: {took * 1000:.0f} ms")
        store.close()
    store = SessionStore.open(folder / "long.db")
    started = time.perf_counter()
    store.checkpoints(parent)
    print(f"for scale, reading the whole history's checkpoints: "
          f"{(time.perf_counter() - started) * 1000:.0f} ms")
    store.close()


async def _meeting(store: SessionStore, client: OpenAICompatClient) -> str:
    handle = await start_session("roundtable", store=store, client=client, model="m",
                                 provider="custom")
    await run_steps(handle.session, 2)
    handle.close()
    return handle.session_id


def bench_compare(fake: FakeOpenAI, latency: float, steps: int, parallel: int,
                  folder: Path) -> None:
    fake.reset()
    store = SessionStore.open(folder / "compare.db")
    client = OpenAICompatClient(fake.base_url, None)
    parent = asyncio.run(_meeting(store, client))
    fake.script([{"kind": "ok", "text": "CALL: passTurn()", "latency_s": latency,
                  "repeat": 10_000}])
    sides = (SessionSettings(model="model-a"), SessionSettings(model="model-b"))

    async def one_after_another() -> None:
        for settings in sides:
            handle = branch_session(BranchRequest(parent_id=parent, at=2, settings=settings),
                                    store=store, client=client, parallel=parallel)
            await run_steps(handle.session, steps)
            handle.close()

    async def together() -> None:
        comparison = start_comparison(store, parent, 2,
                                      (SideSpec(settings=sides[0]), SideSpec(settings=sides[1])),
                                      client=client, parallel=parallel)
        for _ in range(steps):
            await comparison.step()
        comparison.close()

    before = fake.stats()["count"]  # the parent's own calls
    started = time.perf_counter()
    asyncio.run(one_after_another())
    sequential = time.perf_counter() - started
    calls = fake.stats()["count"] - before
    fake.reset()
    fake.script([{"kind": "ok", "text": "CALL: passTurn()", "latency_s": latency,
                  "repeat": 10_000}])
    started = time.perf_counter()
    asyncio.run(together())
    compared = time.perf_counter() - started
    stats = fake.stats()
    print(f"compare, {steps} steps a side at {latency * 1000:.0f} ms a call, --parallel "
          f"{parallel}: one after another {sequential:.2f} s ({calls} calls), together "
          f"{compared:.2f} s ({stats['count']} calls, at most {stats['max_in_flight']} at "
          f"once): {compared / sequential * 100:.0f}% of one after another")
    asyncio.run(client.aclose())
    store.close()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--kind", default="legion")
    p.add_argument("--steps", type=int, default=1000)
    p.add_argument("--latency", type=float, default=0.2)
    p.add_argument("--compare-steps", type=int, default=10)
    p.add_argument("--parallel", type=int, default=8)
    args = p.parse_args()
    register_built_kinds()
    with tempfile.TemporaryDirectory() as tmp:
        bench_branch(args.kind, args.steps, Path(tmp))
        process, fake = start_fake_openai()
        try:
            bench_compare(fake, args.latency, args.compare_steps, args.parallel, Path(tmp))
        finally:
            stop_fake_openai(process, fake)
    return 0


if __name__ == "__main__":
    sys.exit(main())
