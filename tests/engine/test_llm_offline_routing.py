"""The offline client picks its policy by the request's kind and purpose, never by markers
in the text, and streams the tool calls a policy makes."""

from __future__ import annotations

import asyncio
import json

from roundtable_desktop.domain.calls import ChatMessage, ChatRequest, ToolCallRequest
from roundtable_desktop.kinds.roundtable.offline import roundtable_reply
from roundtable_desktop.llm.client import Delta, Finish, StreamItem
from roundtable_desktop.llm.offline import (
    DEFAULT_POLICIES,
    FALLBACK_TEXT,
    OfflineClient,
    OfflinePolicies,
    OfflineReply,
    register_offline_policy,
)


def request(kind: str = "", purpose: str = "reply", text: str = "Hello there, friends",
            **fields) -> ChatRequest:
    return ChatRequest(model="offline", kind=kind, purpose=purpose,
                       messages=[ChatMessage(role="user", content=text)], **fields)


def client_with(*entries: tuple[str, str, object]) -> OfflineClient:
    policies = OfflinePolicies()
    for kind, purpose, policy in entries:
        policies.register(kind, purpose, policy)
    return OfflineClient(delay_s=0, policies=policies)


def says(text: str):
    return lambda _request, _seed: text


def stream(client: OfflineClient, req: ChatRequest) -> list[StreamItem]:
    async def go() -> list[StreamItem]:
        return [item async for item in client.stream(req)]

    return asyncio.run(go())


def test_the_policy_for_kind_and_purpose_answers():
    client = client_with(("debate", "stance", says("stance")), ("debate", "reply", says("r")))
    assert client.reply_for(request("debate", "stance")) == "stance"


def test_a_kind_wide_policy_answers_purposes_without_their_own():
    client = client_with(("tutor", "*", says("any")), ("tutor", "safety", says("safe")))
    assert client.reply_for(request("tutor", "debrief")) == "any"
    assert client.reply_for(request("tutor", "safety")) == "safe"


def test_a_policy_of_another_kind_is_not_used():
    client = client_with(("legion", "*", says("legion")))
    assert client.reply_for(request("debate", "reply")) == FALLBACK_TEXT


def test_a_request_with_a_schema_and_no_policy_gets_json_of_its_schema():
    schema = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 3}},
              "required": ["n"]}
    reply = client_with().reply_for(request("debate", "merge", response_schema=schema))
    assert json.loads(reply)["n"] >= 3


def test_a_policy_wins_over_the_schema():
    client = client_with(("debate", "merge", says('{"n": 1}')))
    assert client.reply_for(request("debate", "merge", response_schema={"type": "object"})) \
        == '{"n": 1}'


def test_markers_in_the_text_choose_nothing():
    client = client_with(("roundtable", "reply", says("roundtable policy")))
    marked = request("", "reply", text='<main data-kind="roundtable">…</main>')
    assert client.reply_for(marked) == FALLBACK_TEXT


def test_registering_the_same_key_twice_keeps_the_last():
    policies = OfflinePolicies()
    policies.register("k", "reply", says("first"))
    policies.register("k", "reply", says("second"))
    assert OfflineClient(delay_s=0, policies=policies).reply_for(request("k")) == "second"


def test_register_offline_policy_feeds_the_default_registry():
    register_offline_policy("test-routing", "planner", says("planned"))
    try:
        assert OfflineClient(delay_s=0).reply_for(request("test-routing", "planner")) == \
            "planned"
    finally:
        DEFAULT_POLICIES.unregister("test-routing", "planner")


def test_the_roundtable_kind_registers_its_reply_policy():
    from roundtable_desktop.engine.registry import kind_spec

    assert kind_spec("roundtable").offline_policies["reply"] is roundtable_reply
    assert DEFAULT_POLICIES.find("roundtable", "reply") is roundtable_reply


def test_the_seed_reaches_the_policy():
    client = client_with(("k", "*", lambda _r, seed: f"seed {seed}"))
    client.seed = 42
    assert client.reply_for(request("k")) == "seed 42"


def test_tool_calls_of_a_policy_end_the_stream():
    call = ToolCallRequest(id="c1", name="lookup", arguments='{"q": "ferries"}')
    client = client_with(("k", "reply", lambda _r, _s: OfflineReply("Checking.", (call,))))
    items = stream(client, request("k"))
    assert "".join(i.text for i in items if isinstance(i, Delta)) == "Checking."
    finish = items[-1]
    assert isinstance(finish, Finish)
    assert finish.tool_calls == (call,)
    assert finish.finish_reason == "tool_calls"


def test_a_text_reply_ends_with_stop_and_no_tool_calls():
    finish = stream(client_with(("k", "reply", says("Plain words."))), request("k"))[-1]
    assert isinstance(finish, Finish)
    assert (finish.finish_reason, finish.tool_calls) == ("stop", ())
