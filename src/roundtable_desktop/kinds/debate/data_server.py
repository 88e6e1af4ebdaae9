"""The bundled read-only data server of the debate, an MCP server over stdio:

    roundtable serve-debate-data RECORDS.json

It answers `find_figures(query)`, `find_filings(query)` and `find_news(query)` from one
deck's plainly fictional records (data_records.py): each answer is the matching items,
one cited line each, or a line saying nothing matched. It writes nothing and reads only
the file it was given. Must not import the application beyond data_records.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from pydantic import Field

from roundtable_desktop.kinds.debate.data_records import SERVER, Records, load_records, search

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer


def answer(records: Records, kind: str, query: str) -> str:
    found = search(records, kind, query)
    if not found:
        return f"No {kind} in {records.title} match {query!r}."
    return "\n".join([f"{records.title}. {records.notice}", *found])


def build_server(path: Path) -> MCPServer:
    from mcp.server.mcpserver import MCPServer

    from roundtable_desktop import __version__

    records = load_records(path)
    server = MCPServer(SERVER, version=__version__, log_level="WARNING",
                       instructions=f"Read-only look-ups in {records.title}.")

    @server.tool(description="Dated figures (counts, rates, amounts) on a subject.")
    def find_figures(
        query: Annotated[str, Field(description="A few words on what to find.")],
    ) -> str:
        return answer(records, "figures", query)

    @server.tool(description="Dated filings (annual reports, compliance statements).")
    def find_filings(
        query: Annotated[str, Field(description="A few words on what to find.")],
    ) -> str:
        return answer(records, "filings", query)

    @server.tool(description="Dated news items on a subject.")
    def find_news(
        query: Annotated[str, Field(description="A few words on what to find.")],
    ) -> str:
        return answer(records, "news", query)

    return server


def main(path: Path) -> int:
    build_server(path).run(transport="stdio")
    return 0
