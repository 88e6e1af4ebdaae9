"""The call path reuses what did not change, and still sends and saves exactly what a fresh
build gives (issue 10, point 9): list items cached as indented text and spliced into the
document skeleton, the candidate list kept while it holds the same candidates, a saved
state whose unchanged parts are encoded once. Byte for byte, turn after turn."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree
from pydantic import ValidationError

from roundtable_desktop.context.payload import (
    SLOT_MARK,
    Slots,
    append_items,
    serialize,
    serialize_slotted,
)
from roundtable_desktop.domain.text import label_text, storable_utf8, storable_utf8_pieces
from roundtable_desktop.domain.tools import ToolCall, ToolResult, ToolStatus
from roundtable_desktop.kinds.roundtable.catalog import Suggestion, WatchItem
from roundtable_desktop.kinds.roundtable.document import (
    XHTML_NS,
    ToolLine,
    build_roundtable_document,
    serialize_roundtable_document,
)
from roundtable_desktop.kinds.roundtable.meeting import (
    MeetingState,
    Note,
    TranscriptKind,
    TranscriptLine,
)
from roundtable_desktop.kinds.roundtable.saved import saved_json
from roundtable_desktop.kinds.roundtable.session import RoundtableSession
from roundtable_desktop.kinds.roundtable.setup import new_meeting_state
from roundtable_desktop.kinds.roundtable.sources.mock_catalog import MockCatalog
from roundtable_desktop.kinds.roundtable.tools import ROUNDTABLE_TOOLS
from tests.engine_fixtures import offline

TOOLS = [ToolLine(signature="passTurn()", doc="End your turn.", example="CALL: passTurn()")]
CATALOG = MockCatalog.load()
PROTOCOL = "# Rules\n\nSpeak briefly.\n- one\n- two\n\nThen pass."


def fast_and_full(state: MeetingState) -> tuple[str, str]:
    fast = serialize_roundtable_document(state, protocol_text=PROTOCOL, tool_lines=TOOLS)
    full = serialize(build_roundtable_document(state, protocol_text=PROTOCOL, tool_lines=TOOLS))
    # What the store is handed for the text, remembered or encoded, is its UTF-8.
    assert storable_utf8(fast) == fast.encode("utf-8")
    return fast, full


def saved(session: RoundtableSession) -> bytes:
    return saved_json(session.state, session.prompts, session.model, session.provider)


def test_every_step_of_a_long_offline_meeting_sends_the_fresh_build(meeting_state, catalog):
    session = RoundtableSession(meeting_state, client=offline(), source=catalog)
    steps = 0
    while steps < 40 and (step := session.next_step()) is not None:
        sent = session._payload(measure=False).request.user_text()
        assert sent == session.pending_payloads()[0].request.user_text(), step
        asyncio.run(session.perform(step))
        steps += 1
    assert steps >= 15


def test_an_item_replaced_in_its_list_is_rebuilt(meeting_state):
    meeting_state.whiteboard.append(Note(author=meeting_state.actor.id, text="first words"))
    fast_and_full(meeting_state)  # every item cached
    meeting_state.whiteboard[0] = meeting_state.whiteboard[0].model_copy(
        update={"text": "second thoughts"})
    meeting_state.facts[0] = meeting_state.facts[0].model_copy(update={"expanded": True})
    fast, full = fast_and_full(meeting_state)
    assert fast == full
    assert "second thoughts" in fast and "first words" not in fast
    assert meeting_state.facts[0].detail in fast


def test_a_changed_candidate_list_is_rebuilt(meeting_state):
    fast_and_full(meeting_state)
    first = meeting_state.candidates[0]
    meeting_state.candidates[0] = first.model_copy(update={"title": "A new title"})
    fast, full = fast_and_full(meeting_state)
    assert fast == full and "A new title" in fast


def test_the_window_hands_the_store_its_utf8_without_encoding_it_again(meeting_state):
    meeting_state.candidates[0] = meeting_state.candidates[0].model_copy(
        update={"title": "Launch day \U0001f680"})  # one emoji: the whole text is 4 bytes a char
    first, _ = fast_and_full(meeting_state)
    meeting_state.whiteboard.append(Note(author=meeting_state.actor.id, text="more"))
    second, full = fast_and_full(meeting_state)
    # The candidate list's UTF-8 (most of the text) is one piece, the very same object
    # turn after turn: encoded once, and the store can skip it (store/blobs.py).
    largest = [max(storable_utf8_pieces(text), key=len) for text in (first, second)]
    assert largest[0] is largest[1] and len(largest[0]) > len(second) // 2
    assert storable_utf8_pieces(full) == [full.encode()]  # an equal text, not that object


def test_the_remembered_utf8_follows_a_changed_candidate_list(meeting_state):
    fast_and_full(meeting_state)
    meeting_state.candidates[0] = meeting_state.candidates[0].model_copy(
        update={"title": "Now with \u00e9 and \U0001f3b8"})
    fast, _ = fast_and_full(meeting_state)  # asserts the bytes are the new text's
    assert "\U0001f3b8".encode() in storable_utf8(fast)


def test_the_slot_mark_in_untrusted_text_moves_nothing(meeting_state):
    mark = f"{SLOT_MARK}x{SLOT_MARK}"
    meeting_state.whiteboard.append(Note(author="someone", text=mark))
    meeting_state.candidate_query = mark
    meeting_state.actors[meeting_state.current].id = mark
    meeting_state.actors[meeting_state.current].name = mark
    fast, full = fast_and_full(meeting_state)
    assert fast == full
    assert SLOT_MARK not in fast


_ANY_CHAR = st.characters(codec=None, categories=None, exclude_categories=())
_TEXT = st.one_of(
    st.text(_ANY_CHAR, max_size=30),
    st.sampled_from(["", " ", "\n", "\r\n", "  \t ", SLOT_MARK, "\u202e", "\ud800", "\x00",
                     "<b>&amp;</b>", "]]>", "\u2028", "rtCandidateItemsSpliceHere"]),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts=st.lists(_TEXT, min_size=8, max_size=8))
def test_any_text_in_any_list_serializes_as_the_full_build(texts):
    state = asyncio.run(_state())
    actor = state.actor
    state.whiteboard.append(Note(author=actor.id, text=texts[0]))
    state.notes[actor.id] = [Note(author=actor.id, text=texts[1])]
    state.transcript.append(TranscriptLine(actor_id=actor.id, text=texts[2],
                                           kind=TranscriptKind.SPOKEN))
    state.facts[0] = state.facts[0].model_copy(
        update={"title": texts[3], "detail": texts[4], "expanded": True})
    state.candidates[0] = state.candidates[0].model_copy(
        update={"title": texts[5], "description": texts[6], "id": texts[7] or "x"})
    state.mcp_tools = [texts[7]]
    fast, full = fast_and_full(state)
    assert fast == full


async def _state() -> MeetingState:
    return await new_meeting_state(CATALOG)


def _branch(parent: etree._Element, label: str, leaves: tuple[str, ...]) -> None:
    box = etree.SubElement(parent, f"{{{XHTML_NS}}}ul")
    box.set("title", label)
    for leaf in leaves:
        etree.SubElement(box, f"{{{XHTML_NS}}}li").text = leaf


def built_both_ways(depth: int, container: str,
                    fill: Callable[[etree._Element, Slots | None], None]) -> list[str]:
    """`fill(parent, slots)` at `depth` (parents of tag `container`), serialized from the
    full tree and from the slotted skeleton."""
    trees = []
    for slots in (None, Slots()):
        root = parent = etree.Element(f"{{{XHTML_NS}}}main", nsmap={None: XHTML_NS})
        for _ in range(depth - 1):
            parent = etree.SubElement(parent, f"{{{XHTML_NS}}}{container}")
            if container == "section":
                etree.SubElement(parent, f"{{{XHTML_NS}}}h2").text = "head"
        fill(parent, slots)
        trees.append(serialize(root) if slots is None else serialize_slotted(root, slots))
    return trees


def test_runs_given_with_their_utf8_give_the_whole_texts_utf8():
    root = etree.Element(f"{{{XHTML_NS}}}main", nsmap={None: XHTML_NS})
    first, second = etree.SubElement(root, f"{{{XHTML_NS}}}ol"), etree.SubElement(root, "p")
    slots = Slots()
    cached = "\n    <li>caf\u00e9 \U0001f642</li>"
    slots.put(first, cached, 2, cached.encode())
    slots.put(first, "\n    <li>built</li>", 2)  # joins the run: its UTF-8 is not known
    second.text = "between"
    given = "\n  <p>\u65e5\u672c</p>".encode()
    slots.put(root, given.decode(), 1, given)
    text = serialize_slotted(root, slots)
    assert storable_utf8(text) == b"".join(storable_utf8_pieces(text)) == text.encode()
    assert any(piece is given for piece in storable_utf8_pieces(text))
    assert slots.utf8[0] is None  # the joined run is encoded with the rest


def test_slotted_items_serialize_as_built_items_at_their_depth():
    def fill(parent: etree._Element, slots: Slots | None) -> None:
        append_items(parent, [(_branch, ("a", ("x", "y"))), (_branch, ("b", ()))], slots)

    for depth in range(1, 6):
        trees = built_both_ways(depth, "section", fill)
        assert trees[0] == trees[1], depth


def test_runs_between_siblings_and_runs_in_a_row_serialize_as_the_full_build():
    def fill(parent: etree._Element, slots: Slots | None) -> None:
        append_items(parent, [(_branch, ("first", ("x",)))], slots)  # before any child
        etree.SubElement(parent, f"{{{XHTML_NS}}}p").text = "built"
        append_items(parent, [(_branch, ("a", ("y", "z")))], slots)
        append_items(parent, [(_branch, ("b", ())), (_branch, ("c", ("w",)))], slots)
        etree.SubElement(parent, f"{{{XHTML_NS}}}p").text = "built again"
        append_items(parent, [(_branch, ("last", ("v",)))], slots)  # at the end

    for depth in range(1, 5):
        trees = built_both_ways(depth, "div", fill)
        assert trees[0] == trees[1], depth


def test_a_section_cached_whole_follows_what_it_shows(meeting_state):
    fast_and_full(meeting_state)  # every cached section built once
    first = meeting_state.candidates[0]
    meeting_state.suggestions.append(Suggestion(candidate=first, proposed_by=["nobody"]))
    meeting_state.watch_history.append(WatchItem(title="Seen before", when="2026-01-02"))
    meeting_state.mcp_status = "connected"
    meeting_state.mcp_tools = ["search"]
    meeting_state.feedback[meeting_state.actor.id] = [ToolResult(
        call=ToolCall(name="markSeen"), status=ToolStatus.REFUSED, message="not yours")]
    fast, full = fast_and_full(meeting_state)
    assert fast == full
    for shown in ("proposed by nobody", "Seen before", "Status: connected", "not yours"):
        assert shown in fast, shown


def test_printable_text_needs_no_cleaning():
    # clean_text skips the sanitizer for printable text: none of it may need one.
    printable = "".join(c for c in map(chr, range(0x110000)) if c.isprintable())
    assert label_text(printable) == printable


def test_the_saved_state_is_pydantics_own_bytes_at_every_step(meeting_state, catalog):
    session = RoundtableSession(meeting_state, client=offline(), source=catalog)
    steps = 0
    while steps < 30 and (step := session.next_step()) is not None:
        assert session.state_json() == saved(session), step
        asyncio.run(session.perform(step))
        steps += 1
    assert session.state_json() == saved(session)
    assert steps >= 15


def test_a_saved_line_cannot_change_in_place(meeting):
    with pytest.raises(ValidationError):
        meeting.state.transcript[-1].text = "rewritten"


def test_a_line_replaced_is_saved_changed(meeting):
    meeting.state_json()
    meeting.state.transcript[-1] = meeting.state.transcript[-1].model_copy(
        update={"text": "rewritten"})
    meeting.state.whiteboard.append(Note(author="a", text="new"))
    assert meeting.state_json() == saved(meeting)
    assert b"rewritten" in meeting.state_json()


def test_private_notes_are_saved_as_pydantic_saves_them_under_any_key(meeting):
    meeting.state_json()
    meeting.state.notes.setdefault(meeting.state.actors[0].id, []).append(
        Note(author="a", text="first"))
    meeting.state.notes['odd "key" \u00e9\n'] = [Note(author="b", text="second")]
    assert meeting.state_json() == saved(meeting)
    meeting.state.notes[meeting.state.actors[0].id] = [Note(author="a", text="replaced")]
    del meeting.state.notes['odd "key" \u00e9\n']
    assert meeting.state_json() == saved(meeting)
    assert b"replaced" in meeting.state_json() and b"second" not in meeting.state_json()


def test_a_line_replaced_early_in_its_list_is_saved_changed(meeting):
    meeting.state_json()
    meeting.state.transcript[0] = meeting.state.transcript[0].model_copy(
        update={"text": "rewritten early"})
    meeting.state.transcript.append(meeting.state.transcript[-1].model_copy())  # equal line
    assert meeting.state_json() == saved(meeting)
    assert b"rewritten early" in meeting.state_json()


def test_a_replaced_candidate_is_saved(meeting):
    meeting.state_json()
    first = meeting.state.candidates[0]
    meeting.state.candidates[0] = first.model_copy(update={"title": "Replaced"})
    assert meeting.state_json() == saved(meeting)
    assert b"Replaced" in meeting.state_json()


def test_the_mark_seen_example_names_the_last_safe_candidate_id(meeting_state):
    last_safe = meeting_state.candidates[-2]
    meeting_state.candidates[-1] = meeting_state.candidates[-1].model_copy(
        update={"id": "not safe!"})
    example = ROUNDTABLE_TOOLS["markSeen"].example(meeting_state)
    assert example == f"CALL: markSeen({last_safe.id})"
