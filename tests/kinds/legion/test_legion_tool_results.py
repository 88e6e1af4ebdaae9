"""What is kept of a tool's answer (issue 26, point 3): the client keeps a bounded excerpt
with the whole answer's size and hash, a minion's diary keeps what the model was shown
with that size and hash, and a session of a hundred huge answers keeps a small store in
little memory."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import roundtable_desktop
from roundtable_desktop.engine.base import SEND, Action
from roundtable_desktop.kinds.legion.prompts import TOOL_OUTPUT_CHARS
from roundtable_desktop.sources.mcp_stdio import McpStdioConnection
from roundtable_desktop.sources.mcp_toolbox import McpToolbox
from tests.fakes.huge_mcp_server import answer_parts, whole_answer_text
from tests.fakes.scripted_model import ScriptedClient
from tests.kinds.legion.conftest import plan, session_for
from tests.kinds.legion.huge_tool_run import HugeTool

ROOT = Path(__file__).resolve().parents[3]
SRC = Path(roundtable_desktop.__file__).resolve().parents[1]  # the code under test
MB = 1_000_000


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# -- the client keeps a bounded excerpt --------------------------------------------------
def test_any_number_of_text_blocks_is_kept_within_the_bound_with_the_size_and_hash():
    from roundtable_desktop.sources.tool_results import kept_output

    texts, _ = answer_parts(300, 20_000, 0)
    output = kept_output(texts, None, max_chars=50_000)
    assert sum(len(t) for t in output.texts) <= 50_000
    assert output.original_chars == len(whole_answer_text(300, 20_000, 0))
    assert output.sha256 == sha256(whole_answer_text(300, 20_000, 0))


def test_structured_content_too_big_to_keep_is_dropped_and_its_start_kept_as_text():
    from roundtable_desktop.sources.tool_results import kept_output

    _, structured = answer_parts(0, 0, 3 * MB)
    output = kept_output([], structured, max_chars=20_000)
    assert output.structured is None
    assert [len(t) <= 20_000 for t in output.texts] == [True]
    assert output.texts[0].startswith('{"rows": ["row 000000')
    assert output.sha256 == sha256(whole_answer_text(0, 0, 3 * MB))


def test_structured_content_that_fits_is_kept_as_it_is():
    from roundtable_desktop.sources.tool_results import kept_output

    _, structured = answer_parts(0, 0, 5_000)
    assert kept_output([], structured, max_chars=20_000).structured == structured


def _huge_server(**kept: int) -> McpStdioConnection:
    env = {"PYTHONPATH": os.pathsep.join([str(SRC), str(ROOT)])}
    return McpStdioConnection(sys.executable, ["-m", "tests.fakes.huge_mcp_server"], env,
                              **kept)


@pytest.mark.parametrize("structured_chars", [0, 2 * MB], ids=["text", "structured"])
def test_a_huge_answer_over_stdio_is_kept_bounded_with_the_whole_answers_size_and_hash(
    structured_chars,
):
    async def run():
        connection = _huge_server(kept_chars=30_000)
        await connection.start()
        try:
            return await connection.call_tool(
                "huge", {"blocks": 200, "block_chars": 20_000,
                         "structured_chars": structured_chars}, timeout=60)
        finally:
            await connection.disconnect()

    output = asyncio.run(run())
    whole = whole_answer_text(200, 20_000, structured_chars)
    assert len(whole) > 2 * MB
    assert sum(len(t) for t in output.texts) <= 30_000
    assert len(json.dumps(output.structured)) <= 30_000
    assert (output.original_chars, output.sha256) == (len(whole), sha256(whole))


# -- the session stores what the model saw ----------------------------------------------
def test_a_diary_keeps_what_the_model_was_shown_and_the_size_and_hash_of_the_rest():
    tool = HugeTool(blocks=50, structured_chars=0)
    client = ScriptedClient(plan("USE_TOOL", 60, tool={"name": "big.huge", "arguments": {}}),
                            plan("SPEAK", 60), "Found a lot.")

    async def run():
        session = session_for(client)
        session.attach_mcp(tool)
        assert await session.perform(Action(id=SEND, text="dig"))
        return session

    session = asyncio.run(run())
    (step,) = session.state.diaries[-1].tool_steps
    whole = whole_answer_text(50, 20_000, 0, seed=1)  # the first call answers seed 1
    assert (step.original_chars, step.sha256) == (len(whole), sha256(whole))
    assert len(step.output) < TOOL_OUTPUT_CHARS + 100
    shown = client.requests[1].messages[-1].content
    assert step.output[:TOOL_OUTPUT_CHARS - 100] in shown
    assert len(session.state_json()) < 100_000


def test_the_toolbox_keeps_as_much_as_it_is_told():
    toolbox = McpToolbox(kept_chars=1_000)
    toolbox.add("big", HugeTool(blocks=3, structured_chars=0))
    kept = asyncio.run(toolbox.call_kept("big.huge"))
    assert len(kept.text) == 1_000
    assert kept.original_chars == len(whole_answer_text(3, 20_000, 0))


@pytest.mark.slow
def test_a_session_with_a_hundred_huge_tool_results_keeps_a_store_under_20_mb(tmp_path):
    db = tmp_path / "huge.sqlite3"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), str(ROOT)])}
    result = subprocess.run(
        [sys.executable, "-m", "tests.kinds.legion.huge_tool_run", str(db), "100", "50"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    print(f"100 tool results of 1 MB each: store {figures['store_bytes'] / MB:.1f} MB, "
          f"peak memory {figures['peak_kib'] / 1024:.0f} MiB")
    assert figures["calls"] == 100
    assert figures["store_bytes"] < 20 * MB
    assert figures["peak_kib"] < 200 * 1024
