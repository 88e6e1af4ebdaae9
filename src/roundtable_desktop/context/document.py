"""Build the roundtable context-window document: the XHTML that IS the payload.

One `<section>` per area, in the order of DESIGN.md section 4. Only the current actor's
prompt and notes are rendered; a collapsed fact shows its id and title but not its
detail; every list says how many items it holds ("lists are authoritative"). Untrusted
text goes in through `.text` / `.set()` after `clean_text`, never parsed as markup.
Must not serialize (see payload.py), read files or know about tools beyond the lines it
is given.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from functools import lru_cache

from lxml import etree

from roundtable_desktop.context.payload import serialize
from roundtable_desktop.context.sanitize import clean_text, clean_url
from roundtable_desktop.domain.actors import Role
from roundtable_desktop.domain.catalog import Candidate
from roundtable_desktop.domain.meeting import MeetingState, TranscriptKind

XHTML_NS = "http://www.w3.org/1999/xhtml"
CONTEXT_ID = "context-window"
SECTION_ORDER = (
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
)
TRANSCRIPT_LIMIT = 30


@dataclass(frozen=True, slots=True)
class ToolLine:
    """One tool as the context window documents it; `example` uses real ids."""

    signature: str
    doc: str
    example: str


def _el(parent: etree._Element, tag: str, text: str | None = None, **attrs: str) -> etree._Element:
    node = etree.SubElement(parent, f"{{{XHTML_NS}}}{tag}")
    for key, value in attrs.items():
        # class names are ours; every other attribute value may come from outside.
        node.set(key.rstrip("_").replace("_", "-"),
                 value if key == "class_" else clean_text(value, limit=None))
    if text is not None:
        node.text = clean_text(text)
    return node


def _section(root: etree._Element, sid: str, heading: str) -> etree._Element:
    sec = _el(root, "section", id=sid)
    _el(sec, "h2", heading)
    return sec


def _markdown_block(parent: etree._Element, text: str) -> None:
    """Render the tiny Markdown subset prompt files use: headings, bullets, paragraphs."""
    items: etree._Element | None = None
    for block in text.split("\n\n"):
        for line in block.strip().splitlines():
            line = line.strip()
            if not line:
                continue
            if line.startswith("- ") or line.startswith("* "):
                if items is None:
                    items = _el(parent, "ul")
                _el(items, "li", line[2:].strip())
                continue
            items = None
            if line.startswith("#"):
                _el(parent, "h3", line.lstrip("#").strip())
            else:
                _el(parent, "p", line)
        items = None


def _turn_line(state: MeetingState) -> str:
    others = len(state.actors) - 1
    return (
        f"Turn {state.turn}, round {state.round}. You are {state.actor.name}, "
        f"seat {state.current + 1} of {len(state.actors)}. After you pass, {others} other "
        f"actor{'s' if others != 1 else ''} take their turns before yours comes again."
    )


def serialize_roundtable_document(
    state: MeetingState, *, protocol_text: str, tool_lines: list[ToolLine]
) -> str:
    """`serialize(build_roundtable_document(...))`, byte for byte, made faster for the call
    path: the candidate list (most of the document, and little changing between turns) is
    spliced in from cached, already indented item texts instead of being rebuilt,
    copied and re-indented every turn."""
    element = build_roundtable_document(state, protocol_text=protocol_text,
                                        tool_lines=tool_lines, splice_candidates=True)
    text = serialize(element)
    if not state.candidates:
        return text
    return text.replace(_SPLICE_TOKEN, _items_text(state.candidates) + _LIST_END_INDENT, 1)


# The last candidate list spliced and its text. Candidates are frozen, so the same objects
# in the same order render the same text; the tuple keeps them alive (no reused ids).
_last_items: tuple[tuple[Candidate, ...], str] = ((), "")


def _items_text(candidates: list[Candidate]) -> str:
    global _last_items
    seen, text = _last_items
    if len(seen) == len(candidates) and all(map(operator.is_, seen, candidates)):
        return text
    text = "".join(
        _ITEM_INDENT + _candidate_text(c.id, c.title, c.channel, c.duration, c.published,
                                       c.thumbnail_url, c.description)
        for c in candidates
    )
    _last_items = (tuple(candidates), text)
    return text


# Where the candidate items go in the spliced document: the list's only text, until
# replaced. Letters only, so serialization leaves it as it is.
_SPLICE_TOKEN = "rtCandidateItemsSpliceHere"
# etree.indent with two spaces: items sit at depth 3 (main > section > ol > li).
_ITEM_INDENT = "\n" + "  " * 3
_LIST_END_INDENT = "\n" + "  " * 2
_XMLNS = f' xmlns="{XHTML_NS}"'


@lru_cache(maxsize=4096)
def _candidate_text(
    cid: str, title: str, channel: str, duration: str, published: str, thumbnail: str,
    description: str,
) -> str:
    """One candidate's `<li>` as it serializes at its depth in the document."""
    root = etree.Element(f"{{{XHTML_NS}}}main", nsmap={None: XHTML_NS})
    lst = etree.SubElement(etree.SubElement(root, f"{{{XHTML_NS}}}section"),
                           f"{{{XHTML_NS}}}ol")
    item = _candidate_item(cid, title, channel, duration, published, thumbnail, description)
    lst.append(item.__copy__())
    etree.indent(root, space="  ")
    # Standalone, the item declares the namespace its place in the document inherits.
    return etree.tostring(lst[0], encoding="unicode", with_tail=False).replace(_XMLNS, "", 1)


def build_roundtable_document(
    state: MeetingState, *, protocol_text: str, tool_lines: list[ToolLine],
    splice_candidates: bool = False,
) -> etree._Element:
    """The `<main id="context-window">` element for the current actor. With
    `splice_candidates` the candidate list holds a token instead of its items (see
    `serialize_roundtable_document`)."""
    actor = state.actor
    root = etree.Element(f"{{{XHTML_NS}}}main", nsmap={None: XHTML_NS})
    root.set("id", CONTEXT_ID)
    root.set("data-kind", "roundtable")
    root.set("data-turn", str(state.turn))
    root.set("data-actor", actor.id)

    sec = _section(root, "actor-prompt", "Your role")
    role = "Administrator" if actor.role == Role.ADMINISTRATOR else "Participant"
    _el(sec, "p", f"You are {actor.name} ({role}).", class_="actor-name")
    fields = _el(sec, "dl")
    for label, value in (
        ("Personality", actor.personality),
        ("Goal", actor.goal),
        ("Grounding", actor.grounding),
        ("Interests", ", ".join(actor.interests)),
    ):
        if value:
            _el(fields, "dt", label)
            _el(fields, "dd", value)

    sec = _section(root, "meeting-protocol", "Meeting protocol")
    _el(sec, "p", _turn_line(state), class_="turn")
    _markdown_block(sec, protocol_text)

    sec = _section(root, "tools", "Tool calls")
    _el(
        sec,
        "p",
        "Act only through tool calls, one per line, exactly as CALL: toolName(arg1, arg2). "
        "Arguments are JSON strings in double quotes, numbers, or bare ids copied from the "
        "lists below. Never write placeholder arguments such as (N) or (videoId). If you "
        "have nothing to add, reply with only: CALL: passTurn()",
    )
    tools = _el(sec, "ul", class_="tool-list")
    for line in tool_lines:
        item = _el(tools, "li")
        _el(item, "code", line.signature)
        _el(item, "span", f" — {line.doc} ")
        _el(item, "code", line.example, class_="example")
    refused = state.feedback.get(actor.id, [])
    if refused:
        box = _el(sec, "div", class_="refusals")
        _el(box, "p", f"{len(refused)} of your previous tool calls did not run:")
        lst = _el(box, "ul")
        for result in refused:
            _el(lst, "li", f"{result.call.render()}: {result.message}")

    sec = _section(root, "whiteboard", "Whiteboard (shared, all actors see it)")
    _list_or_empty(
        sec,
        [f"{_name(state, n.author)}: {n.text}" for n in state.whiteboard],
        "whiteboard line",
        "The whiteboard is empty. Use addWhiteboard to leave shared notes.",
    )

    sec = _section(root, "actor-notes", f"Your private notes ({actor.name})")
    _list_or_empty(
        sec,
        [f"Turn {n.turn}: {n.text}" for n in state.notes.get(actor.id, [])],
        "note",
        "You have no notes yet. Only what you write with addActorNote reaches your next turn.",
    )

    _candidates(root, state, splice=splice_candidates)
    _facts(root, state)

    sec = _section(root, "suggestions", "Suggestions (committed picks)")
    if state.suggestions:
        _el(sec, "p", f"{len(state.suggestions)} suggestions are committed.", class_="count")
        lst = _el(sec, "ol")
        for sug in state.suggestions:
            c = sug.candidate
            by = ", ".join(_name(state, a) for a in sug.proposed_by)
            _el(lst, "li", f"{c.id} — {c.title} ({c.channel}, {c.duration}); proposed by {by}",
                data_id=c.id)
    else:
        _el(sec, "p", "No suggestions are committed yet. Commit picks with "
            "rankCandidates then updateSuggestions.", class_="count")

    sec = _section(root, "watch-history", "Watch history")
    _list_or_empty(
        sec,
        [f"{w.when} — {w.title}" if w.when else w.title for w in state.watch_history],
        "watched video",
        "Nothing watched yet.",
    )

    _transcript(root, state)

    sec = _section(root, "mcp", "MCP")
    _el(sec, "p", f"Status: {state.mcp_status}.", class_="status")
    if state.mcp_tools:
        _el(sec, "p", "Tools: " + ", ".join(state.mcp_tools), class_="tools")
    return root


def _name(state: MeetingState, actor_id: str | None) -> str:
    if actor_id is None:
        return "Meeting"
    actor = state.actor_by_id(actor_id)
    return actor.name if actor else actor_id


def _list_or_empty(sec: etree._Element, lines: list[str], noun: str, empty: str) -> None:
    if not lines:
        _el(sec, "p", empty, class_="count")
        return
    plural = noun if len(lines) == 1 else f"{noun}s"
    _el(sec, "p", f"{len(lines)} {plural}.", class_="count")
    lst = _el(sec, "ul")
    for line in lines:
        _el(lst, "li", line)


def _candidates(root: etree._Element, state: MeetingState, *, splice: bool = False) -> None:
    sec = _section(root, "candidates", "Candidates")
    source = state.candidate_source or "mock"
    query = f' for "{state.candidate_query}"' if state.candidate_query else ""
    if not state.candidates:
        _el(sec, "p", "No candidates are listed. Fetch some with fetchCandidates(\"a query "
            "built from the facts\").", class_="count")
        return
    _el(
        sec,
        "p",
        f"{len(state.candidates)} candidates are listed (source: {source}{query}). This list "
        "is authoritative: these videos are available; work with them.",
        class_="count",
        data_source=source,
    )
    if state.ranked:
        _el(sec, "p", "Ranked: " + ", ".join(state.ranked), class_="ranked")
    lst = _el(sec, "ol", class_="candidate-list")
    if splice:
        lst.text = _SPLICE_TOKEN
        return
    for c in state.candidates:
        cached = _candidate_item(
            c.id, c.title, c.channel, c.duration, c.published, c.thumbnail_url, c.description
        )
        lst.append(cached.__copy__())  # lxml's copy is deep and fast


@lru_cache(maxsize=4096)
def _candidate_item(
    cid: str, title: str, channel: str, duration: str, published: str, thumbnail: str,
    description: str,
) -> etree._Element:
    """One candidate's `<li>`; cached because lists change little between turns."""
    holder = etree.Element(f"{{{XHTML_NS}}}ol")
    item = _el(holder, "li", id=f"cand-{cid}", data_id=cid)
    head = _el(item, "p", class_="head")
    _el(head, "code", cid, class_="id")
    _el(head, "strong", f" {title}", class_="title")
    _el(item, "p", f"Channel: {channel} · Duration: {duration or 'unknown'} · "
        f"Published: {published or 'unknown'}", class_="meta")
    thumb = clean_url(thumbnail)
    if thumb:
        _el(item, "p", f"Thumbnail: {thumb}", class_="thumbnail", data_src=thumb)
    _el(item, "p", description, class_="description")
    return item


def _facts(root: etree._Element, state: MeetingState) -> None:
    sec = _section(root, "facts", "Facts")
    if not state.facts:
        _el(sec, "p", "No fact cards.", class_="count")
        return
    expanded = sum(1 for f in state.facts if f.expanded)
    _el(sec, "p", f"{len(state.facts)} fact cards, {expanded} expanded. Expand a card with "
        "expandFact(id) to read its detail on your next inference.", class_="count")
    lst = _el(sec, "ul", class_="fact-list")
    for fact in state.facts:
        item = _el(lst, "li", id=f"fact-{fact.id}", data_id=fact.id)
        _el(item, "code", fact.id, class_="id")
        _el(item, "strong", f" {fact.title}", class_="title")
        if fact.expanded:
            _el(item, "p", fact.detail, class_="detail")
        else:
            _el(item, "span", " (collapsed)", class_="collapsed")


def _transcript(root: etree._Element, state: MeetingState) -> None:
    sec = _section(root, "transcript", "Transcript")
    lines = state.transcript
    if not lines:
        _el(sec, "p", "Nothing has been said yet.", class_="count")
        return
    shown = lines[-TRANSCRIPT_LIMIT:]
    omitted = len(lines) - len(shown)
    note = f" (the {omitted} earlier lines are omitted)" if omitted else ""
    _el(sec, "p", f"{len(lines)} transcript lines{note}.", class_="count")
    lst = _el(sec, "ol", class_="transcript")
    for line in shown:
        who = _name(state, line.actor_id)
        prefix = {
            TranscriptKind.SPOKEN: f"{who}: ",
            TranscriptKind.TOOL: f"{who} ran ",
            TranscriptKind.REFUSAL: f"{who} ",
            TranscriptKind.SYSTEM: "",
        }[line.kind]
        _el(lst, "li", f"{prefix}{line.text}", class_=line.kind.value)
