"""The `fake_youtube` pytest fixture: starts tests/fakes/youtube_server.py as a separate
process on 127.0.0.1 once per session and hands tests a small control handle.

Use it with `from tests.fakes.youtube_fixture import fake_youtube  # noqa: F401`. The
server outlives single tests, so a test calls `.reset()` (or `.set_mode()`) first.
Must not sleep for fixed times: it waits for the port line and polls /_health.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from typing import Any

import pytest

from tests.fakes.peer_process import PeerHandle, start_handle, stop_handle


class FakeYouTube(PeerHandle):
    """Control handle of a running fake YouTube Data API."""

    api_path = "/youtube/v3"

    def set_mode(self, mode: str, **options: Any) -> None:
        self._control.post("/_mode", json={"mode": mode, **options}).raise_for_status()


def start_fake_youtube() -> tuple[subprocess.Popen[str], FakeYouTube]:
    """Start the server process and wait until it answers; for fixtures and benches."""
    return start_handle("tests.fakes.youtube_server", "fake YouTube server", FakeYouTube)


def stop_fake_youtube(process: subprocess.Popen[str], handle: FakeYouTube) -> None:
    stop_handle(process, handle)


@pytest.fixture(scope="session")
def fake_youtube() -> Iterator[FakeYouTube]:
    process, handle = start_fake_youtube()
    try:
        yield handle
    finally:
        stop_fake_youtube(process, handle)
