"""The `fake_x` pytest fixture: starts tests/fakes/x_api_server.py as a separate process on
127.0.0.1 once per session and hands tests a small control handle.

Use it with `from tests.fakes.x_api_fixture import fake_x  # noqa: F401`. The server
outlives single tests, so a test calls `.script()` (which replaces users and fault) or
`.reset()` first. Must not sleep for fixed times: it waits for the port line and polls
/_health.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from typing import Any

import pytest

from tests.fakes.peer_process import PeerHandle, start_handle, stop_handle


class FakeX(PeerHandle):
    """Control handle of a running fake X API v2; `base_url` ends in /2."""

    api_path = "/2"

    def script(self, users: dict[str, dict[str, Any]] | None = None,
               fault: dict[str, Any] | None = None) -> None:
        """Replace the known users ({username: {name, posts, reposts, protected}}) and the
        fault ({status, endpoint, after, reset_in_s}) and empty the request log; see
        x_api_server.py."""
        self._control.post("/_script", json={"users": users or {}, "fault": fault or {}}
                           ).raise_for_status()


def start_fake_x() -> tuple[subprocess.Popen[str], FakeX]:
    """Start the server process and wait until it answers; for fixtures and benches."""
    return start_handle("tests.fakes.x_api_server", "fake X API server", FakeX)


def stop_fake_x(process: subprocess.Popen[str], handle: FakeX) -> None:
    stop_handle(process, handle)


@pytest.fixture(scope="session")
def fake_x() -> Iterator[FakeX]:
    process, handle = start_fake_x()
    try:
        yield handle
    finally:
        stop_fake_x(process, handle)
