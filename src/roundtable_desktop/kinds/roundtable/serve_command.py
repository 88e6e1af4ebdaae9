"""`roundtable serve-mcp`: the bundled YouTube MCP server (search_videos,
get_video_details), videos from YouTube with a stored key, else the mock catalog.

Binds first (a busy port fails at once), then imports and builds the server, then says
it is ready (the window's controller waits for that line) and serves until Ctrl+C or,
with --until-stdin-closes, until the parent goes away. The MCP SDK is imported only
here: `run` need not load it. Must not import Qt or write to the terminal itself.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from roundtable_desktop.engine.spec import CommandServices, KindCommand
from roundtable_desktop.kinds.roundtable.sources.source_setup import make_candidate_source
from roundtable_desktop.llm.keys import KeyStore
from roundtable_desktop.sources import mcp_address
from roundtable_desktop.sources.errors import SourceError


def _add_arguments(parser: argparse.ArgumentParser,
                   model_flags: Callable[[argparse.ArgumentParser], None]) -> None:
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8081,
                        help="port (default 8081; 0 picks a free one)")
    parser.add_argument("--until-stdin-closes", action="store_true",
                        help="stop when standard input closes (the app starts it this way)")


def _run(args: argparse.Namespace, services: CommandServices) -> int:
    try:
        sock = mcp_address.bind_socket(args.host, args.port)
    except mcp_address.McpServeError as exc:
        raise SourceError(str(exc)) from None
    with sock:
        from roundtable_desktop.kinds.roundtable.sources import mcp_server

        source = make_candidate_source(KeyStore())
        server = mcp_server.build_server(source)
        url = mcp_address.endpoint_url(args.host, sock.getsockname()[1])
        services.out(f"{mcp_address.READY_PREFIX}{url} with videos from {source.status}. "
                     "Ctrl+C stops it.")
        mcp_server.serve(server, sock, args.host, until_stdin_closes=args.until_stdin_closes)
    return 0


SERVE_MCP = KindCommand(name="serve-mcp", help="serve the bundled YouTube MCP server",
                        add_arguments=_add_arguments, run=_run)
