"""Start and stop a fake network peer (a `tests.fakes.*_server` module) as a process.

The server prints its port on its first line and exits when its stdin closes, so a
crashed pytest never leaves it running. Readiness is polled with a deadline.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Protocol, TypeVar

import httpx

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


def send_body(handler: BaseHTTPRequestHandler, status: int, data: bytes,
              content_type: str = "application/json",
              headers: dict[str, Any] | None = None) -> None:
    """Answer with a whole body and close the connection (one request per connection)."""
    merged = {"Content-Type": content_type, **(headers or {})}  # a scripted type wins
    handler.send_response(status)
    for name, value in merged.items():
        handler.send_header(name, str(value))
    handler.send_header("Content-Length", str(len(data)))
    handler.send_header("Connection", "close")
    handler.end_headers()
    handler.wfile.write(data)
    handler.close_connection = True


class LoopbackServer(ThreadingHTTPServer):
    """A threaded HTTP server on 127.0.0.1 with a `state` its handlers share."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, port: int, handler: type, state: object) -> None:
        super().__init__(("127.0.0.1", port), handler)
        self.state = state


def serve_main(make_server: Callable[[int], ThreadingHTTPServer], doc: str,
               argv: list[str] | None = None) -> None:
    """A fake server's `main`: bind, print the port, serve until stdin closes."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args(argv)
    server = make_server(args.port)
    print(server.server_address[1], flush=True)
    stop_when_stdin_closes(server)
    try:
        server.serve_forever(poll_interval=0.05)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


class PeerHandle:
    """The test side of a fake server: its URLs and its control endpoints."""

    api_path = ""

    def __init__(self, port: int) -> None:
        self.port = port
        self.root_url = f"http://127.0.0.1:{port}"
        self.base_url = f"{self.root_url}{self.api_path}"
        self._control = httpx.Client(base_url=self.root_url, timeout=10.0, trust_env=False)

    def requests(self) -> list[dict[str, Any]]:
        """Every API request received since the last reset (keys masked)."""
        response = self._control.get("/_requests")
        response.raise_for_status()
        return response.json()

    def reset(self) -> None:
        self._control.post("/_reset").raise_for_status()

    def healthy(self) -> bool:
        try:
            return self._control.get("/_health", timeout=1.0).status_code == 200
        except httpx.TransportError:
            return False

    def close(self) -> None:
        self._control.close()


H = TypeVar("H", bound=PeerHandle)


def start_handle(module: str, name: str, handle_type: type[H]) -> tuple[
    subprocess.Popen[str], H
]:
    """Start the server and return its process and a healthy control handle."""
    handles: dict[int, H] = {}

    def healthy(port: int) -> bool:
        return handles.setdefault(port, handle_type(port)).healthy()

    process, port = start_peer(module, name, healthy)
    return process, handles[port]


def stop_handle(process: subprocess.Popen[str], handle: PeerHandle) -> None:
    handle.close()
    stop_peer(process)


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
