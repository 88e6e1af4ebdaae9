"""Video search through an MCP connection: `fetchCandidatesMCP` calls `search_videos` and
gets Candidates back.

The answer of any server's `search_videos` is untrusted and loosely shaped: structured
content (`{"result": [...]}`, a list, or a dict holding one) or JSON in text blocks. Each
record becomes a Candidate through the same checks as YouTube data (a valid id and a
title, clipped clean text, https thumbnails only); unusable records are skipped and
counted. Must not touch meeting state or the connection's lifecycle.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from roundtable_desktop.kinds.roundtable.catalog import Candidate
from roundtable_desktop.kinds.roundtable.sources.base import SourceResult
from roundtable_desktop.kinds.roundtable.sources.video_fields import candidate_from_record
from roundtable_desktop.sources.mcp_model import DEFAULT_CALL_TIMEOUT_S, McpError, ToolOutput

SEARCH_TOOL = "search_videos"
SOURCE_NAME = "mcp"
DEFAULT_MAX_RESULTS = 12  # what the mock catalog gives a fetch, so both paths match
_LIST_KEYS = ("result", "videos", "items", "results", "candidates")
_MAX_RECORDS = 200

McpSearch = Callable[[str], Awaitable[SourceResult]]


class ToolCaller(Protocol):
    async def call_tool(
        self, name: str, arguments: dict[str, Any] | None = None, timeout: float = ...
    ) -> ToolOutput: ...


def mcp_search_for(
    connection: ToolCaller,
    *,
    max_results: int = DEFAULT_MAX_RESULTS,
    timeout: float = DEFAULT_CALL_TIMEOUT_S,
    tool: str = SEARCH_TOOL,
) -> McpSearch:
    """An async `search(query) -> SourceResult` that calls `tool` on `connection`."""

    async def search(query: str) -> SourceResult:
        output = await connection.call_tool(
            tool, {"query": query, "max_results": max_results}, timeout=timeout
        )
        records = records_in(output)
        candidates = candidates_from(records)[:max_results]
        if records and not candidates:
            raise McpError(f"The MCP tool {tool} answered, but none of its {len(records)} "
                           "entries is a usable video (each needs an id and a title).")
        skipped = len(records) - len(candidates)
        notice = f"{skipped} unusable entries from the MCP server were skipped" if skipped else ""
        return SourceResult(candidates=candidates, source=SOURCE_NAME, notice=notice)

    return search


def records_in(output: ToolOutput) -> list[Any]:
    """The video records of a tool answer: structured content first, else JSON text."""
    found = _records(output.structured)
    if found is None:
        found = []
        for text in output.texts:
            try:
                value = json.loads(text)
            except ValueError:
                continue
            found.extend(_records(value) or [])
    return found[:_MAX_RECORDS]


def _records(value: Any) -> list[Any] | None:
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        for key in _LIST_KEYS:
            found = value.get(key)
            if isinstance(found, list):
                return found
        if value.get("id") or value.get("videoId") or value.get("video_id"):
            return [value]
    return None


def candidates_from(records: list[Any]) -> list[Candidate]:
    """Usable, distinct candidates in the server's order."""
    found: dict[str, Candidate] = {}
    for record in records:
        candidate = candidate_from_record(record, SOURCE_NAME)
        if candidate is not None and candidate.id not in found:
            found[candidate.id] = candidate
    return list(found.values())
