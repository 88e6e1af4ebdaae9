"""Make docs/screenshot.png: the window mid-meeting at 1920x1080, offscreen.

    .venv/bin/python docs/make_screenshot.py [--theme dark] [--zoom 1.4] [--presenter]
                                             [--size 1366x768] [--out docs/screenshot.png]
    .venv/bin/python docs/make_screenshot.py --laptop     # docs/screenshot-laptop.png
    .venv/bin/python docs/make_screenshot.py --laptop --dark --dock metricsDock \
                                             --out /tmp/metrics-dark.png
    .venv/bin/python docs/make_screenshot.py --end --out /tmp/ended.png  # the end panel

The window opens on an offscreen screen of the given size (Qt's offscreen `configfile`),
so it places and sizes itself as it would on that screen.

Runs an offline meeting for a few turns by triggering the toolbar's actions (or, with
--end, runs Auto until the meeting has ended: the end panel shows), selects a candidate
(the view scrolls to it), replays the session at a step if asked (--replay), brings a
dock forward if asked (--dock, by object name: a tabbed one such as metricsDock), waits
until the context view has painted and grabs the window. Extra looks go to /tmp (--out),
never over the docs' screenshots. Uses a throwaway ROUNDTABLE_HOME. Must not touch the user's files.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QTWEBENGINE_CHROMIUM_FLAGS", "--no-sandbox --disable-gpu")
if os.geteuid() == 0:  # Chromium refuses to run as root without it (containers, CI)
    os.environ.setdefault("QTWEBENGINE_DISABLE_SANDBOX", "1")
os.environ["ROUNDTABLE_HOME"] = tempfile.mkdtemp(prefix="roundtable-shot-")

import qasync
from PySide6.QtWidgets import QApplication

from roundtable_desktop.app import compose_window
from roundtable_desktop.llm.offline import OfflineClient
from roundtable_desktop.paths import default_db_path
from roundtable_desktop.store.database import SessionStore
from roundtable_desktop.ui.window.main_window import PRESENTER_ZOOM
from roundtable_desktop.ui.window.session_runner import ClientChoice

ROOT = Path(__file__).resolve().parents[1]


async def _until(predicate, timeout: float = 20.0) -> None:  # type: ignore[no-untyped-def]
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise TimeoutError("the window did not get there in time")
        await asyncio.sleep(0.02)


def _next_action(window) -> str:  # type: ignore[no-untyped-def]
    specs = {s.id: s for s in window.runner.actions()}
    for action_id in ("run_tools", "infer", "next_turn"):
        spec = specs.get(action_id)
        if spec is not None and spec.enabled:
            return action_id
    return ""


def use_screen(width: int, height: int) -> None:
    """Give the offscreen platform one screen of this size (before QApplication exists)."""
    config = Path(tempfile.mkdtemp(prefix="roundtable-screen-")) / "screen.json"
    config.write_text(json.dumps({"screens": [{
        "name": "shot", "x": 0, "y": 0, "width": width, "height": height,
        "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1.0}]}))
    os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={config}"


async def _run_to_end(window) -> None:  # type: ignore[no-untyped-def]
    """Auto until the session has ended (a few rounds of at most 50 steps)."""
    for _ in range(10):
        if window.bridge.ended():
            return
        qaction = window.toolbar.qactions["auto"]
        await _until(qaction.isEnabled)
        window.toolbar.steps_spin.setValue(50)
        qaction.trigger()
        await _until(lambda: not window.runner.busy, timeout=60.0)


async def shoot(out: Path, theme: str, actions: int, zoom: float,
                size: tuple[int, int], *, end: bool = False, dock: str = "",
                replay: int = -1) -> None:
    store = SessionStore.open(default_db_path())
    window = compose_window(store, client_factory=lambda: ClientChoice(
        OfflineClient(delay_s=0.0), "offline", "offline"))
    window.set_theme(theme)
    window.zoom_by(0)
    while window.zoom < zoom - 1e-6:
        window.zoom_by(1)
    # The whole screen, as a maximized window on that laptop or projector would be.
    window.setGeometry(0, 0, *size)
    window.show()
    await asyncio.gather(window.runner.start_new(), return_exceptions=True)
    for _ in range(actions):
        action_id = _next_action(window)
        if not action_id:
            break
        qaction = window.toolbar.qactions[action_id]
        await _until(qaction.isEnabled)  # the toolbar refreshes on the next loop pass
        qaction.trigger()
        await _until(lambda: not window.runner.busy)
    if end:
        await _run_to_end(window)
    candidates = window.docks.get("candidatesDock")
    tree = getattr(candidates, "candidate_tree", None)
    if tree is not None and tree.topLevelItemCount() > 2:
        tree.setCurrentItem(tree.topLevelItem(2))
    if replay >= 0:  # the session's own replay, at that step
        window.menus.start_replay(str(window.bridge.session_id()))
        bar = window.menus.replay_widget
        bar.set_step(replay)
        await _until(lambda: window.context_view.current_tab() is not None
                     and window.context_view.current_tab().call_id == bar.current_call().id)
    if dock:
        shown = window.docks.get(dock)
        if shown is None:
            raise SystemExit(f"No dock {dock!r}; the window has {sorted(window.docks)}.")
        shown.show()
        shown.raise_()
    await _until(lambda: window.context_view.loaded)
    await asyncio.sleep(1.5)  # let Chromium paint the page and the scroll settle
    image = window.grab()
    image.save(str(out))
    print(f"Wrote {out} ({image.width()}x{image.height()}).")
    window.close()
    await _until(lambda: not window.isVisible())
    store.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshot.png")
    parser.add_argument("--theme", default="light", choices=["light", "dark"])
    parser.add_argument("--dark", action="store_true", help="the dark theme")
    parser.add_argument("--zoom", type=float, default=1.0)
    parser.add_argument("--end", action="store_true",
                        help="run the meeting to its end (the end panel shows)")
    parser.add_argument("--replay", type=int, default=-1, metavar="STEP",
                        help="then replay the session, at this step (0 is the first call)")
    parser.add_argument("--dock", default="",
                        help="bring this dock forward first, by object name (metricsDock)")
    parser.add_argument("--presenter", action="store_true",
                        help="what --presenter shows: the dark theme at zoom 1.4")
    parser.add_argument("--actions", type=int, default=7)
    parser.add_argument("--size", default="1920x1080", help="screen size, e.g. 1366x768")
    parser.add_argument("--laptop", action="store_true",
                        help="1366x768 into docs/screenshot-laptop.png")
    args = parser.parse_args()
    if args.dark:
        args.theme = "dark"
    if args.presenter:
        args.theme, args.zoom = "dark", PRESENTER_ZOOM
    if args.laptop:
        args.size = "1366x768"
        if args.out == ROOT / "docs" / "screenshot.png":
            args.out = ROOT / "docs" / "screenshot-laptop.png"
    width, height = (int(n) for n in args.size.lower().split("x"))
    use_screen(width, height)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setQuitOnLastWindowClosed(False)
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with loop:
        loop.run_until_complete(shoot(args.out, args.theme, args.actions, args.zoom,
                                      (width, height), end=args.end, dock=args.dock,
                                      replay=args.replay))
    return 0


if __name__ == "__main__":
    sys.exit(main())
