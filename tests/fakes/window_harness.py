"""A harness for window tests: the real MainWindow on a running qasync loop, offscreen.

The one `make_window` fixture (tests/conftest.py) wraps the two context managers; a
test asks for it and calls `make(client_factory=None, start=True)`, which composes the
window exactly as app.py does (store under the test's ROUNDTABLE_HOME, mock catalog),
shows it and, unless told not to, starts a new meeting and waits until the context view
has loaded it. The default client is the offline model with no delay. Teardown closes
each window the way a user does (the first close cancels and awaits work) and deletes it
before the application-owned web profile.

`running_qasync_loop` never calls `qasync.QEventLoop.stop()`: that calls
QApplication.exit() while no Qt loop runs, which (Qt 6.12, checked here) emits
aboutToQuit (QtWebEngine shuts down on it) and leaves Qt's "quit now" flag set, so every
later QEventLoop.exec() (qtbot.wait, waitUntil, waitSignal) returns at once and the next
Qt test hangs. The loop is marked stopped directly instead, and a test that starts with
the flag already set fails at once saying why, rather than timing out.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
import qasync
from PySide6.QtCore import QCoreApplication, QEvent, QEventLoop, QTimer

from roundtable_desktop.app import compose_window
from roundtable_desktop.engine.base import Action, Edit
from roundtable_desktop.llm.offline import OfflineClient
from roundtable_desktop.paths import default_db_path
from roundtable_desktop.store.database import SessionStore
from roundtable_desktop.ui.qt_workarounds import asyncgen_hooks
from roundtable_desktop.ui.window.main_window import MainWindow
from roundtable_desktop.ui.window.session_runner import ClientChoice, ClientFactory

WAIT_MS = 10_000


def qt_quit_flag_set() -> bool:
    """True when QEventLoop.exec() would return at once (QApplication.exit() was called
    while no loop ran); only QApplication.exec() clears it."""
    probe = QEventLoop()
    QTimer.singleShot(0, probe, probe.quit)
    return probe.exec() == -1


@contextmanager
def running_qasync_loop(qapp) -> Iterator[asyncio.AbstractEventLoop]:  # type: ignore[no-untyped-def]
    """A qasync loop marked running for one test, torn down without QApplication.exit()."""
    if qt_quit_flag_set():
        pytest.fail("An earlier test called QApplication.exit() (e.g. qasync's loop.stop()) "
                    "outside exec(): Qt waits return at once now. Stop loops without it.")
    loop = qasync.QEventLoop(qapp, already_running=True)
    asyncio.set_event_loop(loop)
    try:
        with asyncgen_hooks(loop):
            yield loop
    finally:
        for task in asyncio.all_tasks(loop):
            task.cancel()
        closing = asyncio.ensure_future(loop.shutdown_asyncgens())
        deadline = time.monotonic() + 5.0
        while not closing.done() and time.monotonic() < deadline:
            qapp.processEvents()
        # loop.stop() would call QApplication.exit(); qasync keeps the flag name-mangled.
        loop._QEventLoop__is_running = False  # type: ignore[attr-defined]
        asyncio.events._set_running_loop(None)
        loop.close()
        asyncio.set_event_loop(None)


def offline_choice(delay_s: float = 0.0) -> ClientFactory:
    return lambda: ClientChoice(OfflineClient(delay_s=delay_s), "offline", "offline")


def wait_idle(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    qtbot.waitUntil(lambda: not window.runner.busy, timeout=WAIT_MS)


def wait_view(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    """Until the view has loaded what the session would send next."""
    def shows_pending() -> bool:
        handle = window.runner.handle
        if handle is None or not window.context_view.loaded:
            return False
        payloads = handle.session.pending_payloads()
        return bool(payloads) and window.context_view.document() == payloads[0].document

    qtbot.waitUntil(shows_pending, timeout=WAIT_MS)


def perform(qtbot, window: MainWindow, action_id: str, **kw: object) -> None:  # type: ignore[no-untyped-def]
    """Do what the toolbar would, and wait until the window is idle again."""
    window.runner.perform(Action(id=action_id, **kw))
    wait_idle(qtbot, window)


def edit(qtbot, window: MainWindow, edit_id: str, **params: object) -> None:  # type: ignore[no-untyped-def]
    """Make an edit as a dock would (the live session's `edit`), then wait until idle."""
    assert window.runner.handle is not None
    window.runner.handle.session.edit(Edit(id=edit_id, params=params))
    wait_idle(qtbot, window)


@contextmanager
def window_maker(qtbot) -> Iterator[Callable[..., MainWindow]]:  # type: ignore[no-untyped-def]
    """Make windows (needs a running qasync loop); closes and deletes them afterwards."""
    windows: list[MainWindow] = []
    stores: list[SessionStore] = []

    def make(client_factory: ClientFactory | None = None, *, start: bool = True) -> MainWindow:
        store = SessionStore.open(default_db_path())
        stores.append(store)
        window = compose_window(store, client_factory=client_factory or offline_choice())
        windows.append(window)
        window.resize(1600, 960)
        window.show()
        if start:
            window.runner.start_new()
            wait_idle(qtbot, window)
            wait_view(qtbot, window)
        return window

    try:
        yield make
    finally:
        _dispose(qtbot, windows, stores)


def _dispose(qtbot, windows: list[MainWindow], stores: list[SessionStore]) -> None:  # type: ignore[no-untyped-def]
    for window in windows:
        if window.isVisible():
            window.close()
            qtbot.waitUntil(lambda w=window: not w.isVisible(), timeout=WAIT_MS)
        window.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)
    for store in stores:
        store.close()


def start_new_from_the_menu(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    """File › New session…, then Start in its dialog (the live kind and scenario)."""
    from PySide6.QtWidgets import QPushButton

    from roundtable_desktop.ui.window.new_session_dialog import NewSessionDialog

    window.menus.new_action.trigger()
    qtbot.waitUntil(lambda: window.findChild(NewSessionDialog) is not None, timeout=WAIT_MS)
    dialog = window.findChild(NewSessionDialog)
    dialog.findChild(QPushButton, "startButton").click()
