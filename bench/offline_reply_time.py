"""How long the offline model takes to answer, per kind: the model's own work only.

Plays every kind's bundled scenarios offline at no delay, headless, to their end (the
human seats speak `resources/<kind>/scripts/<scenario>.txt` where there is one), with an
offline client that times each `reply()` (reading the request and writing the answer:
what the offline model adds to a turn; the engine's own turn cost is bench/turn_overhead.py).
Prints, per kind, the number of replies and the median, p95 and max time of one reply,
pooled over `--seeds`; beside them the kind's whole wall time divided by its replies (the
engine, the store and the model together: what a reply costs end to end at no delay);
and the whole run's wall time.

It runs against older code too (no seed, no scripts): so the same script measures the
code before and after a change in the same minutes.
Not a test: run it with `.venv/bin/python bench/offline_reply_time.py [--help]`.
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from roundtable_desktop.domain.calls import ChatRequest
from roundtable_desktop.engine.base import Action
from roundtable_desktop.engine.headless import human_lines
from roundtable_desktop.engine.launch import start_session
from roundtable_desktop.engine.registry import all_kinds, kind_spec
from roundtable_desktop.kinds.built import register_built_kinds
from roundtable_desktop.llm.offline import OFFLINE_MODEL, OfflineClient
from roundtable_desktop.paths import resources_dir
from roundtable_desktop.store.database import SessionStore

MAX_STEPS = 200


class TimedOfflineClient(OfflineClient):
    """The offline model, timing each reply (seconds, by kind)."""

    times: list[float]

    def reply(self, request: ChatRequest) -> Any:
        started = time.perf_counter()
        try:
            return super().reply(request)
        finally:
            self.times.append(time.perf_counter() - started)


def _script(kind: str, scenario: str) -> list[str]:
    path = resources_dir() / kind / "scripts" / f"{scenario}.txt"
    if not path.is_file():
        return []
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


async def _play(kind: str, scenario: str, seed: int, store: SessionStore,
                times: list[float]) -> None:
    client = TimedOfflineClient(delay_s=0)
    client.times = times
    extra: dict[str, Any] = {}
    if "seed" in inspect.signature(start_session).parameters:
        extra["seed"] = seed
    handle = await start_session(kind, store=store, client=client, model=OFFLINE_MODEL,
                                 provider="offline", scenario=scenario, **extra)
    try:
        session = handle.session
        await kind_spec(kind).drive(session, MAX_STEPS, human_lines(_script(kind, scenario)))
        if not session.ended and any(a.id == "end" and a.enabled for a in session.actions()):
            await session.perform(Action(id="end"))
    finally:
        handle.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=4, help="seeds 0..N-1 (default 4)")
    parser.add_argument("--kinds", help="kinds, comma-separated (default: every kind)")
    args = parser.parse_args()
    register_built_kinds()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp, \
            SessionStore.open(Path(tmp) / "bench.sqlite3") as store:
        print(f"{'kind':<12} {'replies':>7} {'median':>9} {'p95':>9} {'max':>9} "
              f"{'per reply, all in':>18}")
        for spec in all_kinds():
            if args.kinds and spec.name not in args.kinds.split(","):
                continue
            times: list[float] = []
            kind_started = time.perf_counter()
            for scenario in spec.scenario_names():
                for seed in range(args.seeds):
                    asyncio.run(_play(spec.name, scenario, seed, store, times))
            if len(times) < 2:
                print(f"{spec.name:<12} {len(times):>7}  (too few replies to measure)")
                continue
            p95 = statistics.quantiles(times, n=20)[-1]
            print(f"{spec.name:<12} {len(times):>7} "
                  f"{statistics.median(times) * 1e3:>7.2f}ms {p95 * 1e3:>7.2f}ms "
                  f"{max(times) * 1e3:>7.2f}ms "
                  f"{(time.perf_counter() - kind_started) / len(times) * 1e3:>16.2f}ms",
                  flush=True)
    print(f"wall time {time.perf_counter() - started:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
