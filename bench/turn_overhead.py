"""Per-turn engine overhead of a roundtable meeting, by candidate-list size.

One turn = Infer + Run tools: render the context window, serialize it, "call" a model
that answers instantly with a fixed reply (so only engine work is timed), parse the
reply, run its tools, and write the request, the response and the state to a SQLite
store on disk. Prints median and p95 per turn, the payload size, and how much the
database grows per turn (file sizes after a WAL checkpoint that truncates the log), for
20, 200 and 1000 candidates, and the page faults a turn takes (fresh memory the system
maps in, ~4 us each on a virtual machine). `--no-record` leaves the store out (the engine
alone). The allocator is tuned as the application tunes it at start-up
(roundtable_desktop/allocator.py); `--default-allocator` leaves it as it is.

Each size is measured `--repeat` times (a fresh store and session each time) and the
median and p95 are over every timed turn of all runs together; the lowest and highest
run median are printed beside them. On a shared or virtual machine one run's median can
swing by half between runs of the same code as the host's load changes: pooling runs
gives a figure that one slow or fast stretch does not decide, and the spread shows how
noisy the machine was.
Not a test: run it with `.venv/bin/python bench/turn_overhead.py [--help]`.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path

from roundtable_desktop.allocator import keep_large_buffers_mapped
from roundtable_desktop.context.tokens import counter_name, estimate_tokens
from roundtable_desktop.domain.calls import ChatRequest, Usage
from roundtable_desktop.engine.base import Action
from roundtable_desktop.engine.launch import start_session
from roundtable_desktop.kinds.built import register_built_kinds
from roundtable_desktop.kinds.roundtable.session import RoundtableSession  # the bench sets its list
from roundtable_desktop.kinds.roundtable.sources.mock_catalog import MockCatalog
from roundtable_desktop.llm.client import ChatClient, Delta, Finish, StreamItem
from roundtable_desktop.store.database import SessionStore

SIZES = (20, 200, 1000)
TURNS = 60
WARM_UP = 5
REPEAT = 5


class InstantClient(ChatClient):
    """Answers at once with a fixed, realistic reply that uses real ids."""

    name = "instant"
    endpoint = "bench://instant"

    def __init__(self) -> None:
        self.reply = "CALL: passTurn()"

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamItem]:
        for line in self.reply.splitlines(keepends=True):
            yield Delta(line)
        yield Finish(Usage(prompt_tokens=1, completion_tokens=1), "stop")


def stored_bytes(store: SessionStore, db: Path) -> int:
    """The database's size on disk once its write-ahead log is folded in and truncated."""
    if not store.wait_checkpointed():
        raise RuntimeError("the store's checkpoint thread did not finish")
    other = sqlite3.connect(str(db))
    try:
        busy = other.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
    finally:
        other.close()
    if busy:
        raise RuntimeError("the WAL checkpoint could not finish: a reader held it open")
    wal = db.with_name(db.name + "-wal")
    return db.stat().st_size + (wal.stat().st_size if wal.exists() else 0)


async def measure(
    size: int, db: Path, *, turns: int = TURNS, record: bool = True
) -> tuple[list[float], int, int, float | None, float]:
    catalog = MockCatalog.load()
    base = catalog.all()
    store = SessionStore.open(db)
    client = InstantClient()
    handle = await start_session("roundtable", store=store, client=client, candidate_source=catalog,
                                 model="bench", provider="offline")
    if not record:
        handle.bus.unsubscribe(handle.recorder)
    session = handle.session
    assert isinstance(session, RoundtableSession)
    session.state.candidates = [
        c.model_copy(update={"id": f"b{i:010d}", "title": f"{c.title} #{i}"})
        for i, c in zip(range(size), (base * (size // len(base) + 1)), strict=False)
    ]
    ids = [c.id for c in session.state.candidates[:3]]
    client.reply = "\n".join([
        f"CALL: rankCandidates({', '.join(ids)})",
        "CALL: updateSuggestions(3)",
        'CALL: addActorNote("Committed three picks for my area.")',
        'CALL: addWhiteboard("Committed three picks.")',
        "CALL: passTurn()",
    ])
    session.budget = 10_000_000  # measure the engine, not the budget refusal
    # The payload the model reads: the meeting document (the user message).
    doc = session.pending_payloads()[0].request.user_text()
    timings = []
    grown_from = 0
    faults_from = 0
    for turn in range(turns):
        if turn == WARM_UP:
            if record:
                grown_from = stored_bytes(store, db)
            faults_from = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        if session.state.actor.role == "administrator":
            session.state.current = 1  # participants only: the admin may not finalize here
        start = time.perf_counter()
        await session.perform(Action(id="infer"))
        await session.perform(Action(id="run_tools"))
        timings.append((time.perf_counter() - start) * 1000)
    faults = (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults_from) / (turns - WARM_UP)
    per_turn = (stored_bytes(store, db) - grown_from) / (turns - WARM_UP) if record else None
    store.close()
    return timings[WARM_UP:], len(doc.encode("utf-8")), estimate_tokens(doc), per_turn, faults


def main(argv: list[str] | None = None) -> int:
    register_built_kinds()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES),
                        metavar="N", help="candidate-list sizes (default: 20 200 1000)")
    parser.add_argument("--turns", type=int, default=TURNS,
                        help=f"turns per run, the first {WARM_UP} not timed (default: {TURNS})")
    parser.add_argument("--repeat", type=int, default=REPEAT,
                        help=f"runs per size, pooled (default: {REPEAT})")
    parser.add_argument("--no-record", action="store_true",
                        help="unsubscribe the store recorder: time the engine alone")
    parser.add_argument("--default-allocator", action="store_true",
                        help="do not tune the C allocator as the application does")
    args = parser.parse_args(argv)
    if args.turns <= WARM_UP + 1:
        parser.error(f"--turns must be more than {WARM_UP + 1}")
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    what = "engine alone, no store" if args.no_record else "engine and store"
    tuned = not args.default_allocator and keep_large_buffers_mapped()
    print(f"roundtable turn overhead ({args.repeat} runs of {args.turns} turns per size, "
          f"{what}; tokens: {counter_name()}; allocator: {'tuned' if tuned else 'default'})")
    print(f"{'candidates':>10} {'median ms':>10} {'p95 ms':>8} {'run medians':>13} "
          f"{'payload bytes':>14} {'~tokens':>8} {'db bytes/turn':>14} {'faults/turn':>12}")
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            pooled: list[float] = []
            medians: list[float] = []
            growths: list[float] = []
            faults: list[float] = []
            for run in range(args.repeat):
                timings, nbytes, tokens, growth, fault = asyncio.run(measure(
                    size, Path(tmp) / f"b{size}-{run}.db", turns=args.turns,
                    record=not args.no_record))
                pooled += timings
                medians.append(statistics.median(timings))
                if growth is not None:
                    growths.append(growth)
                faults.append(fault)
            median = statistics.median(pooled)
            p95 = statistics.quantiles(pooled, n=20)[18]
            spread = f"{min(medians):.2f}-{max(medians):.2f}"
            grown = f"{statistics.median(growths):,.0f}" if growths else "-"
            print(f"{size:>10} {median:>10.2f} {p95:>8.2f} {spread:>13} {nbytes:>14,} "
                  f"{tokens:>8,} {grown:>14} {statistics.median(faults):>12.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
