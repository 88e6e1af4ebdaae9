"""The whole request as the context view shows it, and its messages read back from it.

`render_request` turns a `ChatRequest` into one XHTML `<article id="request">`: a header
(label, model, purpose, the options that are sent) and one `div.rt-message` per message
with its role. The system message shows each prompt layer marked with its name and
source file; the text around the layers stays as unmarked glue, so the segments
concatenate to the content exactly. A message given as a context-window element
(roundtable's meeting document) is embedded as that element, serialized exactly as the
message holds it, not as escaped text.

`messages_from_document` reads the messages back, from this module's output or from a
browser's outerHTML of the article, byte for byte (invariant 1). XML cannot hold NUL,
most C0 controls, U+FFFE/U+FFFF or lone surrogates, and parsers turn CR into LF, so each
of those is written as `<span class="ch" data-cp="N"/>` (xml_chars.py).
Must not parse message text as markup (all text goes in through `.text`), read files,
or know any session kind.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from lxml import etree

from roundtable_desktop.context.payload import CONTEXT_ID
from roundtable_desktop.context.sanitize import clean_text
from roundtable_desktop.context.xml_chars import (
    append_text,
    empty_element_indices,
    read_text,
    restore_empty_elements,
)
from roundtable_desktop.domain.calls import ChatMessage, ChatRequest
from roundtable_desktop.domain.prompts import LayerText

XHTML_NS = "http://www.w3.org/1999/xhtml"
REQUEST_ID = "request"
_X = f"{{{XHTML_NS}}}"
# Sent, but transport detail rather than what the request says: not listed in the header.
_NOT_LISTED = frozenset({"model", "messages", "stream", "stream_options"})
_OPTION_CHARS = 300


class RequestDocumentError(ValueError):
    """The text is not a request document this module wrote (or a browser's copy of one)."""


def render_request(
    request: ChatRequest,
    layers: Sequence[LayerText] = (),
    documents: Mapping[int, etree._Element] | None = None,
    *,
    label: str = "",
) -> str:
    """The XHTML document of `request` for the context view.

    `layers` are the layers the (first) system message is made of, in order; a layer
    whose text is not found there is not marked. `documents` maps a message index to the
    element that message is the serialization of; it is embedded as that element when
    the message content is exactly its serialization, and shown as text otherwise.
    """
    root = etree.Element(f"{_X}article", nsmap={None: XHTML_NS})
    root.set("id", REQUEST_ID)
    root.set("class", "rt-request")
    # Differs per actor and turn: the view starts a new label at the top.
    root.set("data-label", clean_text(label, limit=200))
    root.set("data-model", clean_text(request.model, limit=200))
    root.set("data-purpose", clean_text(request.purpose, limit=200))
    _header(root, request, label)
    documents = documents or {}
    slots: dict[str, str] = {}
    nonce = secrets.token_hex(16)
    layers_shown = False
    for index, message in enumerate(request.messages):
        box = _el(root, "div", "rt-message", data_role=message.role, data_index=str(index))
        _el(box, "h2", "rt-role", text=message.role)
        if message.name is not None:
            _field(box, "rt-name", "name", message.name)
        if message.tool_call_id is not None:
            _field(box, "rt-tool-call-id", "answers tool call", message.tool_call_id)
        element = documents.get(index)
        embedded = _embeddable(element, message.content) if element is not None else None
        if embedded is not None:
            content = _el(box, "div", "rt-content rt-document")
            empties = empty_element_indices(embedded)
            if empties:
                content.set("data-empty", " ".join(map(str, empties)))
            token = f"rt-slot-{nonce}-{index}"
            content.text = token  # replaced by the serialized element below
            slots[token] = embedded
        elif message.role == "system" and layers and not layers_shown:
            layers_shown = True
            _layered(_el(box, "div", "rt-content"), message.content, layers)
        else:
            append_text(_el(_el(box, "div", "rt-content"), "pre", "rt-text"), message.content)
        if message.tool_calls is not None:
            calls = _el(box, "div", "rt-tool-calls")
            _el(calls, "p", "rt-field-label", text="tool calls")
            text = json.dumps(message.tool_calls, indent=2, ensure_ascii=False)
            append_text(_el(calls, "pre", "rt-value"), text)
    page = etree.tostring(root, encoding="unicode")
    for token, serialized in slots.items():
        # The element's own serialization, spliced in unchanged: re-serializing the
        # outer tree must not re-indent or re-escape the payload.
        page = page.replace(token, serialized, 1)
    return page


def stored_documents(request: ChatRequest) -> dict[int, etree._Element]:
    """The user messages of a stored request that are a serialized context-window
    document (a roundtable meeting), parsed, so replay embeds them as the live view did.

    Only our own document qualifies: XHTML whose root has id "context-window" and whose
    serialization is the message exactly (`render_request` checks that again); anything
    else stays text. The parser resolves no entities and loads nothing.
    """
    found: dict[int, etree._Element] = {}
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
    for index, message in enumerate(request.messages):
        if message.role != "user" or not message.content.startswith("<"):
            continue
        try:
            element = etree.fromstring(message.content.encode("utf-8"), parser)
        except (etree.XMLSyntaxError, ValueError):
            continue
        if element.get("id") == CONTEXT_ID and etree.QName(element).namespace == XHTML_NS:
            found[index] = element
    return found


def messages_from_document(xhtml: str) -> list[ChatMessage]:
    """The request's messages, exactly as they were rendered; RequestDocumentError
    when `xhtml` is not a request document."""
    parser = etree.XMLParser(
        resolve_entities=False, no_network=True, load_dtd=False, huge_tree=True
    )
    # A browser writes a CR of a text node raw (lxml writes "&#13;"), and the parser would
    # turn it into LF. Neither serializer puts a raw CR anywhere but in text.
    xhtml = xhtml.replace("\r", "&#13;")
    try:
        root = etree.fromstring(xhtml.encode("utf-8"), parser)
    except (UnicodeEncodeError, etree.XMLSyntaxError) as exc:
        raise RequestDocumentError(f"not an XML document: {exc}") from None
    found = root.xpath(
        "descendant-or-self::x:article[@id=$rid]", namespaces={"x": XHTML_NS}, rid=REQUEST_ID
    )
    if not found:
        raise RequestDocumentError("no request article in the document")
    try:
        return [_message(box) for box in found[0] if _has_class(box, "rt-message")]
    except RequestDocumentError:
        raise
    except ValueError as exc:  # stray markup in a text, bad JSON, an unknown role
        raise RequestDocumentError(str(exc)) from None


# -- writing ---------------------------------------------------------------------------
def _el(
    parent: etree._Element, tag: str, cls: str, *, text: str | None = None, **attrs: str
) -> etree._Element:
    node = etree.SubElement(parent, f"{_X}{tag}")
    node.set("class", cls)
    for key, value in attrs.items():
        node.set(key.replace("_", "-"), clean_text(value, limit=None))
    if text is not None:
        node.text = clean_text(text, limit=None)
    return node


def _field(box: etree._Element, cls: str, label: str, value: str) -> None:
    line = _el(box, "p", cls)
    _el(line, "span", "rt-field-label", text=label)
    append_text(_el(line, "code", "rt-value"), value)


def _header(root: etree._Element, request: ChatRequest, label: str) -> None:
    head = _el(root, "header", "rt-request-head")
    if label:
        _el(head, "h1", "rt-request-label", text=label)
    options = _el(head, "dl", "rt-options")
    _option(options, "model", request.model)
    _option(options, "purpose", request.purpose, note="not sent")
    if request.kind:
        _option(options, "kind", request.kind, note="not sent")
    for name, value in request.to_body().items():
        if name in _NOT_LISTED:
            continue
        if name == "tools" and isinstance(value, list):
            names = [str(t.get("function", {}).get("name", "?")) if isinstance(t, dict) else "?"
                     for t in value]
            _option(options, "tools", f"{len(names)}: {', '.join(names)}")
            continue
        _option(options, name, json.dumps(value, ensure_ascii=False, separators=(", ", ": ")))


def _option(options: etree._Element, name: str, value: str, *, note: str = "") -> None:
    pair = _el(options, "div", "rt-option")
    _el(pair, "dt", "rt-option-name", text=name)
    dd = _el(pair, "dd", "rt-option-value", text=clean_text(value, limit=_OPTION_CHARS))
    if note:
        _el(dd, "span", "rt-unsent", text=f" ({note})")


def _segments(content: str, layers: Sequence[LayerText]) -> list[tuple[LayerText | None, str]]:
    """Content cut into layers (found in order) and the glue around them."""
    segments: list[tuple[LayerText | None, str]] = []
    pos = 0
    for layer in layers:
        if not layer.text:
            continue
        at = content.find(layer.text, pos)
        if at < 0:
            continue
        if at > pos:
            segments.append((None, content[pos:at]))
        segments.append((layer, layer.text))
        pos = at + len(layer.text)
    if pos < len(content):
        segments.append((None, content[pos:]))
    return segments


def _layered(content_box: etree._Element, content: str, layers: Sequence[LayerText]) -> None:
    for layer, text in _segments(content, layers):
        if layer is None:
            append_text(_el(content_box, "pre", "rt-text rt-glue"), text)
            continue
        block = _el(content_box, "div", "rt-layer", data_layer=layer.name,
                    data_source=layer.source)
        head = _el(block, "p", "rt-layer-head")
        _el(head, "span", "rt-layer-name", text=layer.name)
        _el(head, "span", "rt-layer-source", text=layer.source)
        append_text(_el(block, "pre", "rt-text"), text)


def _embeddable(element: etree._Element, content: str) -> str | None:
    """The element's serialization when the message is exactly that XHTML, else None."""
    if etree.QName(element).namespace != XHTML_NS:
        return None  # it would change namespace inside the article
    serialized = etree.tostring(element, encoding="unicode", with_tail=False)
    return serialized if serialized == content else None


# -- reading ---------------------------------------------------------------------------
def _classes(node: etree._Element) -> list[str]:
    return (node.get("class") or "").split()


def _has_class(node: etree._Element, cls: str) -> bool:
    return isinstance(node.tag, str) and cls in _classes(node)


def _child(node: etree._Element, cls: str) -> etree._Element | None:
    return next((c for c in node if _has_class(c, cls)), None)


def _message(box: etree._Element) -> ChatMessage:
    fields: dict[str, Any] = {"role": box.get("data-role")}
    for child in box:
        if _has_class(child, "rt-name"):
            fields["name"] = _value(child)
        elif _has_class(child, "rt-tool-call-id"):
            fields["tool_call_id"] = _value(child)
        elif _has_class(child, "rt-content"):
            fields["content"] = _content(child)
        elif _has_class(child, "rt-tool-calls"):
            fields["tool_calls"] = json.loads(_value(child))
    if "content" not in fields:
        raise RequestDocumentError(f"message {box.get('data-index')} has no content")
    return ChatMessage.model_validate(fields)


def _value(line: etree._Element) -> str:
    value = _child(line, "rt-value")
    if value is None:
        raise RequestDocumentError("a message field has no value")
    return read_text(value)


def _content(box: etree._Element) -> str:
    if "rt-document" in _classes(box):
        elements = [c for c in box if isinstance(c.tag, str)]
        if len(elements) != 1:
            raise RequestDocumentError("an embedded document must be one element")
        restore_empty_elements(elements[0], box.get("data-empty", ""))
        return etree.tostring(elements[0], encoding="unicode", with_tail=False)
    parts = []
    for segment in box:
        if _has_class(segment, "rt-text"):
            parts.append(read_text(segment))
        elif _has_class(segment, "rt-layer"):
            text = _child(segment, "rt-text")
            parts.append(read_text(text) if text is not None else "")
    return "".join(parts)
