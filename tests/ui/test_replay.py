"""Replay: a stored session steps call by call, showing each payload exactly as it was sent
and the docks showing the state of that moment, read-only."""

from __future__ import annotations

import html
import json
from collections.abc import Iterator

import pytest
from PySide6.QtCore import Qt

from roundtable_desktop.context.request_document import messages_from_document
from roundtable_desktop.kinds.roundtable.meeting import MeetingState
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.dialogs.session_list_dialog import SessionListDialog
from roundtable_desktop.ui.docks.transcript_dock import TranscriptDock
from roundtable_desktop.ui.kinds.roundtable.actors_dock import ActorsDock
from roundtable_desktop.ui.kinds.roundtable.candidates_dock import CandidatesDock
from roundtable_desktop.ui.kinds.roundtable.composer_dock import ComposerDock
from roundtable_desktop.ui.kinds.roundtable.dock_base import meeting_state
from roundtable_desktop.ui.window.replay_bar import ReplayBar, replay_steps
from tests.fakes.live_meeting import LiveMeeting, start_live_meeting

pytestmark = pytest.mark.qt


@pytest.fixture
def recorded(qapp, tmp_path) -> Iterator[LiveMeeting]:
    """A short offline meeting, run headless and recorded, then detached."""
    meeting = start_live_meeting(tmp_path / "sessions.sqlite3")
    meeting.drive_turns(3)
    meeting.bridge.detach(emit=False)
    yield meeting
    meeting.close()


@pytest.fixture
def replay(qtbot, recorded) -> ReplayBar:
    bridge = EngineBridge()
    bar = ReplayBar(bridge)
    qtbot.addWidget(bar)
    return bar


def test_each_step_shows_the_whole_stored_request_byte_for_byte(qtbot, recorded, replay):
    calls = recorded.store.calls(recorded.handle.session_id)
    assert len(calls) >= 4
    payloads: list[str] = []
    replay.payloadChanged.connect(payloads.append)

    count = replay.open_session(recorded.store, recorded.handle.session_id)
    for k in range(1, count):
        replay.set_step(k)

    assert count == len(calls)
    assert len(payloads) == len(calls)
    for payload, call in zip(payloads, calls, strict=True):
        sent = [m.to_body() for m in messages_from_document(payload)]
        assert json.dumps(sent) == json.dumps(call.request["messages"])
        assert 'id="context-window"' in payload  # the meeting is shown as a document
        assert [layer.name for layer in call.layers] == ["system", "protocol"]


def test_docks_show_the_state_of_the_step(qtbot, recorded, replay):
    bridge = replay.bridge
    transcript, actors = TranscriptDock(bridge), ActorsDock(bridge)
    candidates = CandidatesDock(bridge)
    for dock in (transcript, actors, candidates):
        qtbot.addWidget(dock)
    steps = replay_steps(recorded.store, recorded.handle.session_id)
    replay.open_session(recorded.store, recorded.handle.session_id)

    for k in (0, len(steps) // 2, len(steps) - 1):
        replay.set_step(k)
        state = MeetingState.model_validate(steps[k].state["meeting"])
        assert bridge.read_only and meeting_state(bridge) == state
        assert transcript.text().splitlines()[-1].endswith(state.transcript[-1].text)
        assert actors.current_marked_id() == state.actor.id
        assert candidates.candidate_ids() == [c.id for c in state.candidates]


def test_a_step_shows_the_state_right_after_the_action_that_made_its_call(recorded, replay):
    steps = replay_steps(recorded.store, recorded.handle.session_id)

    # Driven click by click, each action made at most one call, so the state saved when
    # that action ended holds exactly this call's reply, parsed.
    for step in steps:
        state = MeetingState.model_validate(step.state["meeting"])
        assert step.action in {"infer", "run_tools"}
        assert state.last_reply == step.call.response_text


def test_replay_is_read_only_in_the_docks(qtbot, recorded, replay):
    actors, composer = ActorsDock(replay.bridge), ComposerDock(replay.bridge)
    qtbot.addWidget(actors)
    qtbot.addWidget(composer)

    replay.open_session(recorded.store, recorded.handle.session_id)

    assert not actors.editor_box.isEnabled()
    assert not actors.add_button.isEnabled()
    assert actors.blocked_label.text() == "Replay is read-only."
    assert not composer.can_send()
    assert composer.reason() == "Replay is read-only."


def test_previous_next_and_slider_move_between_steps(qtbot, recorded, replay):
    count = replay.open_session(recorded.store, recorded.handle.session_id)
    assert replay.step() == 0 and not replay.prev_action.isEnabled()

    replay.next_action.trigger()
    assert replay.step() == 1
    replay.prev_action.trigger()
    assert replay.step() == 0
    with qtbot.waitSignal(replay.stepChanged) as blocker:
        replay.slider.setValue(count - 1)
    assert blocker.args == [count - 1, count]
    assert not replay.next_action.isEnabled()
    assert replay.current_call().id == recorded.store.calls(recorded.handle.session_id)[-1].id


def test_leaving_replay_hides_the_bar_and_says_so(qtbot, recorded, replay):
    replay.open_session(recorded.store, recorded.handle.session_id)

    with qtbot.waitSignal(replay.closed):
        replay.leave_action.trigger()

    assert not replay.isVisible()
    assert replay.step_count() == 0


def test_session_list_offers_stored_sessions_for_replay(qtbot, recorded):
    dialog = SessionListDialog(recorded.store)
    qtbot.addWidget(dialog)
    assert dialog.tree.topLevelItemCount() == 1

    with qtbot.waitSignal(dialog.sessionChosen) as blocker:
        qtbot.keyClick(dialog.tree, Qt.Key.Key_Return)

    assert blocker.args == [recorded.handle.session_id]


def test_session_list_gives_the_title_the_spare_width_and_a_full_tooltip(qtbot, recorded):
    dialog = SessionListDialog(recorded.store)
    qtbot.addWidget(dialog)
    dialog.show()
    title = recorded.store.list_sessions()[0].title
    header = dialog.tree.header()

    qtbot.waitUntil(lambda: header.sectionSize(0) > header.sectionSize(5))
    assert html.escape(title) in dialog.tree.topLevelItem(0).toolTip(3)
