"""How a request body is kept as text: its JSON with the message texts moved out, raw.

A request's messages carry the large texts (a context window of 150 KB); escaping them
as JSON strings on every call cost more than cutting and storing them. So a body is
stored as one header line, the JSON array `[lengths, body]` where `body` is the request
with each message's string `content` emptied and `lengths` gives, per message, how many
characters of its content follow (null for a message whose content stayed in place),
then a newline, then the contents themselves, as they are, one after the other.
A header never holds a raw newline (JSON escapes it), and an older store's body (a JSON
object) never starts with "[", so both read back.

`request_text` makes the text (secrets scrubbed, lone surrogates replaced: the stored
text is what any other text of the store is); `request_from_text` gives the body back,
the same dict as `json.loads` of its JSON, or ValueError when the text is damaged.
Must not touch the database (store/database.py) or cut the text (store/blobs.py).
"""

from __future__ import annotations

import json
from typing import Any

from roundtable_desktop.domain.secrets import scrub
from roundtable_desktop.domain.text import storable_utf8_pieces
from roundtable_desktop.store.redaction import (
    storable_json_bytes,
    without_secret_fields,
)

_HEADER_END = "\n"


def request_text(request: dict[str, Any]) -> bytes:
    """The request body (credential fields dropped) as stored: header line, then texts."""
    return b"".join(request_pieces(request))


def request_pieces(request: dict[str, Any]) -> list[bytes]:
    """`request_text` in pieces whose join it is: a message text its producer remembered
    in parts (domain/text.py, the context window) comes as those parts, which the store
    takes as they are."""
    body = without_secret_fields(request)  # a copy: its messages may be emptied below
    messages = body.get("messages")
    lengths: list[int | None] = []
    texts: list[bytes] = []
    if isinstance(messages, list):
        for message in messages:
            content = message.get("content") if isinstance(message, dict) else None
            if not isinstance(content, str):
                lengths.append(None)
                continue
            text = scrub(content)
            message["content"] = ""
            lengths.append(len(text))  # a lone surrogate becomes one U+FFFD: same length
            texts.extend(storable_utf8_pieces(text))
    return [storable_json_bytes([lengths, body]), b"\n", *texts]


def request_from_text(text: str) -> dict[str, Any]:
    """The body `request_text` stored (or an older store's JSON body), as a dict."""
    if not text.startswith("["):
        body = json.loads(text)
        if not isinstance(body, dict):
            raise ValueError("a stored request is not a JSON object")
        return body
    header, found, contents = text.partition(_HEADER_END)
    if not found:
        raise ValueError("a stored request has no end to its header")
    lengths, body = json.loads(header)
    if not isinstance(lengths, list) or not isinstance(body, dict):
        raise ValueError("a stored request's header is damaged")
    messages = body.get("messages") if lengths else []  # no lengths: no texts moved out
    if not isinstance(messages, list) or len(lengths) != len(messages):
        raise ValueError("a stored request's header does not match its messages")
    at = 0
    for message, length in zip(messages, lengths, strict=True):
        if length is None:
            continue
        if not isinstance(length, int) or length < 0 or not isinstance(message, dict):
            raise ValueError("a stored request's header is damaged")
        message["content"] = contents[at : at + length]
        at += length
    if at != len(contents):
        raise ValueError("a stored request's texts do not match their lengths")
    return body
