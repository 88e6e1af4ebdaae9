"""`roundtable --self-test`: the real window, offscreen, through a short offline session.

What a packaged build runs to prove itself on a clean machine (packaging/smoke runs it
from the bundle with an empty HOME and no network). It opens the window, checks that the
context view rendered the payload the model gets next, runs the default kind's offline
session to its end (through the kind-neutral summary: for the meeting, the Administrator
finalizes), reopens the stored session, reports the keyring backend
(frozen builds have lost keyring's backends) and answers through the bundled MCP server.
It prints one line per check, "ok   ..." or "FAIL ...", and returns 0 only if all passed.

`prepare_environment()` runs before the QApplication exists: offscreen when there is no
display, a throwaway ROUNDTABLE_HOME (the user's sessions, settings and layout are never
touched), and only when running as root, Chromium's `--no-sandbox` for this process
(Chromium refuses to start as root otherwise; a normal run never turns the sandbox off).
Must not touch the user's data, settings or keyring, and must not be used by normal runs.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import os
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Protocol, TypeVar

from PySide6.QtCore import QEvent, QObject, SignalInstance
from PySide6.QtWidgets import QWidget

from roundtable_desktop.context.payload import canonical
from roundtable_desktop.domain.plural import count_of
from roundtable_desktop.engine.base import Action
from roundtable_desktop.engine.registry import summarize_stored
from roundtable_desktop.llm.keys import KeyStore, backend_name
from roundtable_desktop.llm.offline import OFFLINE_MODEL, OfflineClient
from roundtable_desktop.paths import default_db_path
from roundtable_desktop.store.database import SessionStore
from roundtable_desktop.ui.window.main_window import MainWindow
from roundtable_desktop.ui.window.session_runner import ClientChoice, ClientFactory

T = TypeVar("T")
STEP_TIMEOUT_S = 30.0
WATCHDOG_S = 120.0  # the whole run; a Qt loop that never returns to Python is killed here
AUTO_STEP_CAP = 400  # far above a default meeting (about 30 steps): the meeting ends first
# The keyring backend each platform's OS keyring needs (entry point names in keyring's
# metadata): missing means the bundle lost it and keys could never be stored.
NATIVE_KEYRING = {"linux": "SecretService", "darwin": "macOS", "win32": "Windows"}
_started = time.monotonic()


class ComposeWindow(Protocol):
    def __call__(self, store: SessionStore, *,
                 client_factory: ClientFactory | None = None) -> MainWindow: ...


class CheckFailed(Exception):
    """One check did not pass; the message is the rest of its FAIL line."""


def _say(line: str) -> None:
    print(line, flush=True)


def prepare_environment(env: MutableMapping[str, str] | None = None) -> list[str]:
    """Set up this process (or `env`) for the self-test; returns the notes to print."""
    env = os.environ if env is None else env
    notes = []
    no_display = not (env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"))
    if sys.platform.startswith("linux") and no_display and not env.get("QT_QPA_PLATFORM"):
        env["QT_QPA_PLATFORM"] = "offscreen"
        notes.append("no display: the window opens offscreen")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        flags = env.get("QTWEBENGINE_CHROMIUM_FLAGS", "")
        if "--no-sandbox" not in flags.split():
            env["QTWEBENGINE_CHROMIUM_FLAGS"] = f"{flags} --no-sandbox".strip()
        notes.append("running as root: Chromium's sandbox is off for this self-test only "
                     "(--no-sandbox); the app never turns it off")
    env["ROUNDTABLE_HOME"] = tempfile.mkdtemp(prefix="roundtable-self-test-")
    return notes


def process_age_s() -> tuple[float, str]:
    """Seconds since this process started, and what they are measured from."""
    try:
        stat = Path("/proc/self/stat").read_text()
        ticks = int(stat.rsplit(")", 1)[1].split()[19])  # field 22: starttime
        uptime = float(Path("/proc/uptime").read_text().split()[0])
        return max(uptime - ticks / os.sysconf("SC_CLK_TCK"), 0.0), "the process started"
    except (OSError, ValueError, IndexError, AttributeError):
        return time.monotonic() - _started, "the self-test module loaded"


class _PaintWatch(QObject):
    """Sets `painted` on the first paint of the widget it is installed on."""

    def __init__(self, parent: QWidget, painted: asyncio.Event) -> None:
        super().__init__(parent)
        self._painted = painted

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self._painted.set()
        return False


async def _within(awaitable: Awaitable[T], what: str, timeout: float = STEP_TIMEOUT_S) -> T:
    try:
        return await asyncio.wait_for(awaitable, timeout)
    except TimeoutError:
        raise CheckFailed(f"{what} did not happen within {timeout:g} s") from None


async def _until(predicate: Callable[[], bool], signal: SignalInstance, what: str) -> None:
    """Wait for `predicate`, re-checking whenever `signal` fires (never by sleeping)."""
    fired = asyncio.Event()
    signal.connect(fired.set)
    try:
        deadline = time.monotonic() + STEP_TIMEOUT_S
        while not predicate():
            fired.clear()
            await _within(fired.wait(), what, max(deadline - time.monotonic(), 0.01))
    finally:
        signal.disconnect(fired.set)


class SelfTest:
    """The checks, in order; each prints its line. Later checks need earlier ones."""

    def __init__(self, compose: ComposeWindow) -> None:
        self.compose = compose
        self.failures = 0
        self.window: MainWindow | None = None
        self.store: SessionStore | None = None

    async def check(self, name: str, step: Callable[[], Awaitable[str]]) -> bool:
        try:
            detail = await step()
        except CheckFailed as exc:
            _say(f"FAIL {name}: {exc}")
        except Exception as exc:  # a self-test reports, it does not crash
            _say(f"FAIL {name}: {type(exc).__name__}: {exc}")
        else:
            _say(f"ok   {detail}")
            return True
        self.failures += 1
        return False

    async def run(self) -> int:
        steps = [("window", self.open_window), ("context view", self.view_shows_payload),
                 ("offline meeting", self.meeting_ends), ("session store", self.reopens)]
        for name, step in steps:
            if not await self.check(name, step):
                break
        await self.check("keyring", self.keyring_report)
        await self.check("bundled MCP server", self.mcp_answers)
        await self.close()
        return 0 if self.failures == 0 else 1

    # -- the checks -------------------------------------------------------------------------
    async def open_window(self) -> str:
        self.store = SessionStore.open(default_db_path())
        offline = ClientChoice(OfflineClient(delay_s=0.0), OFFLINE_MODEL, "offline")
        window = self.window = self.compose(self.store, client_factory=lambda: offline)
        painted = asyncio.Event()
        watch = _PaintWatch(window, painted)
        window.installEventFilter(watch)
        window.resize(1280, 800)
        window.show()
        try:
            await _within(painted.wait(), "the first paint of the window")
        finally:
            window.removeEventFilter(watch)
        age, since = process_age_s()
        return f"window opened in {age * 1000:.0f} ms (since {since})"

    async def view_shows_payload(self) -> str:
        window = self._window()
        await _within(window.runner.start_new(), "starting a meeting")
        handle = window.runner.handle
        if handle is None:
            raise CheckFailed("no meeting started")
        pending = handle.session.payloads_as_sent()[0]
        view = window.context_view
        await _until(lambda: view.loaded and view.document() == pending.document,
                     view.documentShown, "loading the payload into the context view")
        shown: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()

        def keep(text: str | None) -> None:
            if not shown.done():
                shown.set_result(text)

        view.read_context_element(keep)
        text = await _within(shown, "reading #context-window back from the page")
        if not text:
            raise CheckFailed("the page has no #context-window element")
        sent = pending.request.user_text()
        if canonical(text) != canonical(sent):
            raise CheckFailed("the rendered #context-window differs from the payload")
        return (f"context view shows the payload the model gets next "
                f"({len(sent.encode('utf-8')):,} bytes, canonical forms equal)")

    async def meeting_ends(self) -> str:
        window = self._window()
        began = time.monotonic()
        task = window.runner.perform(Action(id="auto", steps=AUTO_STEP_CAP))
        if task is None:
            raise CheckFailed("Auto was refused")
        await _within(task, "the end of the offline meeting", 60.0)
        summary = window.bridge.summary()
        if summary is None or not summary.ended or not summary.result.items:
            at = summary.progress_text if summary is not None else "?"
            raise CheckFailed(f"Auto stopped before the end ({at or 'no progress'})")
        calls = len(window.runner.store.calls(self._session_id()))
        return (f"offline session ran to its end: {summary.result.heading.lower()}, "
                f"{count_of(len(summary.result.items), 'item')}, after "
                f"{count_of(calls, 'call')} ({time.monotonic() - began:.1f} s)")

    async def reopens(self) -> str:
        window = self._window()
        session_id = self._session_id()
        before = window.bridge.summary()
        assert before is not None
        with SessionStore.open(default_db_path()) as second:  # a new connection: on disk
            record = second.get_session(session_id)
            calls = len(second.calls(session_id))
        stored = summarize_stored(record.kind, record.state)
        if stored is None or not stored.ended or stored.result != before.result:
            raise CheckFailed("the stored session lost its result")
        await _within(window.runner.reopen(session_id), "reopening the session")
        after = window.bridge.summary()
        if after is None or not after.ended or after.result != before.result:
            raise CheckFailed("the reopened session differs from the one that ended")
        return (f"session {session_id[:8]} saved ({record.status}, {count_of(calls, 'call')}) "
                f"and reopened with its result intact")

    async def keyring_report(self) -> str:
        found = sorted(ep.name for ep in importlib.metadata.entry_points(group="keyring.backends"))
        native = next((name for prefix, name in NATIVE_KEYRING.items()
                       if sys.platform.startswith(prefix)), None)
        backend = backend_name()
        if native is not None and native not in found:
            raise CheckFailed(f"backend {backend}; this build lacks keyring's {native} backend "
                              f"(found: {', '.join(found) or 'none'}), so keys could never "
                              "reach the OS keyring")
        return f"keyring backend {backend}: {KeyStore().status()}"

    async def mcp_answers(self) -> str:
        # Imported here: the MCP SDK takes a second to load and only this check needs it.
        from roundtable_desktop.sources.mcp_client import McpConnection
        from roundtable_desktop.sources.mcp_process import (
            server_command,
            start_bundled_server_async,
            stop_bundled_server_async,
        )

        began = time.monotonic()
        server = await start_bundled_server_async(0)
        connection = McpConnection()
        try:
            await _within(connection.connect(server.url), "connecting to the MCP server")
            tools = connection.tool_names
            output = await _within(connection.call_tool("search_videos", {"query": "rag"}),
                                   "a search_videos call")
        finally:
            await connection.disconnect()
            await stop_bundled_server_async(server)
        if output.structured is None and not output.texts:
            raise CheckFailed("search_videos returned nothing")
        parts = server_command("127.0.0.1", 0)
        parts = [Path(parts[0]).name, *parts[1:parts.index("serve-mcp") + 1]]
        command = " ".join(parts)
        return (f"bundled MCP server ({command}) listed {', '.join(tools)} and answered "
                f"search_videos ({time.monotonic() - began:.1f} s)")

    # -- helpers ---------------------------------------------------------------------------
    def _window(self) -> MainWindow:
        if self.window is None:
            raise CheckFailed("the window is not open")
        return self.window

    def _session_id(self) -> str:
        handle = self._window().runner.handle
        if handle is None:
            raise CheckFailed("there is no session")
        return handle.session_id

    async def close(self) -> None:
        window = self.window
        if window is not None:
            closed = asyncio.Event()
            window.closed.connect(closed.set)
            window.close()  # the window cancels and awaits its work, then says closed
            try:
                await _within(closed.wait(), "closing the window")
            except CheckFailed as exc:
                _say(f"FAIL closing: {exc}")
                self.failures += 1
        if self.store is not None:
            self.store.close()


def _start_watchdog(seconds: float) -> threading.Timer:
    def expire() -> None:
        _say(f"FAIL self-test: it did not finish within {seconds:g} s")
        os._exit(1)

    timer = threading.Timer(seconds, expire)
    timer.daemon = True
    timer.start()
    return timer


async def run_self_test(compose: ComposeWindow, notes: list[str] | None = None) -> int:
    """Run every check in the running qasync loop; 0 if all passed."""
    watchdog = _start_watchdog(WATCHDOG_S)
    for note in notes or []:
        _say(f"note {note}")
    home = os.environ.get("ROUNDTABLE_HOME", "")
    try:
        code = await SelfTest(compose).run()
    finally:
        watchdog.cancel()
    if code == 0 and home and Path(home).name.startswith("roundtable-self-test-"):
        shutil.rmtree(home, ignore_errors=True)
    elif home:
        _say(f"note the self-test's log and session store are kept in {home}")
    _say("self-test passed" if code == 0 else "self-test FAILED")
    return code

