"""fetchCandidatesMCP's search: any server's search_videos answer, whatever its shape, becomes
clean Candidates (source "mcp"), and what cannot be used is skipped and counted."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from roundtable_desktop.kinds.roundtable.sources.mcp_search import mcp_search_for
from roundtable_desktop.sources.mcp_model import McpError, ToolOutput

GOOD = {"id": "abc_DEF-123", "title": "A good video", "channel": "Chan", "duration": "PT4M5S",
        "published": "2025-01-02T03:04:05Z", "thumbnail_url": "https://img.invalid/a.jpg",
        "description": "Fine."}


class FakeConnection:
    """Answers every call with one fixed ToolOutput and remembers the calls."""

    def __init__(self, output: ToolOutput) -> None:
        self.output = output
        self.calls: list[tuple[str, dict[str, Any] | None, float]] = []

    async def call_tool(self, name, arguments=None, timeout=30.0) -> ToolOutput:
        self.calls.append((name, arguments, timeout))
        return self.output


def search(output: ToolOutput, query: str = "rag", **options):
    connection = FakeConnection(output)
    result = asyncio.run(mcp_search_for(connection, **options)(query))
    return result, connection


def test_it_calls_search_videos_with_the_query_a_limit_and_a_timeout():
    _, connection = search(ToolOutput(structured={"result": [GOOD]}), "space opera",
                           timeout=7.0)
    assert connection.calls == [("search_videos", {"query": "space opera", "max_results": 12},
                                 7.0)]


def test_structured_records_become_mcp_candidates():
    result, _ = search(ToolOutput(structured={"result": [GOOD]}))
    assert result.source == "mcp" and result.notice == ""
    assert result.candidates[0].model_dump() == {
        "id": "abc_DEF-123", "title": "A good video", "channel": "Chan", "duration": "4:05",
        "published": "2025-01-02", "thumbnail_url": "https://img.invalid/a.jpg",
        "description": "Fine.", "source": "mcp", "tags": []}


def test_json_in_text_blocks_is_read_when_there_is_no_structured_content():
    output = ToolOutput(texts=[json.dumps(GOOD), "not json", json.dumps({"videos": [
        {**GOOD, "id": "second_one"}]})])
    result, _ = search(output)
    assert [c.id for c in result.candidates] == ["abc_DEF-123", "second_one"]


def test_youtube_shaped_records_are_understood():
    record = {"id": {"videoId": "ytVideo0001"},
              "snippet": {"title": "From YouTube", "channelTitle": "YT Chan",
                          "publishedAt": "2024-05-06T00:00:00Z",
                          "thumbnails": {"medium": {"url": "https://i.invalid/m.jpg"}}},
              "contentDetails": {"duration": "PT1H2M3S"}}
    candidate = search(ToolOutput(structured=[record]))[0].candidates[0]
    assert (candidate.id, candidate.title, candidate.channel) == ("ytVideo0001", "From YouTube",
                                                                  "YT Chan")
    assert (candidate.duration, candidate.published) == ("1:02:03", "2024-05-06")
    assert candidate.thumbnail_url == "https://i.invalid/m.jpg"


def test_unusable_records_are_skipped_and_counted():
    records = [GOOD, {"title": "no id"}, {"id": "bad id!", "title": "x"}, {"id": "no_title"},
               "text", {**GOOD}]  # the last repeats an id
    result, _ = search(ToolOutput(structured={"result": records}))
    assert [c.id for c in result.candidates] == ["abc_DEF-123"]
    assert result.notice == "5 unusable entries from the MCP server were skipped"


def test_an_answer_with_no_usable_record_is_an_error():
    with pytest.raises(McpError, match="none of its 2 entries is a usable video"):
        search(ToolOutput(structured={"result": [{"title": "x"}, {"id": "y"}]}))


def test_an_empty_answer_is_an_empty_list():
    assert search(ToolOutput(structured={"result": []}))[0].candidates == []


def test_untrusted_fields_are_cleaned():
    record = {**GOOD, "title": "Bad\u202e title\x00" + "x" * 400,
              "thumbnail_url": "javascript:alert(1)", "description": "line\x07bell"}
    candidate = search(ToolOutput(structured=[record]))[0].candidates[0]
    assert candidate.title.startswith("Bad title") and len(candidate.title) == 300
    assert candidate.thumbnail_url == "" and candidate.description == "linebell"
