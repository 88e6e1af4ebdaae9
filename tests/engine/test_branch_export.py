"""A branch's JSON export and replay page hold its whole history: the calls it inherited
first (each marked with the session that made it, its texts references into the same
chunk table), then its own (engine/session_export.py, engine/replay_export.py)."""

from __future__ import annotations

import asyncio
import base64
import json

import lxml.html
import pytest

from roundtable_desktop.engine.base import SessionProtocol
from roundtable_desktop.engine.branching import BranchRequest, branch_session
from roundtable_desktop.engine.launch import start_session
from roundtable_desktop.engine.session_export import export_session
from roundtable_desktop.llm.openai_compat import OpenAICompatClient
from roundtable_desktop.store.database import SessionStore
from roundtable_desktop.store.export_json import read_export

KIND = "roundtable"  # one call per step against the fake server's default reply


def _steps(session: SessionProtocol, count: int) -> None:
    async def go() -> None:
        for _ in range(count):
            step = session.next_step()
            assert step is not None
            assert await session.perform(step)
    asyncio.run(go())


@pytest.fixture
def line(fake_openai, tmp_path):
    """A 10-step parent and a branch of it at step 6 that ran 2 steps of its own."""
    fake_openai.reset()
    store = SessionStore.open(tmp_path / "s.db")
    client = OpenAICompatClient(fake_openai.base_url, None)
    parent = asyncio.run(start_session(KIND, store=store, client=client, model="m",
                                       provider="custom"))
    _steps(parent.session, 10)
    parent.close()
    branch = branch_session(BranchRequest(parent_id=parent.session_id, at=6), store=store,
                            client=client)
    _steps(branch.session, 2)
    branch.close()
    yield store, client, parent.session_id, branch.session_id
    store.close()


def _inherited_and_own(store: SessionStore, parent_id: str, branch_id: str):
    inherited = store.calls_until_step(parent_id, 6)
    own = store.calls(branch_id)
    assert inherited and own
    assert len(inherited) < len(store.calls(parent_id))  # the parent went on after 6
    return inherited, own


def _text(data: dict, refs: list[int]) -> str:
    """The README's reader ("Reading a JSON export"), as a user would copy it."""
    chunk = lambda c: c.encode() if isinstance(c, str) else base64.b64decode(c["base64"])  # noqa: E731
    return b"".join(chunk(data["chunks"][i]) for i in refs).decode()


def _request(data: dict, call: dict) -> dict:
    if "request" in call:
        return call["request"]
    header, _, contents = _text(data, call["request_chunks"]).partition("\n")
    lengths, body = json.loads(header)
    at = 0
    for message, n in zip(body["messages"], lengths, strict=True):
        if n is not None:
            message["content"], at = contents[at:at + n], at + n
    return body


def _page_data(page: str) -> dict:
    (block,) = lxml.html.document_fromstring(page).xpath("//script[@id='rt-data']")
    return json.loads(block.text)


def test_a_branchs_json_export_reads_back_with_the_inherited_calls_first_marked(line):
    store, _client, parent_id, branch_id = line
    inherited, own = _inherited_and_own(store, parent_id, branch_id)
    back = read_export(export_session(store, branch_id, "json"))
    assert [c.id for c in back.calls] == [c.id for c in inherited + own]
    assert [c.request for c in back.calls] == [c.request for c in inherited + own]
    assert back.inherited_from == {c.id: parent_id for c in inherited}
    assert back.branch is not None and back.branch.parent_id == parent_id
    assert back.branch.step == 6


def test_a_branchs_json_export_gives_inherited_texts_as_chunk_references(line):
    store, _client, parent_id, branch_id = line
    inherited, own = _inherited_and_own(store, parent_id, branch_id)
    data = json.loads(export_session(store, branch_id, "json"))
    rows = data["calls"]
    assert [row.get("inherited_from") for row in rows] == \
        [parent_id] * len(inherited) + [None] * len(own)
    assert all("request_chunks" in row and "request" not in row for row in rows)
    assert [_request(data, row) for row in rows] == [c.request for c in inherited + own]


def test_a_branch_of_a_branchs_json_export_marks_each_call_with_its_maker(line):
    store, client, parent_id, branch_id = line
    second = branch_session(BranchRequest(parent_id=branch_id, at=8), store=store,
                            client=client)
    second.close()
    from_parent, from_branch = _inherited_and_own(store, parent_id, branch_id)
    back = read_export(export_session(store, second.session_id, "json"))
    assert [c.id for c in back.calls] == [c.id for c in from_parent + from_branch]
    assert [back.inherited_from[c.id] for c in back.calls] == \
        [parent_id] * len(from_parent) + [branch_id] * len(from_branch)


def test_a_branchs_replay_page_gives_every_inherited_request_back_byte_for_byte(line):
    store, _client, parent_id, branch_id = line
    inherited, own = _inherited_and_own(store, parent_id, branch_id)
    data = _page_data(export_session(store, branch_id, "replay"))
    assert [_request(data, step) for step in data["steps"]] == \
        [c.request for c in inherited + own]


def test_a_branchs_replay_page_marks_each_inherited_step_with_its_session(line):
    store, _client, parent_id, branch_id = line
    inherited, own = _inherited_and_own(store, parent_id, branch_id)
    page = export_session(store, branch_id, "replay")
    steps = _page_data(page)["steps"]
    assert [step.get("inherited_from") for step in steps] == \
        [parent_id] * len(inherited) + [None] * len(own)
    fact = ["Inherited", f"from session {parent_id[:8]}, read-only"]
    assert [fact in step["facts"] for step in steps] == \
        [True] * len(inherited) + [False] * len(own)
    assert '" · inherited from " + step.inherited_from.slice(0, 8)' in page


def test_a_branchs_replay_page_shows_the_parents_state_after_each_inherited_step(line):
    store, _client, parent_id, branch_id = line
    data = _page_data(export_session(store, branch_id, "replay"))
    shown = [json.loads(_text(data, data["states"][step["state"]]["chunks"]))
             for step in data["steps"] if step.get("inherited_from")]
    # the parent's steps alternate a call (infer, steps 1, 3, 5) and its tools' turn
    assert shown == [store.checkpoint_state(parent_id, step) for step in (1, 3, 5)]
