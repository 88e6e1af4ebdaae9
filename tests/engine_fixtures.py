"""Fixtures for engine tests: a meeting on the scripted model or the offline model."""

from __future__ import annotations

import asyncio
from collections import deque
from pathlib import Path

import pytest

from roundtable_desktop.engine.base import Action
from roundtable_desktop.engine.bus import EventBus
from roundtable_desktop.engine.headless import drive_headless
from roundtable_desktop.engine.launch import SessionHandle, start_session
from roundtable_desktop.kinds.roundtable.meeting import MeetingState
from roundtable_desktop.kinds.roundtable.session import RoundtableSession
from roundtable_desktop.kinds.roundtable.setup import new_meeting_state
from roundtable_desktop.kinds.roundtable.sources.mock_catalog import MockCatalog
from roundtable_desktop.llm.offline import OfflineClient
from roundtable_desktop.store.database import SessionStore
from tests.fakes.scripted_model import ScriptedClient


@pytest.fixture
def catalog() -> MockCatalog:
    return MockCatalog.load()


@pytest.fixture
def meeting_state(catalog) -> MeetingState:
    return asyncio.run(new_meeting_state(catalog))


@pytest.fixture
def scripted() -> ScriptedClient:
    return ScriptedClient()


@pytest.fixture
def meeting(meeting_state, scripted, catalog) -> RoundtableSession:
    """A default meeting on the scripted model, no store."""
    return RoundtableSession(meeting_state, client=scripted, source=catalog, bus=EventBus())


@pytest.fixture
def store(tmp_path: Path):
    s = SessionStore.open(tmp_path / "sessions.sqlite3")
    yield s
    s.close()


def run(coro):
    return asyncio.run(coro)


def act(session: RoundtableSession, action_id: str, **kw) -> None:
    asyncio.run(session.perform(Action(id=action_id, **kw)))


async def start_recorded(store: SessionStore, client, catalog) -> SessionHandle:
    return await start_session("roundtable", store=store, client=client, candidate_source=catalog,
                               model="test-model", provider="offline")


async def drive_offline_meeting(handle: SessionHandle, turns: int = 12) -> None:
    """Click what a user would click until `turns` turns pass or the meeting ends."""
    await drive_headless(handle.session, turns, deque())


def offline() -> OfflineClient:
    return OfflineClient(delay_s=0)
