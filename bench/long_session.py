"""A long session end to end: run, store, exports, window, per-turn engine cost.

A roundtable meeting of `--turns` turns (default 1,000) runs against the fake
OpenAI-compatible server (tests/fakes/openai_server.py, its own process): a fake model
that writes one whiteboard line and passes, so each request carries a whiteboard one line
longer than the last. Prints:

1. the run's wall time and the store's size on disk (after a WAL checkpoint);
2. each export format's time and size (the formats `roundtable export` offers);
3. the window (offscreen): opening the session's Calls and Metrics docks, entering
   replay, and stepping through it (median and worst step);
4. the per-turn engine cost at turns 10, middle and last: the gap between two call
   starts (the fake server's own time to answer subtracted: what the engine spends per
   turn), and the request size at that turn.

`--no-window` leaves part 3 out (no Qt needed). Not a test: run it with
`PYTHONPATH=src .venv/bin/python bench/long_session.py [--turns 1000]`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fakes.openai_fixture import start_fake_openai, stop_fake_openai  # noqa: E402

from roundtable_desktop.domain.events import CallFinished, CallStarted, Event  # noqa: E402
from roundtable_desktop.engine.launch import start_session  # noqa: E402
from roundtable_desktop.engine.session_export import export_session  # noqa: E402
from roundtable_desktop.kinds.built import register_built_kinds  # noqa: E402
from roundtable_desktop.llm.openai_compat import OpenAICompatClient  # noqa: E402
from roundtable_desktop.store.database import SessionStore  # noqa: E402

FORMATS = ("json", "html", "md", "replay")


def _mb(n: float) -> str:
    return f"{n / 1e6:8.2f} MB"


def store_bytes(store: SessionStore, db: Path) -> int:
    """The database's size once its write-ahead log is folded in."""
    store.wait_checkpointed()
    other = sqlite3.connect(str(db))
    try:
        other.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        other.close()
    wal = db.with_name(db.name + "-wal")
    return db.stat().st_size + (wal.stat().st_size if wal.exists() else 0)


def script(turns: int) -> list[dict[str, Any]]:
    return [
        {"kind": "ok", "chunk_size": 64, "usage": True,
         "text": f'CALL: addWhiteboard("Turn {n}: one more line for the board.")\n'
                 "CALL: passTurn()"}
        for n in range(turns)
    ]


async def run_session(db: Path, base_url: str, turns: int) -> tuple[str, float, list[float],
                                                                    list[float], list[int]]:
    """Run the meeting; returns its id, wall time, call start/finish times, request sizes."""
    store = SessionStore.open(db)
    client = OpenAICompatClient(base_url, None)
    client.prepare()
    handle = await start_session("roundtable", store=store, client=client, model="bench",
                                 provider="local")
    starts: list[float] = []
    finishes: list[float] = []
    sizes: list[int] = []

    def on_event(event: Event) -> None:
        if isinstance(event, CallStarted):
            starts.append(time.perf_counter())
            messages = event.request.get("messages", [])
            sizes.append(sum(len(str(m.get("content", ""))) for m in messages))
        elif isinstance(event, CallFinished):
            finishes.append(time.perf_counter())

    handle.bus.subscribe(on_event)
    session: Any = handle.session
    if hasattr(session, "budget"):
        session.budget = 100_000_000  # measure the engine, not the budget refusal
    began = time.perf_counter()
    failures = 0
    while len(finishes) < turns and not session.ended:
        step = session.next_step()
        if step is None:
            break
        ok = await session.perform(step)
        failures = 0 if ok else failures + 1
        if failures > 2:
            raise RuntimeError("the session failed three steps in a row")
    wall = time.perf_counter() - began
    session_id = handle.session_id
    handle.close()
    await client.aclose()
    store.close()
    return session_id, wall, starts, finishes, sizes


def turn_costs(starts: list[float], finishes: list[float], sizes: list[int],
               turns: int) -> None:
    """Engine time per turn: from one call's finish to the next call's start (the model's
    own time left out), median over five turns around each point."""
    gaps = [(starts[i + 1] - finishes[i]) * 1000 for i in range(min(len(starts) - 1,
                                                                    len(finishes)))]
    whole = [(starts[i + 1] - starts[i]) * 1000 for i in range(len(starts) - 1)]
    print("Per-turn engine cost (median of 5 turns around each point):")
    print(f"  {'turn':>6} {'engine ms':>10} {'start-to-start ms':>18} {'request chars':>14}")
    for point in sorted({10, turns // 2, turns}):
        at = max(0, min(point - 1, len(gaps) - 1))
        lo, hi = max(0, at - 2), min(len(gaps), at + 3)
        if lo >= hi:
            continue
        print(f"  {point:>6} {statistics.median(gaps[lo:hi]):>10.1f} "
              f"{statistics.median(whole[lo:hi]):>18.1f} {sizes[min(at, len(sizes) - 1)]:>14,}")


def exports(db: Path, session_id: str, out: Path) -> None:
    print("Exports:")
    store = SessionStore.open(db)
    try:
        for fmt in FORMATS:
            began = time.perf_counter()
            try:
                text = export_session(store, session_id, fmt)  # type: ignore[arg-type]
            except ValueError as exc:
                print(f"  {fmt:>7}: not available ({exc})")
                continue
            took = time.perf_counter() - began
            path = out / ("replay.html" if fmt == "replay" else f"export.{fmt}")
            path.write_text(text, encoding="utf-8")
            print(f"  {fmt:>7}: {took:7.2f} s  {_mb(path.stat().st_size)}")
    finally:
        store.close()


def window(db: Path, session_id: str, steps: int) -> None:
    """Open the session's docks, enter replay and step, in an offscreen window."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("QTWEBENGINE_CHROMIUM_FLAGS", "--disable-gpu")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        os.environ.setdefault("QTWEBENGINE_DISABLE_SANDBOX", "1")
    from PySide6.QtWidgets import QApplication

    from roundtable_desktop.ui.docks.calls_dock import CallsDock
    from roundtable_desktop.ui.docks.metrics_dock import MetricsDock
    from roundtable_desktop.ui.window.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    store = SessionStore.open(db)
    from roundtable_desktop.app import compose_window

    win: MainWindow = compose_window(store)
    win.resize(1366, 768)
    win.show()
    app.processEvents()
    print("Window (offscreen, 1366x768):")
    began = time.perf_counter()
    win.menus.start_replay(session_id)
    app.processEvents()
    print(f"  replay opened (docks filled): {time.perf_counter() - began:7.2f} s")
    for dock_type in (CallsDock, MetricsDock):
        dock = win.findChild(dock_type)
        if dock is None:
            continue
        began = time.perf_counter()
        dock.refresh()
        app.processEvents()
        print(f"  {dock_type.__name__} refreshed:     {time.perf_counter() - began:7.2f} s")
    bar = win.menus.replay_widget
    if bar is not None and bar.step_count() > 1:
        count = bar.step_count()
        bar.set_step(count // 2)
        app.processEvents()
        ahead: list[float] = []
        for _ in range(min(steps, count - count // 2 - 1)):
            began = time.perf_counter()
            bar.next_step()
            app.processEvents()
            ahead.append((time.perf_counter() - began) * 1000)
        jumps: list[float] = []
        for target in (0, count - 1, count // 4, 3 * count // 4):
            began = time.perf_counter()
            bar.set_step(target)
            app.processEvents()
            jumps.append((time.perf_counter() - began) * 1000)
        if ahead:
            print(f"  step (-> from the middle, {len(ahead)} steps): median "
                  f"{statistics.median(ahead):6.1f} ms, worst {max(ahead):6.1f} ms")
        print(f"  jump (slider to 4 far steps): median {statistics.median(jumps):6.1f} ms, "
              f"worst {max(jumps):6.1f} ms")
    win.hide()  # closing asks the (absent) event loop to finish work: the process ends
    store.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=1000, help="turns to run (default 1000)")
    parser.add_argument("--no-window", action="store_true", help="leave the window out")
    parser.add_argument("--steps", type=int, default=20, help="replay steps to time")
    parser.add_argument("--store", type=Path, default=None,
                        help="skip the run: measure exports and window on this store's "
                             "latest session (made by --keep)")
    parser.add_argument("--keep", type=Path, default=None,
                        help="write the store and the exports to this folder")
    args = parser.parse_args(argv)
    register_built_kinds()
    with tempfile.TemporaryDirectory(prefix="roundtable-long-") as tmp:
        out = args.keep or Path(tmp)
        out.mkdir(parents=True, exist_ok=True)
        os.environ.setdefault("ROUNDTABLE_HOME", str(Path(tmp) / "home"))
        if args.store is not None:
            store = SessionStore.open(args.store)
            size, session_id = store_bytes(store, args.store), store.latest_session_id()
            store.close()
            print(f"Stored session {session_id}: store {_mb(size)}")
            assert session_id is not None
            exports(args.store, session_id, out)
            if not args.no_window:
                window(args.store, session_id, args.steps)
            return 0
        db = out / "long.db"
        if db.exists():
            db.unlink()
        process, fake = start_fake_openai()
        try:
            fake.script(script(args.turns))
            session_id, wall, starts, finishes, sizes = asyncio.run(
                run_session(db, fake.base_url, args.turns))
        finally:
            stop_fake_openai(process, fake)
        store = SessionStore.open(db)
        size = store_bytes(store, db)
        store.close()
        print(f"Long roundtable session: {len(finishes)} calls against the fake server")
        print(f"  run: {wall:7.2f} s   store: {_mb(size)}   last request: {sizes[-1]:,} characters")
        turn_costs(starts, finishes, sizes, len(finishes))
        exports(db, session_id, out)
        if not args.no_window:
            window(db, session_id, args.steps)
    return 0


if __name__ == "__main__":
    sys.exit(main())
