"""A recorded legion session whose minion calls a tool that answers megabytes, a hundred
times; run as its own process so its peak memory is its own:

    python -m tests.kinds.legion.huge_tool_run DB [CALLS] [BLOCKS] [STRUCTURED_CHARS]

Prints one JSON line: the store's size in bytes (all its files, after the log is folded
in), the peak resident memory in KiB, the tool calls made and what the first diary step
kept. The tool is an in-process fake connection (no client bounds its answer: the
session must).
"""

from __future__ import annotations

import asyncio
import json
import resource
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from roundtable_desktop.domain.calls import ChatRequest
from roundtable_desktop.engine.base import SEND, Action
from roundtable_desktop.engine.launch import start_session
from roundtable_desktop.kinds.built import register_built_kinds
from roundtable_desktop.llm.client import StreamItem
from roundtable_desktop.sources.mcp_model import ToolInfo, ToolOutput
from roundtable_desktop.store.database import SessionStore
from tests.fakes.huge_mcp_server import answer_parts
from tests.fakes.scripted_model import ScriptedClient
from tests.kinds.legion.conftest import plan

STEPS_PER_TURN = 10


class HugeTool:
    """A fake MCP connection with one tool, `huge`, answering megabytes each time."""

    server_name = "big"
    status = "connected to a huge fake (1 tool)"
    connected = True

    def __init__(self, blocks: int, structured_chars: int) -> None:
        self.blocks, self.structured_chars = blocks, structured_chars
        self.calls = 0

    @property
    def tools(self) -> list[ToolInfo]:
        return [ToolInfo(name="huge", description="Answers with a lot.",
                         input_schema={"type": "object", "properties": {}})]

    def add_listener(self, listener) -> None:  # type: ignore[no-untyped-def]
        pass

    def remove_listener(self, listener) -> None:  # type: ignore[no-untyped-def]
        pass

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None,
                        timeout: float = 30.0) -> ToolOutput:
        self.calls += 1
        texts, structured = answer_parts(self.blocks, 20_000, self.structured_chars,
                                         seed=self.calls)
        return ToolOutput(structured=structured, texts=texts)

    async def disconnect(self) -> None:
        pass


class ToolLoopClient(ScriptedClient):
    """Plans a tool call until this turn has STEPS_PER_TURN tool outputs, then speaks."""

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamItem]:
        if request.purpose == "perception":
            done = request.messages[-1].content.count("[TOOL OUTPUT]")
            tool = {"name": "big.huge", "arguments": {}}
            self.replies.insert(0, plan("USE_TOOL", 60, tool=tool) if done < STEPS_PER_TURN
                                else plan("SPEAK", 60))
        else:
            self.replies.insert(0, "Done.")
        async for item in super().stream(request):
            yield item


def peak_kib() -> int:
    """This process's peak resident memory in KiB: VmHWM on Linux (ru_maxrss would count
    the memory of the process that started this one, kept across its exec)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


async def run(db: Path, calls: int, blocks: int, structured_chars: int) -> dict[str, Any]:
    tool = HugeTool(blocks, structured_chars)
    with SessionStore.open(db) as store:
        handle = await start_session("legion", store=store, client=ToolLoopClient(),
                                     model="m", provider="test", scenario_tools=False,
                                     max_tool_steps=STEPS_PER_TURN, autochat_rounds=0, speed=0)
        session = handle.session
        session.attach_mcp(tool)
        for turn in range(calls // STEPS_PER_TURN):
            assert await session.perform(Action(id=SEND, text=f"dig, round {turn}"))
        handle.close()
        store.wait_checkpointed()
        step = session.state.diaries[0].tool_steps[0]  # type: ignore[attr-defined]
    size = sum(p.stat().st_size for p in db.parent.glob(db.name + "*") if p.is_file())
    return {"store_bytes": size, "peak_kib": peak_kib(),
            "calls": tool.calls, "kept_chars": len(step.output),
            "original_chars": getattr(step, "original_chars", None),
            "sha256": getattr(step, "sha256", None)}


def main(argv: list[str]) -> int:
    register_built_kinds()
    db = Path(argv[0])
    calls = int(argv[1]) if len(argv) > 1 else 100
    blocks = int(argv[2]) if len(argv) > 2 else 50
    structured = int(argv[3]) if len(argv) > 3 else 0
    print(json.dumps(asyncio.run(run(db, calls, blocks, structured))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
