"""Fixtures for the legion tests: a session on any client, a fake MCP connection, the
seed's perception replies, and the events a session emitted."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from roundtable_desktop.domain.calls import ChatRequest
from roundtable_desktop.domain.events import CallStarted
from roundtable_desktop.engine.bus import EventBus
from roundtable_desktop.kinds.legion.scenario import new_state
from roundtable_desktop.kinds.legion.session import LegionSession
from roundtable_desktop.llm.client import StreamItem
from roundtable_desktop.sources.mcp_model import McpToolError, ToolInfo, ToolOutput
from tests.fakes.scripted_model import ScriptedClient

LIST_SCHEMA = {"type": "object",
               "properties": {"path": {"type": "string",
                                       "description": "The path of the directory to list."}},
               "required": ["path"]}
FILES = ["AnalyticsDashboard.tsx", "ApiKeyManager.tsx", "AutoChatControls.tsx"]


class FakeFiles:
    """A fake MCP connection with one tool, `list_files`: answers FILES, or fails."""

    def __init__(self, *, fail: bool = False) -> None:
        self.fail = fail
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.server_name = "file_system"

    status = "connected to fake files (1 tool)"
    connected = True

    @property
    def tools(self) -> list[ToolInfo]:
        return [ToolInfo(name="list_files", description="Lists files and directories "
                         "within a specified path.", input_schema=LIST_SCHEMA)]

    def add_listener(self, listener) -> None:
        pass

    def remove_listener(self, listener) -> None:
        pass

    async def call_tool(self, name: str, arguments: dict | None = None,
                        timeout: float = 30.0) -> ToolOutput:
        self.calls.append((name, dict(arguments or {})))
        if self.fail:
            raise McpToolError("The MCP tool list_files failed: disk on fire")
        return ToolOutput(structured={"result": FILES})

    async def disconnect(self) -> None:
        pass


def plan(action: str = "SPEAK", score: int = 51, *, who: str = "Rowan",
         mode: str | None = None, tool: dict | None = None, text: str = "Say hello.",
         ms: int = 800) -> str:
    """A perception reply in the seed's shape."""
    from roundtable_desktop.kinds.legion.state import mode_for

    return json.dumps({
        "perceptionAnalysis": "A message arrived.",
        "opinionUpdates": [{"participantName": who, "newScore": score,
                            "reasonForChange": "test"}],
        "finalOpinions": {who: score},
        "selectedResponseMode": mode or mode_for(score),
        "personalNotes": "",
        "action": action,
        "responsePlan": text,
        "predictedResponseTime": ms,
        "toolCall": tool,
    })


def session_for(client, scenario: str = "default", *, bus: EventBus | None = None,
                **state_opts: Any) -> LegionSession:
    """A session on `client` (no scenario tools); `state_opts` set state fields. Replies
    keep their predicted order but wait no predicted time unless a test sets `speed`."""
    state = new_state(scenario)
    state_opts.setdefault("speed", 0.0)
    for key, value in state_opts.items():
        setattr(state, key, value)
    return LegionSession(state, client=client, bus=bus or EventBus(), model="test-model",
                         provider="test", scenario_tools=False)


class ByMinionClient(ScriptedClient):
    """A scripted model that answers each minion's perception calls from that minion's
    own queue (concurrent minions make their calls in any order); responses get
    `default`."""

    def __init__(self, plans: dict[str, list[str]], default: str = "ok") -> None:
        super().__init__(default=default)
        self.plans = {name: list(queue) for name, queue in plans.items()}

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamItem]:
        if request.purpose == "perception":
            for name, queue in self.plans.items():
                if f'called "{name}"' in request.messages[0].content and queue:
                    self.replies.insert(0, queue.pop(0))
                    break
        async for item in super().stream(request):
            yield item


class Recorder:
    def __init__(self) -> None:
        self.events: list = []

    def __call__(self, event) -> None:
        self.events.append(event)

    def started(self, purpose: str | None = None) -> list[CallStarted]:
        return [e for e in self.events if isinstance(e, CallStarted)
                and (purpose is None or e.purpose == purpose)]


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()
