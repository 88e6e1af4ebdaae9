"""SSE decoding: data lines, comments, event names, [DONE], multi-line data."""

from __future__ import annotations

import pytest

from roundtable_desktop.llm.sse import SSEDecoder, SSEEvent, decode_lines


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        pytest.param(['data: {"a": 1}', ""], [SSEEvent('{"a": 1}')], id="one data event"),
        pytest.param(['data:{"a": 1}', ""], [SSEEvent('{"a": 1}')], id="no space after colon"),
        pytest.param(["data: [DONE]", ""], [SSEEvent("[DONE]")], id="done marker"),
        pytest.param([": keep-alive", "", ":", ""], [], id="comments are dropped"),
        pytest.param(
            [": ping", "data: x", ": ping", ""], [SSEEvent("x")], id="comment inside an event"
        ),
        pytest.param(["data: a", "data: b", ""], [SSEEvent("a\nb")], id="multi-line data"),
        pytest.param(
            ["event: error", 'data: {"message": "m"}', ""],
            [SSEEvent('{"message": "m"}', event="error")],
            id="named event",
        ),
        pytest.param(["data: x\r", "\r"], [SSEEvent("x")], id="CRLF endings"),
        pytest.param(["id: 7", "retry: 100", "data: x", ""], [SSEEvent("x")], id="id ignored"),
        pytest.param(["", "", "data: x", ""], [SSEEvent("x")], id="blank lines alone"),
        pytest.param(["data: tail"], [SSEEvent("tail")], id="flushed at end of stream"),
        pytest.param(["event: only", ""], [], id="event without data"),
        pytest.param(["data: a", "", "data: b", ""], [SSEEvent("a"), SSEEvent("b")], id="two"),
    ],
)
def test_decodes_lines_into_events(lines, expected):
    assert decode_lines(lines) == expected


@pytest.mark.parametrize(
    ("data", "done"), [("[DONE]", True), (" [DONE] ", True), ('{"x": "[DONE]"}', False)]
)
def test_done_is_recognised_only_as_the_whole_payload(data, done):
    assert SSEEvent(data).is_done is done


def test_an_event_is_returned_by_the_blank_line_that_completes_it():
    decoder = SSEDecoder()
    assert decoder.feed("data: x") is None
    assert decoder.feed("") == SSEEvent("x")
    assert decoder.flush() is None


def test_an_event_name_does_not_leak_into_the_next_event():
    events = decode_lines(["event: error", "data: a", "", "data: b", ""])
    assert [e.event for e in events] == ["error", None]
