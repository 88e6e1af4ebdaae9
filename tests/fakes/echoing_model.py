"""A hostile model for any kind: the offline model's replies with a secret slipped in.

`EchoingClient(secret)` answers every request as the offline model would, and puts
`secret` (a key, usually in disguise: controls or zero-width characters between its
letters, or `\\uXXXX` escapes) into the reply where the session will keep it: into the
longest string of a JSON reply (written into the JSON text as it is, so escapes are
decoded by the reader), as a whiteboard note of a `CALL:` reply, or as a first line of
plain text. Replies stream in pieces of three characters. Every request is kept.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from typing import Any

from roundtable_desktop.domain.calls import ChatRequest
from roundtable_desktop.llm.client import ChatClient, Delta, StreamItem
from roundtable_desktop.llm.offline import OfflineClient

_MARK = "\ue000SECRET\ue000"  # private-use: never in a reply; replaced by the secret as is


class EchoingClient(ChatClient):
    name = "echoing"
    endpoint = "echoing://test"

    def __init__(self, secret: str) -> None:
        self.secret = secret
        self.offline = OfflineClient(delay_s=0)
        self.requests: list[ChatRequest] = []

    async def embed(self, texts: Sequence[str], model: str | None = None
                    ) -> list[list[float]] | None:
        return await self.offline.embed(texts, model)

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamItem]:
        self.requests.append(request)
        text, finish = "", None
        async for item in self.offline.stream(request):
            if isinstance(item, Delta):
                text += item.text
            else:
                finish = item
        text = self.slipped_in(text)
        for i in range(0, len(text), 3):
            yield Delta(text[i:i + 3])
        if finish is not None:
            yield finish

    def slipped_in(self, text: str) -> str:
        stripped = text.strip()
        if stripped[:1] in "{[":
            try:
                value = json.loads(stripped)
            except ValueError:
                value = None
            if isinstance(value, dict | list) and _mark_longest(value):
                return json.dumps(value, ensure_ascii=False).replace(_MARK, self.secret)
        if "CALL:" in text:
            return f'{text.rstrip()}\nCALL: addWhiteboard("note {self.secret}")\n'
        return f"{self.secret}\n{text}"


def _strings(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], str]]:
    if isinstance(value, str):
        return [(path, value)]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in _strings(v, (*path, k))]
    if isinstance(value, list):
        return [s for i, v in enumerate(value) for s in _strings(v, (*path, i))]
    return []


def _mark_longest(value: Any) -> bool:
    """Put the mark in front of the longest string in `value`; False when it has none."""
    found = _strings(value)
    if not found:
        return False
    path, text = max(found, key=lambda item: len(item[1]))
    holder = value
    for part in path[:-1]:
        holder = holder[part]
    holder[path[-1]] = f"{_MARK} {text}"
    return True
