"""The `fake_youtube` pytest fixture: starts tests/fakes/youtube_server.py as a separate
process on 127.0.0.1 once per session and hands tests a small control handle.

Use it with `from tests.fakes.youtube_fixture import fake_youtube  # noqa: F401`. The
server outlives single tests, so a test calls `.reset()` (or `.set_mode()`) first.
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


class FakeYouTube:
    """Control handle of a running fake YouTube Data API."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.root_url = f"http://127.0.0.1:{port}"
        self.base_url = f"{self.root_url}/youtube/v3"
        self._control = httpx.Client(base_url=self.root_url, timeout=10.0, trust_env=False)

    def set_mode(self, mode: str, **options: Any) -> None:
        self._control.post("/_mode", json={"mode": mode, **options}).raise_for_status()

    def requests(self) -> list[dict[str, Any]]:
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


def start_fake_youtube() -> tuple[subprocess.Popen[str], FakeYouTube]:
    """Start the server process and wait until it answers; for fixtures and benches."""
    handles: dict[int, FakeYouTube] = {}

    def healthy(port: int) -> bool:
        handle = handles.setdefault(port, FakeYouTube(port))
        return handle.healthy()

    process, port = start_peer("tests.fakes.youtube_server", "fake YouTube server", healthy)
    return process, handles[port]


def stop_fake_youtube(process: subprocess.Popen[str], handle: FakeYouTube) -> None:
    handle.close()
    stop_peer(process)


@pytest.fixture(scope="session")
def fake_youtube() -> Iterator[FakeYouTube]:
    process, handle = start_fake_youtube()
    try:
        yield handle
    finally:
        stop_fake_youtube(process, handle)
