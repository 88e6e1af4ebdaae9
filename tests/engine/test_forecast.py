"""The forecast of a run: calls, tokens and cost known before anything is sent, within 30%
of what the run then spends, for the offline demo of every kind."""

from __future__ import annotations

import asyncio
from collections import deque
from pathlib import Path

import pytest

from roundtable_desktop.domain.calls import Usage
from roundtable_desktop.engine.forecast import completion_averages, forecast_run, forecast_steps
from roundtable_desktop.engine.headless import HumanLine, choice_line, human_lines
from roundtable_desktop.engine.launch import start_session
from roundtable_desktop.engine.registry import all_kinds, kind_spec
from roundtable_desktop.llm.offline import OFFLINE_MODEL, OfflineClient
from roundtable_desktop.llm.pricing import ModelPrice, PriceTable
from roundtable_desktop.store.database import SessionStore
from roundtable_desktop.store.records import CallRecord

TURNS = 2
# A human seat's lines, as `run --choice 2 --say ...` gives them: where the seat is offered
# options the choice picks one; elsewhere it is a short message.
LINES = [line for text in ("Where is this from?", "Why do you say that?", "Let us move on.",
                           "What would you do next?", "Thank you, that is clear.")
         for line in (choice_line("2"), HumanLine.parse(text))] * 2
KINDS = [spec.name for spec in all_kinds()]


class CountingOffline(OfflineClient):
    """The offline model, counting what it is asked (a forecast must ask it nothing)."""

    def __init__(self) -> None:
        super().__init__(delay_s=0)
        self.asked = 0

    def reply(self, request):  # type: ignore[no-untyped-def]
        self.asked += 1
        return super().reply(request)


def within(forecast: float, spent: float) -> bool:
    return abs(forecast - spent) <= 0.3 * spent if spent else forecast == 0


@pytest.mark.parametrize("kind", KINDS)
def test_the_forecast_of_a_run_is_within_30_percent_of_what_it_spends(kind, tmp_path: Path):
    async def scenario() -> tuple[object, list[CallRecord]]:
        with SessionStore.open(tmp_path / "s.sqlite3") as store:
            client = CountingOffline()
            handle = await start_session(kind, store=store, client=client,
                                         model=OFFLINE_MODEL, provider="offline")
            asked = client.asked
            forecast = await forecast_run(handle.session, kind, TURNS, human_lines(LINES),
                                          model=OFFLINE_MODEL)
            assert client.asked == asked, "the forecast sent nothing"
            await kind_spec(kind).drive(handle.session, TURNS, deque(human_lines(LINES)))
            calls = store.calls(handle.session_id)
            handle.close()
            return forecast, calls

    forecast, calls = asyncio.run(scenario())
    spent_prompt = sum(c.prompt_tokens or 0 for c in calls)
    spent_completion = sum(c.completion_tokens or 0 for c in calls)
    assert calls, f"the {kind} demo made no call in {TURNS} turns"
    assert within(forecast.calls, len(calls)), (forecast, len(calls))
    assert within(forecast.prompt_tokens, spent_prompt), (forecast, spent_prompt)
    assert within(forecast.completion_tokens, spent_completion), (forecast, spent_completion)


def test_the_forecast_prices_its_tokens_with_the_price_table(tmp_path: Path):
    kind = KINDS[0]
    table = PriceTable(prices={"priced": ModelPrice(prompt=1.0, completion=2.0)})

    async def scenario():  # type: ignore[no-untyped-def]
        with SessionStore.open(tmp_path / "s.sqlite3") as store:
            handle = await start_session(kind, store=store, client=OfflineClient(delay_s=0),
                                         model=OFFLINE_MODEL, provider="offline")
            priced = await forecast_steps(handle.session, kind, 3, model="priced",
                                          prices=table)
            unknown = await forecast_steps(handle.session, kind, 3, model="nobody-knows",
                                           prices=table)
            handle.close()
            return priced, unknown

    priced, unknown = asyncio.run(scenario())
    expected = table.cost("priced", Usage(prompt_tokens=priced.prompt_tokens,
                                          completion_tokens=priced.completion_tokens))
    assert priced.calls and priced.cost_usd == pytest.approx(expected)
    assert unknown.cost_usd is None and "no price" in unknown.sentence()


def test_completion_tokens_follow_what_this_model_wrote_before():
    def call(purpose: str, tokens: int, estimated: bool = False) -> CallRecord:
        return CallRecord(id=purpose + str(tokens), session_id="s", seq=1, actor_id=None,
                          model="m", endpoint="e", request={}, purpose=purpose,
                          status="ok", completion_tokens=tokens, usage_estimated=estimated,
                          started_at=0.0)

    averages = completion_averages([call("reply", 100), call("reply", 300),
                                    call("plan", 50, estimated=True)])
    assert averages == {"reply": 200.0}
