"""Window latency: cold start to first paint, and event-loop stalls while streaming.

1. Cold start: five fresh processes run `roundtable --self-test=paint`; each reports the
   wall-clock time its window first painted and when the context view showed the first
   payload. Prints the median (and range) from process launch.
2. Streaming: the real window streams 300 tokens at 100 tokens/s from the fake
   OpenAI-compatible server (tests/fakes/openai_server.py, a separate process) while a
   5 ms QTimer samples the Qt/asyncio loop; prints the longest stall and the p99, for
   the whole Infer and separately for the stream itself (first to last token). The
   first request of a process also pays for httpx's SSL context and lazy imports.

Offscreen by default (no display needed); every run uses a throwaway ROUNDTABLE_HOME.
Not a test: run it with `.venv/bin/python bench/ui_latency.py [--runs 5]`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_MS = 5
TOKENS, TOKENS_PER_S = 300, 100


def _env(home: str) -> dict[str, str]:
    env = {**os.environ, "ROUNDTABLE_HOME": home}
    if not env.get("DISPLAY") and not env.get("WAYLAND_DISPLAY"):
        env.setdefault("QT_QPA_PLATFORM", "offscreen")
    env.setdefault("QTWEBENGINE_CHROMIUM_FLAGS", "--disable-gpu")
    if hasattr(os, "geteuid") and os.geteuid() == 0:  # Chromium refuses root without it
        env.setdefault("QTWEBENGINE_DISABLE_SANDBOX", "1")
    return env


def cold_start(runs: int) -> None:
    paints: list[float] = []
    views: list[float] = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory(prefix="roundtable-bench-") as home:
            started = time.time()
            result = subprocess.run(
                [sys.executable, "-m", "roundtable_desktop", "--self-test=paint"],
                cwd=ROOT, env=_env(home), capture_output=True, text=True, timeout=120,
            )
        marks = dict(line.split() for line in result.stdout.splitlines()
                     if line.startswith(("FIRST_PAINT ", "VIEW_READY ")))
        if "FIRST_PAINT" not in marks:
            print(f"  a run failed (exit {result.returncode}): {result.stderr[-300:]}")
            continue
        paints.append((float(marks["FIRST_PAINT"]) - started) * 1000)
        if "VIEW_READY" in marks:
            views.append((float(marks["VIEW_READY"]) - started) * 1000)
    print(f"Cold start, {len(paints)} fresh processes (launch -> ...):")
    if paints:
        print(f"  first paint of the window:  median {statistics.median(paints):7.0f} ms "
              f"(min {min(paints):.0f}, max {max(paints):.0f})")
    if views:
        print(f"  first payload in the view:  median {statistics.median(views):7.0f} ms "
              f"(min {min(views):.0f}, max {max(views):.0f})")


def streaming_stalls() -> None:
    home = tempfile.mkdtemp(prefix="roundtable-bench-")
    os.environ.update(_env(home))
    sys.path.insert(0, str(ROOT))
    import qasync
    from PySide6.QtCore import QCoreApplication, QEvent, QTimer
    from PySide6.QtWidgets import QApplication
    from tests.fakes.openai_fixture import start_fake_openai, stop_fake_openai

    from roundtable_desktop.app import compose_window
    from roundtable_desktop.engine.base import Action
    from roundtable_desktop.llm.openai_compat import OpenAICompatClient
    from roundtable_desktop.paths import default_db_path
    from roundtable_desktop.store.database import SessionStore
    from roundtable_desktop.ui.qt_workarounds import asyncgen_hooks
    from roundtable_desktop.ui.window.session_runner import ClientChoice

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setQuitOnLastWindowClosed(False)
    process, fake = start_fake_openai()
    fake.script([{"kind": "ok", "tokens": TOKENS, "tokens_per_s": TOKENS_PER_S}])
    gaps: list[float] = []
    streaming: list[float] = []  # the gaps sampled between the first and the last token
    tokens: list[int] = []

    def bench_client() -> ClientChoice:
        client = OpenAICompatClient(fake.base_url, None)
        client.prepare()  # as app.choose_client does
        return ClientChoice(client, "bench-model", "local")

    async def run() -> None:
        store = SessionStore.open(default_db_path())
        window = compose_window(store, client_factory=bench_client)
        window.resize(1920, 1080)
        window.show()
        await window.runner.start_new()
        window.bridge.tokenReceived.connect(lambda _c, _t, n: tokens.append(n))
        last = [time.perf_counter()]

        def sample() -> None:
            now = time.perf_counter()
            gaps.append((now - last[0]) * 1000 - SAMPLE_MS)
            if tokens and tokens[-1] < TOKENS:
                streaming.append(gaps[-1])
            last[0] = now

        timer = QTimer()
        timer.setInterval(SAMPLE_MS)
        timer.timeout.connect(sample)
        timer.start()
        task = window.runner.perform(Action(id="infer"))
        if task is not None:
            await task
        timer.stop()
        window.close()
        while window.isVisible():
            await asyncio.sleep(0.01)
        window.deleteLater()  # before the loop ends: QtWebEngine shuts down at aboutToQuit
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)
        await asyncio.get_running_loop().shutdown_asyncgens()
        store.close()

    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    try:
        with loop, asyncgen_hooks(loop):
            loop.run_until_complete(run())
    finally:
        stop_fake_openai(process, fake)
    print(f"Streaming {tokens[-1] if tokens else 0} tokens at {TOKENS_PER_S}/s from the fake "
          f"server, loop sampled every {SAMPLE_MS} ms (stall = delay beyond the tick):")
    _print_stalls("whole Infer (request to tools parsed)", gaps[1:])
    _print_stalls("while tokens stream", streaming[1:])


def _print_stalls(what: str, gaps: list[float]) -> None:
    stalls = sorted(max(g, 0.0) for g in gaps)
    if not stalls:
        print(f"  {what}: no samples")
        return
    p99 = stalls[min(len(stalls) - 1, int(len(stalls) * 0.99))]
    print(f"  {what:38s} longest {stalls[-1]:6.1f} ms   p99 {p99:5.1f} ms   "
          f"median {statistics.median(stalls):4.1f} ms   ({len(stalls)} samples)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="cold starts to measure")
    args = parser.parse_args()
    cold_start(args.runs)
    streaming_stalls()
    return 0


if __name__ == "__main__":
    sys.exit(main())
