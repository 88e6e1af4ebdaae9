"""Build the roundtable context-window document: the XHTML that IS the payload.

One `<section>` per area, in the order of DESIGN.md section 4. Only the current actor's
prompt and notes are rendered; a collapsed fact shows its id and title but not its
detail; every list says how many items it holds ("lists are authoritative"). Untrusted
text goes in through `.text` / `.set()` after `clean_text`, never parsed as markup.
The same builders serve the view (the whole tree) and the call path, which leaves every
run of list items out as a slot and splices in their cached texts (payload.py): an item
that did not change since an earlier turn is never built again.
Must not read files or know about tools beyond the lines it is given.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from functools import lru_cache

from lxml import etree

from roundtable_desktop.context.payload import (
    CONTEXT_ID,
    XHTML_NS,
    Item,
    Slots,
    append_items,
    depth_of,
    item_text,
    run_text,
    serialize_slotted,
)
from roundtable_desktop.context.sanitize import clean_text, clean_url
from roundtable_desktop.domain.actors import Role
from roundtable_desktop.domain.catalog import Candidate
from roundtable_desktop.domain.meeting import MeetingState, TranscriptKind

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
_TOOL_RULES = (
    "Act only through tool calls, one per line, exactly as CALL: toolName(arg1, arg2). "
    "Arguments are JSON strings in double quotes, numbers, or bare ids copied from the "
    "lists below. Never write placeholder arguments such as (N) or (videoId). If you "
    "have nothing to add, reply with only: CALL: passTurn()"
)


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


def serialize_roundtable_document(
    state: MeetingState, *, protocol_text: str, tool_lines: list[ToolLine]
) -> str:
    """`serialize(build_roundtable_document(...))`, byte for byte, made fast for the call
    path: the skeleton is built and serialized, and every list's items come from cached,
    already indented texts."""
    slots = Slots()
    root = build_roundtable_document(state, protocol_text=protocol_text,
                                     tool_lines=tool_lines, slots=slots)
    return serialize_slotted(root, slots)


def build_roundtable_document(
    state: MeetingState, *, protocol_text: str, tool_lines: list[ToolLine],
    slots: Slots | None = None,
) -> etree._Element:
    """The `<main id="context-window">` element for the current actor. With `slots` the
    lists hold slot marks instead of their items (see `serialize_roundtable_document`)."""
    actor = state.actor
    names = {a.id: a.name for a in state.actors}
    root = etree.Element(f"{{{XHTML_NS}}}main", nsmap={None: XHTML_NS})
    root.set("id", CONTEXT_ID)
    root.set("data-kind", "roundtable")
    root.set("data-turn", str(state.turn))
    root.set("data-actor", clean_text(actor.id, limit=None))

    sec = _section(root, "actor-prompt", "Your role")
    role = "Administrator" if actor.role == Role.ADMINISTRATOR else "Participant"
    fields = tuple((label, value) for label, value in (
        ("Personality", actor.personality),
        ("Goal", actor.goal),
        ("Grounding", actor.grounding),
        ("Interests", ", ".join(actor.interests)),
    ) if value)
    append_items(sec, [(_actor_name, (f"You are {actor.name} ({role}).",)),
                       (_actor_fields, (fields,))], slots)

    sec = _section(root, "meeting-protocol", "Meeting protocol")
    _el(sec, "p", _turn_line(state), class_="turn")
    append_items(sec, _markdown_items(protocol_text), slots)

    _tools(root, state, tool_lines, slots)

    sec = _section(root, "whiteboard", "Whiteboard (shared, all actors see it)")
    _list_or_empty(
        sec,
        [f"{_name(names, n.author)}: {n.text}" for n in state.whiteboard],
        "whiteboard line",
        "The whiteboard is empty. Use addWhiteboard to leave shared notes.",
        slots,
    )

    sec = _section(root, "actor-notes", f"Your private notes ({actor.name})")
    _list_or_empty(
        sec,
        [f"Turn {n.turn}: {n.text}" for n in state.notes.get(actor.id, [])],
        "note",
        "You have no notes yet. Only what you write with addActorNote reaches your next turn.",
        slots,
    )

    _candidates(root, state, slots)
    _facts(root, state, slots)

    sec = _section(root, "suggestions", "Suggestions (committed picks)")
    if state.suggestions:
        _el(sec, "p", f"{len(state.suggestions)} suggestions are committed.", class_="count")
        lst = _el(sec, "ol")
        items: list[Item] = []
        for sug in state.suggestions:
            c = sug.candidate
            by = ", ".join(_name(names, a) for a in sug.proposed_by)
            items.append((_suggestion_item, (
                f"{c.id} — {c.title} ({c.channel}, {c.duration}); proposed by {by}", c.id)))
        append_items(lst, items, slots)
    else:
        _el(sec, "p", "No suggestions are committed yet. Commit picks with "
            "rankCandidates then updateSuggestions.", class_="count")

    sec = _section(root, "watch-history", "Watch history")
    _list_or_empty(
        sec,
        [f"{w.when} — {w.title}" if w.when else w.title for w in state.watch_history],
        "watched video",
        "Nothing watched yet.",
        slots,
    )

    _transcript(root, state, names, slots)

    sec = _section(root, "mcp", "MCP")
    _el(sec, "p", f"Status: {state.mcp_status}.", class_="status")
    if state.mcp_tools:
        _el(sec, "p", "Tools: " + ", ".join(state.mcp_tools), class_="tools")
    return root


def _turn_line(state: MeetingState) -> str:
    others = len(state.actors) - 1
    return (
        f"Turn {state.turn}, round {state.round}. You are {state.actor.name}, "
        f"seat {state.current + 1} of {len(state.actors)}. After you pass, {others} other "
        f"actor{'s' if others != 1 else ''} take their turns before yours comes again."
    )


def _name(names: dict[str, str], actor_id: str | None) -> str:
    if actor_id is None:
        return "Meeting"
    return names.get(actor_id, actor_id)


# --- items: each appends exactly one element, from hashable arguments -----------------

def _actor_name(parent: etree._Element, line: str) -> None:
    _el(parent, "p", line, class_="actor-name")


def _actor_fields(parent: etree._Element, fields: tuple[tuple[str, str], ...]) -> None:
    box = _el(parent, "dl")
    for label, value in fields:
        _el(box, "dt", label)
        _el(box, "dd", value)


def _text_item(parent: etree._Element, tag: str, text: str) -> None:
    _el(parent, tag, text)


def _bullets(parent: etree._Element, lines: tuple[str, ...]) -> None:
    box = _el(parent, "ul")
    for line in lines:
        _el(box, "li", line)


def _tool_item(parent: etree._Element, signature: str, doc: str, example: str) -> None:
    item = _el(parent, "li")
    _el(item, "code", signature)
    _el(item, "span", f" — {doc} ")
    _el(item, "code", example, class_="example")


def _suggestion_item(parent: etree._Element, text: str, cid: str) -> None:
    _el(parent, "li", text, data_id=cid)


def _fact_item(parent: etree._Element, fid: str, title: str, detail: str | None) -> None:
    item = _el(parent, "li", id=f"fact-{fid}", data_id=fid)
    _el(item, "code", fid, class_="id")
    _el(item, "strong", f" {title}", class_="title")
    if detail is not None:
        _el(item, "p", detail, class_="detail")
    else:
        _el(item, "span", " (collapsed)", class_="collapsed")


def _transcript_item(parent: etree._Element, text: str, kind: str) -> None:
    _el(parent, "li", text, class_=kind)


# --- sections --------------------------------------------------------------------------

@lru_cache(maxsize=16)
def _markdown_items(text: str) -> tuple[Item, ...]:
    """The tiny Markdown subset prompt files use: headings, bullets, paragraphs."""
    items: list[Item] = []
    bullets: list[str] | None = None

    def close_list() -> None:
        nonlocal bullets
        if bullets is not None:
            items.append((_bullets, (tuple(bullets),)))
        bullets = None

    for block in text.split("\n\n"):
        for line in block.strip().splitlines():
            line = line.strip()
            if not line:
                continue
            if line.startswith("- ") or line.startswith("* "):
                if bullets is None:
                    bullets = []
                bullets.append(line[2:].strip())
                continue
            close_list()
            if line.startswith("#"):
                items.append((_text_item, ("h3", line.lstrip("#").strip())))
            else:
                items.append((_text_item, ("p", line)))
        close_list()
    return tuple(items)


def _tools(root: etree._Element, state: MeetingState, tool_lines: list[ToolLine],
           slots: Slots | None) -> None:
    sec = _section(root, "tools", "Tool calls")
    _el(sec, "p", _TOOL_RULES)
    tools = _el(sec, "ul", class_="tool-list")
    append_items(tools, [(_tool_item, (line.signature, line.doc, line.example))
                         for line in tool_lines], slots)
    refused = state.feedback.get(state.actor.id, [])
    if refused:
        box = _el(sec, "div", class_="refusals")
        _el(box, "p", f"{len(refused)} of your previous tool calls did not run:")
        lst = _el(box, "ul")
        for result in refused:
            _el(lst, "li", f"{result.call.render()}: {result.message}")


def _list_or_empty(sec: etree._Element, lines: list[str], noun: str, empty: str,
                   slots: Slots | None) -> None:
    if not lines:
        _el(sec, "p", empty, class_="count")
        return
    plural = noun if len(lines) == 1 else f"{noun}s"
    _el(sec, "p", f"{len(lines)} {plural}.", class_="count")
    lst = _el(sec, "ul")
    append_items(lst, [(_text_item, ("li", line)) for line in lines], slots)


def _candidates(root: etree._Element, state: MeetingState, slots: Slots | None) -> None:
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
    if slots is None:
        append_items(lst, [(_candidate_item, _candidate_args(c)) for c in state.candidates],
                     None)
    else:  # the list is most of the document: skip even the per-item cache lookups
        slots.put(lst, _candidates_text(state.candidates, depth_of(lst) + 1))


def _candidate_args(c: Candidate) -> tuple[str, ...]:
    return (c.id, c.title, c.channel, c.duration, c.published, c.thumbnail_url, c.description)


# The last candidate list serialized and its text. Candidates are frozen, so the same
# objects in the same order give the same text; the tuple keeps them alive (no reused ids).
_last_candidates: tuple[tuple[Candidate, ...], int, str] = ((), 0, "")


def _candidates_text(candidates: list[Candidate], depth: int) -> str:
    global _last_candidates
    seen, seen_depth, text = _last_candidates
    if (seen_depth == depth and len(seen) == len(candidates)
            and all(map(operator.is_, seen, candidates))):
        return text
    text = run_text([item_text(_candidate_item, depth, _candidate_args(c))
                     for c in candidates], depth)
    _last_candidates = (tuple(candidates), depth, text)
    return text


def _candidate_item(parent: etree._Element, *fields: str) -> None:
    # lxml's copy is deep and fast; the view's full build reuses the cached element too.
    parent.append(_candidate_element(*fields).__copy__())


@lru_cache(maxsize=4096)
def _candidate_element(
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


def _facts(root: etree._Element, state: MeetingState, slots: Slots | None) -> None:
    sec = _section(root, "facts", "Facts")
    if not state.facts:
        _el(sec, "p", "No fact cards.", class_="count")
        return
    expanded = sum(1 for f in state.facts if f.expanded)
    _el(sec, "p", f"{len(state.facts)} fact cards, {expanded} expanded. Expand a card with "
        "expandFact(id) to read its detail on your next inference.", class_="count")
    lst = _el(sec, "ul", class_="fact-list")
    append_items(lst, [(_fact_item, (f.id, f.title, f.detail if f.expanded else None))
                       for f in state.facts], slots)


_PREFIX = {
    TranscriptKind.SPOKEN: "{}: ",
    TranscriptKind.TOOL: "{} ran ",
    TranscriptKind.REFUSAL: "{} ",
    TranscriptKind.SYSTEM: "",
}


def _transcript(root: etree._Element, state: MeetingState, names: dict[str, str],
                slots: Slots | None) -> None:
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
    append_items(lst, [
        (_transcript_item,
         (_PREFIX[line.kind].format(_name(names, line.actor_id)) + line.text, line.kind.value))
        for line in shown
    ], slots)
