"""Compare: two branches of one step stepped together, each side's changes recorded, the
requests diffed by part, and a side that ended said so plainly (engine/compare.py).
Uses the test-only panel kind, whose edits (topic, rounds) are the shared edit path."""

from __future__ import annotations

import asyncio

from roundtable_desktop.engine.base import Action, Edit
from roundtable_desktop.engine.compare import SideSpec, start_comparison
from roundtable_desktop.engine.compare_report import read_comparison, render_comparison_html
from roundtable_desktop.engine.launch import start_session
from roundtable_desktop.engine.session_settings import SessionSettings
from roundtable_desktop.llm.offline import OfflineClient
from roundtable_desktop.store.database import SessionStore
from tests.fakes.panel_kind import panel_kind  # noqa: F401 - registers the panel kind


def _parent(store: SessionStore, client: OfflineClient) -> str:
    """A panel after one round: asked (step 1), then the human spoke (step 2)."""
    async def go() -> str:
        handle = await start_session("panel", store=store, client=client, model="offline",
                                     provider="offline")
        assert await handle.session.perform(Action(id="ask"))
        assert await handle.session.perform(Action(id="send", text="Go on."))
        handle.close()
        return handle.session_id
    return asyncio.run(go())


def _compare(tmp_path, left: SideSpec, right: SideSpec, steps: int, line: str = "More."):
    store = SessionStore.open(tmp_path / "s.db")
    client = OfflineClient(delay_s=0)
    parent = _parent(store, client)
    comparison = start_comparison(store, parent, 2, (left, right), client=client)
    for _ in range(steps):
        asyncio.run(comparison.step(line))
    comparison.close()
    return store, comparison


def test_each_side_records_its_changes_with_its_parent_and_step(tmp_path):
    store, comparison = _compare(
        tmp_path, SideSpec(edits=(Edit(id="set_topic", params={"topic": "Tea or coffee?"}),)),
        SideSpec(settings=SessionSettings(model="big", temperature=0.5)), 0)
    left = store.branch_origin(comparison.left.session_id)
    right = store.branch_origin(comparison.right.session_id)
    assert left is not None and right is not None
    assert left.step == right.step == 2
    assert left.changes == ["Topic: The topic is now 'Tea or coffee?'."]
    assert right.changes == ["Model: offline → big", "Sampling: temperature = 0.5"]
    store.close()


def test_the_first_new_requests_show_the_change_and_the_diff_names_the_part(tmp_path):
    store, comparison = _compare(
        tmp_path, SideSpec(edits=(Edit(id="set_topic", params={"topic": "Tea or coffee?"}),)),
        SideSpec(settings=SessionSettings(model="big")), 1)
    report = read_comparison(store, comparison.comparison_id)
    [step] = report.steps
    assert len(step.left) == len(step.right) == 2  # both panelists on each side
    assert all("Tea or coffee?" in c.layers[0].text for c in step.left)
    assert all(c.request["model"] == "big" for c in step.right)
    changed = [p.part for p in step.requests[0].changed()]
    assert changed == ["model", "layer persona", "message 1 (system)"]
    store.close()


def test_both_sides_calls_run_at_the_same_time(tmp_path):
    store, comparison = _compare(tmp_path, SideSpec(seed=1), SideSpec(seed=2), 1)
    [step] = read_comparison(store, comparison.comparison_id).steps
    left_end = max(c.finished_at or 0 for c in step.left)
    right_start = min(c.started_at for c in step.right)
    assert right_start < left_end
    store.close()


def test_a_side_that_has_ended_is_said_to_have_ended_while_the_other_steps(tmp_path):
    short = SideSpec(edits=(Edit(id="set_rounds", params={"rounds": 2}),))
    long = SideSpec(edits=(Edit(id="set_rounds", params={"rounds": 5}),))
    store, comparison = _compare(tmp_path, short, long, 3)
    steps = store.comparison(comparison.comparison_id).steps
    assert steps[2].left_note == "This side has ended."
    assert steps[2].left_calls == [] and len(steps[2].right_calls) == 2
    page = render_comparison_html(read_comparison(store, comparison.comparison_id))
    assert "This side has ended." in page
    store.close()


def test_an_edit_made_on_a_live_branch_before_its_first_call_is_recorded_and_later_not(
        tmp_path):
    from roundtable_desktop.engine.branching import BranchRequest, branch_session

    store = SessionStore.open(tmp_path / "s.db")
    client = OfflineClient(delay_s=0)
    parent = _parent(store, client)
    handle = branch_session(BranchRequest(parent_id=parent, at=2), store=store, client=client)
    handle.session.edit(Edit(id="set_rounds", params={"rounds": 4}))  # as an editor would
    asyncio.run(handle.session.perform(Action(id="ask")))
    handle.session.edit(Edit(id="set_rounds", params={"rounds": 5}))  # after the first call
    origin = store.branch_origin(handle.session_id)
    assert origin is not None and origin.changes == ["Rounds: 4"]
    handle.close()
    store.close()
