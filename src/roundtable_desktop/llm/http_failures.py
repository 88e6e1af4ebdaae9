"""What a failed HTTP exchange with an OpenAI-compatible endpoint means to the caller:
which `LLMError` (llm/errors.py), worded how, and whether it may be tried again.

Pure functions over httpx exceptions and status answers, used by the chat client
(llm/openai_compat.py), which owns the flow: sending, reading, deadlines and retries. A
failure that may be retried (nothing of the reply has reached the caller yet) comes back
wrapped in `Retryable`; the client decides whether to retry it. Text a server sent is
scrubbed of known secrets (domain/secrets.py) before it is cut into a message.

Must do no I/O, never put the API key in a message, and must not import Qt, protocols
or the store.
"""

from __future__ import annotations

import httpx

from roundtable_desktop.domain.secrets import scrub
from roundtable_desktop.llm.errors import (
    AuthError,
    CallTimeout,
    HTTPStatusError,
    LLMError,
    RateLimited,
    StreamError,
    TransportError,
)
from roundtable_desktop.llm.retry import MAX_RETRY_AFTER_S, retry_after_too_long


class Retryable(Exception):
    """A failure before any reply text reached the caller; `error` is raised if no retry."""

    def __init__(self, error: LLMError, retry_after: float | None = None) -> None:
        super().__init__(error.message)
        self.error = error
        self.retry_after = retry_after


def send_failure(exc: httpx.TransportError, host: str, base_url: str) -> Exception:
    """The failure to raise when sending the request (or waiting for its headers) failed."""
    if isinstance(exc, httpx.TimeoutException):
        return Retryable(CallTimeout(f"{host} did not answer in time ({failure_kind(exc)})."))
    if isinstance(exc, httpx.ProtocolError) and not closed_early(exc):
        return malformed_response(exc, host)  # a broken server or proxy says the same again
    return Retryable(TransportError(transport_message(exc, host, base_url)))


def read_failure(
    exc: httpx.TransportError, host: str, read_timeout: float, partial: str, started: bool
) -> Exception:
    """The failure to raise when reading the streamed reply failed; `started` says whether
    reply text already reached the caller (then it is never retried)."""
    if isinstance(exc, httpx.TimeoutException):
        if not started:
            return Retryable(CallTimeout(
                f"{host} sent no reply within {read_timeout:g} s ({failure_kind(exc)})."
            ))
        return CallTimeout(
            f"{host} stopped sending for {read_timeout:g} s in the middle of the reply.",
            partial=partial,
        )
    if isinstance(exc, httpx.ProtocolError) and not closed_early(exc):
        return malformed_response(exc, host, partial=partial)
    if not started:
        return Retryable(TransportError(
            f"The connection to {host} dropped before the reply ({failure_kind(exc)})."
        ))
    return StreamError(f"The connection to {host} dropped in the middle of the reply.",
                       partial=partial)


def status_message(host: str, status: int, reason: str, detail: str) -> str:
    """One sentence for a non-2xx answer; `detail` is the server's (scrubbed) message."""
    message = f"{host} answered HTTP {status}{' ' + reason if reason else ''}"
    message += f": {detail}" if detail else "."
    if not message.endswith((".", "!", "?")):
        message += "."
    return message


def status_error(message: str, status: int, retry_after: float | None,
                 retryable: bool) -> HTTPStatusError:
    """The error of a non-2xx answer other than a `response_format` refusal."""
    if status in (401, 403):
        return AuthError(message, status=status)
    if retryable and retry_after_too_long(retry_after):
        message += (
            f" The server asked to wait {retry_after:.0f} s, longer than "
            f"{MAX_RETRY_AFTER_S:.0f} s, so the call was not retried; try again later."
        )
    error_type = RateLimited if status == 429 else HTTPStatusError
    return error_type(message, status=status, retry_after=retry_after)


def transport_message(exc: httpx.TransportError, host: str, base_url: str) -> str:
    if isinstance(exc, httpx.UnsupportedProtocol):
        return f"The base URL {base_url!r} must start with http:// or https://."
    return f"Could not reach {host} ({failure_kind(exc)}): {scrub(str(exc))[:200]}"


def malformed_response(exc: httpx.ProtocolError, host: str, partial: str = "") -> TransportError:
    """h11/httpcore refused what the server sent (a header too large, a bad status
    line): not a network problem, so not "Could not reach"."""
    detail = scrub(str(exc))[:120]
    return TransportError(
        f"The server at {host} sent a malformed or oversized response"
        + (f" ({detail})." if detail else "."),
        partial=partial,
        hint="Check the base URL: it may point at a proxy or a server that is not an "
             "OpenAI-compatible API.",
    )


def noting_attempts(error: LLMError, attempts: int) -> LLMError:
    if attempts > 1:
        error.message = f"{error.message} (tried {attempts} times)"
        error.args = (error.message,)
    return error


def closed_early(exc: httpx.ProtocolError) -> bool:
    """The peer closed the connection (httpcore words it so), rather than sending
    something h11 could not read."""
    text = str(exc).lower()
    return "disconnected" in text or "closed connection" in text


def failure_kind(exc: Exception) -> str:
    names: dict[type[Exception], str] = {
        httpx.ConnectTimeout: "connect timeout",
        httpx.ReadTimeout: "read timeout",
        httpx.WriteTimeout: "write timeout",
        httpx.PoolTimeout: "no free connection",
        httpx.ConnectError: "connection failed",
        httpx.RemoteProtocolError: "the server closed the connection",
        httpx.ReadError: "read error",
    }
    return names.get(type(exc), type(exc).__name__)
