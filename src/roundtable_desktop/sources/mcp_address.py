"""Where the bundled MCP server listens: its default address, the socket it serves on,
the URL clients use, and the line that tells a parent process it is ready.

Binding comes first and imports nothing heavy, so `serve-mcp` on a busy port fails at
once with one clear line, and a parent can read the real port (port 0 picks a free one)
from the ready line. Must not import the MCP SDK.
"""

from __future__ import annotations

import errno
import os
import socket

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8081
MCP_PATH = "/mcp"
READY_PREFIX = "MCP server listening at "


class McpServeError(Exception):
    """The server cannot start (port in use, address not available); one line for users."""


def endpoint_url(host: str, port: int) -> str:
    return f"http://{bracketed(host)}:{port}{MCP_PATH}"


def bracketed(host: str) -> str:
    """An IPv6 literal in brackets, as URLs and Host headers write it."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def bind_socket(host: str = DEFAULT_HOST, port: int = DEFAULT_PORT) -> socket.socket:
    """A listening socket on host:port, or McpServeError saying why not."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        raise McpServeError(f"Cannot listen on {host!r}: the name does not resolve; use an "
                            "address such as 127.0.0.1.") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        if os.name != "nt":  # Windows' SO_REUSEADDR lets two servers share a port
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        if exc.errno in (errno.EADDRINUSE, 10048):  # 10048: WSAEADDRINUSE
            raise McpServeError(
                f"Port {port} on {host} is in use: another program (perhaps another roundtable "
                "serve-mcp) listens there; stop it or choose another port with --port."
            ) from None
        if exc.errno in (errno.EACCES, 10013):
            raise McpServeError(f"Not allowed to listen on port {port}; choose a port above "
                                "1024 with --port.") from None
        raise McpServeError(f"Cannot listen on {host} port {port} "
                            f"({exc.strerror or type(exc).__name__}).") from None
    return sock
