"""A slow copy of the bundled YouTube MCP server, for tests that time a call out or kill the
server in the middle of one: `search_videos` waits `--delay` seconds (saying so on standard
error first) before it answers from the mock catalog. Run by path, with serve-mcp's
options (`start_bundled_server(..., program=slow_server_program(30))`):

    python tests/fakes/slow_mcp_server.py --delay 30 --host 127.0.0.1 --port 0 --until-stdin-closes

It binds, announces and serves as `roundtable serve-mcp` does (the same modules), so the
shipped server holds no test hook. Must not read keys.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from roundtable_desktop.kinds.roundtable.catalog import Candidate
from roundtable_desktop.kinds.roundtable.sources import mcp_server
from roundtable_desktop.kinds.roundtable.sources.base import SourceResult
from roundtable_desktop.kinds.roundtable.sources.mock_catalog import MockCatalog
from roundtable_desktop.sources import mcp_address

DELAY_LINE = "search_videos: test delay"


def slow_server_program(delay_s: float) -> list[str]:
    """The start of the command that runs this server (serve-mcp's options follow)."""
    return [sys.executable, str(Path(__file__).resolve()), "--delay", f"{delay_s:g}"]


class SlowCatalog:
    """The mock catalog, each search `delay_s` late."""

    name = "mock"
    status = "the mock catalog (slowed down for a test)"

    def __init__(self, delay_s: float) -> None:
        self.delay_s = delay_s
        self.catalog = MockCatalog.load()

    async def search(self, query: str | None, limit: int = 12) -> SourceResult:
        print(f"{DELAY_LINE} of {self.delay_s:g} s", file=sys.stderr, flush=True)
        await asyncio.sleep(self.delay_s)
        return await self.catalog.search(query, limit)

    def lookup(self, video_id: str) -> Candidate | None:
        return self.catalog.lookup(video_id)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--delay", type=float, required=True)
    parser.add_argument("--host", default=mcp_address.DEFAULT_HOST)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--until-stdin-closes", action="store_true")
    args = parser.parse_args(argv)
    with mcp_address.bind_socket(args.host, args.port) as sock:
        server = mcp_server.build_server(SlowCatalog(args.delay))
        url = mcp_address.endpoint_url(args.host, sock.getsockname()[1])
        print(f"{mcp_address.READY_PREFIX}{url} (slow).", flush=True)
        mcp_server.serve(server, sock, args.host, until_stdin_closes=args.until_stdin_closes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
