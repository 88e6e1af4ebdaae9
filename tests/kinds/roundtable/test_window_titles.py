"""People's words where the meeting's text holds video ids: the Whiteboard and notes dock
and the shared Transcript (through the roundtable's `wording` hook) show each video's
title beside its id; the notes, the transcript in the state and the payload keep the ids
exactly as written and sent (invariant 1). Offscreen, offline model."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from roundtable_desktop.kinds.roundtable.catalog import Candidate
from roundtable_desktop.kinds.roundtable.meeting import MeetingState
from roundtable_desktop.ui.docks.transcript_dock import TranscriptDock
from roundtable_desktop.ui.kinds.registry import window_kind
from roundtable_desktop.ui.kinds.roundtable.titles import (
    roundtable_wording,
    short_title,
    titled_ids,
)
from roundtable_desktop.ui.kinds.roundtable.whiteboard_dock import WhiteboardDock
from tests.fakes.live_meeting import LiveMeeting, start_live_meeting
from tests.fakes.window_harness import WAIT_MS, perform

RAG = "RAG from first principles: retrieval-augmented generation without a framework"


@pytest.fixture
def live_meeting(qapp, tmp_path) -> Iterator[LiveMeeting]:
    meeting = start_live_meeting(tmp_path / "sessions.sqlite3")
    yield meeting
    meeting.close()


def meeting_with(*candidates: Candidate) -> MeetingState:
    state = MeetingState.model_validate({"user": {"name": "U", "summary": ""}, "actors": []})
    return state.model_copy(update={"candidates": list(candidates)})


def committed_ids(state: MeetingState) -> list[str]:
    return [c.id for c in state.candidates if c.id in " ".join(
        n.text for n in state.whiteboard)]


# -- the words ---------------------------------------------------------------------------------
def test_each_known_id_gets_its_title_beside_it():
    words = titled_ids(meeting_with(Candidate(id="qFJWe2aQrry", title=RAG),
                                    Candidate(id="wt7MqX0KqP1", title="Evals that matter")))

    assert words("Committed 2 picks for llm: qFJWe2aQrry, wt7MqX0KqP1") == (
        "Committed 2 picks for llm: “RAG from first principles” (qFJWe2aQrry), "
        "“Evals that matter” (wt7MqX0KqP1)")


def test_unknown_ids_urls_and_longer_words_are_left_as_they_are():
    words = titled_ids(meeting_with(Candidate(id="qFJWe2aQrry", title=RAG)))

    for text in ("see zzzzzzzzzzz", "https://thumbs.mock.invalid/qFJWe2aQrry.png",
                 "xqFJWe2aQrry", "qFJWe2aQrry_2"):
        assert words(text) == text


def test_a_long_title_is_cut_at_its_subtitle_or_with_an_ellipsis():
    assert short_title(RAG) == "RAG from first principles"
    assert short_title("Short and sweet") == "Short and sweet"
    cut = short_title("A" * 80)
    assert len(cut) <= 48 and cut.endswith("…")


def test_the_hook_words_only_a_roundtables_texts():
    assert roundtable_wording(object())("qFJWe2aQrry") == "qFJWe2aQrry"
    assert window_kind("roundtable").wording is roundtable_wording
    assert window_kind("negotiation").wording is None


# -- the docks -----------------------------------------------------------------------------------
def test_the_whiteboard_shows_titles_and_the_payload_keeps_the_ids(qtbot, live_meeting):
    dock = WhiteboardDock(live_meeting.bridge)
    qtbot.addWidget(dock)
    live_meeting.drive_turns(2)
    state = live_meeting.state
    note = state.whiteboard[-1].text
    ids = committed_ids(state)
    assert ids, "the offline actors commit picks by id"
    title = short_title(next(c.title for c in state.candidates if c.id == ids[0]))

    qtbot.waitUntil(lambda: f"“{title}” ({ids[0]})" in dock.whiteboard_text(),
                    timeout=WAIT_MS)
    assert state.whiteboard[-1].text == note  # the note itself is as written
    document = live_meeting.session.pending_payloads()[0].document
    assert note in document
    assert f"“{title}”" not in document


def test_the_transcript_shows_titles_through_the_kinds_wording(qtbot, live_meeting):
    dock = TranscriptDock(live_meeting.bridge)
    qtbot.addWidget(dock)
    dock.set_wording(roundtable_wording)
    live_meeting.drive_turns(2)
    state = live_meeting.state
    vid = committed_ids(state)[0]
    title = short_title(next(c.title for c in state.candidates if c.id == vid))

    qtbot.waitUntil(lambda: f"“{title}” ({vid})" in dock.text(), timeout=WAIT_MS)
    assert not any("“" in line.text for line in state.transcript)  # the state: ids only
    before = live_meeting.session.pending_payloads()[0].request.model_dump()
    dock.set_wording(None)
    assert f"“{title}”" not in dock.text()
    assert live_meeting.session.pending_payloads()[0].request.model_dump() == before


def test_the_windows_transcript_shows_titles_beside_the_ids(qtbot, make_window):
    window = make_window()
    session = window.runner.handle.session
    for _ in range(8):
        if committed_ids(session.state):
            break
        step = session.next_step()
        perform(qtbot, window, step.id if step is not None else "next_turn")
    vid = committed_ids(session.state)[0]
    title = short_title(next(c.title for c in session.state.candidates if c.id == vid))

    transcript = window.docks["transcriptDock"]
    qtbot.waitUntil(lambda: f"“{title}” ({vid})" in transcript.text(), timeout=WAIT_MS)


def test_the_whiteboard_follows_its_newest_note_in_a_short_dock(qtbot, live_meeting):
    dock = WhiteboardDock(live_meeting.bridge)
    qtbot.addWidget(dock)
    dock.resize(300, 160)
    dock.show()
    bar = dock.whiteboard_view.verticalScrollBar()

    live_meeting.drive_turns(4)

    qtbot.waitUntil(lambda: bar.maximum() > 0, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: bar.value() == bar.maximum(), timeout=WAIT_MS)
