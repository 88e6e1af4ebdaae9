"""Serialize a context-window element to the exact payload text, and measure sections.

Serialization is deterministic: the same element gives the same string, byte for byte.
The call path may leave runs of items out of the tree (`Slots`): each item is serialized
once, as it sits at its depth in an indented document, cached, and spliced back into the
serialized skeleton, so `serialize_slotted` gives the bytes `serialize` gives for the full
tree without rebuilding what did not change.
Must not decide what a document holds (see document.py) or change anything but
indentation.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import suppress
from functools import lru_cache
from typing import Any

from lxml import etree
from pydantic import BaseModel

from roundtable_desktop.context.tokens import estimate_tokens
from roundtable_desktop.domain.text import remember_utf8

XHTML_NS = "http://www.w3.org/1999/xhtml"
# The id of every context-window document's root: the view and the parser find it by it.
CONTEXT_ID = "context-window"
INDENT = "  "
# Where a slot's items go in a serialized skeleton. U+2066 is a bidi control: clean_text
# removes it from every text and attribute a document holds, so no text can forge it.
SLOT_MARK = "\u2066"
_XMLNS = f' xmlns="{XHTML_NS}"'

# `build(parent, *args)` appends exactly one element to `parent`.
ItemBuilder = Callable[..., Any]
Item = tuple[ItemBuilder, tuple[Any, ...]]


class SectionSize(BaseModel):
    name: str
    tokens: int
    bytes: int


def serialize(element: etree._Element) -> str:
    """The payload: indented XHTML of the element, no XML declaration.

    Indents in place (whitespace between elements only), so the element and the string
    stay the same document.
    """
    etree.indent(element, space=INDENT)
    return etree.tostring(element, encoding="unicode")


class Slots:
    """The item runs a skeleton leaves out, as text, in document order."""

    __slots__ = ("_holder", "texts", "utf8")

    def __init__(self) -> None:
        # Each run: its items, each after its own line break and indentation; their depth.
        self.texts: list[tuple[str, int]] = []
        # Each run's UTF-8 when its producer kept it (a cached run), else None.
        self.utf8: list[bytes | None] = []
        # Where the last mark is: in an element's tail (True) or its text (False).
        self._holder: tuple[etree._Element, bool] | None = None

    def put(self, parent: etree._Element, text: str, depth: int,
            utf8: bytes | None = None) -> None:
        """Mark the place after `parent`'s children so far as where `text` (items at
        `depth`, `parent`'s depth + 1) goes. More children may follow; a run put right
        after another, in the same place, joins it. `utf8`, if given, is
        `text.encode("utf-8")`, kept by a caller that caches the run."""
        in_tail = len(parent) > 0
        element = parent[-1] if in_tail else parent
        there = element.tail if in_tail else element.text
        held = self._holder
        if there == SLOT_MARK and held is not None and held[0] is element and held[1] == in_tail:
            items, run_depth = self.texts[-1]
            self.texts[-1] = (items + text, run_depth)
            before = self.utf8[-1]
            self.utf8[-1] = None if before is None or utf8 is None else before + utf8
            return
        if there:
            raise ValueError("a slot cannot share its place with text")
        if in_tail:
            element.tail = SLOT_MARK
        else:
            element.text = SLOT_MARK
        self._holder = (element, in_tail)
        self.texts.append((text, depth))
        self.utf8.append(utf8)


def append_items(parent: etree._Element, items: Sequence[Item], slots: Slots | None) -> None:
    """Append one element per `(build, args)` to `parent`. With `slots`, only record
    their text (each item's cached by builder, depth and args) and mark the place."""
    if slots is None:
        for build, args in items:
            build(parent, *args)
        return
    if not items:
        return
    depth = depth_of(parent) + 1
    slots.put(parent, run_text([item_text(build, depth, args) for build, args in items],
                               depth), depth)


def depth_of(element: etree._Element) -> int:
    """0 for the root."""
    return sum(1 for _ in element.iterancestors())


def run_text(texts: Sequence[str], depth: int) -> str:
    """Sibling item texts at `depth` as `etree.indent` lays them out, each after its line
    break and indentation (what follows the run is laid out by `serialize_slotted`)."""
    # One copy: a run can be most of a document, and each `+` would copy all of it.
    gap = "\n" + INDENT * depth
    return gap + gap.join(texts) if texts else ""


@lru_cache(maxsize=8192)
def item_text(build: ItemBuilder, depth: int, args: tuple[Any, ...]) -> str:
    """The element `build(parent, *args)` appends, serialized as it is at `depth` (1: a
    child of the root) in an indented document. Indentation depends on depth alone."""
    top = parent = etree.Element(f"{{{XHTML_NS}}}main", nsmap={None: XHTML_NS})
    for _ in range(depth - 1):
        parent = etree.SubElement(parent, f"{{{XHTML_NS}}}div")
    build(parent, *args)
    if len(parent) != 1:
        raise ValueError(f"{build.__name__} must append exactly one element")
    etree.indent(top, space=INDENT)
    text = etree.tostring(parent[0], encoding="unicode", with_tail=False)
    # Standalone, the item declares the namespace its place in the document inherits.
    # Its start tag ends at the first ">" (attribute values escape it).
    head, end, rest = text.partition(">")
    return head.replace(_XMLNS, "", 1) + end + rest


def serialize_slotted(element: etree._Element, slots: Slots) -> str:
    """`serialize` of the skeleton with every slot's text put back: the bytes of the full
    tree. When a run came with its UTF-8, the text's UTF-8 is joined from the parts too
    and remembered for the store (`remember_utf8`), which then need not encode it."""
    parts = serialize(element).split(SLOT_MARK)
    if len(parts) != len(slots.texts) + 1:
        raise ValueError(f"{len(parts) - 1} slot marks for {len(slots.texts)} slots")
    out = [parts[0]]
    # The same parts with each run's UTF-8 where its producer kept it, for the store.
    known: list[str | bytes] = [parts[0]]
    for (text, depth), utf8, part in zip(slots.texts, slots.utf8, parts[1:], strict=True):
        # After a run comes its parent's end tag or the next sibling, each on its own line
        # (the mark took the place of the whitespace `etree.indent` would have put there).
        gap = "\n" + INDENT * (depth - 1 if part.startswith("</") else depth)
        out += (text, gap, part)
        known += (text if utf8 is None else utf8, gap, part)
    whole = "".join(out)
    if any(slots.utf8):
        # lxml never yields a lone surrogate; were one there, the store would encode the
        # text itself and replace it, as ever.
        with suppress(UnicodeEncodeError):
            remember_utf8(whole, [p if isinstance(p, bytes) else p.encode("utf-8")
                                  for p in known])
    return whole


def canonical(xml_text: str) -> str:
    """C14N form for comparing two serializations that may differ in spacing of attributes."""
    parser = etree.XMLParser(remove_blank_text=True, resolve_entities=False, no_network=True)
    root = etree.fromstring(xml_text.encode("utf-8"), parser)
    return etree.tostring(root, method="c14n2", strip_text=True).decode("utf-8")


def section_sizes(element: etree._Element) -> list[SectionSize]:
    sizes = []
    for child in element:
        if etree.QName(child).localname != "section":
            continue
        text = etree.tostring(child, encoding="unicode")
        sizes.append(
            SectionSize(
                name=child.get("id", "?"),
                tokens=estimate_tokens(text),
                bytes=len(text.encode("utf-8")),
            )
        )
    return sizes
