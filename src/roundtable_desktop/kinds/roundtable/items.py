"""The elements of the roundtable context window, each appended by one builder.

Every builder appends exactly one element to its parent from hashable arguments, so
context/payload.py can cache the element's serialized text by builder and arguments: a
list item (a candidate, a fact, a transcript line) or a whole section that is a function
of a few values (the actor's role, the tools, the facts, the suggestions, the watch
history, MCP). Untrusted text goes in through `.text` / `.set()` after `clean_text`,
never parsed as markup.
Must not decide what the document holds or in which order (roundtable_document.py does).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from lxml import etree

from roundtable_desktop.context.payload import XHTML_NS, Slots, append_items
from roundtable_desktop.context.sanitize import clean_text, clean_url

_TOOL_RULES = (
    "Act only through tool calls, one per line, exactly as CALL: toolName(arg1, arg2). "
    "Arguments are JSON strings in double quotes, numbers, or bare ids copied from the "
    "lists below. Never write placeholder arguments such as (N) or (videoId). If you "
    "have nothing to add, reply with only: CALL: passTurn()"
)


# The form of a feedback entry that is a reply line no tool call could be read from.
UNPARSED = "unparsed"


@dataclass(frozen=True, slots=True)
class ToolLine:
    """One tool as the context window documents it; `example` uses real ids."""

    signature: str
    doc: str
    example: str


def el(parent: etree._Element, tag: str, text: str | None = None, **attrs: str) -> etree._Element:
    """A new XHTML child of `parent`; `class_="x"` sets `class`, `data_id` sets `data-id`."""
    node = etree.SubElement(parent, f"{{{XHTML_NS}}}{tag}")
    for key, value in attrs.items():
        # class names are ours; every other attribute value may come from outside.
        node.set(key.rstrip("_").replace("_", "-"),
                 value if key == "class_" else clean_text(value, limit=None))
    if text is not None:
        node.text = clean_text(text)
    return node


def section(root: etree._Element, sid: str, heading: str) -> etree._Element:
    """A `<section id=...>` with its `<h2>` heading."""
    sec = el(root, "section", id=sid)
    el(sec, "h2", heading)
    return sec


def list_or_empty(sec: etree._Element, lines: list[str], noun: str, empty: str,
                  slots: Slots | None) -> None:
    """How many lines there are and the lines, or the sentence for none."""
    if not lines:
        el(sec, "p", empty, class_="count")
        return
    plural = noun if len(lines) == 1 else f"{noun}s"
    el(sec, "p", f"{len(lines)} {plural}.", class_="count")
    lst = el(sec, "ul")
    append_items(lst, [(text_item, ("li", line)) for line in lines], slots)


# --- list items and other pieces -------------------------------------------------------

def actor_name(parent: etree._Element, line: str) -> None:
    el(parent, "p", line, class_="actor-name")


def actor_fields(parent: etree._Element, fields: tuple[tuple[str, str], ...]) -> None:
    box = el(parent, "dl")
    for label, value in fields:
        el(box, "dt", label)
        el(box, "dd", value)


def text_item(parent: etree._Element, tag: str, text: str) -> None:
    el(parent, tag, text)


def bullet_list(parent: etree._Element, lines: tuple[str, ...]) -> None:
    box = el(parent, "ul")
    for line in lines:
        el(box, "li", line)


def tool_item(parent: etree._Element, signature: str, doc: str, example: str) -> None:
    item = el(parent, "li")
    el(item, "code", signature)
    el(item, "span", f" — {doc} ")
    el(item, "code", example, class_="example")


def suggestion_item(parent: etree._Element, text: str, cid: str) -> None:
    el(parent, "li", text, data_id=cid)


def fact_item(parent: etree._Element, fid: str, title: str, detail: str | None) -> None:
    item = el(parent, "li", id=f"fact-{fid}", data_id=fid)
    el(item, "code", fid, class_="id")
    el(item, "strong", f" {title}", class_="title")
    if detail is not None:
        el(item, "p", detail, class_="detail")
    else:
        el(item, "span", " (collapsed)", class_="collapsed")


def transcript_item(parent: etree._Element, text: str, kind: str) -> None:
    el(parent, "li", text, class_=kind)


def candidate_item(parent: etree._Element, *fields: str) -> None:
    # lxml's copy is deep and fast; the view's full build reuses the cached element too.
    element = candidate_element(*fields)
    parent.append(element.__copy__())  # type: ignore[attr-defined]  # types-lxml lacks __copy__


@lru_cache(maxsize=4096)
def candidate_element(
    cid: str, title: str, channel: str, duration: str, published: str, thumbnail: str,
    description: str,
) -> etree._Element:
    """One candidate's `<li>`; cached because lists change little between turns."""
    holder = etree.Element(f"{{{XHTML_NS}}}ol")
    item = el(holder, "li", id=f"cand-{cid}", data_id=cid)
    head = el(item, "p", class_="head")
    el(head, "code", cid, class_="id")
    el(head, "strong", f" {title}", class_="title")
    el(item, "p", f"Channel: {channel} · Duration: {duration or 'unknown'} · "
        f"Published: {published or 'unknown'}", class_="meta")
    thumb = clean_url(thumbnail)
    if thumb:
        el(item, "p", f"Thumbnail: {thumb}", class_="thumbnail", data_src=thumb)
    el(item, "p", description, class_="description")
    return item


# --- sections built whole from hashable arguments (cached as items of the root) ---------

def actor_section(parent: etree._Element, line: str,
                   fields: tuple[tuple[str, str], ...]) -> None:
    sec = section(parent, "actor-prompt", "Your role")
    actor_name(sec, line)
    actor_fields(sec, fields)


def tools_section(parent: etree._Element, tool_lines: tuple[ToolLine, ...],
                   refused: tuple[str, ...]) -> None:
    sec = section(parent, "tools", "Tool calls")
    el(sec, "p", _TOOL_RULES)
    tools = el(sec, "ul", class_="tool-list")
    for line in tool_lines:
        tool_item(tools, line.signature, line.doc, line.example)
    if refused:
        box = el(sec, "div", class_="refusals")
        el(box, "p", f"{len(refused)} of your previous tool calls did not run:")
        lst = el(box, "ul")
        for text in refused:
            el(lst, "li", text)


def facts_section(parent: etree._Element,
                   facts: tuple[tuple[str, str, str | None], ...]) -> None:
    sec = section(parent, "facts", "Facts")
    if not facts:
        el(sec, "p", "No fact cards.", class_="count")
        return
    expanded = sum(1 for _, _, detail in facts if detail is not None)
    el(sec, "p", f"{len(facts)} fact cards, {expanded} expanded. Expand a card with "
        "expandFact(id) to read its detail on your next inference.", class_="count")
    lst = el(sec, "ul", class_="fact-list")
    for fid, title, detail in facts:
        fact_item(lst, fid, title, detail)


def suggestions_section(parent: etree._Element,
                         suggestions: tuple[tuple[str, str], ...]) -> None:
    sec = section(parent, "suggestions", "Suggestions (committed picks)")
    if not suggestions:
        el(sec, "p", "No suggestions are committed yet. Commit picks with "
            "rankCandidates then updateSuggestions.", class_="count")
        return
    el(sec, "p", f"{len(suggestions)} suggestions are committed.", class_="count")
    lst = el(sec, "ol")
    for text, cid in suggestions:
        suggestion_item(lst, text, cid)


def watch_history_section(parent: etree._Element, watched: tuple[str, ...]) -> None:
    sec = section(parent, "watch-history", "Watch history")
    list_or_empty(sec, list(watched), "watched video", "Nothing watched yet.", None)


def mcp_section(parent: etree._Element, status: str, tools: tuple[str, ...]) -> None:
    sec = section(parent, "mcp", "MCP")
    el(sec, "p", f"Status: {status}.", class_="status")
    if tools:
        el(sec, "p", "Tools: " + ", ".join(tools), class_="tools")
