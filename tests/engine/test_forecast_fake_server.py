"""The forecast of a run is within 30% of what the run then spends against a real HTTP
peer that reports usage by its own count: the fake OpenAI-compatible server answering as
the offline model would (its offline mode), for the offline demo of every kind."""

from __future__ import annotations

import asyncio
from collections import deque
from pathlib import Path

import pytest

from roundtable_desktop.domain.calls import ChatMessage, ChatRequest, Usage
from roundtable_desktop.engine.forecast import forecast_run
from roundtable_desktop.engine.headless import human_lines
from roundtable_desktop.engine.launch import start_session
from roundtable_desktop.engine.registry import kind_spec
from roundtable_desktop.llm.client import Delta, Finish
from roundtable_desktop.llm.offline import offline_reply
from roundtable_desktop.store.database import SessionStore
from tests.engine.test_forecast import KINDS, LINES, within
from tests.fakes.offline_telling_client import OfflineTellingClient
from tests.fakes.openai_fixture import fake_openai  # noqa: F401
from tests.fakes.openai_server import DEFAULT_TEXT

TURNS = 4
SEED = 7
MODEL = "fake-model"


async def _no_wait(_: float) -> None:
    return None


@pytest.mark.parametrize("kind", KINDS)
def test_the_forecast_of_a_run_is_within_30_percent_of_what_the_server_reports(
        kind, fake_openai, tmp_path: Path):  # noqa: F811
    fake_openai.reset()
    fake_openai.answer_offline(SEED)

    async def scenario():  # type: ignore[no-untyped-def]
        client = OfflineTellingClient(fake_openai.base_url, "sk-test-forecast-0000",
                                      sleep=_no_wait)
        try:
            with SessionStore.open(tmp_path / "s.sqlite3") as store:
                handle = await start_session(kind, store=store, client=client, model=MODEL,
                                             provider="openai-compatible", seed=SEED)
                forecast = await forecast_run(handle.session, kind, TURNS,
                                              human_lines(LINES), model=MODEL, seed=SEED)
                assert fake_openai.stats()["count"] == 0, "the forecast sent nothing"
                await kind_spec(kind).drive(handle.session, TURNS,
                                            deque(human_lines(LINES)))
                calls = store.calls(handle.session_id)
                handle.close()
                return forecast, calls
        finally:
            await client.aclose()

    try:
        forecast, calls = asyncio.run(scenario())
    finally:
        fake_openai.answer_offline(None)
    spent = (len(calls), sum(c.prompt_tokens or 0 for c in calls),
             sum(c.completion_tokens or 0 for c in calls))
    print(f"{kind}: forecast {forecast.calls}/{forecast.prompt_tokens}/"
          f"{forecast.completion_tokens} spent {spent[0]}/{spent[1]}/{spent[2]}")
    assert calls and all(c.status == "ok" for c in calls), [c.status for c in calls]
    assert not any(c.usage_estimated for c in calls), "the server reported every usage"
    assert within(forecast.calls, spent[0]), (forecast, spent)
    assert within(forecast.prompt_tokens, spent[1]), (forecast, spent)
    assert within(forecast.completion_tokens, spent[2]), (forecast, spent)


def test_the_fake_server_answers_as_the_offline_model_only_once_asked(fake_openai):  # noqa: F811
    fake_openai.reset()
    request = ChatRequest(model=MODEL, messages=[ChatMessage(role="user", content="Hello.")])

    async def ask() -> tuple[str, Usage]:
        client = OfflineTellingClient(fake_openai.base_url, "sk-test-forecast-0000",
                                      sleep=_no_wait)
        try:
            items = [item async for item in client.stream(request)]
        finally:
            await client.aclose()
        finish = items[-1]
        assert isinstance(finish, Finish)
        return "".join(i.text for i in items if isinstance(i, Delta)), finish.usage

    before, _ = asyncio.run(ask())
    fake_openai.answer_offline(SEED)
    try:
        offline, usage = asyncio.run(ask())
    finally:
        fake_openai.answer_offline(None)
    expected = offline_reply(request, SEED).text
    assert before == DEFAULT_TEXT and offline == expected != DEFAULT_TEXT
    assert usage.completion_tokens == (len(expected) + 3) // 4  # the server's own count
