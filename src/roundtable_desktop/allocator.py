"""Keeps the C allocator from handing large blocks back to the system after every turn.

A turn builds its context window as one text of ~150 KB (600 KB in memory once a single
character in it needs four bytes: an emoji in one title), its UTF-8 and the store's
copies, and frees them before the next turn. glibc gives a block that large a mapping of
its own, and its adaptive threshold never catches up with a window that grows every
turn: each window is a fresh mapping, unmapped when freed, and every page of it faults
in again, about 4 µs a page on a virtual machine, ~100 pages and ~0.4 ms a turn at 200
candidates (bench/turn_overhead.py counts them). With a fixed threshold and trim limit
those blocks come from the heap and stay mapped from one turn to the next.

Only glibc (Linux) has these settings; anywhere else this changes nothing. Call it once
at start-up (the CLI and the window do, and the benchmark, which measures the engine as
they run it). Must never stop the application from starting.
"""

from __future__ import annotations

import ctypes

# mallopt's parameters (malloc.h).
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
# Blocks at least this large still get a mapping of their own (a 1000-candidate window
# is ~3 MB); glibc allows up to 32 MiB.
MMAP_THRESHOLD = 16 * 1024 * 1024
# Free memory kept at the top of the heap before any of it is given back.
TRIM_THRESHOLD = 64 * 1024 * 1024


def keep_large_buffers_mapped() -> bool:
    """Tune glibc's allocator as described above; True when it was (glibc only)."""
    try:
        libc = ctypes.CDLL(None)  # the C library this process already uses
        libc.gnu_get_libc_version  # noqa: B018 - only glibc has it (musl, macOS, Windows do not)
        mallopt = libc.mallopt
    except (OSError, TypeError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    # Setting the threshold also turns glibc's adaptive threshold off.
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(
        mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD))
