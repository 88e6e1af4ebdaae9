"""Workarounds for defects of the installed Qt binding, each applied only where detected.

PySide6 6.12.0 (abi3 wheel) on Python 3.11 returns None, True and False to Python
without taking a reference: every void method call (`label.setText(...)`,
`processEvents()`) costs None one reference and every `signal.emit()` costs True one.
After some thousands of calls the interpreter aborts ("none_dealloc" / "bool_dealloc:
... refcount error in a C extension"). Python 3.12 made these singletons immortal,
which is why the defect is silent there. On an affected interpreter,
`make_singletons_immortal` gives them the same protection by raising their reference
counts far beyond reach. It runs when roundtable_desktop.ui is first imported.

qasync 0.28 never installs the async-generator hooks that asyncio's own run_forever
installs, so an async generator left suspended (httpx/httpcore stream iterators) is
finalized by the garbage collector outside the loop ("async generator ignored
GeneratorExit", "no running event loop") and `shutdown_asyncgens()` finds nothing to
close. `asyncgen_hooks(loop)` installs asyncio's hooks for the loop's lifetime.
Must not change anything on an unaffected binding or interpreter.
"""

from __future__ import annotations

import asyncio
import ctypes
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from PySide6.QtCore import QObject, Signal

# 2**40 lost references at 100,000 per second would take four months.
_HEADROOM = 1 << 40
_PROBE_CALLS = 16
_SINGLETONS = (None, True, False, NotImplemented, Ellipsis)


class _Probe(QObject):
    fired = Signal()


def _losses(value: object, action: Callable[[], object]) -> int:
    before = sys.getrefcount(value)
    for _ in range(_PROBE_CALLS):
        action()
    return before - sys.getrefcount(value)


def binding_drops_references() -> bool:
    """True when calls into the binding lose references to None or True."""
    probe = _Probe()
    lost_none = _losses(None, lambda: probe.setObjectName("probe"))
    lost_true = _losses(True, probe.fired.emit)
    # Give back what the probe itself took, whatever is decided.
    for value, lost in ((None, lost_none), (True, lost_true)):
        for _ in range(max(lost, 0)):
            ctypes.pythonapi.Py_IncRef(ctypes.py_object(value))
    return lost_none >= _PROBE_CALLS or lost_true >= _PROBE_CALLS


def make_singletons_immortal() -> bool:
    """Protect None, True, False & co. from the defect; returns whether it was needed."""
    if sys.version_info >= (3, 12) or not binding_drops_references():
        return False
    for value in _SINGLETONS:
        # ob_refcnt is the first field of every object in a release build of CPython 3.11.
        refcount = ctypes.c_ssize_t.from_address(id(value))
        if refcount.value < _HEADROOM:
            refcount.value += _HEADROOM
    return True


@contextmanager
def asyncgen_hooks(loop: asyncio.AbstractEventLoop) -> Iterator[None]:
    """Let `loop` track and finalize async generators, as asyncio.run's loop does."""
    firstiter = getattr(loop, "_asyncgen_firstiter_hook", None)
    finalizer = getattr(loop, "_asyncgen_finalizer_hook", None)
    if firstiter is None or finalizer is None:  # not a BaseEventLoop: nothing to borrow
        yield
        return
    previous = sys.get_asyncgen_hooks()
    sys.set_asyncgen_hooks(firstiter=firstiter, finalizer=finalizer)
    try:
        yield
    finally:
        sys.set_asyncgen_hooks(*previous)
