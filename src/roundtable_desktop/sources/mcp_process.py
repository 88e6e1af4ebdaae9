"""Start and stop the bundled MCP server as a child process (`roundtable serve-mcp`).

The child announces its URL on stdout once its socket listens (a connection made after
that waits in the backlog until the server accepts it), so starting never sleeps or
guesses: it reads that line, with a deadline. stdout is drained by a thread and stderr
goes to a temporary log file, so a chatty child can never block on a full pipe. The
child holds a pipe to us on stdin and stops when it closes, so a crashed app does not
leave port 8081 busy. The child's environment is cleaned: a frozen (PyInstaller)
parent's library paths are restored to what they were before the bootloader changed
them, and the model API key is not passed on (the server needs only the YouTube key).
Must not import the window or read keys itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import queue
import subprocess
import sys
import tempfile
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO

from roundtable_desktop.sources.errors import SourceError
from roundtable_desktop.sources.mcp_address import DEFAULT_HOST, DEFAULT_PORT, READY_PREFIX

# The names llm/keys.py reads; sources/ may not import llm/, and a test checks they match.
YOUTUBE_KEY_ENV = "ROUNDTABLE_YOUTUBE_KEY"
LLM_KEY_ENV = "ROUNDTABLE_API_KEY"
START_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 5.0
_LIBRARY_PATHS = ("LD_LIBRARY_PATH", "LIBPATH", "DYLD_LIBRARY_PATH")


class McpServerStartError(SourceError):
    """The bundled server did not start; the message says why in one line."""


class BundledServer:
    """A running bundled MCP server: its URL, its process, `stop()`."""

    def __init__(self, process: subprocess.Popen[str], url: str, log_path: Path) -> None:
        self.process = process
        self.url = url
        self.log_path = log_path

    @property
    def pid(self) -> int:
        return self.process.pid

    def running(self) -> bool:
        return self.process.poll() is None

    def log_text(self) -> str:
        """What the server wrote to stderr so far (its warnings)."""
        try:
            return self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""

    def stop(self, timeout: float = STOP_TIMEOUT_S) -> None:
        """Terminate (then kill if it lingers) and remove the log; safe to call twice."""
        if self.process.stdin is not None:
            with contextlib.suppress(OSError):
                self.process.stdin.close()
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=timeout)
        if self.process.stdout is not None:
            self.process.stdout.close()
        with contextlib.suppress(OSError):
            self.log_path.unlink()

    def __enter__(self) -> BundledServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def app_command(*args: str) -> list[str]:
    """How to run this app's command line with `args` from here: the frozen app (no
    Python beside it) runs itself, a source install runs `python -m roundtable_desktop`."""
    if getattr(sys, "frozen", False):
        return [sys.executable, *args]
    return [sys.executable, "-m", "roundtable_desktop", *args]


def server_command(host: str, port: int, program: Sequence[str] | None = None) -> list[str]:
    """How to run `serve-mcp` (or `program`, which takes the same options) from here. The
    child stops when its stdin (a pipe we hold) closes, so it dies with us."""
    start = list(program) if program is not None else app_command("serve-mcp")
    return [*start, "--host", host, "--port", str(port), "--until-stdin-closes"]


def child_environment(
    base: Mapping[str, str] | None = None,
    *,
    youtube_key: str | None = None,
    frozen: bool | None = None,
) -> dict[str, str]:
    """The environment for the child: PyInstaller's changes undone, no model key."""
    env = dict(os.environ if base is None else base)
    if getattr(sys, "frozen", False) if frozen is None else frozen:
        for name in _LIBRARY_PATHS:
            original = env.pop(f"{name}_ORIG", None)
            if original is not None:
                env[name] = original
            else:
                env.pop(name, None)
        for name in [n for n in env if n.startswith(("_MEIPASS", "_PYI"))]:
            del env[name]
        # Tells a frozen child to set itself up as a new application, not as a helper
        # of this one (PyInstaller >= 6.9).
        env["PYINSTALLER_RESET_ENVIRONMENT"] = "1"
    env.pop(LLM_KEY_ENV, None)
    if youtube_key:
        env[YOUTUBE_KEY_ENV] = youtube_key
    env["PYTHONUNBUFFERED"] = "1"
    return env


def start_bundled_server(
    port: int = DEFAULT_PORT,
    *,
    host: str = DEFAULT_HOST,
    youtube_key: str | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float = START_TIMEOUT_S,
    program: Sequence[str] | None = None,
) -> BundledServer:
    """Start `serve-mcp` and return once it listens; port 0 picks a free port. `program`
    runs another server instead, one that takes serve-mcp's options and announces itself
    the same way.

    Blocks up to `timeout` seconds; from a coroutine use `start_bundled_server_async`.
    McpServerStartError says why it did not start (the child's last stderr line).
    """
    fd, name = tempfile.mkstemp(prefix="roundtable-mcp-", suffix=".log")
    log_path = Path(name)
    flags = getattr(subprocess, "CREATE_NO_WINDOW", 0) if os.name == "nt" else 0
    with os.fdopen(fd, "w", encoding="utf-8") as log:
        process = subprocess.Popen(
            server_command(host, port, program),
            stdin=subprocess.PIPE,  # the lifeline: closed by stop() or by our exit
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
            encoding="utf-8",
            errors="replace",
            env=child_environment(env, youtube_key=youtube_key),
            creationflags=flags,
        )
    server = BundledServer(process, "", log_path)
    assert process.stdout is not None
    announced: queue.Queue[str | None] = queue.Queue()
    threading.Thread(target=_drain, args=(process.stdout, announced), daemon=True,
                     name="mcp-server-stdout").start()
    try:
        url = announced.get(timeout=timeout)
    except queue.Empty:
        server.stop()
        raise McpServerStartError(
            f"The bundled MCP server did not start within {timeout:g} s.") from None
    if url is None:
        process.wait(timeout=STOP_TIMEOUT_S)
        why = _last_line(server.log_text()) or f"it exited with code {process.returncode}"
        server.stop()
        raise McpServerStartError(f"The bundled MCP server did not start: {why}")
    server.url = url
    return server


async def start_bundled_server_async(
    port: int = DEFAULT_PORT,
    *,
    host: str = DEFAULT_HOST,
    youtube_key: str | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float = START_TIMEOUT_S,
) -> BundledServer:
    """`start_bundled_server` in a worker thread, for the event loop of the window."""
    return await asyncio.to_thread(start_bundled_server, port, host=host,
                                   youtube_key=youtube_key, env=env, timeout=timeout)


async def stop_bundled_server_async(server: BundledServer) -> None:
    await asyncio.to_thread(server.stop)


def _drain(stream: IO[str], announced: queue.Queue[str | None]) -> None:
    """Put the announced URL (or None at EOF without one) and keep reading until EOF."""
    told = False
    with contextlib.suppress(ValueError, OSError):  # closed by stop() while reading
        for line in stream:
            if not told and line.startswith(READY_PREFIX):
                announced.put(line[len(READY_PREFIX):].split()[0])
                told = True
    if not told:
        announced.put(None)


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""
