"""The debate's tools: the MCP servers an agent may call during a round (seed 004's
context source 5, "tool outputs").

Two kinds of server: the deck's bundled records server (data_server.py, run as the app's
own `serve-debate-data` command over stdio, started on the first call to it) and the
servers the user connected (Settings or `--mcp-config`, attached with `attach`); the
session warms the bundled one up while the stances are taken (`warm`). An
agent asks for tools in its answer (`tool_requests`); after its answer the engine runs
at most `state.tool_calls` of them (the rest are refused with a line saying so), each
with a deadline, and keeps each as a ToolPull: the text clipped to its share of the
tools budget (~1K tokens a turn), or one error line when the tool failed, was unknown
or was slow, never a stall. ToolRan is emitted for each. `listed` is what source 5
shows: the bundled tools by their fixed list (the server need not run to list them) and
the connected servers' tools. Must not import Qt or the MCP SDK.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import sys
import time
from collections.abc import Callable
from typing import Any

from roundtable_desktop.domain.events import Event, Notice, StateChanged, ToolRan
from roundtable_desktop.domain.tokens import estimate_tokens
from roundtable_desktop.domain.tools import Arg, ToolCall, ToolResult, ToolStatus
from roundtable_desktop.kinds.debate.data_records import (
    BUNDLED_TOOLS,
    SERVER,
    data_dir,
    has_records,
)
from roundtable_desktop.kinds.debate.state import DebateState, ToolPull, ToolRequest
from roundtable_desktop.sources.mcp_model import McpError
from roundtable_desktop.sources.mcp_process import app_command
from roundtable_desktop.sources.mcp_servers_config import StdioServerConfig
from roundtable_desktop.sources.mcp_toolbox import McpToolbox

TOOL_TIMEOUT_S = 8.0
_SOURCE = re.compile(r"\[([\w-]+)\] (\d{4}-\d{2}-\d{2}) · .*?\(source: (.+?)\)$", re.M)


def citation_of(text: str) -> str:
    """"Source, date" of each cited item an answer holds ("" when it holds none)."""
    return "; ".join(f"{source}, {date}" for _, date, source in _SOURCE.findall(text))


def plain_text(text: str) -> str:
    """A tool's answer that is one JSON string (a tool returning text, as structured
    content) as that string; any other answer as it is."""
    if text.startswith('"'):
        try:
            value = json.loads(text)
        except ValueError:
            return text
        if isinstance(value, str):
            return value
    return text


def clip_to_tokens(text: str, tokens: int) -> str:
    """Whole lines of `text` within `tokens`; a first line too long is cut with "…"."""
    kept: list[str] = []
    used = 0
    for line in text.splitlines():
        cost = estimate_tokens(line) + 1
        if used + cost > tokens:
            if not kept:
                kept.append(line[: max(0, tokens * 3)] + "…")
            break
        kept.append(line)
        used += cost
    return "\n".join(kept)


class DebateTools:
    def __init__(self, state: Callable[[], DebateState], emit: Callable[[Event], None],
                 timeout_s: float = TOOL_TIMEOUT_S) -> None:
        self._state, self._emit = state, emit
        self.toolbox = McpToolbox()
        self.timeout_s = timeout_s
        self._bundled_tried = False
        self._lock = asyncio.Lock()
        self._warming: asyncio.Task[None] | None = None

    # -- what the agents see -------------------------------------------------------------
    def bundled(self) -> bool:
        s = self._state()
        return s.bundled_tools and has_records(s.deck)

    def listed(self) -> list[tuple[str, str, str]]:
        """(namespaced name, its arguments, what it does) of every tool an agent may call
        now."""
        found = [(f"{SERVER}.{name}", "query", what) for name, what in BUNDLED_TOOLS] \
            if self.bundled() else []
        for spec in self.toolbox.tool_specs():
            name = str(spec.get("name", ""))
            if name and not name.startswith(f"{SERVER}.") and \
                    name not in (n for n, _, _ in found):
                schema = spec.get("input_schema") or spec.get("inputSchema") or {}
                props = schema.get("properties", {}) if isinstance(schema, dict) else {}
                found.append((name, ", ".join(str(p) for p in props)[:120],
                              " ".join(str(spec.get("description", "")).split())[:160]))
        return found

    # -- attaching ------------------------------------------------------------------------
    def attach(self, connection: Any) -> None:
        if isinstance(connection, McpToolbox):
            for name, server in connection.servers.items():
                self.toolbox.add(name, server)
        else:
            self.toolbox.add(getattr(connection, "server_name", "") or "mcp", connection)
        self._emit(StateChanged(part="tools", detail=self.toolbox.status))

    def detach(self) -> None:
        self.toolbox.drop_unowned()
        self._emit(StateChanged(part="tools", detail=self.toolbox.status))

    def warm(self) -> None:
        """Start the bundled server in the background (it takes a second or two), so the
        first tool call of a round does not wait for it."""
        if self.bundled() and not self._bundled_tried and self._warming is None:
            self._warming = asyncio.ensure_future(self._start_bundled())

    async def close(self) -> None:
        if self._warming is not None and not self._warming.done():
            self._warming.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._warming
        await self.toolbox.close()

    async def _start_bundled(self) -> None:
        async with self._lock:
            if self._bundled_tried or not self.bundled():
                return
            self._bundled_tried = True
            path = data_dir() / f"{self._state().deck}.json"
            command = app_command("serve-debate-data", str(path))
            # A source run found its package through PYTHONPATH: the child must too (a
            # stdio child gets only a safe default environment).
            env = {"PYTHONPATH": os.environ["PYTHONPATH"]} \
                if os.environ.get("PYTHONPATH") and not getattr(sys, "frozen", False) else {}
            await self.toolbox.connect_all([StdioServerConfig(
                name=SERVER, command=command[0], args=command[1:], env=env)])
            for failure in self.toolbox.failures:
                self._emit(Notice(level="warning", message=failure,
                                  hint="The agents go on without the deck's records."))
            self.toolbox.failures.clear()
            self._emit(StateChanged(part="tools", detail=self.toolbox.status))

    # -- running ----------------------------------------------------------------------------
    async def run(self, agent: str, round_index: int, requests: list[ToolRequest]
                  ) -> list[ToolPull]:
        """The agent's requests of this turn run (at most the budget), each kept."""
        s = self._state()
        share = max(50, s.budget.tools // max(1, s.tool_calls))
        pulls = [await self._one(agent, round_index, r, share)
                 for r in requests[: s.tool_calls]]
        pulls += [ToolPull(agent=agent, round=round_index, tool=r.tool[:200],
                           arguments=r.arguments, ok=False,
                           text=f"Error: not run: over the budget of {s.tool_calls} tool "
                                "calls a turn.")
                  for r in requests[s.tool_calls:]]
        s.pulls.extend(pulls)
        return pulls

    async def _one(self, agent: str, round_index: int, request: ToolRequest,
                   share: int) -> ToolPull:
        name = request.tool.strip()[:200]
        started = time.monotonic()
        if name.startswith(f"{SERVER}."):
            await self._start_bundled()
        try:
            output = await self.toolbox.call_kept(name, request.arguments, self.timeout_s)
            text, ok = clip_to_tokens(plain_text(output.text), share), True
        except McpError as exc:
            text, ok = f"Error: {exc}", False
        except Exception as exc:  # a server that answers nonsense must not end the round
            text, ok = f"Error: the tool failed ({type(exc).__name__}).", False
        text = " ".join(text.split("\n")[:1]) if not ok else text
        pull = ToolPull(agent=agent, round=round_index, tool=name,
                        arguments=request.arguments, ok=ok, text=text,
                        citation=citation_of(text) if ok else "",
                        ms=int((time.monotonic() - started) * 1000))
        shown = json.dumps(request.arguments, ensure_ascii=False, separators=(",", ":"))
        self._emit(ToolRan(actor_id=agent, result=ToolResult(
            call=ToolCall(name=name, args=[Arg(value=shown[:500], bare=True)]),
            status=ToolStatus.OK if ok else ToolStatus.ERROR,
            message="" if ok else text[:300])))
        return pull
