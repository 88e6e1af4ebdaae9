"""Makes values safe to store: no credential fields, no known secret, no text sqlite
would refuse.

Defence in depth for DESIGN invariant 6: the engine never puts a key in a request body,
but if one sneaks in as an Authorization / api_key field it is dropped before anything
is written, and any known key (domain/secrets.py) in any JSON it encodes is redacted
(model text is scrubbed as it arrives, engine/model_calls.py). Must not otherwise
touch message content (that is the payload as sent) and must not do I/O.
"""

from __future__ import annotations

import json
from typing import Any

import pydantic_core
from pydantic import BaseModel

from roundtable_desktop.domain.secrets import scrub, scrub_bytes

# A lone surrogate (a JSON "\\ud800" escape in model output) cannot be encoded as UTF-8
# and would make sqlite refuse the whole row: storable_text replaces it with U+FFFD.
from roundtable_desktop.domain.text import storable_text

__all__ = [
    "storable_json",
    "storable_json_bytes",
    "storable_model_json",
    "storable_text",
    "without_secret_fields",
]

# Field names compared after lower-casing and dropping "-" and "_".
_SECRET_FIELDS = frozenset({"authorization", "proxyauthorization", "apikey", "xapikey"})


def _may_hold_secret_field(compact_json: str) -> bool:
    """Whether JSON may have a key `without_secret_fields` drops: never False when it has
    one, and True for a few that have none (a text value ending in "API key"), which then
    take the full walk.

    Such a key, folded as `_normal` folds it, ends in "apikey" or "authorization", and
    in JSON its closing quote follows; its letters are ones JSON writes as they are. A
    few passes in C over the text, where a case-blind regex backtracked at every quote.
    """
    folded = compact_json.lower().replace("-", "").replace("_", "")
    return 'apikey"' in folded or 'authorization"' in folded


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


def storable_json(obj: Any) -> str:
    return storable_json_bytes(obj).decode("utf-8")


def storable_json_bytes(obj: Any) -> bytes:
    """`obj` as compact UTF-8 JSON, lone surrogates replaced by U+FFFD.

    pydantic-core's encoder is several times faster than `json.dumps(ensure_ascii=False)`
    on a large request; it refuses a lone surrogate, which then takes the slow path.
    """
    try:
        return scrub_bytes(pydantic_core.to_json(obj))
    except pydantic_core.PydanticSerializationError:
        text = storable_text(json.dumps(obj, ensure_ascii=False, separators=(",", ":")))
        return scrub_bytes(text.encode())


def storable_model_json(model: BaseModel) -> str:
    """`model` as JSON without credential fields or lone surrogates.

    The fast path dumps the model once and only looks for a credential-like key in the
    text (`_may_hold_secret_field`); a model that may have one (or has a lone surrogate)
    takes the full walk.
    """
    try:
        # The serializer itself: what model_dump_json calls, without its keyword handling
        # (half its time on a small event, and the store writes ~20 events a turn).
        text = type(model).__pydantic_serializer__.to_json(model).decode()
    except pydantic_core.PydanticSerializationError:
        text = ""
    if text and not _may_hold_secret_field(text):
        return scrub(text)
    return storable_json(without_secret_fields(model.model_dump(mode="json")))
