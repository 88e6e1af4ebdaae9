"""A scripted fake model for classical debate tests: replies by (purpose, persona name),
so concurrent plan calls get their own answers whatever order they arrive in.

`plan(...)` builds a plan reply. `hold_after` makes one persona's speech stop streaming
after a given word until `release` is set (never, by default): a speech the engine must
cancel mid-stream. Requests are kept in order for the test to read back.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator

from roundtable_desktop.domain.calls import ChatRequest, Usage
from roundtable_desktop.llm.client import ChatClient, Delta, Finish, StreamItem

DEFAULTS = {
    "plan": json.dumps({"action": "listen", "urgency": 0.1, "intent": "Hear them out."}),
    "speech": "I have said my piece.",
    "update": json.dumps({"stances": [{"claim": "c1", "stance": "pro", "confidence": 0.6}],
                          "new_cruxes": [], "flip_triggers": [], "cited": ["e1"]}),
}


def plan(action: str, urgency: float, intent: str = "Say something.") -> str:
    return json.dumps({"action": action, "urgency": urgency, "intent": intent})


def persona_of(request: ChatRequest) -> str:
    found = re.search(r"You are (.+?) \(@", request.messages[0].content)
    return found.group(1) if found else ""


class RoutedClient(ChatClient):
    name = "routed"
    endpoint = "routed://test"

    def __init__(self) -> None:
        self.replies: dict[tuple[str, str], list[str]] = {}
        self.requests: list[ChatRequest] = []
        self.hold_after: dict[str, str] = {}  # persona name -> the word to stop after
        self.release = asyncio.Event()

    def on(self, purpose: str, persona: str, *replies: str) -> RoutedClient:
        self.replies.setdefault((purpose, persona), []).extend(replies)
        return self

    def sent(self, purpose: str) -> list[ChatRequest]:
        return [r for r in self.requests if r.purpose == purpose]

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamItem]:
        self.requests.append(request)
        who = persona_of(request)
        queue = self.replies.get((request.purpose, who), [])
        text = queue.pop(0) if len(queue) > 1 else (queue[0] if queue else
                                                    DEFAULTS.get(request.purpose, "ok"))
        words = re.findall(r"\S+\s*", text)
        for word in words:
            await asyncio.sleep(0)
            yield Delta(word)
            if request.purpose == "speech" and self.hold_after.get(who) == word:
                await self.release.wait()
        yield Finish(Usage(prompt_tokens=10, completion_tokens=len(words)), "stop")
