"""The offline model: deterministic, seeded policies that read the request they are given.

It is the default when no key is set, how the app demos with no network, and how most
tests run. The seed is the user's (`run --seed`, Settings, New session) and is stored
with each session (engine/launch.py), so a session replays the same for the same seed.
It sees exactly the messages a real model would get and picks a policy by the request's
`kind` and `purpose` (never by markers in the text):

    1. the policy registered for (kind, purpose)
    2. else the one for (kind, "*")
    3. else, when the request has a `response_schema` (or asks for JSON), a valid JSON
       instance of it, seeded by the input (llm/offline_json.py)
    4. else a short fallback sentence.

A policy returns the reply text, or an `OfflineReply` with tool calls too; the client
streams the text token by token with a small delay so streaming is visible, and ends with
the tool calls. `embed` gives deterministic hashed embeddings (llm/embeddings.py), so an
offline session gets hybrid ranking too. Must not read application state: only the request.
"""

from __future__ import annotations

import asyncio
import copy
import re
from collections.abc import AsyncGenerator, Callable, Sequence
from dataclasses import dataclass

from roundtable_desktop.domain.calls import ChatRequest, ToolCallRequest, Usage
from roundtable_desktop.domain.tokens import estimate_prompt_tokens, estimate_tokens
from roundtable_desktop.llm.client import ChatClient, Delta, Finish, StreamItem
from roundtable_desktop.llm.embeddings import hashed_embedding
from roundtable_desktop.llm.offline_json import json_reply

_TOKEN = re.compile(r"\s*\S+|\s+")
OFFLINE_MODEL = "offline"
ANY_PURPOSE = "*"
FALLBACK_TEXT = "I am the offline model. I have no policy for this request, so I pass."


@dataclass(frozen=True, slots=True)
class OfflineReply:
    """What a policy answers: text, and the tool calls the model makes (if any)."""

    text: str = ""
    tool_calls: tuple[ToolCallRequest, ...] = ()


Policy = Callable[[ChatRequest, int], str | OfflineReply]


class OfflinePolicies:
    """Policies by (kind, purpose); purpose "*" answers every purpose of a kind."""

    def __init__(self) -> None:
        self._policies: dict[tuple[str, str], Policy] = {}

    def register(self, kind: str, purpose: str, policy: Policy) -> None:
        """Answer requests of `kind` made for `purpose` with `policy` (last one wins)."""
        self._policies[(kind, purpose)] = policy

    def unregister(self, kind: str, purpose: str) -> None:
        self._policies.pop((kind, purpose), None)

    def find(self, kind: str, purpose: str) -> Policy | None:
        found = self._policies.get((kind, purpose))
        return found if found is not None else self._policies.get((kind, ANY_PURPOSE))


# The registry every OfflineClient uses unless given its own. Kinds add theirs through
# `register_offline_policy` (the kind registry does, for each kind it registers).
DEFAULT_POLICIES = OfflinePolicies()


def register_offline_policy(kind: str, purpose: str, policy: Policy) -> None:
    """Answer requests of `kind` made for `purpose` with `policy` (last one wins)."""
    DEFAULT_POLICIES.register(kind, purpose, policy)



def offline_reply(request: ChatRequest, seed: int,
                  policies: OfflinePolicies = DEFAULT_POLICIES) -> OfflineReply:
    """The offline model's whole answer to `request`."""
    policy = policies.find(request.kind, request.purpose)
    if policy is not None:
        answer = policy(request, seed)
        return answer if isinstance(answer, OfflineReply) else OfflineReply(text=answer)
    if request.response_schema is not None or request.response_format is not None:
        return OfflineReply(text=json_reply(request, seed))
    return OfflineReply(text=FALLBACK_TEXT)


class OfflineClient(ChatClient):
    """A ChatClient that answers without a network. `delay_s` is the pause per token."""

    name = "offline"
    endpoint = "offline://local"
    offline = True

    def __init__(self, *, delay_s: float = 0.01, seed: int = 0,
                 policies: OfflinePolicies | None = None) -> None:
        self.delay_s = delay_s
        self.seed = seed
        self.policies = DEFAULT_POLICIES if policies is None else policies

    def with_seed(self, seed: int) -> OfflineClient:
        """This client answering by `seed` (itself when it already does): a shallow copy,
        so a subclass that records what it streams keeps recording in one place."""
        if seed == self.seed:
            return self
        seeded = copy.copy(self)
        seeded.seed = seed
        return seeded

    def reply(self, request: ChatRequest) -> OfflineReply:
        return offline_reply(request, self.seed, self.policies)

    def reply_for(self, request: ChatRequest) -> str:
        """The reply text alone."""
        return self.reply(request).text

    async def stream(self, request: ChatRequest) -> AsyncGenerator[StreamItem, None]:
        answer = self.reply(request)
        pieces = _TOKEN.findall(answer.text)
        for piece in pieces:
            if self.delay_s:
                await asyncio.sleep(self.delay_s)
            else:
                await asyncio.sleep(0)  # stay cancellable, like a real stream
            yield Delta(piece)
        # Both counts by the one estimator (as a server would count the text it wrote, not
        # by the pieces it was streamed in), so a forecast made on this model holds for a
        # server that reports usage.
        usage = Usage(
            prompt_tokens=estimate_prompt_tokens(m.content for m in request.messages),
            completion_tokens=estimate_tokens(answer.text) + estimate_prompt_tokens(
                call.name + call.arguments for call in answer.tool_calls),
        )
        finish_reason = "tool_calls" if answer.tool_calls else "stop"
        yield Finish(usage, finish_reason, answer.tool_calls)

    async def embed(self, texts: Sequence[str], model: str | None = None
                    ) -> list[list[float]]:
        await asyncio.sleep(0)  # stay cancellable, like a real request
        return [hashed_embedding(text) for text in texts]

    def estimate_cost(self, model: str, usage: Usage) -> float | None:
        return 0.0
