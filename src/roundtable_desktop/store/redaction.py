"""Makes values safe to store: no credential fields, no text sqlite would refuse.

Defence in depth for DESIGN invariant 6: the engine never puts a key in a request body,
but if one sneaks in as an Authorization / api_key field it is dropped before anything
is written. Must not touch message content (that is the payload as sent) and must not
do I/O.
"""

from __future__ import annotations

import json
import re
from typing import Any

# Field names compared after lower-casing and dropping "-" and "_".
_SECRET_FIELDS = frozenset({"authorization", "proxyauthorization", "apikey", "xapikey"})
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def without_secret_fields(obj: Any) -> Any:
    """A copy of `obj` without any Authorization / api_key field, at any depth."""
    if isinstance(obj, dict):
        return {
            k: without_secret_fields(v)
            for k, v in obj.items()
            if not (isinstance(k, str) and _normal(k) in _SECRET_FIELDS)
        }
    if isinstance(obj, list | tuple):
        return [without_secret_fields(v) for v in obj]
    return obj


def _normal(name: str) -> str:
    return name.lower().replace("-", "").replace("_", "")


def storable_text(value: str) -> str:
    """`value` with lone surrogates replaced by U+FFFD.

    A lone surrogate (a JSON "\\ud800" escape in model output) cannot be encoded as
    UTF-8 and would make sqlite refuse the whole row: keep the rest of the text.
    """
    try:
        value.encode("utf-8")  # C speed; the regex below only runs for broken text
    except UnicodeEncodeError:
        return _LONE_SURROGATE.sub("\ufffd", value)
    return value


def storable_json(obj: Any) -> str:
    return storable_text(json.dumps(obj, ensure_ascii=False, separators=(",", ":")))
