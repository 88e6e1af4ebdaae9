"""`dev.py` passes SIGTERM and Ctrl+C on to what it runs: stopping `python3 dev.py app`
stops the app instead of leaving it running as an orphan."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# dev.py's forwarding, run in a child of its own whose child sleeps and writes its pid.
RUNNER = """
import importlib.util, sys
spec = importlib.util.spec_from_file_location("dev", sys.argv[1])
dev = importlib.util.module_from_spec(spec)
spec.loader.exec_module(dev)
sys.exit(dev.run_forwarding_signals([sys.executable, "-c",
    "import os, time, pathlib; pathlib.Path(os.environ['PIDFILE']).write_text(str(os.getpid()));"
    " time.sleep(120)"]))
"""


def _wait_for(predicate, timeout_s: float = 20.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout_s
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_stop_signal_to_dev_py_stops_what_it_runs(tmp_path, signum):
    pidfile = tmp_path / "child.pid"
    runner = subprocess.Popen([sys.executable, "-c", RUNNER, str(ROOT / "dev.py")],
                              env={**os.environ, "PIDFILE": str(pidfile)})
    try:
        _wait_for(lambda: pidfile.exists() and pidfile.read_text())
        child = int(pidfile.read_text())
        runner.send_signal(signum)
        assert runner.wait(timeout=20) != 0
        _wait_for(lambda: not _alive(child))
    finally:
        runner.kill()
