"""An OpenAI-compatible client that also tells the fake server, in a header, what the
body never carries (the request's kind, purpose and JSON schema), so the fake's offline
mode can answer it as the app's offline model would (tests/fakes/openai_server.py).

The body it POSTs is the app's own, unchanged (shown is sent); only the header is added.
Must be used only against the fake server: a real provider has no use for the header.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncGenerator
from typing import Any

from roundtable_desktop.domain.calls import ChatRequest
from roundtable_desktop.llm.client import StreamItem
from roundtable_desktop.llm.openai_compat import OpenAICompatClient
from tests.fakes.openai_server import OFFLINE_HEADER


def _key(body: dict[str, Any]) -> str:
    return json.dumps(body, sort_keys=True)


class OfflineTellingClient(OpenAICompatClient):
    """`OpenAICompatClient` adding the `X-Offline-Request` header to each chat request."""

    def __init__(self, base_url: str, api_key: str | None, **options: Any) -> None:
        super().__init__(base_url, api_key, **options)
        self._never_sent: dict[str, str] = {}  # body (as JSON) -> what it does not carry
        self._telling: str | None = None

    async def stream(self, request: ChatRequest) -> AsyncGenerator[StreamItem, None]:
        self._never_sent[_key(request.to_body())] = json.dumps(
            {"kind": request.kind, "purpose": request.purpose,
             "response_schema": request.response_schema})
        async with contextlib.aclosing(super().stream(request)) as items:
            async for item in items:
                yield item

    async def _attempt(self, body: dict[str, Any], deadline_at: float,
                       progress: Any) -> AsyncGenerator[StreamItem, None]:
        # The parent builds its request (and reads `_headers`) before its first await, so
        # concurrent calls each send their own header.
        self._telling = self._never_sent.get(_key(body))
        async with contextlib.aclosing(super()._attempt(body, deadline_at, progress)) as items:
            async for item in items:
                yield item

    def _headers(self) -> dict[str, str]:
        headers = super()._headers()
        if self._telling is not None:
            headers[OFFLINE_HEADER] = self._telling
        return headers
