"""The composition root: starts Qt on a qasync loop and wires the engine to the window.

`main(argv)` (what `roundtable` with no arguments calls) builds the QApplication, the
qasync event loop, the session store, key store, settings, model client (offline when
no key is set or the provider is offline), the mock catalog, the MCP controller (its
bundled server child is stopped when the window closes) and the main window; starts
a new meeting at once so the window is never empty, and offers to continue the last
session in a non-modal banner. Options: --presenter (full screen, dark theme, large
zoom), --self-test (ui/self_test.py: the window offscreen through a short offline
meeting, one line per check), --self-test=paint (prints when the window first
painted, then quits: for bench/) and --no-sandbox (Chromium's sandbox off for this run,
which is what lets root start it). Before Qt starts, startup_checks.py refuses, in words
and with its own exit code, a Linux machine missing the window's system libraries and a
root user who did not choose to run without the sandbox.
This is the only module that wires Qt, qasync and the engine together.
"""

from __future__ import annotations

import asyncio
import logging
import logging.handlers
import os
import signal
import sys
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

import qasync
from PySide6.QtCore import QCoreApplication, QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QWidget

from roundtable_desktop.engine.registry import kind_names
from roundtable_desktop.kinds.built import register_built_kinds
from roundtable_desktop.llm.keys import LLM_KEY, KeyStore
from roundtable_desktop.llm.offline import OFFLINE_MODEL, OfflineClient
from roundtable_desktop.llm.providers import PRESETS, is_local, make_client
from roundtable_desktop.paths import data_dir, default_db_path
from roundtable_desktop.startup_checks import (
    MISSING_LIBRARIES_EXIT,
    NO_DISPLAY_EXIT,
    NO_DISPLAY_MESSAGE,
    NO_SANDBOX_OPTION,
    ROOT_REFUSED_EXIT,
    apply_sandbox_choice,
    current_euid,
    libraries_message,
    missing_libraries,
    no_display,
    sandbox_choice,
    system_libraries,
)
from roundtable_desktop.store.database import SessionStore, StoreError
from roundtable_desktop.store.records import SessionInfo
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.console import quiet_chromium, route_native_stderr, route_qt_messages
from roundtable_desktop.ui.excepthook import UnhandledRouter
from roundtable_desktop.ui.kinds.built import register_built_window_kinds
from roundtable_desktop.ui.mcp_controller import McpController
from roundtable_desktop.ui.qt_workarounds import asyncgen_hooks
from roundtable_desktop.ui.rehearsal.command import parse as parse_rehearsal
from roundtable_desktop.ui.rehearsal.command import prepare as prepare_rehearsal
from roundtable_desktop.ui.rehearsal.command import run_rehearsal
from roundtable_desktop.ui.self_test import prepare_environment, run_self_test
from roundtable_desktop.ui.settings_store import AppSettings
from roundtable_desktop.ui.window.main_window import MainWindow
from roundtable_desktop.ui.window.session_runner import ClientChoice, ClientFactory, SessionRunner

log = logging.getLogger(__name__)
APP_NAME = "Roundtable"


@dataclass(frozen=True)
class Options:
    presenter: bool = False
    self_test: str = ""  # "", "full" or "paint"
    no_sandbox: bool = False


def parse_options(argv: list[str]) -> Options:
    presenter, self_test, no_sandbox = False, "", False
    for arg in argv:
        if arg == "--presenter":
            presenter = True
        elif arg == NO_SANDBOX_OPTION:
            no_sandbox = True
        elif arg == "--self-test":
            self_test = "full"
        elif arg.startswith("--self-test="):
            self_test = "paint" if arg.split("=", 1)[1] == "paint" else "full"
    return Options(presenter=presenter, self_test=self_test, no_sandbox=no_sandbox)


def choose_client(settings: AppSettings, keys: KeyStore) -> ClientChoice:
    """The client the settings ask for, or the offline one (saying why) when it cannot run."""
    wanted = settings.model_settings()
    offline = ClientChoice(OfflineClient(delay_s=wanted.offline_delay_s,
                                         seed=wanted.offline_seed),
                           OFFLINE_MODEL, "offline", parallel=wanted.parallel_calls)
    if wanted.provider == "offline" or not wanted.base_url:
        return offline
    key = keys.get(LLM_KEY)
    preset = PRESETS.get(wanted.provider)
    needs_key = preset.needs_key if preset is not None else True
    if needs_key and not key and not is_local(wanted.base_url):
        label = preset.label if preset is not None else wanted.provider
        offline.note = f"No API key is set for {label}: the offline model answers for now."
        return offline
    client = make_client(wanted, key)
    client.prepare()  # SSL context and lazy imports now, not inside the first stream
    return ClientChoice(client, wanted.model, wanted.provider, parallel=wanted.parallel_calls)


def continuable_session(store: SessionStore) -> SessionInfo | None:
    """The most recent active session of a kind this version runs, with at least one call."""
    try:
        sessions = store.list_sessions(limit=20)
    except StoreError:
        return None
    return next((s for s in sessions
                 if s.status == "active" and s.kind in kind_names() and s.call_count > 0),
                None)


_LOG_HANDLER = "roundtable"  # the name of the handler configure_logging adds (once)


def configure_logging() -> None:
    root = logging.getLogger()
    if any(h.get_name() == _LOG_HANDLER for h in root.handlers):
        return
    try:
        folder = data_dir() / "logs"
        folder.mkdir(parents=True, exist_ok=True)
        handler: logging.Handler = logging.handlers.RotatingFileHandler(
            folder / "roundtable.log", maxBytes=1_000_000, backupCount=3, encoding="utf-8")
    except OSError:
        handler = logging.StreamHandler(sys.stderr)
    handler.set_name(_LOG_HANDLER)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root.addHandler(handler)
    root.setLevel(logging.INFO)


class _FirstPaint(QObject):
    """Resolves `done` with the wall-clock time of the first paint of a watched widget.

    Installed on a few widgets only: an application-wide Python event filter sees events
    of half-destroyed objects and crashed here.
    """

    def __init__(self, parent: QWidget, done: asyncio.Future[float]) -> None:
        super().__init__(parent)
        self._done = done

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and not self._done.done():
            self._done.set_result(time.time())
        return False


def compose_window(
    store: SessionStore, *, client_factory: ClientFactory | None = None,
    settings: AppSettings | None = None, keys: KeyStore | None = None,
) -> MainWindow:
    """The window with its bridge and runner; tests and bench/ use it with their client.
    The composition root: the built kinds are registered here (engine and window side)."""
    register_built_kinds()
    register_built_window_kinds()
    keys = keys or KeyStore()
    settings = settings or AppSettings()
    factory = client_factory or (lambda: choose_client(settings, keys))
    bridge = EngineBridge(QApplication.instance())
    runner = SessionRunner(bridge, store=store, client_factory=factory)
    mcp = McpController(bridge, settings=settings)
    return MainWindow(bridge=bridge, runner=runner, settings=settings, key_store=keys, mcp=mcp)


async def run_window(app: QApplication, options: Options) -> int:
    try:
        store = SessionStore.open(default_db_path())
    except StoreError as exc:
        print(f"roundtable: {exc}", file=sys.stderr)
        return 2
    window = compose_window(store)
    runner = window.runner
    loop = asyncio.get_running_loop()
    router = UnhandledRouter(window.show_notice)
    router.install(loop)
    closed: asyncio.Future[None] = loop.create_future()
    window.closed.connect(lambda: None if closed.done() else closed.set_result(None))
    close_on_signals(window)
    painted: asyncio.Future[float] = loop.create_future()
    first_paint = _FirstPaint(window, painted)
    for widget in (window, window.toolbar, window.status):
        widget.installEventFilter(first_paint)
    try:
        last = continuable_session(store)
        if options.presenter:
            window.set_presenter_mode(True)
        elif window.open_maximised:
            window.showMaximized()
        else:
            window.show()
        if options.self_test == "paint":
            print(f"FIRST_PAINT {await painted:.6f}", flush=True)
        await asyncio.gather(runner.start_new(), return_exceptions=True)
        if runner.choice.note:
            window.show_notice("warning", runner.choice.note,
                               "Open Settings (Ctrl+,) to set a key or choose a provider.")
        if last is not None:
            window.offer_continue(last)
        show_startup_warnings(window, store)
        if options.self_test == "paint":
            if await _view_ready(window):
                print(f"VIEW_READY {time.time():.6f}", flush=True)
            window.close()
        await closed
        return 0
    finally:
        router.uninstall(loop)
        # Pages go before the profile the application owns, and before the loop's end
        # emits aboutToQuit (QtWebEngine shuts down on it).
        window.deleteLater()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)
        await loop.shutdown_asyncgens()  # qasync does not, unlike asyncio.run
        store.close()


_signal_target: list[MainWindow] = []  # the window SIGTERM and Ctrl+C close, once shown


def _on_stop_signal(signum: int, _frame: object) -> None:
    if _signal_target:
        QTimer.singleShot(0, _signal_target[-1].close)
    else:  # before the window exists there is nothing to save
        raise SystemExit(128 + signum)


def stop_on_signals() -> None:
    """SIGTERM and Ctrl+C: before the window exists, exit at once; then, close it as its
    close button does (the call in flight is cancelled with its partial text kept, the
    session saved). Installed first thing, so a signal during start-up is not lost."""
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, _on_stop_signal)


def close_on_signals(window: MainWindow) -> QTimer:
    """From now on a stop signal closes `window`. Python runs signal handlers only between
    bytecodes, so a timer wakes it while Qt waits for events."""
    _signal_target.append(window)
    window.destroyed.connect(lambda: _signal_target.clear())
    wake = QTimer(window)
    wake.timeout.connect(lambda: None)
    wake.start(200)
    return wake


def show_startup_warnings(window: MainWindow, store: SessionStore) -> None:
    """What was found damaged on opening (the settings file, the store's pages) goes on
    the banner, newest on top, so it is not missed behind the offer to continue."""
    if window.settings.warning:
        window.show_notice("warning", window.settings.warning,
                           "Your settings were reset to the defaults.")
    for warning in store.take_warnings():
        window.show_notice("warning", warning)


async def _view_ready(window: MainWindow, timeout_s: float = 30.0) -> bool:
    """Wait until the context view has loaded its first payload."""
    loaded: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
    window.context_view.documentShown.connect(
        lambda: None if loaded.done() else loaded.set_result(True))
    if window.context_view.loaded:
        return True
    try:
        return await asyncio.wait_for(loaded, timeout_s)
    except TimeoutError:
        return False


def keep_terminal_for_our_lines() -> None:
    """Qt's messages to the log; Chromium and native libraries to logs/native.log; the
    terminal keeps the app's own lines (ui/console.py)."""
    quiet_chromium(os.environ)
    route_qt_messages()
    route_native_stderr(data_dir() / "logs")


def refuse_to_start(options: Options) -> int:
    """Before Qt starts: 0 to go on, or the exit code after saying (and logging) why not.
    Chromium as root is refused before it can print its own line; missing libraries are
    named before Qt's xcb plugin aborts on the first of them."""
    if no_display(sys.platform, os.environ):
        log.error("no display: DISPLAY and WAYLAND_DISPLAY are not set")
        print(NO_DISPLAY_MESSAGE, file=sys.stderr)
        return NO_DISPLAY_EXIT
    choice = sandbox_choice(current_euid(), os.environ, options.no_sandbox)
    if choice.log:
        log.log(logging.INFO if choice.start else logging.ERROR, choice.log)
    if not choice.start:
        print(f"roundtable: {choice.message}", file=sys.stderr)
        return ROOT_REFUSED_EXIT
    apply_sandbox_choice(choice, os.environ)
    missing = missing_libraries(sys.platform, os.environ, system_libraries(os.environ))
    if missing:
        message = libraries_message(missing, current_euid())
        log.error(message)
        print(message, file=sys.stderr)
        return MISSING_LIBRARIES_EXIT
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    stop_on_signals()
    if argv[:1] == ["rehearse"]:
        return rehearse(argv[1:])
    options = parse_options(argv)
    notes = prepare_environment() if options.self_test == "full" else []
    configure_logging()
    refused = refuse_to_start(options)
    if refused:
        return refused
    return _run_on_qt(lambda app: run_self_test(compose_window, notes)
                      if options.self_test == "full" else run_window(app, options))


def rehearse(argv: list[str]) -> int:
    """`roundtable rehearse ...` (ui/rehearsal/command.py): the window, played through."""
    rehearsal = parse_rehearsal(argv)
    notes = prepare_rehearsal(rehearsal)
    configure_logging()
    refused = refuse_to_start(Options())
    if refused:
        return refused
    return _run_on_qt(lambda _app: run_rehearsal(compose_window, rehearsal, notes))


def _run_on_qt(main_task: Callable[[QApplication], Coroutine[Any, Any, int]]) -> int:
    """The QApplication and the qasync loop, running `main_task(app)` to its end. The
    terminal keeps the app's own lines from here on."""
    keep_terminal_for_our_lines()
    app = QApplication.instance() or QApplication([sys.argv[0] if sys.argv else APP_NAME])
    assert isinstance(app, QApplication)
    app.setApplicationName(APP_NAME)
    app.setApplicationDisplayName(APP_NAME)
    app.setQuitOnLastWindowClosed(False)  # the window's closed signal ends the loop
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    try:
        with loop, asyncgen_hooks(loop):
            return int(loop.run_until_complete(main_task(app)))
    finally:
        asyncio.set_event_loop(None)


if __name__ == "__main__":
    sys.exit(main())
