"""Make untrusted text safe to put in an XML tree as text.

lxml escapes markup when text is assigned through `.text` / `.set()`, but it raises on
XML-illegal characters, and bidi controls can make a title lie about its content: both
are removed by the one sanitizer in domain/text.py. URLs are allow-listed by scheme.
Must never parse untrusted text as markup.
"""

from __future__ import annotations

import re

from roundtable_desktop.domain.text import label_text

_SPACE = re.compile(r"\s")
_ALLOWED_DATA = re.compile(r"^data:image/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/=]+$")

MAX_FIELD_CHARS = 4000


def clean_text(value: object, *, limit: int | None = MAX_FIELD_CHARS) -> str:
    """Text with XML-illegal characters and bidi controls removed (lone surrogates
    become U+FFFD), optionally capped."""
    text = "" if value is None else str(value)
    # Printable text holds no control, format (bidi) or surrogate character: nothing to
    # remove, found by one C-speed check instead of a regex scan (most titles and lines).
    if not text.isprintable():
        text = label_text(text)
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
