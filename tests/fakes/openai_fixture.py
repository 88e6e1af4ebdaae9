"""The `fake_openai` pytest fixture: starts tests/fakes/openai_server.py as a separate
process on 127.0.0.1 once per session and hands tests a small control handle.

Use it with `from tests.fakes.openai_fixture import fake_openai  # noqa: F401`. The
server outlives single tests, so call `.reset()` at the start of a test that scripts it.
Must not sleep for fixed times: it waits for the port line and polls /_health.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest

from tests.fakes.peer_process import PeerHandle, start_handle, stop_handle


class FakeOpenAI(PeerHandle):
    """Control handle of a running fake server."""

    api_path = "/v1"

    def script(self, replies: list[dict[str, Any]]) -> None:
        """Replace the script: the next chat requests get these replies, in order. Sent as
        ASCII JSON, so a reply may hold a lone surrogate (served as a "\\ud800" escape)."""
        self._control.post(
            "/_script", content=json.dumps(replies), headers={"Content-Type": "application/json"}
        ).raise_for_status()

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

    def set_embeddings_status(self, status: int) -> None:
        """Answer `/v1/embeddings` with HTTP `status` from now on (200: vectors)."""
        self._control.post("/_embeddings", json={"status": status}).raise_for_status()

    def embedding_requests(self) -> list[list[str]]:
        """The inputs of every embeddings request since the last reset, in order."""
        response = self._control.get("/_embeddings")
        response.raise_for_status()
        return response.json()["inputs"]

    def answer_offline(self, seed: int | None) -> None:
        """Answer every chat request the script does not as the app's offline model would
        with `seed`, usage by the server's own count (None: stop; `reset` stops too).
        The request's kind and purpose come from tests/fakes/offline_telling_client.py."""
        self._control.post("/_offline", json={"seed": seed}).raise_for_status()

    def stats(self) -> dict[str, int]:
        """{"in_flight", "max_in_flight", "count"} of chat requests since the last reset."""
        response = self._control.get("/_stats")
        response.raise_for_status()
        return response.json()


def start_fake_openai() -> tuple[subprocess.Popen[str], FakeOpenAI]:
    """Start the server process and wait until it answers; for fixtures and benches."""
    return start_handle("tests.fakes.openai_server", "fake OpenAI server", FakeOpenAI)


def stop_fake_openai(process: subprocess.Popen[str], handle: FakeOpenAI) -> None:
    stop_handle(process, handle)


@pytest.fixture(scope="session")
def fake_openai() -> Iterator[FakeOpenAI]:
    process, handle = start_fake_openai()
    try:
        yield handle
    finally:
        stop_fake_openai(process, handle)
