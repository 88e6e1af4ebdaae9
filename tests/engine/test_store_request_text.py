"""How a request body is stored: a JSON header line, then the message texts as they are."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from roundtable_desktop.domain.secrets import REDACTED, remember_secret
from roundtable_desktop.store.request_text import request_from_text, request_text

WINDOW = ('<section class="candidates">\n  <li id="c1">Caf\u00e9 \U0001f600 "quoted"</li>\n'
          "</section>")
BODY = {
    "model": "m",
    "messages": [
        {"role": "system", "content": "You are Alice.\nBe brief."},
        {"role": "user", "content": WINDOW},
    ],
    "stream": True,
    "stream_options": {"include_usage": True},
}


def round_trip(body: dict) -> dict:
    return request_from_text(request_text(body).decode("utf-8"))


def test_a_body_reads_back_as_the_same_dict():
    assert round_trip(BODY) == BODY


def test_the_context_window_is_stored_as_it_is_not_escaped_as_json():
    stored = request_text(BODY)
    assert WINDOW.encode("utf-8") in stored
    assert json.dumps(WINDOW).encode() not in stored


@pytest.mark.parametrize("content", [
    "", "\n", "[0, 1]\n{}", "line one\nline two\n", "nul \x00 inside", "\\n escaped",
    "\u2066 bidi \u202e", "a" * 100_000,
], ids=["empty", "newline", "header-like", "lines", "nul", "backslash", "bidi", "long"])
def test_any_message_text_reads_back_byte_for_byte(content):
    body = {"model": "m", "messages": [{"role": "user", "content": content},
                                       {"role": "assistant", "content": content}]}
    assert round_trip(body) == body


def test_a_lone_surrogate_is_stored_as_a_replacement_character():
    body = {"model": "m", "messages": [{"role": "user", "content": "a\ud800b"}]}
    assert round_trip(body)["messages"][0]["content"] == "a\ufffdb"


def test_a_message_whose_content_is_not_text_keeps_it_in_the_header():
    body = {"model": "m", "messages": [
        {"role": "assistant", "content": None, "tool_calls": [{"id": "t1"}]},
        {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        {"role": "tool", "content": "result", "tool_call_id": "t1"},
    ]}
    assert round_trip(body) == body


def test_a_body_without_messages_reads_back():
    assert round_trip({"model": "m", "input": "x"}) == {"model": "m", "input": "x"}


def test_an_older_stores_json_body_still_reads_back():
    assert request_from_text(json.dumps(BODY)) == BODY


def test_a_known_secret_in_a_message_is_redacted_and_the_rest_still_lines_up():
    remember_secret("sk-planted-0123456789abcdef")
    body = {"model": "m", "messages": [
        {"role": "user", "content": "key sk-planted-0123456789abcdef here"},
        {"role": "user", "content": "after"},
    ]}
    found = round_trip(body)
    assert found["messages"][0]["content"] == f"key {REDACTED} here"
    assert found["messages"][1]["content"] == "after"


@pytest.mark.parametrize("text", [
    "[[5],", "[[5],{}]", "[[5],{\"messages\":[{}]}]\nabc",
    "[[1,2],{\"messages\":[{},{}]}]\nabcd", "[[-1],{\"messages\":[{}]}]\n",
    "[[\"x\"],{\"messages\":[{}]}]\nabc", "[[1],{\"messages\":[7]}]\na",
], ids=["no-header-end", "no-messages", "too-short", "too-long", "negative", "not-a-number",
        "message-not-an-object"])
def test_a_damaged_stored_request_is_a_value_error(text):
    with pytest.raises(ValueError):
        request_from_text(text)


_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=200)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["system", "user", "assistant", "tool"]), _TEXT),
                max_size=6),
       st.dictionaries(st.sampled_from(["temperature", "seed", "stop"]),
                       st.one_of(st.integers(), _TEXT), max_size=3))
def test_every_body_of_text_messages_reads_back(messages, options):
    body = {"model": "m", "messages": [{"role": r, "content": c} for r, c in messages],
            **options}
    assert round_trip(body) == body
