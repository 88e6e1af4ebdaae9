"""What a run is about to cost, before it runs: calls, prompt and completion tokens, money.

The forecast plays the steps on a copy of the session (the kind's own `restore` of its
state) answered by the offline model in memory: nothing is sent, nothing is stored, and
the calls counted are the ones the kind's own code makes from its pending payloads — one
per payload, a chain (plan, tool, speak), or a round of parallel calls — so no kind needs
a second description of its call plan. Prompt tokens are the estimate of each request as
it would be sent; completion tokens are the offline model's, or, where the session has
finished calls of the same purpose with reported usage, their average (what this model
really writes). The price table turns tokens into money for the model that will answer.

Must not send, store or print anything, and must not import Qt.
"""

from __future__ import annotations

from collections import Counter, defaultdict, deque
from collections.abc import AsyncGenerator, Iterable, Mapping, Sequence

from pydantic import BaseModel

from roundtable_desktop.domain.calls import ChatRequest, Usage
from roundtable_desktop.engine.base import Action, SessionProtocol
from roundtable_desktop.engine.headless import HumanLine
from roundtable_desktop.engine.registry import SessionContext, kind_spec
from roundtable_desktop.llm.client import ChatClient, Finish, StreamItem
from roundtable_desktop.llm.offline import OFFLINE_MODEL, OfflineClient
from roundtable_desktop.llm.pricing import PriceTable, estimate_cost
from roundtable_desktop.store.records import CallRecord

# Steps a forecast plays at most (a runaway Auto cap must not freeze the window).
MAX_STEPS = 200


class Forecast(BaseModel):
    """What a run is expected to cost."""

    steps: int
    calls: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None  # None: the model has no price in the table
    model: str

    def sentence(self) -> str:
        cost = "no price for this model" if self.cost_usd is None else f"${self.cost_usd:.4f}"
        return (f"about {self.calls} call{'s' if self.calls != 1 else ''}, "
                f"{self.prompt_tokens:,} prompt + {self.completion_tokens:,} completion "
                f"tokens, {cost}")


class _CountingClient(ChatClient):
    """The offline model, in memory, noting each call's purpose and usage."""

    name = "forecast"
    endpoint = "forecast://offline"

    def __init__(self, seed: int) -> None:
        self._offline = OfflineClient(delay_s=0, seed=seed)
        self.calls: list[tuple[str, Usage]] = []

    async def stream(self, request: ChatRequest) -> AsyncGenerator[StreamItem, None]:
        async for item in self._offline.stream(request):
            if isinstance(item, Finish):
                self.calls.append((request.purpose, item.usage))
            yield item


def completion_averages(calls: Iterable[CallRecord]) -> dict[str, float]:
    """The average completion tokens per purpose of finished calls with reported usage."""
    sums: dict[str, int] = defaultdict(int)
    counts: Counter[str] = Counter()
    for call in calls:
        if call.completion_tokens and not call.usage_estimated:
            sums[call.purpose] += call.completion_tokens
            counts[call.purpose] += 1
    return {purpose: sums[purpose] / counts[purpose] for purpose in counts}


def _copy(session: SessionProtocol, kind: str, seed: int) -> tuple[SessionProtocol,
                                                                   _CountingClient]:
    client = _CountingClient(seed)
    ctx = SessionContext(client=client, model=OFFLINE_MODEL, provider="offline")
    return kind_spec(kind).restore(ctx, session.state_dict()), client


def _forecast(client: _CountingClient, steps: int, model: str, prices: PriceTable | None,
              history: Mapping[str, float]) -> Forecast:
    prompt = sum(usage.prompt_tokens for _, usage in client.calls)
    completion = round(sum(history.get(purpose, usage.completion_tokens)
                           for purpose, usage in client.calls))
    usage = Usage(prompt_tokens=prompt, completion_tokens=completion)
    free = not client.calls or model == OFFLINE_MODEL  # the offline model costs nothing
    return Forecast(steps=steps, calls=len(client.calls), prompt_tokens=prompt,
                    completion_tokens=completion, model=model,
                    cost_usd=0.0 if free else estimate_cost(model, usage, prices))


async def forecast_steps(session: SessionProtocol, kind: str, steps: int, *, model: str,
                         seed: int = 0, prices: PriceTable | None = None,
                         history: Mapping[str, float] | None = None) -> Forecast:
    """Up to `steps` of what a user would click next (Auto), stopping where Auto stops:
    the session ends or a human seat must act."""
    copy, client = _copy(session, kind, seed)
    played = 0
    try:
        while played < min(steps, MAX_STEPS) and not copy.ended:
            step = copy.next_step()
            if step is None:
                break
            await copy.perform(step)
            played += 1
    finally:
        await copy.aclose()  # what the copy started (a kind's tool server) ends with it
    return _forecast(client, played, model, prices, history or {})


async def forecast_action(session: SessionProtocol, kind: str, action: Action, *,
                          model: str, seed: int = 0, prices: PriceTable | None = None,
                          history: Mapping[str, float] | None = None) -> Forecast:
    """One action (a debate round, a legion topic) as the user is about to start it."""
    copy, client = _copy(session, kind, seed)
    try:
        await copy.perform(action)
    finally:
        await copy.aclose()
    return _forecast(client, 1, model, prices, history or {})


async def forecast_run(session: SessionProtocol, kind: str, turns: int,
                       lines: Sequence[HumanLine], *, model: str, seed: int = 0,
                       prices: PriceTable | None = None,
                       history: Mapping[str, float] | None = None) -> Forecast:
    """`roundtable run --turns N` as the kind's headless driver would play it, scripted
    human lines included."""
    copy, client = _copy(session, kind, seed)
    before = copy.progress()
    try:
        await kind_spec(kind).drive(copy, turns, deque(lines))
    finally:
        await copy.aclose()
    return _forecast(client, copy.progress() - before, model, prices, history or {})
