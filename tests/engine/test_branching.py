"""Branching a stored session at a step: a new live session from that step's checkpoint,
nothing of the parent sent again, the parent left as it was (engine/branching.py)."""

from __future__ import annotations

import asyncio
import hashlib
import sqlite3
from pathlib import Path

import pytest

from roundtable_desktop.context.request_document import messages_from_document
from roundtable_desktop.engine.base import SessionProtocol
from roundtable_desktop.engine.branching import (
    BranchRefused,
    BranchRequest,
    branch_session,
    last_step,
    session_history,
)
from roundtable_desktop.engine.launch import start_session
from roundtable_desktop.engine.session_settings import SessionSettings
from roundtable_desktop.llm.openai_compat import OpenAICompatClient
from roundtable_desktop.store.database import SessionStore

KIND = "roundtable"  # one call per step against the fake server's default reply


def _steps(session: SessionProtocol, count: int) -> None:
    async def go() -> None:
        for _ in range(count):
            step = session.next_step()
            assert step is not None
            assert await session.perform(step)
    asyncio.run(go())


def _dump(db: Path, session_id: str) -> str:
    """Every row that belongs to the session, as text: what must not change."""
    con = sqlite3.connect(db)
    try:
        rows = []
        for table, key in (("sessions", "id"), ("events", "session_id"),
                           ("calls", "session_id"), ("checkpoints", "session_id"),
                           ("blobs", "session_id")):
            rows += [repr(r) for r in con.execute(
                f"SELECT * FROM {table} WHERE {key} = ? ORDER BY rowid", (session_id,))]
        return hashlib.sha256("\n".join(rows).encode()).hexdigest()
    finally:
        con.close()


def _sent_per_step(session: SessionProtocol, fake, count: int) -> list[int]:
    """Run `count` steps; the number of requests the server had after each."""
    seen = []
    for _ in range(count):
        _steps(session, 1)
        seen.append(len(fake.requests()))
    return seen


@pytest.fixture
def parent(fake_openai, tmp_path):
    """A 12-step session recorded against the fake model server, and how many requests
    the server had after each of its steps."""
    fake_openai.reset()
    db = tmp_path / "s.db"
    store = SessionStore.open(db)
    client = OpenAICompatClient(fake_openai.base_url, None)
    handle = asyncio.run(start_session(KIND, store=store, client=client, model="m",
                                       provider="custom"))
    after = _sent_per_step(handle.session, fake_openai, 12)
    handle.close()
    yield store, db, handle.session_id, client, fake_openai, after
    store.close()


def test_a_branch_at_step_6_sends_only_its_own_steps_first_as_the_parents_step_7(parent):
    store, db, parent_id, client, fake, after = parent
    sent_by_parent = fake.requests()
    steps_7_to_9 = sent_by_parent[after[5]:after[8]]
    assert steps_7_to_9  # the steps make calls
    before = _dump(db, parent_id)
    fake.reset()
    handle = branch_session(BranchRequest(parent_id=parent_id, at=6), store=store,
                            client=client)
    assert store.calls(handle.session_id) == []
    assert fake.requests() == []  # zero calls of its own at start
    _steps(handle.session, 3)
    sent = fake.requests()
    assert [r["body"] for r in sent] == [r["body"] for r in steps_7_to_9]
    assert _dump(db, parent_id) == before
    handle.close()


def test_a_branch_on_another_model_differs_from_the_parents_step_only_by_the_model(parent):
    store, _db, parent_id, client, fake, after = parent
    step_7 = fake.requests()[after[5]]["body"]
    fake.reset()
    handle = branch_session(BranchRequest(parent_id=parent_id, at=6,
                                          settings=SessionSettings(model="other-model")),
                            store=store, client=client)
    _steps(handle.session, 1)
    [first] = fake.requests()
    assert first["body"] == {**step_7, "model": "other-model"}
    origin = store.branch_origin(handle.session_id)
    assert origin is not None and origin.parent_id == parent_id and origin.step == 6
    assert origin.changes == ["Model: m → other-model"]
    handle.close()


def test_a_branch_on_another_model_shows_the_request_it_sends(parent):
    store, _db, parent_id, client, fake, _after = parent
    fake.reset()
    handle = branch_session(BranchRequest(parent_id=parent_id, at=6,
                                          settings=SessionSettings(model="other-model")),
                            store=store, client=client)
    [shown] = handle.session.payloads_as_sent()
    _steps(handle.session, 1)
    [first] = fake.requests()

    assert shown.request.model == first["body"]["model"] == "other-model"
    assert 'data-model="other-model"' in shown.document
    assert messages_from_document(shown.document) == shown.request.messages
    assert [m.model_dump(exclude_none=True) for m in shown.request.messages] == \
        first["body"]["messages"]
    handle.close()


def test_a_branchs_history_is_the_parents_calls_to_its_step_marked_then_its_own(parent):
    store, _db, parent_id, client, _fake, after = parent
    handle = branch_session(BranchRequest(parent_id=parent_id, at=6), store=store,
                            client=client)
    _steps(handle.session, 2)
    history = session_history(store, handle.session_id)
    inherited = store.calls(parent_id)[:after[5]]
    own = store.calls(handle.session_id)
    assert own
    assert [h.call.id for h in history] == [c.id for c in inherited + own]
    assert [h.inherited_from for h in history] == [parent_id] * len(inherited) + \
        [None] * len(own)
    assert last_step(store, handle.session_id) == 8
    handle.close()


def test_a_branch_of_a_branch_inherits_along_the_whole_line(parent):
    store, _db, parent_id, client, _fake, after = parent
    first = branch_session(BranchRequest(parent_id=parent_id, at=6), store=store,
                           client=client)
    _steps(first.session, 3)
    first.close()
    second = branch_session(BranchRequest(parent_id=first.session_id, at=8), store=store,
                            client=client)
    history = session_history(store, second.session_id)
    from_first = len(store.calls_until_step(first.session_id, 2))
    assert from_first
    assert [h.inherited_from for h in history] == [parent_id] * after[5] + \
        [first.session_id] * from_first
    second.close()


def test_a_step_the_session_does_not_have_is_refused_in_one_sentence(parent):
    store, _db, parent_id, client, _fake, _after = parent
    with pytest.raises(BranchRefused, match="steps are 1 to 12"):
        branch_session(BranchRequest(parent_id=parent_id, at=13), store=store, client=client)
    with pytest.raises(BranchRefused, match="numbered from 1"):
        branch_session(BranchRequest(parent_id=parent_id, at=0), store=store, client=client)
