"""Every registered kind, offline, branches and compares end to end through the one
engine (no kind-by-kind code): a branch restores the step's checkpoint, runs steps of its
own, inherits the parent's calls, and leaves the parent as it was; a comparison steps two
branches together and writes its report."""

from __future__ import annotations

import asyncio

import pytest

from roundtable_desktop.engine.branching import BranchRequest, branch_session, session_history
from roundtable_desktop.engine.compare import SideSpec, run_steps, start_comparison
from roundtable_desktop.engine.compare_report import read_comparison, render_comparison_html
from roundtable_desktop.engine.launch import start_session
from roundtable_desktop.engine.registry import kind_names
from roundtable_desktop.llm.offline import OFFLINE_MODEL, OfflineClient
from roundtable_desktop.store.database import SessionStore

LINE = "Tell me more about that, please."


def _lines(session) -> list[str]:
    """What the human seat says: its first choice when it is offered choices."""
    send = [a for a in session.actions() if a.id == "send"]
    return ["1" if send and send[0].options else LINE] * 12


@pytest.fixture
def recorded(request, tmp_path):
    """A session of the kind, six steps run offline, and its store."""
    store = SessionStore.open(tmp_path / "s.db")
    client = OfflineClient(delay_s=0)

    async def start():
        handle = await start_session(request.param, store=store, client=client,
                                     model=OFFLINE_MODEL, provider="offline")
        await run_steps(handle.session, 6, _lines(handle.session))
        return handle

    handle = asyncio.run(start())
    handle.close()
    yield store, handle.session_id, client
    store.close()


def _state_and_calls(store, session_id):
    return (store.get_session(session_id).state,
            [(c.id, c.response_text) for c in store.calls(session_id)])


@pytest.mark.parametrize("recorded", kind_names(), indirect=True)
def test_every_kind_branches_from_a_step_and_goes_on_from_it(recorded):
    store, parent_id, client = recorded
    steps = store.step_count(parent_id)
    assert steps >= 3
    at = steps - 1
    before = _state_and_calls(store, parent_id)
    handle = branch_session(BranchRequest(parent_id=parent_id, at=at), store=store,
                            client=client)
    assert store.calls(handle.session_id) == []
    done = asyncio.run(run_steps(handle.session, 2, _lines(handle.session)))
    assert done[0].ok and done[0].note == ""
    history = session_history(store, handle.session_id)
    inherited = [h for h in history if h.inherited_from == parent_id]
    assert [h.call.id for h in inherited] == \
        [c.id for c in store.calls_until_step(parent_id, at)]
    assert _state_and_calls(store, parent_id) == before
    handle.close()


@pytest.mark.parametrize("recorded", kind_names(), indirect=True)
def test_every_kind_compares_two_seeds_from_a_step_and_writes_the_report(recorded):
    store, parent_id, client = recorded
    comparison = start_comparison(store, parent_id, 2,
                                  (SideSpec(seed=1), SideSpec(seed=2)), client=client)
    try:
        for _ in range(2):
            waits = any(h.session.awaiting_human() for h in comparison.sides)
            line = _lines(comparison.left.session)[0]
            asyncio.run(comparison.step(line if waits else None))
    finally:
        comparison.close()
    stored = store.comparison(comparison.comparison_id)
    assert len(stored.steps) == 2
    page = render_comparison_html(read_comparison(store, comparison.comparison_id))
    assert "Step 3" in page and "Step 4" in page and "Result" in page
