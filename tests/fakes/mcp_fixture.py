"""Fixtures for the project's own MCP server, run for real as `python -m roundtable_desktop
serve-mcp --port 0` through `start_bundled_server` (the same path the window uses).

The child never sees a YouTube key or a real keyring: it serves the mock catalog.
`slow_mcp` is the same server with a slow catalog (tests/fakes/slow_mcp_server.py), so
`search_videos` waits long enough for a test to time out or kill the server mid-call. Use
with
`from tests.fakes.mcp_fixture import bundled_mcp, slow_mcp  # noqa: F401`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from roundtable_desktop.sources.mcp_process import BundledServer, start_bundled_server
from tests.fakes.slow_mcp_server import slow_server_program

SLOW_S = 30.0  # far longer than any test waits: the call is cut short, never completed


def server_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("ROUNDTABLE_YOUTUBE_KEY", "ROUNDTABLE_YOUTUBE_BASE_URL")}
    env["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"
    env.update(extra)
    return env


def start_server(delay_s: float = 0.0) -> BundledServer:
    """The bundled server; with `delay_s`, its slow copy."""
    program = slow_server_program(delay_s) if delay_s else None
    return start_bundled_server(0, env=server_env(), program=program)


def start_servers(*delays_s: float) -> list[BundledServer]:
    """Several servers at once: each spends about a second importing the SDK."""
    with ThreadPoolExecutor(len(delays_s)) as pool:
        return list(pool.map(start_server, delays_s))


def stop_servers(servers: list[BundledServer]) -> None:
    for server in servers:
        server.process.kill()  # slow ones have tool calls asleep; no graceful wait needed
        server.stop()


@pytest.fixture(scope="module")
def bundled_mcp() -> Iterator[BundledServer]:
    server = start_server()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def slow_mcp() -> Iterator[BundledServer]:
    server = start_server(SLOW_S)
    try:
        yield server
    finally:
        server.process.kill()  # its tool calls sleep; no graceful wait needed
        server.stop()
