"""The `qasync_loop` fixture: a qasync event loop marked running for one Qt test.

pytest-qt has no qasync support. This installs a `qasync.QEventLoop(qapp,
already_running=True)` as the running asyncio loop, so widgets may call
`asyncio.ensure_future` and the tasks advance whenever the test lets Qt process events
(`qtbot.waitUntil` / `waitSignal`). Never call `run_until_complete` on it and never wait
with qtbot inside a coroutine. One loop serves the whole test session: a second qasync
loop on the same QApplication stopped advancing tasks here, so each test only makes the
shared loop current and cancels what it left behind. Use with
`from tests.fakes.qasync_running_loop import qasync_loop  # noqa: F401` and
`@pytest.mark.usefixtures("qasync_loop")`.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Iterator

import pytest
import qasync

_TEARDOWN_S = 5.0


_shared: list[qasync.QEventLoop] = []


def _shared_loop(qapp) -> qasync.QEventLoop:
    if not _shared:
        _shared.append(qasync.QEventLoop(qapp, already_running=True))
    return _shared[0]


def _install_asyncgen_hooks(loop: qasync.QEventLoop) -> tuple[object, object]:
    """qasync on Unix installs no async-generator hooks, so an httpx stream generator
    dropped early is closed synchronously by the garbage collector ("async generator
    ignored GeneratorExit"). asyncio's own hooks close it in a task, as asyncio.run does."""
    previous = sys.get_asyncgen_hooks()
    sys.set_asyncgen_hooks(
        firstiter=loop._asyncgen_firstiter_hook, finalizer=loop._asyncgen_finalizer_hook
    )
    return previous.firstiter, previous.finalizer


@pytest.fixture
def qasync_loop(qapp) -> Iterator[asyncio.AbstractEventLoop]:
    loop = _shared_loop(qapp)
    asyncio.set_event_loop(loop)
    asyncio.events._set_running_loop(loop)
    firstiter, finalizer = _install_asyncgen_hooks(loop)
    try:
        yield loop
    finally:
        leftovers = [t for t in asyncio.all_tasks(loop) if not t.done()]
        for task in leftovers:
            task.cancel()
        deadline = time.monotonic() + _TEARDOWN_S
        while any(not t.done() for t in leftovers) and time.monotonic() < deadline:
            qapp.processEvents()
        sys.set_asyncgen_hooks(firstiter=firstiter, finalizer=finalizer)
        asyncio.events._set_running_loop(None)
        asyncio.set_event_loop(None)
