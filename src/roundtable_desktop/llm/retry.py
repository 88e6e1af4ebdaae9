"""When a failed model call is tried again, and how long to wait first.

The rules follow the OpenAI SDK: retry connect errors, timeouts, HTTP 408, 409, 429 and
>= 500, at most `max_retries` times; wait `min(0.5 * 2**n, 8)` seconds times a random
factor in 0.75..1.0, unless the server said how long (`retry-after-ms`, then
`Retry-After` as seconds or an HTTP date). A server that asks for more than 60 s is not
retried at all: the user is told to come back later instead of staring at a frozen call.
Must not do I/O or know about httpx; the client decides what failed and does the sleeping
through the policy's injectable `sleep`.
"""

from __future__ import annotations

import asyncio
import math
import random
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

MAX_RETRY_AFTER_S = 60.0
DEFAULT_MAX_RETRIES = 2
RETRYABLE_STATUSES = frozenset({408, 409, 429})


def is_retryable_status(status: int) -> bool:
    """408 timeout, 409 conflict (lock contention), 429 rate limit, any 5xx."""
    return status in RETRYABLE_STATUSES or status >= 500


def backoff_delay(retries_done: int, rng: Callable[[], float] = random.random) -> float:
    """Seconds before retry number `retries_done + 1`: min(0.5 * 2**n, 8) * 0.75..1.0."""
    base = min(0.5 * 2.0**retries_done, 8.0)
    return base * (1.0 - 0.25 * rng())


def parse_retry_after(headers: Mapping[str, str], now: datetime | None = None) -> float | None:
    """Seconds the server asked us to wait, or None when it did not say (or said nonsense).

    `retry-after-ms` wins over `Retry-After`; a date in the past means "now" (0 s).
    """
    lowered = {key.lower(): value for key, value in headers.items()}
    millis = _non_negative_float(lowered.get("retry-after-ms"))
    if millis is not None:
        return millis / 1000.0
    raw = lowered.get("retry-after")
    if raw is None:
        return None
    seconds = _non_negative_float(raw)
    if seconds is not None:
        return seconds
    try:
        when = parsedate_to_datetime(raw.strip())
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # HTTP dates are GMT; a naive one is read as UTC
        when = when.replace(tzinfo=UTC)
    current = now or datetime.now(UTC)
    return max(0.0, (when - current).total_seconds())


def _non_negative_float(raw: str | None) -> float | None:
    if raw is None:
        return None
    try:
        value = float(raw.strip())
    except ValueError:
        return None
    if not math.isfinite(value) or value < 0:
        return None
    return value


def retry_after_too_long(retry_after: float | None) -> bool:
    """True when the server's requested wait is beyond what we wait for silently."""
    return retry_after is not None and retry_after > MAX_RETRY_AFTER_S


@dataclass
class RetryPolicy:
    """Decides the wait before each retry; `rng` and `sleep` are seams for tests."""

    max_retries: int = DEFAULT_MAX_RETRIES
    rng: Callable[[], float] = random.random
    sleep: Callable[[float], Awaitable[object]] = field(default=asyncio.sleep)

    def delay_before_retry(self, retries_done: int, retry_after: float | None) -> float | None:
        """Seconds to wait before the next try, or None when the call must not be retried.

        None when the retries are used up or the server asked for more than 60 s. A
        server-given wait of 0 falls back to backoff so a busy server is not hammered.
        """
        if retries_done >= self.max_retries or retry_after_too_long(retry_after):
            return None
        if retry_after is not None and retry_after > 0:
            return retry_after
        return backoff_delay(retries_done, self.rng)

    async def wait(self, delay_s: float) -> None:
        await self.sleep(delay_s)
