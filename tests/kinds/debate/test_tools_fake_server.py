"""Tools in a blitz debate against the fake model server: an agent's `tool_requests`
run on the deck's bundled records server (the app's own `serve-debate-data`) and on a
server the user connected, within the per-turn budget of calls and of tokens; what ran
and what came back, with its citation, is in that agent's next request as sent (source
5); a slow, failing or unknown tool is one error line and the round goes on."""

from __future__ import annotations

import asyncio
from typing import Any

from roundtable_desktop.domain.events import ToolRan
from roundtable_desktop.domain.tokens import estimate_tokens
from roundtable_desktop.engine.base import PendingPayload
from roundtable_desktop.kinds.debate.offline_reading import section
from roundtable_desktop.kinds.debate.state import ToolRequest
from roundtable_desktop.sources.mcp_model import ToolInfo, ToolOutput
from tests.fakes.mcp_fixture import slow_mcp  # noqa: F401
from tests.fakes.openai_fixture import FakeOpenAI, fake_openai  # noqa: F401
from tests.kinds.debate.conftest import AI_SIX, make_session
from tests.kinds.debate.fake_debate import answer, claims_and_stances, play, sent_systems

SPLIT = {a: ("pro", "con")[i % 2] for i, a in enumerate(AI_SIX)}
MARA = AI_SIX[0]
FIGURES = {"tool": "deck_data.find_figures", "arguments": {"query": "serious incidents"}}


def _replier(requests: list[dict[str, Any]]):
    """Mara asks for `requests` in round 1; nobody asks for anything else."""
    def reply(purpose: str, payload: PendingPayload, round_no: int) -> dict[str, Any]:
        first = claims_and_stances(purpose, payload, round_no, SPLIT)
        if first is not None:
            return first
        if purpose == "answer":
            found = answer(payload, SPLIT, [])
            if payload.actor_id == MARA and round_no == 1:
                found["tool_requests"] = requests
            return found
        if purpose == "merge":
            return {"cruxes": [], "summary": "Merged."}
        return {"cruxes": [{"text": "x", "why": "y"}]}
    return reply


def _tools_of_mara_in_round_two(fake: FakeOpenAI) -> str:
    systems = [s for s in sent_systems(fake, "## TOOL OUTPUTS")
               if "Mara Okafor" in s.split("\n", 3)[1] or "Mara Okafor" in s[:300]]
    assert len(systems) >= 2
    return section(systems[1], "TOOL OUTPUTS")


def test_a_tool_an_agent_asks_for_runs_on_the_bundled_server_and_is_in_its_next_request(
        fake_openai: FakeOpenAI):  # noqa: F811
    fake_openai.reset()
    session, events = play(fake_openai, _replier([FIGURES]), until="final",
                           bundled_tools=True)
    pull = session.state.pulls[0]
    assert pull.agent == MARA and pull.ok and pull.round == 1
    assert pull.citation == "Northvale Incident Registry, annual table 4 (fictional), 2031-03-31"
    tools = _tools_of_mara_in_round_two(fake_openai)
    assert 'deck_data.find_figures({"query":"serious incidents"}) → [cited: Northvale' in tools
    assert "fell from 9.1 in 2029 to 5.2 in 2031" in tools
    assert "- deck_data.find_figures(query): dated figures" in tools
    ran = [e for e in events if isinstance(e, ToolRan)]
    assert [e.actor_id for e in ran] == [MARA] and ran[0].result.status.value == "ok"


def test_calls_over_the_turns_budget_are_refused_with_a_line(
        fake_openai: FakeOpenAI):  # noqa: F811
    fake_openai.reset()
    three = [FIGURES, {"tool": "deck_data.find_news", "arguments": {"query": "pilot"}},
             {"tool": "deck_data.find_filings", "arguments": {"query": "audits"}}]
    session, events = play(fake_openai, _replier(three), until="merge",
                           bundled_tools=True, tool_calls=2)
    oks = [p.ok for p in session.state.pulls]
    assert oks == [True, True, False]
    assert session.state.pulls[2].text == "Error: not run: over the budget of 2 tool " \
                                          "calls a turn."
    assert len([e for e in events if isinstance(e, ToolRan)]) == 2  # the refused never ran


class HugeRows:
    """A connected server (in process) whose one tool answers 400 long lines."""

    server_name = "rows"
    status = "connected to rows (1 tool)"
    connected = True

    @property
    def tools(self) -> list[ToolInfo]:
        return [ToolInfo(name="all_rows", description="Every row.",
                         input_schema={"type": "object", "properties": {"table": {}}})]

    def add_listener(self, listener: Any) -> None:
        pass

    def remove_listener(self, listener: Any) -> None:
        pass

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None,
                        timeout: float = 30.0) -> ToolOutput:
        return ToolOutput(structured={"result": "\n".join(
            f"row {n}: " + "lorem ipsum dolor sit amet " * 4 for n in range(400))})

    async def disconnect(self) -> None:
        pass


def test_a_tools_answer_is_clipped_to_its_share_of_the_tools_budget():
    session = make_session()
    session.attach_mcp(HugeRows())
    session.state.tool_calls = 2
    pulls = asyncio.run(session.tools.run(MARA, 1, [
        ToolRequest(tool="rows.all_rows", arguments={"table": "t"})]))
    share = session.state.budget.tools // 2  # ~1K a turn, two calls: ~500 each
    assert pulls[0].ok and pulls[0].text.startswith("row 0: ")
    assert share - 40 <= estimate_tokens(pulls[0].text) <= share
    listed = session.tools.listed()
    assert ("rows.all_rows", "table", "Every row.") in listed


def test_an_unknown_tool_is_an_error_line_and_the_round_goes_on(
        fake_openai: FakeOpenAI):  # noqa: F811
    fake_openai.reset()
    session, _ = play(fake_openai, _replier([{"tool": "nowhere.nothing", "arguments": {}}]),
                      until="final")
    pull = session.state.pulls[0]
    assert not pull.ok and pull.text.startswith("Error: ") and "\n" not in pull.text
    assert session.state.table_rounds() == 3
    assert f"- nowhere.nothing({{}}) →\n  {pull.text}" in _tools_of_mara_in_round_two(
        fake_openai)


def test_a_slow_tool_of_a_connected_server_is_an_error_line_not_a_stall(
        fake_openai: FakeOpenAI, slow_mcp):  # noqa: F811
    fake_openai.reset()
    slow = {"tool": "roundtable-youtube.search_videos", "arguments": {"query": "rag"}}
    session, _ = play(fake_openai, _replier([slow]), until="merge", mcp_url=slow_mcp.url,
                      tool_timeout_s=1.0)
    pull = session.state.pulls[0]
    assert not pull.ok and pull.text.startswith("Error: ")
    assert pull.ms < 10_000
    tools = section(sent_systems(fake_openai, "## TOOL OUTPUTS")[0], "TOOL OUTPUTS")
    assert "- roundtable-youtube.search_videos(" in tools  # the connected server's tools
