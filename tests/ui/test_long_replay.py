"""A long session stays quick in the window: replay, the Calls dock and the Metrics dock
list calls by their summaries, and a step reads only the request it shows."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from roundtable_desktop.store.database import SessionStore
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.docks.calls_dock import CallsDock
from roundtable_desktop.ui.docks.metrics_dock import MetricsDock
from roundtable_desktop.ui.window.replay_bar import ReplayBar
from tests.fakes.live_meeting import LiveMeeting, start_live_meeting

pytestmark = pytest.mark.qt


class ReadCounts:
    """Counts what a store is asked for, by wrapping its readers on the instance."""

    def __init__(self, store: SessionStore) -> None:
        self.calls_read: list[str] = []  # "whole" per calls(), the id per call(id)
        self.summaries = 0
        whole, one, summaries = store.calls, store.call, store.call_summaries

        def calls(session_id: str):  # type: ignore[no-untyped-def]
            self.calls_read.append("whole")
            return whole(session_id)

        def call(call_id: str):  # type: ignore[no-untyped-def]
            self.calls_read.append(call_id)
            return one(call_id)

        def call_summaries(session_id: str):  # type: ignore[no-untyped-def]
            self.summaries += 1
            return summaries(session_id)

        store.calls, store.call, store.call_summaries = calls, call, call_summaries  # type: ignore[method-assign]


@pytest.fixture
def recorded(qapp, tmp_path) -> Iterator[LiveMeeting]:
    meeting = start_live_meeting(tmp_path / "sessions.sqlite3")
    meeting.drive_turns(3)
    meeting.bridge.detach(emit=False)
    yield meeting
    meeting.close()


@pytest.fixture
def window_parts(qtbot, recorded):  # type: ignore[no-untyped-def]
    bridge = EngineBridge()
    bar, calls, metrics = ReplayBar(bridge), CallsDock(bridge), MetricsDock(bridge)
    for widget in (bar, calls, metrics):
        qtbot.addWidget(widget)
    return bar, calls, metrics


def test_replay_reads_the_request_of_the_step_it_shows_and_no_other(recorded, window_parts):
    bar, _, _ = window_parts
    counts = ReadCounts(recorded.store)
    steps = bar.open_session(recorded.store, recorded.handle.session_id)
    ids = [c.id for c in recorded.store.call_summaries(recorded.handle.session_id)]
    assert steps == len(ids) >= 4
    assert counts.calls_read == [ids[0]]
    bar.next_step()
    assert counts.calls_read == [ids[0], ids[1]]
    assert bar.current_call() is not None and bar.current_call().request["messages"]


def test_the_calls_and_metrics_docks_list_calls_without_their_request_bodies(
        recorded, window_parts):
    bar, calls, metrics = window_parts
    counts = ReadCounts(recorded.store)
    bar.open_session(recorded.store, recorded.handle.session_id)
    assert "whole" not in counts.calls_read
    assert len(calls.model.records) == len(metrics.points()) >= 4
    assert all(record.request == {} for record in calls.model.records)


def test_stepping_through_one_session_does_not_reload_the_call_lists(recorded, window_parts):
    bar, calls, _ = window_parts
    bar.open_session(recorded.store, recorded.handle.session_id)
    counts = ReadCounts(recorded.store)
    for _ in range(3):
        bar.next_step()
    bar.set_step(0)
    assert counts.summaries == 0
    assert len(calls.model.records) == bar.step_count()


def test_the_inspector_opened_from_a_summary_row_shows_the_whole_request(
        recorded, window_parts):
    bar, calls, _ = window_parts
    bar.open_session(recorded.store, recorded.handle.session_id)
    dialog = calls.open_call(0)
    assert dialog is not None
    stored = recorded.store.calls(recorded.handle.session_id)[0]
    assert dialog.call.request == stored.request and stored.request["messages"]
    dialog.close()
