"""Fixtures for the debate tests: a session on any client, driven step by step, and the
events it emitted."""

from __future__ import annotations

import asyncio

import pytest

from roundtable_desktop.domain.events import Event
from roundtable_desktop.kinds.debate.offline import POLICIES
from roundtable_desktop.kinds.debate.session import DebateSession
from roundtable_desktop.kinds.debate.setup import new_state
from roundtable_desktop.llm.offline import OfflineClient, OfflinePolicies

AI_SIX = ["mara-okafor", "dev-lindqvist", "ines-barros", "tomas-reyes", "yuki-tanaka",
          "sam-achebe"]
AI_EIGHT = [*AI_SIX, "kofi-mensah", "lena-hartmann"]
TOPIC = "Should frontier AI models need a licence before public release?"


def debate_policies() -> OfflinePolicies:
    policies = OfflinePolicies()
    for purpose, policy in POLICIES.items():
        policies.register("debate", purpose, policy)
    return policies


def make_session(client=None, *, deck: str = "ai-regulation", hand=None,
                 topic: str = TOPIC, parallel: int = 8, **options) -> DebateSession:
    # The deck's records server is left out unless asked for (it is a process per
    # debate): the tests of tools start it (test_tools_*.py).
    state = new_state(deck, {"deck": deck, "hand": hand or AI_SIX, "topic": topic,
                             "bundled_tools": False, **options})
    return DebateSession(state, client=client or OfflineClient(delay_s=0,
                                                               policies=debate_policies()),
                         parallel=parallel)


def run_steps(session: DebateSession, until: str | None = None, limit: int = 30) -> bool:
    """Follow next_step() until the session ends (or reaches phase `until`)."""
    async def go() -> bool:
        for _ in range(limit):
            if session.ended or session.state.phase == until:
                return True
            step = session.next_step()
            assert step is not None
            if not await session.perform(step):
                return False
        return session.ended

    return asyncio.run(go())


@pytest.fixture
def events_of():
    def attach(session: DebateSession) -> list[Event]:
        found: list[Event] = []
        session.bus.subscribe(found.append)
        return found
    return attach
