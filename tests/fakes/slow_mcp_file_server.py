"""A slow copy of the legion's read-only file-system MCP server, over stdio, for tests that
time a tool call out or kill the server in the middle of one: `list_files` waits
`DELAY_S` seconds before it answers. Run by path (`slow_file_server(root, delay_s)` gives
the mcpServers entry):

    python tests/fakes/slow_mcp_file_server.py ROOT DELAY_S

Same server name, tools and answers as kinds/legion/file_server.py (its own functions), so
the shipped server holds no test hook. Must not write files.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

from roundtable_desktop.kinds.legion.file_server import SERVER_NAME, list_entries, read_text


def slow_file_server(root: str, delay_s: float, name: str = SERVER_NAME) -> dict[str, Any]:
    """An mcpServers entry that runs this server over `root`."""
    return {name: {"command": sys.executable,
                   "args": [str(Path(__file__).resolve()), root, f"{delay_s:g}"]}}


def main(argv: list[str]) -> int:
    from mcp.server.mcpserver import MCPServer

    root, delay_s = Path(argv[0]).resolve(), float(argv[1])
    server = MCPServer(SERVER_NAME, log_level="WARNING",
                       instructions="Read-only access to one shared folder (slowly).")

    @server.tool(description="Lists files and directories within a specified path.")
    def list_files(path: str = ".") -> list[str]:
        time.sleep(delay_s)
        return list_entries(root, path)

    @server.tool(description="Reads a text file within the shared folder.")
    def read_file(path: str) -> str:
        return read_text(root, path)

    server.run(transport="stdio")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
