"""Serialize a context-window element to the exact payload text, and measure sections.

Serialization is deterministic: the same element gives the same string, byte for byte.
Must not build documents (see document.py) or change anything but indentation.
"""

from __future__ import annotations

from lxml import etree
from pydantic import BaseModel

from roundtable_desktop.context.tokens import estimate_tokens


class SectionSize(BaseModel):
    name: str
    tokens: int
    bytes: int


def serialize(element: etree._Element) -> str:
    """The payload: indented XHTML of the element, no XML declaration.

    Indents in place (whitespace between elements only), so the element and the string
    stay the same document.
    """
    etree.indent(element, space="  ")
    return etree.tostring(element, encoding="unicode")


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
