"""OpenAICompatClient against a real fake server process: streaming, retries, timeouts,
broken streams, secrets and cancellation."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import socket
import traceback
from collections.abc import Iterator

import httpx
import pytest

from roundtable_desktop.domain.calls import ChatMessage, ChatRequest, Usage
from roundtable_desktop.llm.client import Delta, Finish, StreamItem
from roundtable_desktop.llm.errors import (
    AuthError,
    CallTimeout,
    ConfigError,
    HTTPStatusError,
    LLMError,
    RateLimited,
    StreamError,
    TransportError,
)
from roundtable_desktop.llm.openai_compat import (
    DEFAULT_BASE_URL,
    DEFAULT_MODEL,
    OpenAICompatClient,
    is_local_host,
)
from roundtable_desktop.llm.pricing import ModelPrice, PriceTable
from tests.fakes.openai_fixture import FakeOpenAI, fake_openai  # noqa: F401

SECRET = "sk-live-SECRET-0123456789abcdef"


class RecordedSleep:
    """Stands in for asyncio.sleep: remembers each wait and returns at once."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


class RecordingTransport(httpx.AsyncBaseTransport):
    """Answers nothing useful; only counts the requests that reached the network."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return httpx.Response(500)


@pytest.fixture
def server(fake_openai: FakeOpenAI) -> Iterator[FakeOpenAI]:  # noqa: F811
    fake_openai.reset()
    yield fake_openai
    fake_openai.reset()


def make_request(text: str = "Whose turn is it?") -> ChatRequest:
    return ChatRequest(
        model=DEFAULT_MODEL,
        messages=[
            ChatMessage(role="system", content="You are an actor."),
            ChatMessage(role="user", content=text),
        ],
    )


def make_client(server: FakeOpenAI, sleep: RecordedSleep | None = None, **options):
    return OpenAICompatClient(server.base_url, None, sleep=sleep or RecordedSleep(), **options)


async def collect(client: OpenAICompatClient, request: ChatRequest) -> list[StreamItem]:
    try:
        return [item async for item in client.stream(request)]
    finally:
        await client.aclose()


def reply_text(items: list[StreamItem]) -> str:
    return "".join(item.text for item in items if isinstance(item, Delta))


def fails_with(error_type: type[LLMError], client: OpenAICompatClient) -> LLMError:
    with pytest.raises(error_type) as info:
        asyncio.run(collect(client, make_request()))
    return info.value


# -- a good stream ------------------------------------------------------------------------
def test_streams_the_reply_text_then_one_finish_with_the_server_usage(server):
    server.script([{"kind": "ok", "text": "CALL: passTurn()", "chunk_size": 3}])
    items = asyncio.run(collect(make_client(server), make_request()))
    assert reply_text(items) == "CALL: passTurn()"
    assert all(isinstance(item, Delta) for item in items[:-1])
    finish = items[-1]
    assert isinstance(finish, Finish)
    assert finish.finish_reason == "stop"
    assert finish.usage.estimated is False
    assert finish.usage.completion_tokens == 4


def test_posts_the_request_body_exactly_as_built(server):
    request = make_request("the serialized context window")
    asyncio.run(collect(make_client(server), request))
    [received] = server.requests()
    assert received["path"] == "/v1/chat/completions"
    assert received["body"] == request.to_body()


def test_sends_the_key_as_a_bearer_token(server):
    client = OpenAICompatClient(server.base_url, SECRET, sleep=RecordedSleep())
    asyncio.run(collect(client, make_request()))
    [received] = server.requests()
    assert received["authorization"] == "Bearer ***"
    assert received["key_sha256"] == hashlib.sha256(SECRET.encode()).hexdigest()[:16]


def test_a_local_server_needs_no_key(server):
    asyncio.run(collect(make_client(server), make_request()))
    assert server.requests()[0]["authorization"] is None


def test_reasoning_deltas_are_not_reply_text(server):
    server.script([{"kind": "ok", "text": "Answer.", "reasoning": "Let me think..."}])
    items = asyncio.run(collect(make_client(server), make_request()))
    assert reply_text(items) == "Answer."


def test_usage_is_estimated_and_marked_when_the_server_sends_none(server):
    server.script([{"kind": "ok", "text": "12345678", "usage": False}])
    items = asyncio.run(collect(make_client(server), make_request()))
    finish = items[-1]
    assert isinstance(finish, Finish)
    assert finish.usage.estimated is True
    assert finish.usage.completion_tokens == 2


def test_a_non_streamed_json_completion_is_accepted(server):
    server.script([{"kind": "json", "text": "Whole reply."}])
    items = asyncio.run(collect(make_client(server), make_request()))
    assert reply_text(items) == "Whole reply."
    assert isinstance(items[-1], Finish)


# -- retries ------------------------------------------------------------------------------
def test_429_waits_as_long_as_retry_after_says_then_succeeds(server):
    server.script([
        {"kind": "status", "status": 429, "headers": {"Retry-After": "1"}},
        {"kind": "ok", "text": "after the wait"},
    ])
    sleep = RecordedSleep()
    items = asyncio.run(collect(make_client(server, sleep), make_request()))
    assert reply_text(items) == "after the wait"
    assert sleep.waits == [1.0]
    assert len(server.requests()) == 2


def test_retry_after_ms_wins_over_retry_after(server):
    server.script([
        {"kind": "status", "status": 429,
         "headers": {"retry-after-ms": "250", "Retry-After": "5"}},
        {"kind": "ok"},
    ])
    sleep = RecordedSleep()
    asyncio.run(collect(make_client(server, sleep), make_request()))
    assert sleep.waits == [0.25]


def test_500_is_retried_after_a_jittered_backoff_then_succeeds(server):
    server.script([{"kind": "status", "status": 500}, {"kind": "ok", "text": "fine now"}])
    sleep = RecordedSleep()
    items = asyncio.run(collect(make_client(server, sleep), make_request()))
    assert reply_text(items) == "fine now"
    assert len(sleep.waits) == 1
    assert 0.375 <= sleep.waits[0] <= 0.5


def test_repeated_500_fails_after_max_retries_with_the_server_message(server):
    server.script([{"kind": "status", "status": 500, "repeat": 3,
                    "body": {"error": {"message": "Upstream model crashed."}}}])
    sleep = RecordedSleep()
    error = fails_with(HTTPStatusError, make_client(server, sleep, max_retries=2))
    assert not isinstance(error, RateLimited)
    assert error.status == 500
    assert "500" in error.message
    assert "Upstream model crashed." in error.message
    assert len(server.requests()) == 3
    assert len(sleep.waits) == 2


def test_rate_limit_that_persists_raises_rate_limited_with_retry_after(server):
    server.script([{"kind": "status", "status": 429, "repeat": 3,
                    "headers": {"Retry-After": "2"}, "body": {"message": "Slow down."}}])
    error = fails_with(RateLimited, make_client(server))
    assert error.retry_after == 2.0
    assert "Slow down." in error.message


def test_401_raises_auth_error_without_retrying(server):
    server.script([{"kind": "status", "status": 401,
                    "body": {"error": {"message": "Invalid API key."}}}])
    sleep = RecordedSleep()
    error = fails_with(AuthError, make_client(server, sleep))
    assert error.status == 401
    assert "Invalid API key." in error.message
    assert len(server.requests()) == 1
    assert sleep.waits == []


def test_400_is_not_retried(server):
    server.script([{"kind": "status", "status": 400, "body": {"message": "Bad model."}}])
    error = fails_with(HTTPStatusError, make_client(server))
    assert error.status == 400
    assert len(server.requests()) == 1


def test_retry_after_beyond_60_seconds_is_not_retried_and_the_user_is_told(server):
    server.script([{"kind": "status", "status": 429, "headers": {"Retry-After": "120"}}])
    sleep = RecordedSleep()
    error = fails_with(RateLimited, make_client(server, sleep))
    assert sleep.waits == []
    assert len(server.requests()) == 1
    assert "120 s" in error.message
    assert "try again later" in error.message


def test_server_closing_before_any_response_is_retried(server):
    server.script([{"kind": "disconnect"}, {"kind": "ok", "text": "second try"}])
    items = asyncio.run(collect(make_client(server), make_request()))
    assert reply_text(items) == "second try"


def test_connection_refused_is_retried_then_raises_transport_error():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    sleep = RecordedSleep()
    client = OpenAICompatClient(f"http://127.0.0.1:{port}/v1", None, sleep=sleep)
    error = fails_with(TransportError, client)
    assert "127.0.0.1" in error.message
    assert len(sleep.waits) == 2


# -- timeouts -----------------------------------------------------------------------------
def test_first_token_slower_than_the_read_timeout_is_retried_then_times_out(server):
    server.script([{"kind": "slow_first_token", "delay_s": 1.5, "repeat": 3}])
    sleep = RecordedSleep()
    error = fails_with(CallTimeout, make_client(server, sleep, read_timeout=0.3))
    assert error.partial == ""
    assert len(server.requests()) == 3
    assert len(sleep.waits) == 2


def test_a_stall_after_some_text_times_out_keeping_the_text(server):
    server.script([{"kind": "ok", "text": "abcdefgh", "chunk_size": 4, "delay_s": 1.0,
                    "repeat": 3}])
    error = fails_with(CallTimeout, make_client(server, read_timeout=0.3))
    assert error.partial == "abcd"


def test_keepalive_comments_cannot_outlast_the_call_deadline(server):
    # Each comment resets the read timeout, so only the overall deadline can end this.
    server.script([{"kind": "keepalive_trickle", "interval_s": 0.05, "count": 100}])
    client = make_client(server, read_timeout=2.0, deadline=0.5)
    error = fails_with(CallTimeout, client)
    assert "0.5 s" in error.message


# -- broken streams -----------------------------------------------------------------------
def test_a_stream_cut_mid_reply_raises_stream_error_with_the_partial_text(server):
    server.script([{"kind": "drop", "text": "partial text"}])
    error = fails_with(StreamError, make_client(server))
    assert error.partial == "partial text"


def test_a_stream_that_showed_text_is_never_sent_again(server):
    server.script([{"kind": "drop", "text": "partial text"}, {"kind": "ok"}])
    fails_with(StreamError, make_client(server))
    assert len(server.requests()) == 1


def test_a_stream_ending_without_done_or_finish_reason_is_an_error(server):
    server.script([{"kind": "drop", "text": "half a", "graceful": True}])
    error = fails_with(StreamError, make_client(server))
    assert "ended early" in error.message
    assert error.partial == "half a"


def test_a_malformed_chunk_raises_stream_error(server):
    server.script([{"kind": "malformed", "text": "ok so far"}])
    error = fails_with(StreamError, make_client(server))
    assert "malformed chunk" in error.message
    assert error.partial == "ok so far"


@pytest.mark.parametrize("style", ["openai", "vllm"])
def test_an_error_object_inside_a_200_stream_raises_stream_error_with_its_message(
    server, style
):
    server.script([{"kind": "error_in_stream", "text": "so far", "style": style,
                    "message": "CUDA out of memory."}])
    error = fails_with(StreamError, make_client(server))
    assert "CUDA out of memory." in error.message
    assert error.partial == "so far"


def test_a_web_page_instead_of_a_stream_says_so(server):
    server.script([{"kind": "status", "status": 200, "body": "<html>Log in to Wi-Fi</html>",
                    "headers": {"Content-Type": "text/html"}}])
    error = fails_with(StreamError, make_client(server))
    assert "web page" in error.message


# -- configuration and secrets ------------------------------------------------------------
def test_a_remote_host_without_a_key_raises_config_error_before_sending():
    transport = RecordingTransport()
    client = OpenAICompatClient(DEFAULT_BASE_URL, None, transport=transport)
    error = fails_with(ConfigError, client)
    assert "api.fireworks.ai" in error.message
    assert transport.requests == []


def test_a_base_url_that_is_not_http_raises_config_error():
    error = fails_with(ConfigError, OpenAICompatClient("ftp//nowhere", "key"))
    assert "base URL" in error.message


@pytest.mark.parametrize(
    ("host", "local"),
    [("127.0.0.1", True), ("localhost", True), ("[::1]", True), ("::1", True),
     ("127.0.0.2", True), ("api.fireworks.ai", False), ("10.0.0.5", False)],
)
def test_only_loopback_hosts_count_as_local(host, local):
    assert is_local_host(host) is local


def test_the_endpoint_is_the_base_url_plus_chat_completions():
    client = OpenAICompatClient("https://api.example.com/v1/", "key")
    assert client.endpoint == "https://api.example.com/v1/chat/completions"


def test_the_key_never_appears_in_errors_logs_or_repr(server, caplog):
    echo = {"error": {"message": f"Key {SECRET} is not valid."}}
    server.script([
        {"kind": "status", "status": 500, "body": echo},
        {"kind": "status", "status": 401, "body": echo},
    ])
    caplog.set_level(logging.DEBUG)
    client = OpenAICompatClient(server.base_url, SECRET, sleep=RecordedSleep())
    error = fails_with(AuthError, client)
    rendered = [
        str(error), repr(error), error.message, error.hint, repr(client), str(client),
        "".join(traceback.format_exception(error)), caplog.text,
    ]
    assert "Key [redacted] is not valid." in error.message
    assert all(SECRET not in text for text in rendered)


# -- cancellation and cost ----------------------------------------------------------------
def test_cancelling_mid_stream_closes_the_connection(server):
    server.script([{"kind": "ok", "text": "x" * 400, "chunk_size": 1, "delay_s": 0.01}])

    async def cancel_after_first_token() -> asyncio.Task[None]:
        client = make_client(server)
        first_token = asyncio.Event()

        async def consume() -> None:
            async for item in client.stream(make_request()):
                if isinstance(item, Delta):
                    first_token.set()

        task = asyncio.create_task(consume())
        await first_token.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await client.aclose()
        return task

    task = asyncio.run(cancel_after_first_token())
    assert task.cancelled()
    assert server.wait_outcome(0) == "client_disconnected"


def test_closing_the_stream_early_releases_the_connection(server):
    server.script([{"kind": "ok", "text": "x" * 400, "chunk_size": 1, "delay_s": 0.01}])

    async def read_one_token() -> str:
        client = make_client(server)
        async with contextlib.aclosing(client.stream(make_request())) as items:
            async for item in items:
                if isinstance(item, Delta):
                    break
        await client.aclose()
        return item.text

    assert asyncio.run(read_one_token()) == "x"
    assert server.wait_outcome(0) == "client_disconnected"


def test_cost_is_estimated_from_the_price_table():
    prices = PriceTable(prices={"m": ModelPrice(prompt=1.0, completion=2.0)})
    client = OpenAICompatClient(DEFAULT_BASE_URL, "key", prices=prices)
    usage = Usage(prompt_tokens=1_000_000, completion_tokens=500_000)
    assert client.estimate_cost("m", usage) == pytest.approx(2.0)
    assert client.estimate_cost("unknown", usage) is None


def test_prepare_builds_the_http_client_before_the_first_call():
    client = OpenAICompatClient("http://127.0.0.1:9/v1", None)
    client.prepare()
    assert client._http is not None
    asyncio.run(client.aclose())


# -- issue 9: failures that trying again cannot fix, and a response h11 refuses -------------
def test_a_rejected_key_is_final_so_no_caller_sends_it_again(server):
    server.script([{"kind": "status", "status": 401, "repeat": 3}])
    error = fails_with(AuthError, make_client(server))
    assert error.final
    assert len(server.requests()) == 1


def test_a_call_that_hit_its_deadline_is_final_and_was_sent_once(server):
    server.script([{"kind": "keepalive_trickle", "interval_s": 0.05, "count": 100,
                    "repeat": 3}])
    error = fails_with(CallTimeout, make_client(server, read_timeout=2.0, deadline=0.4))
    assert error.final
    assert len(server.requests()) == 1


def test_a_slow_read_is_not_final(server):
    server.script([{"kind": "slow_first_token", "delay_s": 1.5, "repeat": 3}])
    error = fails_with(CallTimeout, make_client(server, read_timeout=0.3))
    assert not error.final


def test_an_oversized_header_is_a_malformed_response_not_an_unreachable_server(server):
    server.script([{"kind": "huge_header", "header_bytes": 2_000_000, "repeat": 3}])
    error = fails_with(TransportError, make_client(server))
    assert "malformed or oversized response" in error.message
    assert "Could not reach" not in error.message
    assert len(server.requests()) == 1  # a broken server says the same again: not retried
