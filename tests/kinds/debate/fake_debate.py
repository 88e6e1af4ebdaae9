"""Drive a debate against the fake OpenAI-compatible server (a real HTTP peer), step by
step, scripting before each step one reply per request that step sends, made by a
function of (purpose, the pending payload, the round number)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from roundtable_desktop.domain.events import Event
from roundtable_desktop.engine.base import PendingPayload
from roundtable_desktop.kinds.debate.session import DebateSession
from roundtable_desktop.kinds.debate.setup import new_state
from roundtable_desktop.llm.embeddings import NoEmbeddings
from roundtable_desktop.llm.openai_compat import OpenAICompatClient
from roundtable_desktop.sources.mcp_client import McpConnection
from tests.fakes.openai_fixture import FakeOpenAI
from tests.kinds.debate.conftest import AI_SIX, TOPIC

Replier = Callable[[str, PendingPayload, int], dict[str, Any]]
CLAIMS = {"claims": [{"text": f"Claim {i}: licences for frontier models help.",
                      "pro": "Yes, audits show it.", "con": "No, it slows small labs."}
                     for i in (1, 2)]}


def claims_and_stances(purpose: str, payload: PendingPayload, index: int,
                       sides: dict[str, str]) -> dict[str, Any] | None:
    """The claims reply, and a stance reply by the agent's side in `sides` (pro or con)."""
    if purpose == "claims":
        return CLAIMS
    if purpose == "stance":
        return {"stance": sides.get(payload.actor_id or "", "pro"), "confidence": 0.8,
                "reason": "My contract says so."}
    return None


def answer(payload: PendingPayload, sides: dict[str, str], cruxes: list[dict[str, str]],
           response: str = "I hold my view.") -> dict[str, Any]:
    side = sides.get(payload.actor_id or "", "pro")
    return {"response": response, "stances": [
        {"claim": c, "stance": side, "confidence": 0.8} for c in ("c1", "c2")],
        "new_cruxes": cruxes, "flip_triggers": []}


def play(fake: FakeOpenAI, replier: Replier, *, hand: list[str] | None = None,
         until: str | None = None, parallel: int = 1, mcp_url: str = "",
         tool_timeout_s: float | None = None, **options: Any
         ) -> tuple[DebateSession, list[Event]]:
    """The debate played to its end (or phase `until`); `mcp_url`: an MCP server the
    user connected, attached before the first step (connected and closed in one task).
    The server answers in the order requests arrive, so one call at a time (`parallel`
    1) is what makes each scripted reply reach the agent it was made for."""
    client = OpenAICompatClient(fake.base_url, "sk-test", no_embeddings=NoEmbeddings())
    state = new_state("ai-regulation", {"hand": hand or AI_SIX, "topic": TOPIC,
                                        "bundled_tools": False, **options})
    session = DebateSession(state, client=client, model="fake", parallel=parallel)
    if tool_timeout_s is not None:
        session.tools.timeout_s = tool_timeout_s
    events: list[Event] = []
    session.bus.subscribe(events.append)

    async def go() -> None:
        connection = McpConnection() if mcp_url else None
        if connection is not None:
            await connection.connect(mcp_url)
            session.attach_mcp(connection)
        try:
            for _ in range(40):
                if session.ended or session.state.phase == until:
                    break
                payloads = session.pending_payloads()
                round_no = len(session.state.rounds) + 1
                fake.script([{"kind": "ok", "text": json.dumps(
                    replier(p.request.purpose, p, round_no))} for p in payloads])
                assert await session.perform(session.next_step())
            await session.aclose()
        finally:
            if connection is not None:
                await connection.disconnect()
            await client.aclose()

    asyncio.run(go())
    return session, events


def sent_bodies(fake: FakeOpenAI, purpose_word: str) -> list[str]:
    """The user messages of the chat requests the server received whose system prompt
    holds `purpose_word` (e.g. "# Merge")."""
    found = []
    for request in fake.requests():
        body = request.get("body")
        data = json.loads(body) if isinstance(body, str) else body
        messages = (data or {}).get("messages", [])
        if messages and purpose_word in messages[0].get("content", ""):
            found.append(messages[-1]["content"])
    return found


def sent_systems(fake: FakeOpenAI, purpose_word: str) -> list[str]:
    """The system prompts of the chat requests the server received holding
    `purpose_word` (e.g. "## TOOL OUTPUTS"), in the order received."""
    found = []
    for request in fake.requests():
        body = request.get("body")
        messages = (body or {}).get("messages", []) if isinstance(body, dict) else []
        if messages and purpose_word in messages[0].get("content", ""):
            found.append(messages[0]["content"])
    return found
