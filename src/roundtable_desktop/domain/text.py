"""The one sanitizer for untrusted text: lone surrogates, XML-illegal characters and bidi
controls, each handled in exactly one place.

- `storable_text`: lone surrogates (a JSON "\\ud800" escape in model output) become
  U+FFFD; nothing else changes. UTF-8 (and so SQLite and any file) accepts the result.
- `xml_text`: also removes what XML 1.0 forbids (C0 controls but TAB/LF/CR, U+FFFE,
  U+FFFF), which lxml refuses with ValueError.
- `label_text`: also removes bidi controls (U+202A..U+202E, U+2066..U+2069, U+200E,
  U+200F, U+061C), which can make a title or name display as something it is not.
- `terminal_text`: for a terminal: removes escape sequences, every control character but
  TAB and LF (ESC, BEL, backspace, CR, DEL, C1) and bidi controls; surrogates replaced.
- `storable_utf8` / `storable_utf8_pieces`: `storable_text` as UTF-8, taken from what
  `remember_utf8` was told when the text's producer had it at hand (the context window).

Lives in domain because context/ and store/ both need it and may not import each other.
Must not cap lengths, strip whitespace or escape markup (callers decide those), and must
not import anything outside the standard library.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

REPLACEMENT = "\ufffd"

# XML 1.0 Char: TAB, LF, CR, U+0020..U+D7FF, U+E000..U+FFFD, U+10000..U+10FFFF. Everything
# else is illegal, including the surrogates U+D800..U+DFFF (handled apart: replaced, not
# dropped, so a reader can see something was there).
_XML_ILLEGAL = "[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
_BIDI = "[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]"

LONE_SURROGATE = re.compile("[\ud800-\udfff]")
XML_ILLEGAL = re.compile(_XML_ILLEGAL)
BIDI_CONTROL = re.compile(_BIDI)
_LABEL_UNSAFE = re.compile(f"{_XML_ILLEGAL}|{_BIDI}")


def _replace_or_drop(match: re.Match[str]) -> str:
    char = match.group(0)
    return REPLACEMENT if "\ud800" <= char <= "\udfff" else ""


def storable_text(text: str) -> str:
    """`text` with each lone surrogate replaced by U+FFFD; otherwise unchanged."""
    try:
        text.encode("utf-8")  # C speed; the regex only runs for broken text
    except UnicodeEncodeError:
        return LONE_SURROGATE.sub(REPLACEMENT, text)
    return text


# UTF-8 of large texts their producer joined from parts it had encoded already (a context
# window is mostly the same candidate list turn after turn; encoding 150 KB of text that
# holds one emoji costs CPython ~2 ns a character). Kept as the parts' UTF-8, in order:
# the store takes them as they are, an unchanged part the same object as the turn before.
# Keyed by the text's identity, each entry holding the text itself, so no id is reused
# while it is kept; the newest few.
_KNOWN_UTF8: dict[int, tuple[str, tuple[bytes, ...]]] = {}
_KNOWN_UTF8_KEPT = 8


def remember_utf8(text: str, pieces: Sequence[bytes]) -> None:
    """Let `storable_utf8(text)` and `storable_utf8_pieces(text)` give the join of
    `pieces`, and the pieces, for this very text object (not an equal one) without
    encoding it. Their join must be `text.encode("utf-8")`: the caller's guarantee."""
    _KNOWN_UTF8.pop(id(text), None)
    _KNOWN_UTF8[id(text)] = (text, tuple(pieces))
    while len(_KNOWN_UTF8) > _KNOWN_UTF8_KEPT:
        del _KNOWN_UTF8[next(iter(_KNOWN_UTF8))]


def storable_utf8(text: str) -> bytes:
    """`storable_text(text)` as UTF-8, encoded once when the text is sound (a large text
    is not encoded twice to be checked), or not at all when its producer remembered it."""
    # One piece is returned by join as it is, not copied.
    return b"".join(storable_utf8_pieces(text))


def storable_utf8_pieces(text: str) -> list[bytes]:
    """`storable_utf8(text)` in pieces whose join it is: those its producer remembered,
    else the one whole encoding."""
    known = _KNOWN_UTF8.get(id(text))
    if known is not None and known[0] is text:
        return list(known[1])
    try:
        return [text.encode("utf-8")]
    except UnicodeEncodeError:  # a lone surrogate: keep the rest of the text
        return [LONE_SURROGATE.sub(REPLACEMENT, text).encode("utf-8")]


def xml_text(text: str) -> str:
    """`text` that lxml accepts: surrogates replaced, other XML-illegal characters removed."""
    if XML_ILLEGAL.search(text) is None:  # most text is clean: one scan, no copy
        return text
    return XML_ILLEGAL.sub(_replace_or_drop, text)


def label_text(text: str) -> str:
    """`xml_text(text)` without bidi controls: for titles, names and other short labels."""
    if _LABEL_UNSAFE.search(text) is None:
        return text
    return _LABEL_UNSAFE.sub(_replace_or_drop, text)


# What a terminal acts on instead of showing: an ESC sequence (CSI such as "clear the
# screen", OSC such as "set the title", or a two-character one) goes whole; any control
# left over (C0 but TAB and LF, DEL, C1, where U+009B is a one-character CSI), a bidi
# control or a lone surrogate is then handled one character at a time.
_ESCAPE_SEQUENCE = re.compile(
    r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[ -/]*[0-~])"
)
_TERMINAL_UNSAFE = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]|{_BIDI}")


def terminal_text(text: str) -> str:
    """`text` safe to write to a terminal: what it would show, nothing it would obey."""
    if _TERMINAL_UNSAFE.search(text) is None:
        return text
    return _TERMINAL_UNSAFE.sub(_replace_or_drop, _ESCAPE_SEQUENCE.sub("", text))
