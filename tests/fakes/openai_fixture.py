"""The `fake_openai` pytest fixture: starts tests/fakes/openai_server.py as a separate
process on 127.0.0.1 once per session and hands tests a small control handle.

Use it with `from tests.fakes.openai_fixture import fake_openai  # noqa: F401`. The
server outlives single tests, so call `.reset()` at the start of a test that scripts it.
Must not sleep for fixed times: it waits for the port line and polls /_health.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.fakes.peer_process import start_peer, stop_peer

REPO_ROOT = Path(__file__).resolve().parents[2]
STARTUP_TIMEOUT_S = 15.0


class FakeOpenAI:
    """Control handle of a running fake server."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.root_url = f"http://127.0.0.1:{port}"
        self.base_url = f"{self.root_url}/v1"
        self._control = httpx.Client(base_url=self.root_url, timeout=10.0, trust_env=False)

    def script(self, replies: list[dict[str, Any]]) -> None:
        """Replace the script: the next chat requests get these replies, in order."""
        self._control.post("/_script", json=replies).raise_for_status()

    def requests(self) -> list[dict[str, Any]]:
        """Every chat request received since the last reset (keys masked)."""
        response = self._control.get("/_requests")
        response.raise_for_status()
        return response.json()

    def wait_outcome(self, index: int, timeout_s: float = 5.0) -> str:
        """How request `index` ended ("completed", "client_disconnected", ...); the server
        holds the answer until that request stops streaming or the timeout passes."""
        response = self._control.get(
            "/_outcome",
            params={"index": index, "timeout": timeout_s},
            timeout=timeout_s + 5.0,
        )
        response.raise_for_status()
        return response.json()["outcome"]

    def reset(self) -> None:
        self._control.post("/_reset").raise_for_status()

    def healthy(self) -> bool:
        try:
            return self._control.get("/_health", timeout=1.0).status_code == 200
        except httpx.TransportError:
            return False

    def close(self) -> None:
        self._control.close()


def start_fake_openai() -> tuple[subprocess.Popen[str], FakeOpenAI]:
    """Start the server process and wait until it answers; for fixtures and benches."""
    handles: dict[int, FakeOpenAI] = {}

    def healthy(port: int) -> bool:
        handle = handles.setdefault(port, FakeOpenAI(port))
        return handle.healthy()

    process, port = start_peer("tests.fakes.openai_server", "fake OpenAI server", healthy)
    return process, handles[port]


def stop_fake_openai(process: subprocess.Popen[str], handle: FakeOpenAI) -> None:
    handle.close()
    stop_peer(process)


@pytest.fixture(scope="session")
def fake_openai() -> Iterator[FakeOpenAI]:
    process, handle = start_fake_openai()
    try:
        yield handle
    finally:
        stop_fake_openai(process, handle)
