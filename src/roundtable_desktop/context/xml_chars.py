"""Put any text into an XHTML element without losing a byte, and get it back.

XML 1.0 cannot hold NUL, most C0 controls, U+FFFE/U+FFFF or lone surrogates (lxml
refuses them), and every XML parser turns CR into LF. `append_text` writes each such
character as `<span class="ch" data-cp="N" data-label="CR"/>` (the label is for the
eye; `data-cp` is what `read_text` reads) and everything else as plain text, always
through `.text` / `.tail`, never as markup.

An element with empty text (`<p></p>`) and one with none (`<p/>`) parse to the same
tree, so a parsed document re-serializes `<p></p>` as `<p/>`. For an embedded document
that must read back exactly, `empty_element_indices` lists which elements were written
`<p></p>` and `restore_empty_elements` gives them back their empty text.
Must not parse text as markup or change any character it is given.
"""

from __future__ import annotations

import re

from lxml import etree

XHTML_NS = "http://www.w3.org/1999/xhtml"
CHAR_CLASS = "ch"
# Everything XML 1.0 can hold as it is: TAB, LF and the legal ranges, but not CR.
_UNSAFE = re.compile("[^\t\n\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_NAMES = {0: "NUL", 8: "BS", 11: "VT", 12: "FF", 13: "CR", 27: "ESC"}


def char_label(code_point: int) -> str:
    return _NAMES.get(code_point, f"U+{code_point:04X}")


def append_text(parent: etree._Element, text: str) -> None:
    """Write `text` into `parent` (which has no children yet), losslessly."""
    last: etree._Element | None = None
    pos = 0
    for match in _UNSAFE.finditer(text):
        _put(parent, last, text[pos:match.start()])
        cp = ord(match.group())
        last = etree.SubElement(parent, f"{{{XHTML_NS}}}span")
        last.set("class", CHAR_CLASS)
        last.set("data-cp", str(cp))
        last.set("data-label", char_label(cp))
        pos = match.end()
    _put(parent, last, text[pos:])


def _put(parent: etree._Element, last: etree._Element | None, chunk: str) -> None:
    if not chunk:
        return
    if last is None:
        parent.text = chunk
    else:
        last.tail = chunk


def read_text(element: etree._Element) -> str:
    """The text `append_text` wrote into `element`."""
    parts = [element.text or ""]
    for child in element:
        if isinstance(child.tag, str):
            if (child.get("class") != CHAR_CLASS or etree.QName(child).localname != "span"
                    or not (child.get("data-cp") or "").isdigit()):
                raise ValueError(f"unexpected <{etree.QName(child).localname}> in message text")
            parts.append(chr(int(child.get("data-cp", "0"))))
        parts.append(child.tail or "")
    return "".join(parts)


def empty_element_indices(serialized: str) -> list[int]:
    """Document-order indices (elements only) of the elements lxml wrote as `<x></x>`.

    In lxml output every "<" is markup (text and attribute values escape it) and ">"
    never occurs inside a tag, so a start tag closed at once is a `></` whose nearest
    "<" before it opens a tag and which does not follow "/>".
    """
    indices: list[int] = []
    counted_to, starts = 0, 0
    at = serialized.find("></")
    while at >= 0:
        opened = serialized.rfind("<", 0, at)
        if serialized[opened + 1] not in "/!?" and serialized[at - 1] != "/":
            starts += _start_tags(serialized, counted_to, opened)
            indices.append(starts)
            starts += 1
            counted_to = opened + 1
        at = serialized.find("></", at + 3)
    return indices


def _start_tags(text: str, begin: int, end: int) -> int:
    return (text.count("<", begin, end) - text.count("</", begin, end)
            - text.count("<!", begin, end) - text.count("<?", begin, end))


def restore_empty_elements(element: etree._Element, indices: str) -> None:
    """Give back empty text to the elements `empty_element_indices` listed."""
    wanted = {int(i) for i in indices.split() if i.isdigit()}
    if not wanted:
        return
    for index, node in enumerate(element.iter(etree.Element)):
        if index in wanted and node.text is None and len(node) == 0:
            node.text = ""
