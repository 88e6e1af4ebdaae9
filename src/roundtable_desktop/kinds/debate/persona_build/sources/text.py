"""Plain text for a persona corpus: HTML bodies to text, whitespace tidied, untrusted
characters removed, long texts cut near a length at a sentence or word boundary.

HTML is parsed with lxml.html only to read its text: script, style and other non-text
elements are dropped with their content, block elements become paragraph breaks and
`<br>` a line break. Every text then goes through domain/text.py `label_text` (the one
sanitizer: NUL and other XML-illegal characters and bidi controls removed, lone
surrogates replaced), so whatever a feed or a file holds comes out as inert text.
Must not fetch, read files, or keep any markup in what it returns.
"""

from __future__ import annotations

import re

import lxml.etree
import lxml.html

from roundtable_desktop.domain.text import label_text
from roundtable_desktop.domain.words import sentence_ends

ELLIPSIS = "…"
# Elements whose content is never prose a reader sees.
_DROPPED = ("script", "style", "noscript", "template", "iframe", "object", "embed", "svg",
            "math", "head", "title", "form", "button", "select", "textarea")
_BLOCKS = frozenset({
    "p", "div", "section", "article", "aside", "header", "footer", "main", "nav",
    "blockquote", "pre", "ul", "ol", "li", "dl", "dt", "dd", "table", "tr", "figure",
    "figcaption", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "address", "details", "summary",
})
_SPACES = re.compile(r"[^\S\n]+")  # whitespace but line feeds
_BLANK_RUNS = re.compile(r"\n{3,}")
_MARKUP_HINT = re.compile(r"<[A-Za-z!/]|&(?:[A-Za-z]{2,8}|#\d{1,7}|#x[0-9A-Fa-f]{1,6});")
_NEWLINES = re.compile(r"\r\n?|[\u2028\u2029\x85]")
# Below this share of the limit a sentence end is too early to cut at: cut at a word.
_SENTENCE_FLOOR = 0.6


def safe_text(text: str) -> str:
    """`text` with untrusted characters removed and whitespace tidied (see tidy_text)."""
    return tidy_text(label_text(text))


def tidy_text(text: str) -> str:
    """Runs of spaces and tabs become one space, lines are trimmed, blank-line runs
    become one blank line (a paragraph break), and the ends are stripped."""
    text = _NEWLINES.sub("\n", text)
    lines = [_SPACES.sub(" ", line).strip() for line in text.split("\n")]
    return _BLANK_RUNS.sub("\n\n", "\n".join(lines)).strip()


def html_to_text(html: str) -> str:
    """The text a reader of `html` sees, paragraphs apart; plain text passes through."""
    if not _MARKUP_HINT.search(html):
        return safe_text(html)
    cleaned = label_text(html)  # lxml refuses NUL and lone surrogates
    if not cleaned.strip():
        return ""
    try:
        root = lxml.html.fragment_fromstring(cleaned, create_parent="div")
    except (lxml.etree.ParserError, ValueError):
        return safe_text(cleaned)
    lxml.etree.strip_elements(root, *_DROPPED, lxml.etree.Comment,
                              lxml.etree.ProcessingInstruction, with_tail=False)
    pieces: list[str] = []
    _collect(root, pieces)
    return safe_text("".join(pieces))


def _collect(element: lxml.html.HtmlElement, pieces: list[str]) -> None:
    tag = element.tag if isinstance(element.tag, str) else ""
    block = tag in _BLOCKS
    if block:
        pieces.append("\n\n")
    elif tag == "br":
        pieces.append("\n")
    if element.text:
        pieces.append(element.text)
    for child in element:
        _collect(child, pieces)
        if child.tail:
            pieces.append(child.tail)
    if block:
        pieces.append("\n\n")


def truncate_near(text: str, max_chars: int) -> str:
    """`text` if it fits in `max_chars`; else cut at the last sentence end (or, if that is
    too early, the last space) before the limit, with an ellipsis, never longer than
    `max_chars`."""
    if max_chars < 1:
        raise ValueError("max_chars must be at least 1")
    if len(text) <= max_chars:
        return text
    room = max_chars - len(ELLIPSIS)
    head = text[:room + 1]  # one more: a boundary right at the limit counts
    floor = int(room * _SENTENCE_FLOOR)
    # A sentence end, or a line end (a heading, an item of a list).
    breaks = [*sentence_ends(head), *(i + 1 for i, char in enumerate(head) if char == "\n")]
    ends = sorted(end for end in breaks if floor <= end <= room)
    if ends:
        cut = ends[-1]
    else:
        space = max(head.rfind(" ", 0, room + 1), head.rfind("\n", 0, room + 1))
        cut = space if space > 0 else room
    return text[:cut].rstrip() + ELLIPSIS
