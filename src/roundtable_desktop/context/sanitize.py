"""Make untrusted text safe to put in an XML tree as text.

lxml escapes markup when text is assigned through `.text` / `.set()`, but it raises on
XML-illegal characters, and bidi controls can make a title lie about its content. URLs
are allow-listed by scheme. Must never parse untrusted text as markup.
"""

from __future__ import annotations

import re

# XML 1.0 allows TAB, LF, CR, U+0020..U+D7FF, U+E000..U+FFFD, U+10000..U+10FFFF.
_ILLEGAL = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")
_UNSAFE = re.compile(f"{_ILLEGAL.pattern}|{_BIDI.pattern}")
_SPACE = re.compile(r"\s")
_ALLOWED_DATA = re.compile(r"^data:image/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/=]+$")

MAX_FIELD_CHARS = 4000


def clean_text(value: object, *, limit: int | None = MAX_FIELD_CHARS) -> str:
    """Text with XML-illegal characters and bidi controls removed, optionally capped."""
    text = "" if value is None else str(value)
    if _UNSAFE.search(text) is not None:  # most text is clean: one scan, no copies
        text = _UNSAFE.sub("", text)
    if limit is not None and len(text) > limit:
        text = text[:limit] + f"… [{len(text) - limit} more characters cut]"
    return text


def clean_url(value: str | None) -> str:
    """The URL if its scheme is allowed (https, or an inline image), else empty."""
    url = clean_text(value, limit=2048).strip()
    if url[:8].lower() == "https://" and _SPACE.search(url) is None:
        return url
    if _ALLOWED_DATA.match(url):
        return url
    return ""
