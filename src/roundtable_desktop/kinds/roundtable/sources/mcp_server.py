"""The bundled YouTube MCP server: `search_videos` and `get_video_details` over streamable
HTTP at /mcp, built with the official SDK (MCPServer).

The tools answer from the candidate source they are given (YouTube with the mock catalog
behind it when a key is set, else the mock catalog) and return structured JSON: a list
of candidate records, or one record. It binds 127.0.0.1 by default and keeps the SDK's
DNS-rebinding protection on (only loopback Host/Origin headers, plus the host it was
asked to bind). It serves on a socket bound beforehand (mcp_address.py), so "port in
use" is reported before this module's heavy imports and the ready line names the real
port.
Must not read keys (the caller builds the source) and must not import the meeting.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import sys
import threading

import uvicorn
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings

from roundtable_desktop import __version__
from roundtable_desktop.kinds.roundtable.catalog import Candidate
from roundtable_desktop.kinds.roundtable.sources.base import CandidateSource
from roundtable_desktop.kinds.roundtable.sources.video_fields import valid_video_id
from roundtable_desktop.sources.errors import SourceError
from roundtable_desktop.sources.mcp_address import bracketed

SERVER_NAME = "roundtable-youtube"
MAX_RESULTS = 50
_LOOPBACK_HOSTS = ["127.0.0.1:*", "localhost:*", "[::1]:*"]
_LOOPBACK_ORIGINS = ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"]

log = logging.getLogger(__name__)


def build_server(source: CandidateSource) -> MCPServer:
    """An MCPServer whose two tools answer from `source`."""
    server: MCPServer = MCPServer(
        SERVER_NAME,
        version=__version__,
        log_level="WARNING",
        instructions=(
            "Video search for roundtable_desktop: search_videos(query, max_results) returns "
            "candidate videos; get_video_details(video_id) returns one video. Data comes from "
            f"{getattr(source, 'status', source.name)}."
        ),
    )

    @server.tool(description="Search videos; returns a list of candidate videos (id, title, "
                             "channel, duration, published, thumbnail_url, description).")
    async def search_videos(query: str, max_results: int = 10) -> list[Candidate]:
        limit = min(max(1, max_results), MAX_RESULTS)
        try:
            result = await source.search(query.strip() or None, limit)
        except SourceError as error:
            raise ToolError(str(error)) from None
        if result.notice:
            log.warning("search_videos: %s", result.notice)
        return result.candidates

    @server.tool(description="Details of one video by its id.")
    async def get_video_details(video_id: str) -> Candidate:
        vid = valid_video_id(video_id)
        if vid is None:
            raise ToolError("A video id has 1 to 64 letters, digits, '-' or '_'.")
        details = getattr(source, "details", None)
        try:
            found = await details(vid) if details is not None else source.lookup(vid)
        except SourceError as error:
            raise ToolError(str(error)) from None
        if found is None:
            raise ToolError(f"No video with id {vid} is known; search for it first.")
        return found

    return server


def transport_security(host: str) -> TransportSecuritySettings:
    """DNS-rebinding protection on: loopback names, plus `host` if it is another name."""
    hosts, origins = list(_LOOPBACK_HOSTS), list(_LOOPBACK_ORIGINS)
    shown = bracketed(host)
    if f"{shown}:*" not in hosts:
        hosts.append(f"{shown}:*")
        origins.append(f"http://{shown}:*")
    return TransportSecuritySettings(enable_dns_rebinding_protection=True,
                                     allowed_hosts=hosts, allowed_origins=origins)


def serve(
    server: MCPServer, sock: socket.socket, host: str, *, until_stdin_closes: bool = False
) -> None:
    """Serve until SIGINT/SIGTERM (or, with `until_stdin_closes`, until standard input
    reaches end of file: the parent that holds the other end has exited, even if it
    crashed, so the port is not left busy); blocks. `host` decides the allowed Host
    headers."""
    app = server.streamable_http_app(host=host, transport_security=transport_security(host))
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on",
                            timeout_graceful_shutdown=2)
    runner = uvicorn.Server(config)
    if until_stdin_closes:
        threading.Thread(target=_stop_at_stdin_eof, args=(runner,), daemon=True,
                         name="stdin-lifeline").start()
    runner.run(sockets=[sock])


def _stop_at_stdin_eof(runner: uvicorn.Server) -> None:
    with contextlib.suppress(OSError, ValueError):
        while sys.stdin.buffer.read(4096):
            pass
    runner.should_exit = True  # uvicorn checks this on its next tick and shuts down
