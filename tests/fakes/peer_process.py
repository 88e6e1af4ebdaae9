"""Start and stop a fake network peer (a `tests.fakes.*_server` module) as a process.

The server prints its port on its first line and exits when its stdin closes, so a
crashed pytest never leaves it running. Readiness is polled with a deadline.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

REPO_ROOT = Path(__file__).resolve().parents[2]
STARTUP_TIMEOUT_S = 15.0


class _Stoppable(Protocol):
    def shutdown(self) -> None: ...


def stop_when_stdin_closes(server: _Stoppable) -> None:
    """Run in the server: the fixture holds our stdin open; EOF means pytest is gone."""

    def watch() -> None:
        while sys.stdin.buffer.read(4096):
            pass
        server.shutdown()

    threading.Thread(target=watch, daemon=True).start()


def start_peer(module: str, name: str, healthy: Callable[[int], bool]) -> tuple[
    subprocess.Popen[str], int
]:
    """Start `python -m module --port 0`; returns the process and its port once healthy."""
    process = subprocess.Popen(
        [sys.executable, "-m", module, "--port", "0"],
        cwd=REPO_ROOT,
        stdin=subprocess.PIPE,  # the lifeline: the server exits when this closes
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    first_line = process.stdout.readline().strip()
    if not first_line.isdigit():
        process.kill()
        raise RuntimeError(f"The {name} did not start (it said {first_line!r}).")
    port = int(first_line)
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while not healthy(port):
        if time.monotonic() > deadline:
            process.kill()
            raise RuntimeError(f"The {name} did not answer while starting.")
        try:  # the poll interval, and the check that it is still alive
            process.wait(timeout=0.02)
        except subprocess.TimeoutExpired:
            continue
        raise RuntimeError(f"The {name} exited while starting.")
    return process, port


def stop_peer(process: subprocess.Popen[str]) -> None:
    if process.stdin is not None:
        process.stdin.close()
    process.terminate()
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=5)
    if process.stdout is not None:
        process.stdout.close()
