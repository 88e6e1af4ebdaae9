"""A string from outside (a server's name, a tool's description, a title) as one bounded,
safe line: C0/C1 controls (but tab and newline), bidi overrides and non-characters
dropped, then clipped with an ellipsis. Pure functions; must not do I/O.
"""

from __future__ import annotations

import re
from typing import Any

# C0/C1 controls except tab and newline, bidi overrides, and non-characters.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ufffe\uffff]")


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def clean(value: Any, limit: int) -> str:
    """`value` as one bounded line-safe string; non-strings become empty."""
    if not isinstance(value, str):
        return ""
    return clip(_UNSAFE.sub("", value).strip(), limit)
