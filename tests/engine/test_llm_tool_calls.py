"""OpenAI function calling through the client: every request field is sent, and streamed
`tool_calls` deltas come back assembled in `Finish.tool_calls`."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import pytest

from roundtable_desktop.domain.calls import ChatMessage, ChatRequest, ToolCallRequest
from roundtable_desktop.llm.chat_chunks import ToolCallAssembler
from roundtable_desktop.llm.client import Delta, Finish, StreamItem
from roundtable_desktop.llm.openai_compat import OpenAICompatClient
from roundtable_desktop.llm.response_format import FormatRefusals
from tests.fakes.openai_fixture import FakeOpenAI, fake_openai  # noqa: F401

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather in a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                       "required": ["city"]},
    },
}


@pytest.fixture
def server(fake_openai: FakeOpenAI) -> Iterator[FakeOpenAI]:  # noqa: F811
    fake_openai.reset()
    yield fake_openai
    fake_openai.reset()


def tool_request(**fields) -> ChatRequest:
    return ChatRequest(
        model="fake-model",
        messages=[ChatMessage(role="user", content="What is the weather in Oslo and Rome?")],
        tools=[WEATHER],
        **fields,
    )


def run(server: FakeOpenAI, request: ChatRequest) -> list[StreamItem]:
    async def go() -> list[StreamItem]:
        client = OpenAICompatClient(server.base_url, None, refusals=FormatRefusals())
        try:
            return [item async for item in client.stream(request)]
        finally:
            await client.aclose()

    return asyncio.run(go())


def finish_of(items: list[StreamItem]) -> Finish:
    assert isinstance(items[-1], Finish)
    return items[-1]


CALLS = [
    {"id": "call_oslo", "name": "get_weather", "arguments": '{"city": "Oslo", "unit": "C"}'},
    {"id": "call_rome", "name": "get_weather", "arguments": '{"city": "Rome"}'},
]


def test_every_request_field_is_sent_and_never_the_unsent_ones(server):
    request = tool_request(
        temperature=0.3, max_tokens=200, top_p=0.9, presence_penalty=0.5,
        frequency_penalty=0.25, stop=["\n\n"], seed=7, tool_choice="auto",
        response_format={"type": "json_object"}, purpose="planner", kind="debate",
        response_schema={"type": "object"},
    )
    run(server, request)
    [received] = server.requests()
    body = received["body"]
    assert body == request.to_body()
    assert {k: body[k] for k in ("top_p", "presence_penalty", "frequency_penalty", "stop",
                                 "seed", "tool_choice", "response_format")} == {
        "top_p": 0.9, "presence_penalty": 0.5, "frequency_penalty": 0.25, "stop": ["\n\n"],
        "seed": 7, "tool_choice": "auto", "response_format": {"type": "json_object"}}
    assert body["tools"] == [WEATHER]
    assert not {"purpose", "kind", "response_schema"} & body.keys()


def test_tool_call_deltas_split_across_chunks_are_assembled(server):
    server.script([{"kind": "tool_calls", "tool_calls": CALLS, "piece_size": 3}])
    finish = finish_of(run(server, tool_request()))
    assert finish.tool_calls == (
        ToolCallRequest(id="call_oslo", name="get_weather",
                        arguments='{"city": "Oslo", "unit": "C"}'),
        ToolCallRequest(id="call_rome", name="get_weather", arguments='{"city": "Rome"}'),
    )
    assert json.loads(finish.tool_calls[0].arguments) == {"city": "Oslo", "unit": "C"}


def test_finish_reason_tool_calls_is_a_normal_end(server):
    server.script([{"kind": "tool_calls", "tool_calls": CALLS[:1]}])
    items = run(server, tool_request())
    assert finish_of(items).finish_reason == "tool_calls"
    assert not [item for item in items if isinstance(item, Delta) and item.text]


def test_a_name_streamed_in_pieces_is_joined(server):
    server.script([{"kind": "tool_calls", "tool_calls": CALLS[:1], "split_name": True}])
    [call] = finish_of(run(server, tool_request())).tool_calls
    assert call.name == "get_weather"


def test_text_before_the_tool_calls_is_still_reply_text(server):
    server.script([{"kind": "tool_calls", "text": "Let me look that up.", "tool_calls": CALLS}])
    items = run(server, tool_request())
    assert "".join(i.text for i in items if isinstance(i, Delta)) == "Let me look that up."
    assert len(finish_of(items).tool_calls) == 2


def test_tool_calls_survive_a_stream_without_usage(server):
    server.script([{"kind": "tool_calls", "tool_calls": CALLS, "usage": False}])
    finish = finish_of(run(server, tool_request()))
    assert finish.usage.estimated is True
    assert [c.id for c in finish.tool_calls] == ["call_oslo", "call_rome"]


def test_a_non_streamed_completion_with_tool_calls_is_read(server):
    server.script([{"kind": "json", "text": "", "tool_calls": CALLS}])
    finish = finish_of(run(server, tool_request()))
    assert finish.finish_reason == "tool_calls"
    assert [(c.id, c.arguments) for c in finish.tool_calls] == [
        ("call_oslo", CALLS[0]["arguments"]), ("call_rome", CALLS[1]["arguments"])]


def test_a_plain_reply_has_no_tool_calls(server):
    server.script([{"kind": "ok", "text": "Sunny."}])
    assert finish_of(run(server, tool_request())).tool_calls == ()


def test_deltas_without_an_index_continue_the_call_their_id_started():
    assembler = ToolCallAssembler()
    assembler.add([{"id": "a", "function": {"name": "f", "arguments": '{"x"'}}])
    assembler.add([{"function": {"arguments": ": 1}"}}])
    assembler.add([{"id": "b", "function": {"name": "g", "arguments": "{}"}}])
    assert assembler.calls() == (
        ToolCallRequest(id="a", name="f", arguments='{"x": 1}'),
        ToolCallRequest(id="b", name="g", arguments="{}"),
    )


def test_a_name_repeated_in_every_delta_is_not_doubled():
    assembler = ToolCallAssembler()
    for piece in ('{"q":', ' "cats"}'):
        assembler.add([{"index": 0, "id": "c1",
                        "function": {"name": "search", "arguments": piece}}])
    assert assembler.calls() == (ToolCallRequest(id="c1", name="search",
                                                 arguments='{"q": "cats"}'),)


def test_a_call_without_an_id_gets_one_from_its_index():
    assembler = ToolCallAssembler()
    assembler.add([{"index": 2, "function": {"name": "f", "arguments": "{}"}}])
    assert assembler.calls()[0].id == "call_2"
