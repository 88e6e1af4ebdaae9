"""Workarounds for defects of the Qt event loop binding, each applied only where needed.

qasync 0.28 never installs the async-generator hooks that asyncio's own run_forever
installs, so an async generator left suspended (httpx/httpcore stream iterators) is
finalized by the garbage collector outside the loop ("async generator ignored
GeneratorExit", "no running event loop") and `shutdown_asyncgens()` finds nothing to
close. `asyncgen_hooks(loop)` installs asyncio's hooks for the loop's lifetime.
Must leave the hooks as it found them once the loop ends. (The PySide6 6.12.0 reference
defect needs no workaround any more: pyproject.toml excludes that version.)
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from contextlib import contextmanager


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
