"""The offline model: deterministic, seeded policies that read the payload they are given.

It is the default when no key is set, how the app demos with no network, and how most
tests run. It sees exactly the messages a real model would get, picks a policy by the
session kind the payload declares, and streams the reply token by token with a small
delay so streaming is visible. Must not read application state: only the request.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Callable

from roundtable_desktop.domain.calls import ChatRequest, Usage
from roundtable_desktop.llm.client import ChatClient, Delta, Finish, StreamItem
from roundtable_desktop.llm.offline_roundtable import roundtable_reply

Policy = Callable[[ChatRequest, int], str]

_KIND = re.compile(r'data-kind="([a-z_]+)"')
_TOKEN = re.compile(r"\s*\S+|\s+")
OFFLINE_MODEL = "offline"


def _fallback_reply(request: ChatRequest, seed: int) -> str:
    return "I am the offline model. I have no policy for this request, so I pass."


POLICIES: dict[str, Policy] = {"roundtable": roundtable_reply}


def _count(text: str) -> int:
    return max(1, (len(text) + 3) // 4) if text else 0


class OfflineClient(ChatClient):
    """A ChatClient that answers without a network. `delay_s` is the pause per token."""

    name = "offline"
    endpoint = "offline://local"
    offline = True

    def __init__(self, *, delay_s: float = 0.01, seed: int = 0) -> None:
        self.delay_s = delay_s
        self.seed = seed

    def reply_for(self, request: ChatRequest) -> str:
        match = _KIND.search(request.user_text()[:2000])
        policy = POLICIES.get(match.group(1) if match else "", _fallback_reply)
        return policy(request, self.seed)

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamItem]:
        text = self.reply_for(request)
        pieces = _TOKEN.findall(text)
        for piece in pieces:
            if self.delay_s:
                await asyncio.sleep(self.delay_s)
            else:
                await asyncio.sleep(0)  # stay cancellable, like a real stream
            yield Delta(piece)
        prompt = sum(_count(m.content) for m in request.messages)
        yield Finish(Usage(prompt_tokens=prompt, completion_tokens=len(pieces)), "stop")

    def estimate_cost(self, model: str, usage: Usage) -> float | None:
        return 0.0
