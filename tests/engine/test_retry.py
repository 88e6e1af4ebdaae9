"""Retry policy: which statuses retry, backoff with jitter, Retry-After parsing and cap."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from roundtable_desktop.llm.retry import (
    RetryPolicy,
    backoff_delay,
    is_retryable_status,
    parse_retry_after,
)

NOW = datetime(2025, 1, 1, 12, 0, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("status", "retryable"),
    [(400, False), (401, False), (403, False), (404, False), (408, True), (409, True),
     (422, False), (429, True), (500, True), (502, True), (503, True), (529, True)],
)
def test_which_statuses_are_retried(status, retryable):
    assert is_retryable_status(status) is retryable


@pytest.mark.parametrize(
    ("retries_done", "rng", "expected"),
    [(0, 0.0, 0.5), (0, 1.0, 0.375), (1, 0.0, 1.0), (2, 0.0, 2.0), (3, 0.5, 3.5),
     (4, 0.0, 8.0), (10, 0.0, 8.0), (10, 1.0, 6.0)],
)
def test_backoff_doubles_from_half_a_second_up_to_8_with_jitter(retries_done, rng, expected):
    assert backoff_delay(retries_done, lambda: rng) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({}, None),
        ({"Retry-After": "3"}, 3.0),
        ({"retry-after": "1.5"}, 1.5),
        ({"Retry-After": "0"}, 0.0),
        ({"retry-after-ms": "250"}, 0.25),
        ({"retry-after-ms": "250", "Retry-After": "9"}, 0.25),
        ({"retry-after-ms": "soon", "Retry-After": "9"}, 9.0),
        ({"Retry-After": "Wed, 01 Jan 2025 12:00:30 GMT"}, 30.0),
        ({"Retry-After": "Wed, 01 Jan 2025 11:59:00 GMT"}, 0.0),
        ({"Retry-After": "-5"}, None),
        ({"Retry-After": "nan"}, None),
        ({"Retry-After": "later, please"}, None),
    ],
)
def test_parses_retry_after_headers(headers, expected):
    assert parse_retry_after(headers, now=NOW) == expected


@pytest.mark.parametrize(
    ("retries_done", "retry_after", "expected"),
    [
        (0, None, 0.5),
        (1, None, 1.0),
        (2, None, None),
        (0, 3.0, 3.0),
        (0, 60.0, 60.0),
        (0, 61.0, None),
        (0, 0.0, 0.5),
        (2, 1.0, None),
    ],
)
def test_delay_before_retry(retries_done, retry_after, expected):
    policy = RetryPolicy(max_retries=2, rng=lambda: 0.0)
    assert policy.delay_before_retry(retries_done, retry_after) == expected


def test_waiting_goes_through_the_injected_sleep():
    waits: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        waits.append(seconds)

    asyncio.run(RetryPolicy(sleep=fake_sleep).wait(1.25))
    assert waits == [1.25]
