"""The roundtable context window has one section per area, in the order DESIGN.md section 4
sets: actor prompt, meeting protocol and tool instructions, whiteboard, the actor's own
notes, candidates, facts, suggestions, watch history, transcript, MCP status and tools."""

from __future__ import annotations

from lxml import etree

from roundtable_desktop.context.payload import XHTML_NS
from roundtable_desktop.kinds.roundtable.document import (
    ToolLine,
    build_roundtable_document,
    serialize_roundtable_document,
)
from roundtable_desktop.kinds.roundtable.meeting import Note

DESIGN_ORDER = [
    "actor-prompt",
    "meeting-protocol",
    "tools",
    "whiteboard",
    "actor-notes",
    "candidates",
    "facts",
    "suggestions",
    "watch-history",
    "transcript",
    "mcp",
]
TOOLS = [ToolLine(signature="passTurn()", doc="End your turn.", example="CALL: passTurn()")]


def section_ids(root: etree._Element) -> list[str]:
    return [child.get("id") for child in root if child.tag == f"{{{XHTML_NS}}}section"]


def test_the_sections_come_in_the_design_order(meeting_state):
    root = build_roundtable_document(meeting_state, protocol_text="P", tool_lines=TOOLS)
    assert section_ids(root) == DESIGN_ORDER


def test_the_payload_as_sent_has_the_same_order(meeting_state):
    sent = serialize_roundtable_document(meeting_state, protocol_text="P", tool_lines=TOOLS)
    assert section_ids(etree.fromstring(sent.encode("utf-8"))) == DESIGN_ORDER


def test_the_order_holds_when_every_list_has_items(meeting_state):
    actor = meeting_state.actor.id
    meeting_state.whiteboard.append(Note(author=actor, text="shared"))
    meeting_state.notes.setdefault(actor, []).append(Note(author=actor, text="mine"))
    root = build_roundtable_document(meeting_state, protocol_text="P", tool_lines=TOOLS)
    assert section_ids(root) == DESIGN_ORDER
