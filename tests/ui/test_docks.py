"""The docks show the session's state as events arrive, and edit only through the engine."""

from __future__ import annotations

import html
import json
from collections.abc import Iterator

import pytest
from lxml import etree
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QPushButton

from roundtable_desktop.context.payload import section_sizes
from roundtable_desktop.domain.calls import CallOutcome, CallStatus, ChatMessage, ChatRequest
from roundtable_desktop.domain.events import CallFinished, CallStarted
from roundtable_desktop.domain.prompts import LayerText
from roundtable_desktop.domain.transcript import TranscriptKind
from roundtable_desktop.engine.base import Edit
from roundtable_desktop.kinds.roundtable.tools import ROUNDTABLE_TOOLS
from roundtable_desktop.tools.parser import parse_reply
from roundtable_desktop.ui.dialogs.call_detail_dialog import payload_sections
from roundtable_desktop.ui.docks.calls_dock import ALL_PURPOSES, COLUMNS, CallsDock
from roundtable_desktop.ui.docks.polygon_dock import PolygonDock
from roundtable_desktop.ui.docks.polygon_model import PENDING_GLOW
from roundtable_desktop.ui.docks.polygon_plot import SPEAKER_COLOUR
from roundtable_desktop.ui.docks.transcript_dock import REFUSAL_COLOUR, TOOL_COLOUR, TranscriptDock
from roundtable_desktop.ui.kinds.roundtable.actors_dock import PROMPT_MIN_LINES, ActorsDock
from roundtable_desktop.ui.kinds.roundtable.candidates_dock import TITLE_SHARE, CandidatesDock
from roundtable_desktop.ui.kinds.roundtable.composer_dock import ComposerDock
from roundtable_desktop.ui.kinds.roundtable.titles import titled_ids
from roundtable_desktop.ui.kinds.roundtable.whiteboard_dock import WhiteboardDock
from roundtable_desktop.ui.theme import DARK_INKS, apply_theme, colors
from tests.fakes.live_meeting import LiveMeeting, start_live_meeting

pytestmark = pytest.mark.qt


@pytest.fixture
def live_meeting(qapp, tmp_path) -> Iterator[LiveMeeting]:
    meeting = start_live_meeting(tmp_path / "sessions.sqlite3")
    yield meeting
    meeting.close()


def _dock(qtbot, cls, meeting: LiveMeeting):
    dock = cls(meeting.bridge)
    qtbot.addWidget(dock)
    dock.resize(900, 600)
    dock.show()
    return dock


def _make_current_human(meeting: LiveMeeting) -> None:
    meeting.session.edit(Edit(id="edit_actors", params={
        "change": "update", "actor_id": meeting.state.actor.id, "fields": {"human": True}}))


# -- Actors ---------------------------------------------------------------------------


def test_actors_dock_marks_the_current_actor_and_their_role(qtbot, live_meeting):
    dock = _dock(qtbot, ActorsDock, live_meeting)
    first = live_meeting.state.actor
    assert dock.current_marked_id() == first.id
    assert first.role.value in dock.actor_list.item(0).text()
    assert dock.actor_list.item(0).font().bold()

    live_meeting.act("next_turn")

    qtbot.waitUntil(lambda: dock.current_marked_id() == live_meeting.state.actor.id)
    assert not dock.actor_list.item(0).font().bold()


def test_editing_the_current_actors_goal_reaches_the_next_payload(qtbot, live_meeting):
    dock = _dock(qtbot, ActorsDock, live_meeting)
    current = live_meeting.state.actor.id
    dock.select_actor(current)
    goal = "Recommend exactly one video about orbital mechanics."
    dock.goal_edit.setPlainText(goal)

    with qtbot.waitSignal(dock.actorsEdited):
        qtbot.mouseClick(dock.apply_button, Qt.MouseButton.LeftButton)

    payload = live_meeting.session.pending_payloads()[0]
    assert payload.actor_id == current
    assert goal in payload.document
    assert goal in payload.request.user_text()


def test_an_actor_edit_is_checkpointed_in_the_store(qtbot, live_meeting):
    dock = _dock(qtbot, ActorsDock, live_meeting)
    dock.goal_edit.setPlainText("Keep the list short.")
    qtbot.mouseClick(dock.apply_button, Qt.MouseButton.LeftButton)

    last = live_meeting.store.checkpoints(live_meeting.handle.session_id)[-1]
    assert last.action == "edit_actors"
    actors = last.state["meeting"]["actors"]
    assert actors[live_meeting.state.current]["goal"] == "Keep the list short."


def test_actors_dock_refuses_to_demote_the_administrator_and_says_why(qtbot, live_meeting):
    dock = _dock(qtbot, ActorsDock, live_meeting)
    admin = live_meeting.state.actors[0]
    dock.select_actor(admin.id)
    dock.role_combo.setCurrentIndex(dock.role_combo.findData("participant"))

    qtbot.mouseClick(dock.apply_button, Qt.MouseButton.LeftButton)

    assert "administrator" in dock.message_label.text()
    assert live_meeting.state.actors[0].role == admin.role


def test_actors_dock_adds_and_removes_a_seat(qtbot, live_meeting):
    dock = _dock(qtbot, ActorsDock, live_meeting)
    before = len(live_meeting.state.actors)

    qtbot.mouseClick(dock.add_button, Qt.MouseButton.LeftButton)
    assert len(live_meeting.state.actors) == before + 1
    added = live_meeting.state.actors[-1]
    assert dock.selected_actor_id() == added.id
    assert dock.actor_list.count() == before + 1

    qtbot.mouseClick(dock.remove_button, Qt.MouseButton.LeftButton)
    assert [a.id for a in live_meeting.state.actors].count(added.id) == 0
    assert dock.actor_list.count() == before


def test_actors_dock_is_disabled_when_the_meeting_has_ended(qtbot, live_meeting):
    dock = _dock(qtbot, ActorsDock, live_meeting)
    live_meeting.state.ended = True
    live_meeting.bridge.sessionChanged.emit()

    assert not dock.editor_box.isEnabled()
    assert "ended" in dock.blocked_label.text()


def test_the_human_seat_tick_applies_at_once(qtbot, live_meeting):
    dock = _dock(qtbot, ActorsDock, live_meeting)
    current = live_meeting.state.actor.id
    dock.select_actor(current)

    dock.human_check.click()

    assert live_meeting.state.actor.human
    assert live_meeting.session.awaiting_human() == live_meeting.state.actor.name
    assert not dock.apply_button.isEnabled()  # nothing left to apply
    last = live_meeting.store.checkpoints(live_meeting.handle.session_id)[-1]
    assert last.action == "edit_actors"


def test_the_human_seat_tick_keeps_other_edits_pending(qtbot, live_meeting):
    dock = _dock(qtbot, ActorsDock, live_meeting)
    dock.select_actor(live_meeting.state.actor.id)
    dock.goal_edit.setPlainText("Only short videos.")

    dock.human_check.click()

    assert live_meeting.state.actor.human
    assert live_meeting.state.actor.goal != "Only short videos."
    assert dock.goal_edit.toPlainText() == "Only short videos."
    assert dock.apply_button.isEnabled()


# -- Candidates, whiteboard -------------------------------------------------------------


def test_candidates_dock_lists_candidates_and_suggestions_after_tools(qtbot, live_meeting):
    dock = _dock(qtbot, CandidatesDock, live_meeting)
    live_meeting.drive_turns(2)
    state = live_meeting.state

    qtbot.waitUntil(lambda: dock.suggestion_ids() == [s.candidate.id for s in state.suggestions])
    assert dock.candidate_ids() == [c.id for c in state.candidates]
    assert state.suggestions, "the offline meeting commits suggestions in its first turns"
    first = state.suggestions[0]
    proposer = state.actor_by_id(first.proposed_by[0])
    row = dock.suggestion_tree.topLevelItem(0)
    assert row.text(1) == first.candidate.title
    assert row.text(4) == proposer.name


def test_selecting_a_candidate_emits_its_id(qtbot, live_meeting):
    dock = _dock(qtbot, CandidatesDock, live_meeting)
    wanted = live_meeting.state.candidates[2].id

    with qtbot.waitSignal(dock.candidateActivated) as blocker:
        dock.candidate_tree.topLevelItem(2).setSelected(True)

    assert blocker.args == [wanted]


def test_whiteboard_dock_shows_the_whiteboard_and_each_actors_notes(qtbot, live_meeting):
    dock = _dock(qtbot, WhiteboardDock, live_meeting)
    live_meeting.drive_turns(2)
    state = live_meeting.state
    words = titled_ids(state)  # the notes as shown: each video's title beside its id
    board_line = words(state.whiteboard[-1].text)
    author, notes = next((a, n) for a, n in state.notes.items() if n)

    qtbot.waitUntil(lambda: board_line in dock.whiteboard_text())
    assert words(notes[-1].text) in dock.notes_text()
    assert state.actor_by_id(author).name in dock.notes_text()


# -- Transcript -----------------------------------------------------------------------


def test_transcript_dock_shows_each_reply_and_the_tools_it_ran(qtbot, live_meeting):
    dock = _dock(qtbot, TranscriptDock, live_meeting)
    live_meeting.step()  # infer
    reply = live_meeting.state.last_reply
    live_meeting.step()  # run tools

    qtbot.waitUntil(lambda: live_meeting.state.transcript[-1].text in dock.text())
    assert reply.strip().splitlines()[0] in dock.text()
    tool_lines = [line for line in dock.text().splitlines() if line.startswith("⚙ ")]
    assert tool_lines
    assert _colour_of(dock, "⚙ ") == TOOL_COLOUR


def test_transcript_dock_shows_refusals_distinctly(qtbot, live_meeting):
    dock = _dock(qtbot, TranscriptDock, live_meeting)
    _make_current_human(live_meeting)
    live_meeting.act("send", text="CALL: expandFact(no-such-fact)")
    live_meeting.act("run_tools")
    refusals = [t for t in live_meeting.state.transcript if t.kind == TranscriptKind.REFUSAL]
    assert refusals

    qtbot.waitUntil(lambda: refusals[-1].text in dock.text())
    assert _colour_of(dock, "✗ ") == REFUSAL_COLOUR


def test_transcript_dock_writes_a_fast_stream_in_batches(qtbot, live_meeting):
    dock = _dock(qtbot, TranscriptDock, live_meeting)
    bridge = live_meeting.bridge
    request = ChatRequest(model="m", messages=[ChatMessage(role="user", content="x")])
    bridge.callStarted.emit(CallStarted(call_id="c1", actor_id=live_meeting.state.actor.id,
                                        model="m", endpoint="e", request=request.to_body()))
    changes: list[int] = []
    dock.view.document().contentsChange.connect(lambda *args: changes.append(1))
    tokens = [f"tok{i} " for i in range(400)]

    for i, token in enumerate(tokens):
        bridge.tokenReceived.emit("c1", token, i + 1)

    qtbot.waitUntil(lambda: "tok399" in dock.text())
    assert "".join(tokens).strip() in dock.text()
    assert len(changes) < 10, "tokens must be inserted in batches, not one by one"


# -- Calls ----------------------------------------------------------------------------


def test_calls_dock_has_one_row_per_recorded_call(qtbot, live_meeting):
    dock = _dock(qtbot, CallsDock, live_meeting)
    live_meeting.drive_turns(2)
    calls = live_meeting.store.calls(live_meeting.handle.session_id)

    qtbot.waitUntil(lambda: dock.model.rowCount() == len(calls))
    first = calls[0]
    name = live_meeting.state.actor_by_id(first.actor_id).name
    assert dock.model.index(0, COLUMNS.index("Actor")).data() == name
    assert dock.model.index(0, COLUMNS.index("Purpose")).data() == "reply"
    assert dock.model.index(0, COLUMNS.index("Status")).data() == "ok"
    assert dock.model.index(0, COLUMNS.index("Prompt")).data() == f"{first.prompt_tokens:,}"


def test_calls_dock_opens_the_exact_request_on_enter(qtbot, live_meeting):
    dock = _dock(qtbot, CallsDock, live_meeting)
    live_meeting.drive_turns(1)
    call = live_meeting.store.calls(live_meeting.handle.session_id)[0]
    dock.table.setFocus()
    dock.table.selectRow(0)

    qtbot.keyClick(dock.table, Qt.Key.Key_Return)

    qtbot.waitUntil(lambda: len(dock._dialogs) == 1)
    dialog = dock._dialogs[0]
    assert not dialog.isModal()
    assert json.loads(dialog.request_view.toPlainText()) == call.request
    assert dialog.response_view.toPlainText() == call.response_text
    dialog.findChild(QPushButton, "requestCopyButton").click()
    assert json.loads(QGuiApplication.clipboard().text()) == call.request
    dialog.close()


def test_call_detail_measures_sections_and_diffs_against_the_actors_previous_call(
    qtbot, live_meeting
):
    dock = _dock(qtbot, CallsDock, live_meeting)
    live_meeting.drive_turns(2)  # participants fetch, await results, then infer again
    calls = live_meeting.store.calls(live_meeting.handle.session_id)
    qtbot.waitUntil(lambda: dock.model.rowCount() == len(calls))
    row = next(i for i, c in enumerate(calls) if c.actor_id in {p.actor_id for p in calls[:i]})
    earlier = [c for c in calls[:row] if c.actor_id == calls[row].actor_id][-1]

    dialog = dock.open_call(row)

    assert dialog is not None and dialog.previous is not None
    assert dialog.previous.id == earlier.id
    names = [dialog.sections_table.item(r, 0).text()
             for r in range(dialog.sections_table.rowCount())]
    expected = payload_sections(calls[row].user_text())
    assert [f"  section: {s.name}" for s in expected] == [n for n in names if "section:" in n]
    assert expected and expected == section_sizes(_root(calls[row].user_text()))
    assert "@@" in dialog.diff_view.toPlainText()
    dialog.close()


def _record_call(meeting: LiveMeeting, call_id: str, purpose: str, content: str,
                 layers: list[LayerText] | None = None) -> None:
    """A call of another purpose (an observer, a planner), recorded the way a kind's
    call_model records it: CallStarted, then CallFinished, through the session's bus."""
    actor_id = meeting.state.actor.id
    request = ChatRequest(model="offline", purpose=purpose, messages=[
        ChatMessage(role="system", content="Watch the meeting."),
        ChatMessage(role="user", content=content)])
    meeting.session.emit(CallStarted(
        call_id=call_id, actor_id=actor_id, model="offline", endpoint="offline",
        request=request.to_body(), purpose=purpose, label=f"{purpose} call",
        layers=layers or []))
    meeting.session.emit(CallFinished(
        call_id=call_id, actor_id=actor_id, purpose=purpose,
        outcome=CallOutcome(status=CallStatus.OK, text="{}")))


def _shown_purposes(dock: CallsDock) -> list[str]:
    column = COLUMNS.index("Purpose")
    return [dock.filter.index(r, column).data() for r in range(dock.filter.rowCount())]


def test_calls_dock_filters_the_calls_by_purpose(qtbot, live_meeting):
    dock = _dock(qtbot, CallsDock, live_meeting)
    live_meeting.drive_turns(1)
    _record_call(live_meeting, "observer-1", "observer", "first look")
    replies = sum(c.purpose == "reply" for c in live_meeting.store.calls(
        live_meeting.handle.session_id))
    qtbot.waitUntil(lambda: dock.model.rowCount() == replies + 1)
    combo = dock.purpose_combo
    assert [combo.itemText(i) for i in range(combo.count())] == [
        ALL_PURPOSES, "reply", "observer"]

    combo.setCurrentIndex(combo.findText("observer"))
    assert _shown_purposes(dock) == ["observer"]
    combo.setCurrentIndex(combo.findText("reply"))
    assert _shown_purposes(dock) == ["reply"] * replies
    combo.setCurrentIndex(0)
    assert len(_shown_purposes(dock)) == replies + 1


def test_a_filtered_row_opens_its_own_call(qtbot, live_meeting):
    dock = _dock(qtbot, CallsDock, live_meeting)
    live_meeting.drive_turns(1)
    _record_call(live_meeting, "observer-1", "observer", "first look")
    qtbot.waitUntil(lambda: "observer" in dock.model.purposes())
    dock.show_purpose("observer")

    dock.table.activated.emit(dock.filter.index(0, 0))

    qtbot.waitUntil(lambda: len(dock._dialogs) == 1)
    assert dock._dialogs[0].call.id == "observer-1"
    dock._dialogs[0].close()


def test_the_diff_pairs_a_call_with_the_same_actors_last_call_of_the_same_purpose(
    qtbot, live_meeting
):
    dock = _dock(qtbot, CallsDock, live_meeting)
    _record_call(live_meeting, "observer-1", "observer", "first look")
    live_meeting.act("infer")  # a reply by the same actor in between
    _record_call(live_meeting, "observer-2", "observer", "second look")
    calls = live_meeting.store.calls(live_meeting.handle.session_id)
    qtbot.waitUntil(lambda: dock.model.rowCount() == len(calls))
    row = [c.id for c in calls].index("observer-2")

    dialog = dock.open_call(row)

    assert dialog is not None and dialog.previous is not None
    assert dialog.previous.id == "observer-1"
    diff = dialog.diff_view.toPlainText()
    assert "-first look" in diff and "+second look" in diff
    assert "observer" in dialog.windowTitle()
    dialog.close()


def test_the_first_call_of_a_purpose_has_nothing_to_diff_against(qtbot, live_meeting):
    dock = _dock(qtbot, CallsDock, live_meeting)
    live_meeting.act("infer")
    _record_call(live_meeting, "observer-1", "observer", "first look")
    calls = live_meeting.store.calls(live_meeting.handle.session_id)
    qtbot.waitUntil(lambda: dock.model.rowCount() == len(calls))

    dialog = dock.open_call([c.id for c in calls].index("observer-1"))

    assert dialog is not None and dialog.previous is None
    assert "first observer call" in dialog.diff_view.toPlainText()
    dialog.close()


def test_the_inspector_shows_each_layer_with_its_file_and_text(qtbot, live_meeting):
    dock = _dock(qtbot, CallsDock, live_meeting)
    live_meeting.act("infer")
    sent = live_meeting.store.calls(live_meeting.handle.session_id)[0]
    qtbot.waitUntil(lambda: dock.model.rowCount() == 1)

    dialog = dock.open_call(0)

    table = dialog.layers_table
    rows = [(table.item(r, 0).text(), table.item(r, 1).text()) for r in range(table.rowCount())]
    assert rows == [("system", "roundtable/system.md"), ("protocol", "roundtable/protocol.md")]
    assert rows == [(layer.name, layer.source) for layer in sent.layers]
    assert dialog.layer_view.toPlainText().endswith(sent.layers[0].text)
    table.selectRow(1)
    assert dialog.layer_view.toPlainText().endswith(sent.layers[1].text)
    assert "roundtable/protocol.md" in dialog.layer_view.toPlainText()
    dialog.close()


def test_the_inspector_says_when_a_call_has_no_layers(qtbot, live_meeting):
    dock = _dock(qtbot, CallsDock, live_meeting)
    _record_call(live_meeting, "observer-1", "observer", "first look")
    qtbot.waitUntil(lambda: dock.model.rowCount() == 1)

    dialog = dock.open_call(0)

    assert dialog.layers_table.rowCount() == 0
    assert "no prompt layers" in dialog.layer_view.toPlainText()
    dialog.close()


# -- Polygon --------------------------------------------------------------------------


def test_polygon_highlights_the_current_speaker(qtbot, live_meeting):
    dock = _dock(qtbot, PolygonDock, live_meeting)
    first = live_meeting.state.actor.id
    assert dock.drawing.current_actor_id() == first
    assert dock.vertex_colour(first) == SPEAKER_COLOUR

    live_meeting.act("next_turn")

    second = live_meeting.state.actor.id
    qtbot.waitUntil(lambda: dock.drawing.current_actor_id() == second)
    assert dock.vertex_colour(second) == SPEAKER_COLOUR
    assert dock.vertex_colour(first) != SPEAKER_COLOUR


def test_polygon_lights_an_edge_when_a_whiteboard_line_reaches_the_next_actor(
    qtbot, live_meeting
):
    dock = _dock(qtbot, PolygonDock, live_meeting)
    writer = live_meeting.state.actor.id
    _make_current_human(live_meeting)
    live_meeting.act("send", text='CALL: addWhiteboard("Shortlist: RAG first.")\nCALL: passTurn()')
    assert dock.edge_heat(writer, live_meeting.state.actors[1].id) == 0

    live_meeting.act("run_tools")  # the line is written, then passTurn hands over

    reader, later = live_meeting.state.actor.id, live_meeting.state.actors[2].id
    qtbot.waitUntil(lambda: dock.drawing.current_actor_id() == reader)
    assert dock.edge_heat(writer, reader) > PENDING_GLOW  # reached the reader's context
    assert dock.edge_heat(writer, later) == PENDING_GLOW  # written, not yet read
    assert dock.animating()
    qtbot.waitUntil(lambda: dock.edge_heat(writer, reader) < 0.9)  # and it fades


def test_polygon_highlights_nobody_once_the_meeting_ended(qtbot, live_meeting):
    dock = _dock(qtbot, PolygonDock, live_meeting)

    live_meeting.drive_turns(40)

    assert live_meeting.session.ended
    qtbot.waitUntil(lambda: dock.drawing.current_actor_id() is None)
    assert dock.drawing.turn_text().endswith("ended") and "speaking" not in dock.drawing.turn_text()
    assert SPEAKER_COLOUR not in {dock.vertex_colour(a.id) for a in live_meeting.state.actors}


def test_polygon_keeps_the_live_edges_through_a_replay(qtbot, live_meeting):
    dock = _dock(qtbot, PolygonDock, live_meeting)
    writer = live_meeting.state.actor.id
    _make_current_human(live_meeting)
    live_meeting.act("send", text='CALL: addWhiteboard("Shortlist: RAG first.")')
    live_meeting.act("run_tools")
    later = live_meeting.state.actors[2].id
    assert dock.edge_heat(writer, later) == PENDING_GLOW
    handle = live_meeting.handle

    live_meeting.bridge.show_replay(live_meeting.store, handle.session_id, handle.session)
    assert dock.edge_heat(writer, later) == 0  # replay has its own edges
    live_meeting.bridge.attach(handle)

    assert dock.edge_heat(writer, later) == PENDING_GLOW


# -- Composer -------------------------------------------------------------------------


def test_composer_is_disabled_with_the_reason_for_a_model_seat(qtbot, live_meeting):
    dock = _dock(qtbot, ComposerDock, live_meeting)

    assert not dock.can_send()
    assert not dock.editor.isEnabled()
    assert live_meeting.state.actor.name in dock.reason()
    assert "Human seat" in dock.reason()


def test_composer_inserts_valid_calls_with_real_ids(qtbot, live_meeting):
    dock = _dock(qtbot, ComposerDock, live_meeting)
    _make_current_human(live_meeting)
    qtbot.waitUntil(dock.can_send)
    first, third = live_meeting.state.candidates[0].id, live_meeting.state.candidates[2].id
    dock.tick(third)
    dock.tick(first)

    qtbot.mouseClick(dock.rank_button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(dock.commit_button, Qt.MouseButton.LeftButton)
    dock.note_text.setText('Check the "RAG" talk next turn.')
    qtbot.mouseClick(dock.note_button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(dock.pass_button, Qt.MouseButton.LeftButton)

    lines = dock.text().splitlines()
    assert lines == [
        f"CALL: rankCandidates({third}, {first})",
        "CALL: updateSuggestions(3)",
        'CALL: addActorNote("Check the \\"RAG\\" talk next turn.")',
        "CALL: passTurn()",
    ]
    parsed = parse_reply(dock.text(), ROUNDTABLE_TOOLS.keys())
    assert not parsed.issues
    assert parsed.calls[0].values() == [third, first]


def test_composer_sends_with_ctrl_return_and_the_reply_is_accepted(qtbot, live_meeting):
    dock = _dock(qtbot, ComposerDock, live_meeting)
    _make_current_human(live_meeting)
    qtbot.waitUntil(dock.can_send)
    qtbot.mouseClick(dock.pass_button, Qt.MouseButton.LeftButton)

    with qtbot.waitSignal(dock.submitted) as blocker:
        qtbot.keyClick(dock.editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)

    assert blocker.args == ["CALL: passTurn()"]
    live_meeting.act("send", text=blocker.args[0])
    assert [c.name for c in live_meeting.state.pending_calls] == ["passTurn"]
    qtbot.waitUntil(lambda: not dock.can_send())  # tools of the reply must run first


# -- helpers --------------------------------------------------------------------------


def _colour_of(dock: TranscriptDock, prefix: str) -> str:
    block = dock.view.document().begin()
    while block.isValid():
        if block.text().startswith(prefix):
            return block.begin().fragment().charFormat().foreground().color().name()
        block = block.next()
    return ""


def _root(text: str) -> etree._Element:
    return etree.fromstring(text.encode("utf-8"))


# -- Presentation at 1920x1080 ----------------------------------------------------------


def _sized_dock(qtbot, cls, meeting: LiveMeeting, width: int, height: int):
    dock = _dock(qtbot, cls, meeting)
    dock.resize(width, height)
    qtbot.waitUntil(lambda: dock.width() == width)
    return dock


def test_the_suggestion_title_column_keeps_most_of_a_narrow_dock(qtbot, live_meeting):
    dock = _sized_dock(qtbot, CandidatesDock, live_meeting, 540, 600)
    live_meeting.drive_turns(2)
    qtbot.waitUntil(lambda: dock.suggestion_tree.topLevelItemCount() > 0)

    for tree in (dock.candidate_tree, dock.suggestion_tree):
        qtbot.waitUntil(lambda t=tree: t.title_width() >= TITLE_SHARE * t.viewport().width() - 2)
        assert tree.title_width() > 200


def test_every_cell_of_a_candidate_row_has_the_full_title_as_tooltip(qtbot, live_meeting):
    dock = _sized_dock(qtbot, CandidatesDock, live_meeting, 540, 600)
    live_meeting.drive_turns(2)
    qtbot.waitUntil(lambda: dock.suggestion_tree.topLevelItemCount() > 0)
    state = live_meeting.state

    for tree, candidates in ((dock.candidate_tree, state.candidates),
                             (dock.suggestion_tree, [s.candidate for s in state.suggestions])):
        for row, candidate in enumerate(candidates):
            item = tree.topLevelItem(row)
            for col in range(tree.columnCount()):
                assert html.escape(candidate.title) in item.toolTip(col)


def test_polygon_names_are_inside_the_plot_at_any_dock_size(qtbot, live_meeting):
    dock = _sized_dock(qtbot, PolygonDock, live_meeting, 440, 460)
    for width, height in ((440, 460), (300, 260), (700, 300)):
        dock.resize(width, height)
        qtbot.waitUntil(lambda w=width: dock.width() == w)
        view = dock.drawing.view_rect()
        rects = dock.drawing.label_rects()

        assert len(rects) == len(live_meeting.state.actors)
        for actor_id, rect in rects.items():
            assert view.contains(rect), f"{actor_id} is clipped at {width}x{height}"
        shown = list(rects.values())
        assert not any(a.intersects(b) for i, a in enumerate(shown) for b in shown[i + 1:])


def test_polygon_follows_the_dark_theme(qtbot, live_meeting):
    dock = _dock(qtbot, PolygonDock, live_meeting)
    light = dock.drawing.background_colour()

    apply_theme(dock, "dark", 1.0)

    qtbot.waitUntil(lambda: dock.drawing.background_colour() == colors("dark").background)
    assert light != dock.drawing.background_colour()
    assert dock.vertex_colour(live_meeting.state.actor.id) == SPEAKER_COLOUR


def test_the_channel_column_gives_way_to_the_title_in_a_narrow_list(qtbot, live_meeting):
    dock = _sized_dock(qtbot, CandidatesDock, live_meeting, 900, 600)
    tree = dock.candidate_tree
    qtbot.waitUntil(lambda: "Channel" in tree.shown_headers())

    dock.resize(280, 600)

    qtbot.waitUntil(lambda: "Channel" not in tree.shown_headers())
    assert tree.title_width() >= TITLE_SHARE * tree.viewport().width() - 2
    dock.resize(900, 600)
    qtbot.waitUntil(lambda: "Channel" in tree.shown_headers())


def test_the_transcript_redraws_in_the_dark_themes_inks(qtbot, live_meeting):
    dock = _dock(qtbot, TranscriptDock, live_meeting)
    live_meeting.step()
    live_meeting.step()
    qtbot.waitUntil(lambda: _colour_of(dock, "⚙ ") == TOOL_COLOUR)

    apply_theme(dock, "dark", 1.0)

    qtbot.waitUntil(lambda: _colour_of(dock, "⚙ ") == DARK_INKS.tool)


def test_the_actor_editor_keeps_its_prompt_editor_tall_and_scrolls_instead(
    qtbot, live_meeting
):
    dock = _sized_dock(qtbot, ActorsDock, live_meeting, 440, 320)
    lines = dock.goal_edit.fontMetrics().lineSpacing() * PROMPT_MIN_LINES

    qtbot.waitUntil(lambda: dock.scroll_area.verticalScrollBar().maximum() > 0)
    assert dock.goal_edit.minimumHeight() >= lines
    assert dock.personality_edit.height() >= lines
    assert not dock.scroll_area.horizontalScrollBar().isVisible()


def test_disabled_actor_buttons_say_why_in_their_tooltip(qtbot, live_meeting):
    dock = _dock(qtbot, ActorsDock, live_meeting)

    assert not dock.apply_button.isEnabled()
    assert "Nothing was changed" in dock.apply_button.toolTip()
    live_meeting.state.ended = True
    live_meeting.bridge.sessionChanged.emit()
    for button in (dock.apply_button, dock.add_button, dock.remove_button):
        assert not button.isEnabled()
        assert "ended" in button.toolTip()


def test_disabled_composer_buttons_say_why_in_their_tooltip(qtbot, live_meeting):
    dock = _dock(qtbot, ComposerDock, live_meeting)

    for button in (dock.commit_button, dock.pass_button, dock.send_button):
        assert not button.isEnabled()
        assert button.toolTip() == dock.reason()
