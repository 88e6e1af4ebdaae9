"""JSON mode where the provider refuses it: the refusal is its own error, the endpoint is
remembered, and `adapt()` gives the request with the instruction in the prompt instead."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import pytest
from pydantic import BaseModel

from roundtable_desktop.domain.calls import ChatMessage, ChatRequest
from roundtable_desktop.llm.client import Delta
from roundtable_desktop.llm.errors import HTTPStatusError, ResponseFormatRefused
from roundtable_desktop.llm.offline import OfflineClient
from roundtable_desktop.llm.openai_compat import OpenAICompatClient
from roundtable_desktop.llm.response_format import (
    FormatRefusals,
    compact_schema_json,
    is_format_refusal,
    prompt_instead,
)
from tests.fakes.openai_fixture import FakeOpenAI, fake_openai  # noqa: F401


class Verdict(BaseModel):
    title: str
    score: int


@pytest.fixture
def server(fake_openai: FakeOpenAI) -> Iterator[FakeOpenAI]:  # noqa: F811
    fake_openai.reset()
    yield fake_openai
    fake_openai.reset()


def json_request(model: str = "fake-model", schema: dict | None = None) -> ChatRequest:
    return ChatRequest(
        model=model,
        messages=[ChatMessage(role="system", content="You judge pitches."),
                  ChatMessage(role="user", content="Judge: a solar kettle.")],
        response_format={"type": "json_object"},
        response_schema=schema if schema is not None else Verdict.model_json_schema(),
    )


async def send(client: OpenAICompatClient, request: ChatRequest) -> str:
    return "".join([i.text async for i in client.stream(request) if isinstance(i, Delta)])


REFUSING = {"kind": "ok", "text": '{"title": "Kettle", "score": 7}',
            "reject_response_format": True, "repeat": 2}


def test_a_refused_response_format_raises_its_own_error_then_adapt_drops_it(server):
    server.script([REFUSING])
    client = OpenAICompatClient(server.base_url, None, refusals=FormatRefusals())
    request = json_request()
    assert client.adapt(request) is request

    async def go() -> tuple[ResponseFormatRefused, ChatRequest, str]:
        try:
            with pytest.raises(ResponseFormatRefused) as info:
                await send(client, client.adapt(request))
            adapted = client.adapt(request)
            return info.value, adapted, await send(client, adapted)
        finally:
            await client.aclose()

    error, adapted, text = asyncio.run(go())
    assert error.status == 400
    assert "response_format" in error.message
    assert adapted.response_format is None
    assert "response_format" not in adapted.to_body()
    assert adapted.messages[0].content.startswith("You judge pitches.\n\n")
    assert adapted.messages[0].content.endswith(
        compact_schema_json(Verdict.model_json_schema()))
    assert adapted.messages[1:] == request.messages[1:]
    assert json.loads(text) == {"title": "Kettle", "score": 7}
    sent = [r["body"] for r in server.requests()]
    assert "response_format" in sent[0] and sent[1] == adapted.to_body()


def test_the_refusal_is_remembered_for_new_clients_of_the_same_registry(server):
    server.script([REFUSING])
    refusals = FormatRefusals()
    first = OpenAICompatClient(server.base_url, None, refusals=refusals)

    async def go() -> None:
        try:
            with pytest.raises(ResponseFormatRefused):
                await send(first, json_request())
        finally:
            await first.aclose()

    asyncio.run(go())
    later = OpenAICompatClient(server.base_url, None, refusals=refusals)
    assert later.adapt(json_request()).response_format is None


def test_the_refusal_is_kept_per_model_and_endpoint():
    refusals = FormatRefusals()
    client = OpenAICompatClient("http://127.0.0.1:9/v1", None, refusals=refusals)
    refusals.remember(client.endpoint, "small-model")
    assert client.adapt(json_request("small-model")).response_format is None
    assert client.adapt(json_request("big-model")).response_format == {"type": "json_object"}
    other = OpenAICompatClient("http://127.0.0.1:10/v1", None, refusals=refusals)
    assert other.adapt(json_request("small-model")).response_format == {"type": "json_object"}


def test_a_provider_that_accepts_json_mode_gets_the_request_unchanged(server):
    server.script([{"kind": "ok", "text": "{}"}])
    refusals = FormatRefusals()
    client = OpenAICompatClient(server.base_url, None, refusals=refusals)
    asyncio.run(send(client, json_request()))
    assert server.requests()[0]["body"]["response_format"] == {"type": "json_object"}
    assert client.adapt(json_request()) == json_request()


def test_another_400_stays_an_http_error_and_is_not_remembered(server):
    server.script([{"kind": "status", "status": 400,
                    "body": {"error": {"message": "max_tokens is too large"}}}])
    refusals = FormatRefusals()
    client = OpenAICompatClient(server.base_url, None, refusals=refusals)
    with pytest.raises(HTTPStatusError) as info:
        asyncio.run(send(client, json_request()))
    assert not isinstance(info.value, ResponseFormatRefused)
    assert not refusals.refused(client.endpoint, "fake-model")


@pytest.mark.parametrize(("status", "message", "body", "refused"), [
    (400, "response_format is not supported", {"response_format": {}}, True),
    (400, "JSON mode (json_object) unavailable for this model", {"response_format": {}},
     True),
    (422, "Unsupported parameter: response_format", {"response_format": {}}, True),
    (400, "This feature is not supported", {"response_format": {}}, True),
    (400, "response_format is not supported", {}, False),
    (500, "response_format is not supported", {"response_format": {}}, False),
    (400, "tools are not supported by this model",
     {"response_format": {}, "tools": [{}]}, False),
    (400, "context length exceeded", {"response_format": {}}, False),
])
def test_what_counts_as_a_refusal(status, message, body, refused):
    assert is_format_refusal(status, message, body) is refused


def test_the_instruction_goes_into_a_new_system_message_when_there_is_none():
    request = ChatRequest(model="m", messages=[ChatMessage(role="user", content="Hi")],
                          response_format={"type": "json_object"})
    adapted = prompt_instead(request)
    assert [m.role for m in adapted.messages] == ["system", "user"]
    assert adapted.messages[0].content == (
        "Reply with one JSON object only, with no text or code fences around it.")


def test_adapting_twice_adds_the_instruction_once():
    once = prompt_instead(json_request())
    assert prompt_instead(once) == once


def test_a_json_schema_response_format_lends_its_schema_to_the_instruction():
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    request = ChatRequest(model="m", messages=[ChatMessage(role="user", content="Hi")],
                          response_format={"type": "json_schema",
                                           "json_schema": {"name": "x", "schema": schema}})
    assert prompt_instead(request).messages[0].content.endswith(
        '{"type":"object","properties":{"n":{"type":"integer"}}}')


def test_the_compact_schema_drops_titles_but_keeps_a_property_named_title():
    compact = json.loads(compact_schema_json(Verdict.model_json_schema()))
    assert compact == {"type": "object", "required": ["title", "score"],
                       "properties": {"title": {"type": "string"},
                                      "score": {"type": "integer"}}}


def test_a_client_without_refusals_sends_what_it_is_given():
    request = json_request()
    assert OfflineClient(delay_s=0).adapt(request) is request
