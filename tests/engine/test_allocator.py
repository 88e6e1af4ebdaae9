"""The C allocator keeps a turn's large blocks mapped (roundtable_desktop/allocator.py)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from roundtable_desktop.allocator import keep_large_buffers_mapped

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="glibc's allocator settings exist on Linux only")

# A window that grows every turn, as a context window does (one emoji: four bytes a
# character, ~600 KB), with its UTF-8; each stays alive until the next replaces it, as
# the last request does.
_GROWING_WINDOWS = """
import resource, sys
sys.path[:0] = {path!r}
from roundtable_desktop.allocator import keep_large_buffers_mapped
if {tune}:
    assert keep_large_buffers_mapped()
parts = ["\\U0001f680", "x" * 150_000]
last = None
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for turn in range(40):
    parts.append("y" * 300)
    window = "".join(parts)
    last = (window, window.encode())
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def _faults(*, tune: bool) -> int:
    code = _GROWING_WINDOWS.format(path=sys.path, tune=tune)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=60)
    return int(done.stdout)


def test_glibc_takes_the_settings_every_time_they_are_given():
    assert keep_large_buffers_mapped() is True
    assert keep_large_buffers_mapped() is True


def test_a_window_that_grows_every_turn_is_not_faulted_in_again_every_turn():
    untuned, tuned = _faults(tune=False), _faults(tune=True)
    # Untuned, most windows are fresh memory of ~150 pages, faulted in page by page.
    assert untuned > 40 * 60, untuned
    assert tuned < untuned / 4, (tuned, untuned)
