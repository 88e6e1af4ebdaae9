"""`roundtable rehearse`: play every kind (or `--kind K`) offline in the real window at the
screen's size (or `--size WxH`; offscreen when there is no display) from its start to its
end, and print one line per kind, `ok` or `FAIL` with what is wrong. Exit code 0 only if
every kind passed.

It is how a presenter checks a laptop before a talk, and how the tests check layout.
`prepare(argv)` runs before the QApplication exists: it reads the options, gives the
offscreen platform a screen of the asked size, and points the data folder at a throwaway
one (the user's sessions, settings and layout are never touched). `run_rehearsal` then
plays the kinds in one window with the offline model at full speed. Must not change the
user's files; the session store it writes is deleted when every kind passed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import tempfile
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QRect

from roundtable_desktop.domain.plural import count_of
from roundtable_desktop.engine.registry import kind_names
from roundtable_desktop.llm.offline import OFFLINE_MODEL, OfflineClient
from roundtable_desktop.paths import default_db_path
from roundtable_desktop.rehearse_options import add_arguments
from roundtable_desktop.store.database import SessionStore
from roundtable_desktop.ui.rehearsal.player import KindReport, RehearsalPlayer
from roundtable_desktop.ui.self_test import prepare_environment
from roundtable_desktop.ui.window.main_window import MainWindow
from roundtable_desktop.ui.window.session_runner import ClientChoice, ClientFactory

HOME_PREFIX = "roundtable-rehearse-"

ComposeWindow = Callable[..., MainWindow]


@dataclass(frozen=True, slots=True)
class RehearseOptions:
    kinds: tuple[str, ...]
    size: tuple[int, int] | None
    shots: Path | None
    presenter: bool
    step_budget_s: float


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="roundtable rehearse",
        description="Play every kind offline in the real window and report what an "
                    "audience would see wrong.")
    add_arguments(p)
    return p


def parse(argv: list[str]) -> RehearseOptions:
    args = parser().parse_args(argv)
    size = None
    if args.size:
        try:
            width, height = (int(n) for n in args.size.lower().split("x"))
        except ValueError:
            parser().error(f"--size must read WIDTHxHEIGHT, e.g. 1366x768 (got {args.size!r})")
        if width < 640 or height < 480:
            parser().error(f"--size {args.size} is smaller than any screen we support "
                           "(640x480)")
        size = (width, height)
    return RehearseOptions(kinds=tuple(args.kind), size=size, shots=args.shots,
                           presenter=args.presenter, step_budget_s=args.budget)


def prepare(options: RehearseOptions,
            env: MutableMapping[str, str] | None = None) -> list[str]:
    """Before Qt starts: offscreen with a screen of the asked size when there is no
    display (or one was asked for offscreen), a throwaway data folder, Chromium's
    sandbox off for root (as the self-test does). Returns the notes to print."""
    env = os.environ if env is None else env
    notes = prepare_environment(env)
    env["ROUNDTABLE_HOME"] = tempfile.mkdtemp(prefix=HOME_PREFIX)
    platform = env.get("QT_QPA_PLATFORM", "")
    if platform.startswith("offscreen"):
        width, height = options.size or (1366, 768)
        config = Path(env["ROUNDTABLE_HOME"]) / "screen.json"
        config.write_text(json.dumps({"screens": [{
            "name": "rehearsal", "x": 0, "y": 0, "width": width, "height": height,
            "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1.0}]}))
        env["QT_QPA_PLATFORM"] = f"offscreen:configfile={config}"
    return [n for n in notes if "self-test" not in n]


def _offline() -> ClientChoice:
    return ClientChoice(OfflineClient(delay_s=0.0), OFFLINE_MODEL, "offline")


def _place(window: MainWindow, options: RehearseOptions) -> None:
    """As a presenter opens it: full screen in presenter mode, else the whole screen (or
    the asked size, when this screen is larger)."""
    if options.presenter:
        window.set_presenter_mode(True)
        return
    available = window.available_geometry()
    if options.size is None or (options.size[0] >= available.width()
                                and options.size[1] >= available.height()):
        window.showMaximized()  # the whole screen, as a presenter would open it
        return
    width, height = options.size
    window.place_on_screen(QRect(available.x(), available.y(), width, height))
    window.show()


async def run_rehearsal(compose: ComposeWindow, options: RehearseOptions,
                        notes: list[str] | None = None,
                        client_factory: ClientFactory = _offline) -> int:
    """Play the kinds in one window; print a line per kind; 0 when every kind passed."""
    for note in notes or []:
        print(f"note {note}", flush=True)
    unknown = [k for k in options.kinds if k not in kind_names()]
    if unknown:
        print(f"roundtable: rehearse: no kind {unknown[0]!r}; choose one of: "
              f"{', '.join(kind_names())}.", flush=True)
        return 2
    store = SessionStore.open(default_db_path())
    window = compose(store, client_factory=client_factory)
    reports: list[KindReport] = []
    try:
        _place(window, options)
        player = RehearsalPlayer(window, shots=options.shots,
                                 step_budget_s=options.step_budget_s)
        for kind in options.kinds or tuple(kind_names()):
            report = await player.play(kind)
            reports.append(report)
            print(report.line(), flush=True)
    finally:
        await _close(window)
        store.close()
    failed = [r for r in reports if not r.ok]
    home = os.environ.get("ROUNDTABLE_HOME", "")
    if not failed and home and Path(home).name.startswith(HOME_PREFIX):
        shutil.rmtree(home, ignore_errors=True)
    size = f"{window.width()}x{window.height()}"
    print(f"rehearsal at {size}{' in presenter mode' if options.presenter else ''}: "
          + (f"{len(failed)} of {count_of(len(reports), 'kind')} FAILED" if failed
             else f"{count_of(len(reports), 'kind')} rehearsed, all ok"), flush=True)
    return 1 if failed else 0


async def _close(window: MainWindow) -> None:
    closed = asyncio.Event()
    window.closed.connect(closed.set)
    window.close()  # the window cancels and awaits its work, then says closed
    try:
        await asyncio.wait_for(closed.wait(), 30.0)
    except TimeoutError:
        print("note the window did not close within 30 s", flush=True)
