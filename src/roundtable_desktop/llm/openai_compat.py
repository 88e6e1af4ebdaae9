"""The client for any OpenAI-compatible chat-completions endpoint (Fireworks, OpenAI,
llama.cpp, Ollama, LM Studio, vLLM), streaming over SSE with httpx.

It POSTs `ChatRequest.to_body()` unchanged (shown is sent), yields the reply text as it
arrives and ends with the usage the server reported (or an estimate, marked as such) and
the tool calls assembled from streamed `tool_calls` deltas. A provider that refuses
`response_format` raises `ResponseFormatRefused` and is remembered: `adapt()` then moves
the JSON instruction into the system prompt (llm/response_format.py).
Failures become the `LLMError` subclasses of llm/errors.py. Retries follow llm/retry.py
and happen only while no reply text has reached the caller: a stream that has shown
text is never re-sent silently. Every await runs under an overall per-call deadline
(`deadline` seconds, retries and their waits included), so a server that trickles
keep-alive comments cannot hold a call forever; a call that hit it is not tried again
and its error is `final`. A 401/403 is never retried either. The key is remembered as a
secret (domain/secrets.py), so any text a server echoes it in is scrubbed before it is
cut or shown. What each failure means (which error, worded how, retryable or not) is
llm/http_failures.py. `embed` delegates the `{base}/embeddings` call to llm/embeddings.py:
an endpoint without them is asked once per process, then None is the answer.

Must never log or put the API key in a message, an exception or `repr()`. Must not import
Qt, protocols or the store. One instance per event loop (its httpx pool is bound to it).
Consumers that stop reading early should close the stream (`contextlib.aclosing`) so the
connection is released at once rather than at garbage collection.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, TypeVar, cast

import httpx

from roundtable_desktop.domain.calls import ChatRequest, Usage
from roundtable_desktop.domain.secrets import remember_secret, scrub
from roundtable_desktop.llm.chat_chunks import (
    Progress,
    chunk_items,
    completion_items,
    estimate_usage,
    server_message,
    stream_error_message,
)
from roundtable_desktop.llm.client import ChatClient, Finish, StreamItem
from roundtable_desktop.llm.embeddings import (
    NO_EMBEDDINGS,
    NoEmbeddings,
    default_embedding_model,
    endpoint_embeddings,
)
from roundtable_desktop.llm.errors import (
    CallTimeout,
    ConfigError,
    ResponseFormatRefused,
    StreamError,
)
from roundtable_desktop.llm.http_failures import (
    Retryable,
    noting_attempts,
    read_failure,
    send_failure,
    status_error,
    status_message,
)
from roundtable_desktop.llm.pricing import PriceTable, load_prices
from roundtable_desktop.llm.response_format import (
    REFUSALS,
    FormatRefusals,
    is_format_refusal,
    prompt_instead,
)
from roundtable_desktop.llm.retry import RetryPolicy, is_retryable_status, parse_retry_after
from roundtable_desktop.llm.sse import SSEDecoder, SSEEvent

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://api.fireworks.ai/inference/v1"
DEFAULT_MODEL = "fireworks/gpt-oss-20b"
USER_AGENT = "roundtable-desktop/0.1"
MAX_ERROR_BODY_BYTES = 64 * 1024
_LOCAL_NAMES = frozenset({"localhost", "localhost.localdomain"})
_T = TypeVar("_T")


class OpenAICompatClient(ChatClient):
    """Streams chat completions from an OpenAI-compatible server."""

    name = "openai-compatible"

    def __init__(
        self,
        base_url: str,
        api_key: str | None,
        *,
        connect_timeout: float = 10.0,
        read_timeout: float = 60.0,
        deadline: float = 300.0,
        max_retries: int = 2,
        transport: httpx.AsyncBaseTransport | None = None,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
        prices: PriceTable | None = None,
        refusals: FormatRefusals | None = None,
        embedding_model: str | None = None,
        no_embeddings: NoEmbeddings | None = None,
    ) -> None:
        self.base_url = base_url.strip().rstrip("/")
        self.endpoint = f"{self.base_url}/chat/completions"
        self.__api_key = api_key.strip() if api_key and api_key.strip() else None
        remember_secret(self.__api_key)
        self.connect_timeout = connect_timeout
        self.read_timeout = read_timeout
        self.deadline = deadline
        self.retry = RetryPolicy(max_retries=max_retries, sleep=sleep)
        self._transport = transport
        self._prices = prices
        self._refusals = REFUSALS if refusals is None else refusals
        self.embedding_model = embedding_model or default_embedding_model(self.base_url)
        self._no_embeddings = NO_EMBEDDINGS if no_embeddings is None else no_embeddings
        self._http: httpx.AsyncClient | None = None

    def __repr__(self) -> str:
        key = "set" if self.__api_key else "none"
        return f"OpenAICompatClient(endpoint={self.endpoint!r}, api_key={key})"

    @property
    def host(self) -> str:
        try:
            return httpx.URL(self.base_url).host or self.base_url
        except httpx.InvalidURL:
            return self.base_url

    @property
    def has_key(self) -> bool:
        return self.__api_key is not None

    # -- public API -------------------------------------------------------------------
    def adapt(self, request: ChatRequest) -> ChatRequest:
        """Without `response_format`, the JSON instruction in the prompt instead, when this
        endpoint refused it for this model before; else the request unchanged."""
        if request.response_format is not None and self._refusals.refused(
            self.endpoint, request.model
        ):
            return prompt_instead(request)
        return request

    async def stream(self, request: ChatRequest) -> AsyncGenerator[StreamItem, None]:
        """Yield `Delta`s then one `Finish`; raise an `LLMError` on failure."""
        self._check_config()
        body = request.to_body()
        deadline_at = asyncio.get_running_loop().time() + self.deadline
        retries_done = 0
        while True:
            progress = Progress()
            try:
                async with contextlib.aclosing(self._attempt(body, deadline_at, progress)) as items:
                    async for item in items:
                        yield item
            except Retryable as failure:
                delay = self.retry.delay_before_retry(retries_done, failure.retry_after)
                if delay is None:
                    raise noting_attempts(failure.error, retries_done + 1) from None
                retries_done += 1
                log.info(
                    "Retrying %s in %.2f s (%s), retry %d of %d",
                    self.host,
                    delay,
                    failure.error.message,
                    retries_done,
                    self.retry.max_retries,
                )
                await self._under_deadline(self.retry.wait(delay), deadline_at, "")
                continue
            if progress.usage is None:
                yield Finish(estimate_usage(body, progress.text), progress.finish_reason,
                             progress.tools.calls())
            return

    async def embed(self, texts: Sequence[str], model: str | None = None
                    ) -> list[list[float]] | None:
        """Vectors from `{base}/embeddings`; None when the endpoint has none."""
        if not texts:
            return []
        self._check_config()
        return await endpoint_embeddings(
            self._client(), self.base_url, self._headers(), model or self.embedding_model,
            texts, host=self.host, deadline=self.deadline, lacking=self._no_embeddings)

    def estimate_cost(self, model: str, usage: Usage) -> float | None:
        if self._prices is None:
            self._prices = load_prices()
        return self._prices.cost(model, usage)

    async def aclose(self) -> None:
        http, self._http = self._http, None
        if http is not None:
            await http.aclose()

    # -- one attempt --------------------------------------------------------------------
    async def _attempt(
        self, body: dict[str, Any], deadline_at: float, progress: Progress
    ) -> AsyncGenerator[StreamItem, None]:
        http = self._client()
        request = http.build_request("POST", self.endpoint, json=body, headers=self._headers())
        try:
            response = await self._under_deadline(http.send(request, stream=True), deadline_at, "")
        except httpx.TransportError as exc:
            raise send_failure(exc, self.host, self.base_url) from None
        try:
            if not 200 <= response.status_code < 300:
                await self._raise_for_status(response, deadline_at, body)
            content_type = response.headers.get("content-type", "")
            if content_type.startswith("text/html"):
                # A captive portal or a proxy login page, not a model server.
                raise StreamError(
                    f"{self.host} answered with a web page instead of a reply; check the "
                    "base URL and whether the network needs a login."
                )
            json_reply = content_type.startswith("application/json")
            reader = self._read_json if json_reply else self._read_sse
            async with contextlib.aclosing(reader(response, deadline_at, progress)) as items:
                async for item in items:
                    yield item
        finally:
            await response.aclose()

    async def _read_sse(
        self, response: httpx.Response, deadline_at: float, progress: Progress
    ) -> AsyncGenerator[StreamItem, None]:
        decoder = SSEDecoder()
        # httpx types aiter_lines as an AsyncIterator; it is an async generator (closable).
        lines_of = cast("AsyncGenerator[str, None]", response.aiter_lines())
        async with contextlib.aclosing(lines_of) as lines:
            while not progress.done:
                line = await self._next_line(lines, deadline_at, progress)
                event = decoder.flush() if line is None else decoder.feed(line)
                if event is not None:
                    for item in self._handle_event(event, progress):
                        yield item
                if line is None:
                    break
        if not progress.done and progress.finish_reason is None:
            raise StreamError(
                f"The stream from {self.host} ended early, before the reply was complete.",
                partial=progress.text,
            )
        if progress.usage is not None:
            yield Finish(progress.usage, progress.finish_reason, progress.tools.calls())

    async def _next_line(
        self, lines: AsyncIterator[str], deadline_at: float, progress: Progress
    ) -> str | None:
        try:
            return await self._under_deadline(anext(lines, None), deadline_at, progress.text)
        except httpx.TransportError as exc:
            raise read_failure(exc, self.host, self.read_timeout, progress.text,
                               started=bool(progress.parts)) from None

    def _handle_event(self, event: SSEEvent, progress: Progress) -> list[StreamItem]:
        if event.is_done:
            progress.done = True
            return []
        try:
            chunk = json.loads(event.data)
        except json.JSONDecodeError:
            chunk = None
        if not isinstance(chunk, dict):
            raise StreamError(
                f"{self.host} sent a malformed chunk: {scrub(event.data)[:80]!r}.",
                partial=progress.text,
            )
        error = stream_error_message(chunk, event.event)
        if error is not None:
            raise StreamError(
                f"{self.host} reported an error in the stream: {error}",
                partial=progress.text,
            )
        return chunk_items(chunk, progress)

    async def _read_json(
        self, response: httpx.Response, deadline_at: float, progress: Progress
    ) -> AsyncGenerator[StreamItem, None]:
        """A server that ignored `stream: true` and answered with one JSON completion."""
        raw = await self._read_capped(response, deadline_at, limit=None)
        try:
            document = json.loads(raw)
        except json.JSONDecodeError:
            document = None
        if not isinstance(document, dict):
            raise StreamError(f"{self.host} sent a reply that is not valid JSON.")
        error = stream_error_message(document, None)
        if error is not None:
            raise StreamError(f"{self.host} reported an error: {error}")
        for item in completion_items(document, progress):
            yield item

    # -- errors -------------------------------------------------------------------------
    async def _raise_for_status(
        self, response: httpx.Response, deadline_at: float, body: dict[str, Any]
    ) -> None:
        status = response.status_code
        try:
            raw = await self._read_capped(response, deadline_at, limit=MAX_ERROR_BODY_BYTES)
        except (httpx.TransportError, CallTimeout):
            raw = b""
        detail = server_message(raw)  # scrubbed, then cut
        retry_after = parse_retry_after(response.headers)
        message = status_message(self.host, status, response.reason_phrase or "", detail)
        if status not in (401, 403) and is_format_refusal(status, detail, body):
            self._refusals.remember(self.endpoint, str(body.get("model", "")))
            raise ResponseFormatRefused(message, status=status)
        retryable = is_retryable_status(status)
        error = status_error(message, status, retry_after, retryable)
        if retryable:
            raise Retryable(error, retry_after)
        raise error

    async def _read_capped(
        self, response: httpx.Response, deadline_at: float, limit: int | None
    ) -> bytes:
        async def read() -> bytes:
            data = bytearray()
            async for piece in response.aiter_bytes():
                data.extend(piece)
                if limit is not None and len(data) >= limit:
                    break
            return bytes(data)

        try:
            return await self._under_deadline(read(), deadline_at, "")
        except httpx.TimeoutException:
            raise CallTimeout(f"{self.host} did not finish its reply in time.") from None

    # -- plumbing -----------------------------------------------------------------------
    def _check_config(self) -> None:
        try:
            url = httpx.URL(self.base_url)
        except httpx.InvalidURL:
            url = None
        if url is None or url.scheme not in ("http", "https") or not url.host:
            raise ConfigError(
                f"The base URL {self.base_url!r} is not a valid http(s) URL; set it in Settings."
            )
        if self.__api_key is None and not is_local_host(url.host):
            raise ConfigError(
                f"No API key set for {url.host}; add one in Settings or use the offline model."
            )

    def _headers(self) -> dict[str, str]:
        headers = {"Accept": "text/event-stream", "User-Agent": USER_AGENT}
        if self.__api_key:
            headers["Authorization"] = f"Bearer {self.__api_key}"
        return headers

    def prepare(self) -> None:
        """Build the HTTP client (its SSL context) and load anyio's asyncio backend now,
        which httpcore imports lazily on the first request: otherwise the first streamed
        call stalls the window's event loop by 50-90 ms."""
        with contextlib.suppress(ImportError):  # loaded lazily by the first request otherwise
            import anyio._backends._asyncio
            import anyio.streams.tls  # noqa: F401
            import httpcore._backends.anyio  # noqa: F401
        self._client()

    def _client(self) -> httpx.AsyncClient:
        if self._http is None:
            timeout = httpx.Timeout(
                connect=self.connect_timeout,
                read=self.read_timeout,
                write=self.read_timeout,
                pool=self.connect_timeout,
            )
            self._http = httpx.AsyncClient(
                timeout=timeout, transport=self._transport, follow_redirects=False
            )
        return self._http

    async def _under_deadline(
        self, awaitable: Awaitable[_T], deadline_at: float, partial: str
    ) -> _T:
        try:
            async with asyncio.timeout_at(deadline_at):
                return await awaitable
        except TimeoutError:
            raise CallTimeout(
                f"No complete reply from {self.host} within {self.deadline:g} s.",
                partial=partial,
                hint="The call's deadline passed; it is not tried again. Raise the deadline "
                     "(run --deadline SECONDS) or try later.",
                final=True,
            ) from None


def is_local_host(host: str) -> bool:
    """Loopback servers (llama.cpp, Ollama, LM Studio) usually need no key."""
    host = host.strip("[]").lower()
    if host in _LOCAL_NAMES or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False

