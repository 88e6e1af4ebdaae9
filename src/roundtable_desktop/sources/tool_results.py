"""What is kept of an MCP tool's answer: a bounded excerpt, the whole answer's size and its
SHA-256, and no known secret.

A server may answer with any number of text blocks of any size and structured content of
any size. `kept_output` walks the answer once: it counts and hashes the whole of it (the
text `output_text` gives: the structured content as JSON, encoded piece by piece, else
the text blocks joined by newlines) and keeps at most `max_chars` characters of it, so
nothing the size of the answer is built again, held or stored. Structured content is kept
as it is when its JSON fits, else dropped (its start then stands in as a text block when
the answer has no text). Kept text is cleaned (sources/outside_text.py) and scrubbed of
known secrets, after cleaning, and so are the strings of kept structured content.
Pure: no I/O; must not import the MCP SDK.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from typing import Any

from roundtable_desktop.domain.secrets import scrub, scrub_value
from roundtable_desktop.sources.mcp_model import ToolOutput, ToolText
from roundtable_desktop.sources.outside_text import clean

DEFAULT_KEPT_CHARS = 100_000  # the whole of any answer a tool of ours gives (a video list)
_MAX_TEXT_BLOCKS = 64


class _Measure:
    """Counts the characters of a text given in pieces and hashes its UTF-8."""

    def __init__(self) -> None:
        self.chars = 0
        self._hash = hashlib.sha256()

    def add(self, piece: str) -> None:
        self.chars += len(piece)
        self._hash.update(piece.encode("utf-8", errors="surrogatepass"))

    @property
    def sha256(self) -> str:
        return self._hash.hexdigest()


def unwrapped(structured: Any) -> Any:
    """Structured content as a tool means it: the SDK wraps a plain return value in
    `{"result": ...}`."""
    if isinstance(structured, dict) and set(structured) == {"result"}:
        return structured["result"]
    return structured


def json_pieces(value: Any) -> Iterator[str]:
    """`json.dumps(value, ensure_ascii=False)` in pieces, never whole."""
    return json.JSONEncoder(ensure_ascii=False).iterencode(value)


def kept_output(texts: Iterable[str], structured: Any, *,
                max_chars: int = DEFAULT_KEPT_CHARS) -> ToolOutput:
    """At most `max_chars` characters of an answer of `texts` and `structured` content,
    with the size and hash of the whole."""
    measure = _Measure()
    structured_json: list[str] = []
    kept_structured: Any = None
    if structured is not None:
        size = 0
        for piece in json_pieces(unwrapped(structured)):
            measure.add(piece)
            if size <= max_chars:
                structured_json.append(piece)
            size += len(piece)
        if size <= max_chars:
            kept_structured = scrub_value(structured)
    kept: list[str] = []
    room = max_chars
    for index, text in enumerate(texts):
        if structured is None:
            measure.add(("\n" if index else "") + text)
        if room > 0 and len(kept) < _MAX_TEXT_BLOCKS:
            # Cut before cleaning: the cleaner copies all it is given.
            piece = scrub(clean(text[:room + 1], room))
            kept.append(piece)
            room -= len(piece)
    if structured is not None and kept_structured is None and not kept:
        start = "".join(structured_json)
        kept.append(scrub(clean(start[:max_chars + 1], max_chars)))
    return ToolOutput(structured=kept_structured, texts=kept,
                      original_chars=measure.chars, sha256=measure.sha256)


def whole_text(output: ToolOutput) -> str:
    """A tool's answer as one text: its structured content as JSON (unwrapped), else its
    text blocks."""
    value = unwrapped(output.structured)
    if value is not None:
        return json.dumps(value, ensure_ascii=False)
    return "\n".join(output.texts)


def tool_text(output: ToolOutput, *, max_chars: int = DEFAULT_KEPT_CHARS) -> ToolText:
    """`output` as one text of at most `max_chars` characters, with the size and hash of
    the whole answer (the output's own when its connection measured it)."""
    text = whole_text(output)
    if output.original_chars is not None and output.sha256:
        size, digest = output.original_chars, output.sha256
    else:
        measure = _Measure()
        measure.add(text)
        size, digest = measure.chars, measure.sha256
    if len(text) > max_chars:
        text = text[:max_chars]
    return ToolText(text=scrub(text), original_chars=size, sha256=digest)


def text_of(text: str) -> ToolText:
    """A text made here (an error line) as a ToolText: whole, with its size and hash."""
    measure = _Measure()
    measure.add(text)
    return ToolText(text=text, original_chars=measure.chars, sha256=measure.sha256)
