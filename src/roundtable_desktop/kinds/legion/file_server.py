"""The bundled read-only file-system MCP server, over stdio:

    python -m roundtable_desktop.kinds.legion.file_server ROOT

It offers `list_files(path)` (the entries of a directory under ROOT, directories ending
in "/") and `read_file(path)` (a text file under ROOT, clipped: only the characters it
returns are read, so a file of gigabytes, or of one endless line, costs a moment).
Paths are relative to ROOT; a path that leaves ROOT (`..`, an absolute path, a symlink
out) is refused, and nothing is ever written. The legion's default scenario starts it over
its sample project so the seed's file question runs offline.
Must not write files and must not import the application beyond sources/.
"""

from __future__ import annotations

import heapq
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from pydantic import Field

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

SERVER_NAME = "file_system"
MAX_ENTRIES = 500
MAX_READ_CHARS = 20_000


class OutsideRoot(ValueError):
    pass


def confined(root: Path, path: str) -> Path:
    """`path` (relative to `root`) resolved, refused if it is not inside `root`."""
    relative = (path or ".").strip().lstrip("/") or "."
    target = (root / relative).resolve()
    if target != root and root not in target.parents:
        raise OutsideRoot(f"{path!r} is outside the shared folder.")
    return target


def list_entries(root: Path, path: str) -> list[str]:
    """The first MAX_ENTRIES entries (directories first, by name), holding no more than
    that many however large the directory."""
    target = confined(root, path)
    if not target.is_dir():
        raise FileNotFoundError(f"No directory {path!r} in the shared folder.")
    entries = heapq.nsmallest(MAX_ENTRIES, target.iterdir(),
                              key=lambda p: (not p.is_dir(), p.name.lower()))
    return [p.name + ("/" if p.is_dir() else "") for p in entries]


def read_text(root: Path, path: str) -> str:
    """The first MAX_READ_CHARS characters of a text file: only those are read (a few
    bytes each at most), whatever the file's size and whether or not it has lines."""
    target = confined(root, path)
    if not target.is_file():
        raise FileNotFoundError(f"No file {path!r} in the shared folder.")
    with target.open(encoding="utf-8", errors="replace") as file:
        return file.read(MAX_READ_CHARS)


def build_server(root: Path) -> MCPServer:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    from roundtable_desktop import __version__

    root = root.resolve()
    server = MCPServer(SERVER_NAME, version=__version__, log_level="WARNING",
                       instructions="Read-only access to one shared folder.")

    @server.tool(description="Lists files and directories within a specified path.")
    def list_files(
        path: Annotated[str, Field(description="The path of the directory to list.")] = ".",
    ) -> list[str]:
        try:
            return list_entries(root, path)
        except (OSError, OutsideRoot) as exc:
            raise ToolError(str(exc)) from None

    @server.tool(description="Reads a text file within the shared folder.")
    def read_file(
        path: Annotated[str, Field(description="The path of the file to read.")],
    ) -> str:
        try:
            return read_text(root, path)
        except (OSError, OutsideRoot) as exc:
            raise ToolError(str(exc)) from None

    return server


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or not Path(args[0]).is_dir():
        print("usage: python -m roundtable_desktop.kinds.legion.file_server ROOT_DIRECTORY",
              file=sys.stderr)
        return 2
    build_server(Path(args[0])).run(transport="stdio")
    return 0


if __name__ == "__main__":
    sys.exit(main())
