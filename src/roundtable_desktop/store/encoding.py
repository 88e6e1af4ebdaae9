"""How the store turns what it keeps into UTF-8 JSON bytes, and stored rows back into records.

A state may arrive as a dict or already encoded (a protocol's own fast dump); prompt
layers become a JSON list; a request body is laid out by store/request_text.py. Every
text is made storable (a lone surrogate becomes U+FFFD) before it is cut into chunks.
Must not touch the database: store/database.py reads the rows and the texts.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

from roundtable_desktop.domain.prompts import LayerText
from roundtable_desktop.domain.secrets import scrub_bytes
from roundtable_desktop.domain.text import storable_utf8
from roundtable_desktop.store.records import CallRecord
from roundtable_desktop.store.redaction import storable_json_bytes
from roundtable_desktop.store.request_text import request_from_text

# A state as the store takes it: a JSON-able dict, JSON text, UTF-8 JSON bytes, or UTF-8
# JSON in pieces whose join is the JSON (a kind that keeps its unchanged parts encoded
# hands them over as the same objects, and the store does not look at them again).
StoredState = dict[str, Any] | str | bytes | list[bytes]


def state_bytes(state: StoredState) -> bytes | list[bytes]:
    """A state as UTF-8 JSON, or its pieces. Given as bytes, it is taken to be that
    already (a pydantic `to_json` dump), which saves decoding and encoding a large state
    twice a turn. Pieces are scrubbed one by one: each is whole JSON values and syntax,
    so a secret (inside one string) never spans two."""
    if isinstance(state, bytes):
        return scrub_bytes(state)
    if isinstance(state, list):
        return [scrub_bytes(piece) for piece in state]
    if not isinstance(state, str):
        return storable_json_bytes(state)
    return scrub_bytes(storable_utf8(state))


def layers_bytes(layers: Sequence[LayerText]) -> bytes:
    """The layers as a JSON list; no layers, no text at all."""
    if not layers:
        return b""
    return storable_json_bytes([layer.model_dump(mode="json") for layer in layers])


def call_record(row: sqlite3.Row, request: str, layers: str) -> CallRecord:
    """A calls row with its request body and layers read back from their chunks."""
    data = dict(row)
    del data["request_manifest"], data["layers_manifest"]
    data["request"] = request_from_text(request)
    data["layers"] = json.loads(layers) if layers else []
    data["response_text"] = data["response_text"] or ""
    if data["usage_estimated"] is not None:
        data["usage_estimated"] = bool(data["usage_estimated"])
    return CallRecord(**data)
