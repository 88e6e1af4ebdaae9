"""Build the roundtable context-window document: the XHTML that IS the payload.

One `<section>` per area, in the order of DESIGN.md section 4 (test_document_sections.py
checks it). Only the current actor's
prompt and notes are rendered; a collapsed fact shows its id and title but not its
detail; every list says how many items it holds ("lists are authoritative"). The
transcript section holds what was said and whose turn it was (`heard_lines`), not the
tool calls: the state keeps those for the window and the exports. The elements
themselves come from kinds/roundtable/items.py.
The same builders serve the view (the whole tree) and the call path, which leaves out
every run of list items, and every section that is a function of a few values, as a
slot and splices in their cached texts (payload.py): what did not change since an
earlier turn is never built again.
Must not read files or know about tools beyond the lines it is given.
"""

from __future__ import annotations

import operator
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
from roundtable_desktop.context.sanitize import clean_text
from roundtable_desktop.domain.tools import ToolResult
from roundtable_desktop.domain.transcript import TranscriptKind
from roundtable_desktop.kinds.roundtable.actors import Role
from roundtable_desktop.kinds.roundtable.catalog import Candidate, Suggestion
from roundtable_desktop.kinds.roundtable.items import (
    UNPARSED,
    ToolLine,
    actor_section,
    bullet_list,
    candidate_item,
    el,
    facts_section,
    list_or_empty,
    mcp_section,
    section,
    suggestions_section,
    text_item,
    tools_section,
    transcript_item,
    watch_history_section,
)
from roundtable_desktop.kinds.roundtable.meeting import MeetingState, TranscriptLine

TRANSCRIPT_LIMIT = 30


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

    # A section that is a function of a few values is one cached item of the root (its
    # text built once per distinct values); sections that change every turn are built.
    role = "Administrator" if actor.role == Role.ADMINISTRATOR else "Participant"
    fields = tuple((label, value) for label, value in (
        ("Personality", actor.personality),
        ("Goal", actor.goal),
        ("Grounding", actor.grounding),
        ("Interests", ", ".join(actor.interests)),
    ) if value)
    append_items(root, [(actor_section, (f"You are {actor.name} ({role}).", fields))], slots)

    sec = section(root, "meeting-protocol", "Meeting protocol")
    el(sec, "p", _turn_line(state), class_="turn")
    append_items(sec, _markdown_items(protocol_text), slots)

    refused = tuple(_refusal(result) for result in state.feedback.get(actor.id, []))
    append_items(root, [(tools_section, (tuple(tool_lines), refused))], slots)

    sec = section(root, "whiteboard", "Whiteboard (shared, all actors see it)")
    list_or_empty(
        sec,
        [f"{_name(names, n.author)}: {n.text}" for n in state.whiteboard],
        "whiteboard line",
        "The whiteboard is empty. Use addWhiteboard to leave shared notes.",
        slots,
    )

    sec = section(root, "actor-notes", f"Your private notes ({actor.name})")
    list_or_empty(
        sec,
        [f"Turn {n.turn}: {n.text}" for n in state.notes.get(actor.id, [])],
        "note",
        "You have no notes yet. Only what you write with addActorNote reaches your next turn.",
        slots,
    )

    _candidates(root, state, slots)
    facts = tuple((f.id, f.title, f.detail if f.expanded else None) for f in state.facts)
    suggestions = tuple((_suggestion_line(sug, names), sug.candidate.id)
                        for sug in state.suggestions)
    watched = tuple(f"{w.when} — {w.title}" if w.when else w.title
                    for w in state.watch_history)
    append_items(root, [(facts_section, (facts,)),
                        (suggestions_section, (suggestions,)),
                        (watch_history_section, (watched,))], slots)

    _transcript(root, state, names, slots)

    append_items(root, [(mcp_section, (state.mcp_status, tuple(state.mcp_tools)))], slots)
    return root


def _refusal(result: ToolResult) -> str:
    call = result.call
    if call.form == UNPARSED:  # a line of the reply no call could be read from
        return f"could not parse {call.raw!r}: {result.message}" if call.raw else \
            result.message
    return f"{call.render()}: {result.message}"


def _turn_line(state: MeetingState) -> str:
    others = len(state.actors) - 1
    return (
        f"Turn {state.turn}, round {state.round}. You are {state.actor.name}, "
        f"seat {state.current + 1} of {len(state.actors)}. After you pass, {others} other "
        f"actor{'s' if others != 1 else ''} take their turns before yours comes again."
    )


def _suggestion_line(sug: Suggestion, names: dict[str, str]) -> str:
    c = sug.candidate
    by = ", ".join(_name(names, a) for a in sug.proposed_by)
    return f"{c.id} — {c.title} ({c.channel}, {c.duration}); proposed by {by}"


def _name(names: dict[str, str], actor_id: str | None) -> str:
    if actor_id is None:
        return "Meeting"
    return names.get(actor_id, actor_id)


# --- sections --------------------------------------------------------------------------

@lru_cache(maxsize=16)
def _markdown_items(text: str) -> tuple[Item, ...]:
    """The tiny Markdown subset prompt files use: headings, bullets, paragraphs."""
    items: list[Item] = []
    bullets: list[str] | None = None

    def close_list() -> None:
        nonlocal bullets
        if bullets is not None:
            items.append((bullet_list, (tuple(bullets),)))
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
                items.append((text_item, ("h3", line.lstrip("#").strip())))
            else:
                items.append((text_item, ("p", line)))
        close_list()
    return tuple(items)


def _candidates(root: etree._Element, state: MeetingState, slots: Slots | None) -> None:
    sec = section(root, "candidates", "Candidates")
    source = state.candidate_source or "mock"
    query = f' for "{state.candidate_query}"' if state.candidate_query else ""
    if not state.candidates:
        el(sec, "p", "No candidates are listed. Fetch some with fetchCandidates(\"a query "
            "built from the facts\").", class_="count")
        return
    el(
        sec,
        "p",
        f"{len(state.candidates)} candidates are listed (source: {source}{query}). This list "
        "is authoritative: these videos are available; work with them.",
        class_="count",
        data_source=source,
    )
    if state.ranked:
        el(sec, "p", "Ranked: " + ", ".join(state.ranked), class_="ranked")
    lst = el(sec, "ol", class_="candidate-list")
    if slots is None:
        append_items(lst, [(candidate_item, _candidate_args(c)) for c in state.candidates],
                     None)
    else:  # the list is most of the document: skip even the per-item cache lookups
        depth = depth_of(lst) + 1
        text, utf8 = _candidates_text(state.candidates, depth)
        slots.put(lst, text, depth, utf8)


def _candidate_args(c: Candidate) -> tuple[str, ...]:
    return (c.id, c.title, c.channel, c.duration, c.published, c.thumbnail_url, c.description)


# The last candidate list serialized, its text and the text's UTF-8 (which the store then
# need not encode again). Candidates are frozen, so the same objects in the same order
# give the same text; the tuple keeps them alive (no reused ids).
_last_candidates: tuple[tuple[Candidate, ...], int, str, bytes] = ((), 0, "", b"")


def _candidates_text(candidates: list[Candidate], depth: int) -> tuple[str, bytes]:
    global _last_candidates
    seen, seen_depth, text, utf8 = _last_candidates
    if (seen_depth == depth and len(seen) == len(candidates)
            and all(map(operator.is_, seen, candidates))):
        return text, utf8
    text = run_text([item_text(candidate_item, depth, _candidate_args(c))
                     for c in candidates], depth)
    # Item texts are clean (no lone surrogate): encoding cannot fail.
    utf8 = text.encode("utf-8")
    _last_candidates = (tuple(candidates), depth, text, utf8)
    return text, utf8


_PREFIX = {
    TranscriptKind.SPOKEN: "{}: ",
    TranscriptKind.SYSTEM: "",
}


def heard_lines(lines: list[TranscriptLine]) -> list[TranscriptLine]:
    """The transcript as the actors hear it (seed 001: the lines spoken with
    addTranscript, and the turn changes that say who spoke when). Tool calls and their
    results, parse reports and an actor's own call failures stay in the state (the
    window's Transcript dock and the exports show them); the lists the tools changed are
    what the next actor sees of them, and a refusal reaches its caller in the tools
    section. A turn change is kept when someone spoke in that turn, or it is the latest;
    a run of turns passed in silence is not news."""
    heard: list[TranscriptLine] = []
    pending: TranscriptLine | None = None  # the last turn change, until a line is spoken
    for line in lines:
        if line.kind == TranscriptKind.SPOKEN:
            if pending is not None:
                heard.append(pending)
                pending = None
            heard.append(line)
        elif line.kind == TranscriptKind.SYSTEM and line.actor_id is None:
            pending = line  # the meeting's own line: a turn change, or its end
    if pending is not None:
        heard.append(pending)
    return heard


def _transcript(root: etree._Element, state: MeetingState, names: dict[str, str],
                slots: Slots | None) -> None:
    sec = section(root, "transcript", "Transcript")
    lines = heard_lines(state.transcript)
    if not any(line.kind == TranscriptKind.SPOKEN for line in lines):
        el(sec, "p", "Nothing has been said yet.", class_="count")
        return
    omitted = max(0, len(lines) - TRANSCRIPT_LIMIT)
    note = f" (the {omitted} earlier lines are omitted)" if omitted else ""
    el(sec, "p", f"{len(lines)} transcript lines{note}: what was said, and whose turn it "
        "was.", class_="count")
    shown = lines[-TRANSCRIPT_LIMIT:]
    lst = el(sec, "ol", class_="transcript")
    append_items(lst, [
        (transcript_item,
         (_PREFIX[line.kind].format(_name(names, line.actor_id)) + line.text, line.kind.value))
        for line in shown
    ], slots)
