"""Each fault of a real HTTP peer: what the user sees, and the call row in the store.

The fake OpenAI-compatible server is a separate process on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import sqlite3

import pytest

from roundtable_desktop.domain.events import Notice
from roundtable_desktop.engine.base import Action
from roundtable_desktop.llm.openai_compat import OpenAICompatClient
from tests.engine_fixtures import start_recorded

KEY = "sk-test-0123456789abcdef-SECRET"


async def _no_wait(_seconds: float) -> None:
    return None


def _client(fake, **kw) -> OpenAICompatClient:
    kw.setdefault("read_timeout", 2.0)
    return OpenAICompatClient(fake.base_url, KEY, sleep=_no_wait, **kw)


def _infer_once(store, catalog, client) -> tuple[list[Notice], object]:
    async def scenario():
        handle = await start_recorded(store, client, catalog)
        notices: list[Notice] = []
        handle.bus.subscribe(lambda e: notices.append(e) if isinstance(e, Notice) else None)
        await handle.session.perform(Action(id="infer"))
        await client.aclose()
        return notices, handle

    return asyncio.run(scenario())


@pytest.fixture
def fake(fake_openai):
    fake_openai.reset()
    return fake_openai


def test_request_row_is_on_disk_before_the_request_is_sent(fake, store, catalog, tmp_path):
    seen = []

    async def scenario():
        client = _client(fake)
        handle = await start_recorded(store, client, catalog)

        def check(event):
            if event.type == "call_started":
                other = sqlite3.connect(tmp_path / "sessions.sqlite3")
                seen.append(other.execute("SELECT status FROM calls WHERE id = ?",
                                          (event.call_id,)).fetchone())
                other.close()
                seen.append(len(fake.requests()))

        handle.bus.subscribe(check)
        await handle.session.perform(Action(id="infer"))
        await client.aclose()

    asyncio.run(scenario())
    assert seen == [("pending",), 0]


def test_429_with_retry_after_then_success(fake, store, catalog):
    fake.script([{"kind": "status", "status": 429, "headers": {"Retry-After": "2"}},
                 {"kind": "ok", "text": "CALL: passTurn()"}])
    notices, handle = _infer_once(store, catalog, _client(fake))
    (call,) = store.calls(handle.session_id)
    assert call.status == "ok" and call.response_text == "CALL: passTurn()"
    assert notices == []
    assert handle.session.state.pending_calls[0].name == "passTurn"


def test_500_then_success(fake, store, catalog):
    fake.script([{"kind": "status", "status": 500}, {"kind": "ok", "text": "CALL: passTurn()"}])
    _notices, handle = _infer_once(store, catalog, _client(fake))
    assert store.calls(handle.session_id)[0].status == "ok"
    assert len(fake.requests()) == 2


def test_persistent_429_fails_with_a_clear_message(fake, store, catalog):
    fake.script([{"kind": "status", "status": 429, "headers": {"Retry-After": "1"},
                  "repeat": 3}])
    notices, handle = _infer_once(store, catalog, _client(fake))
    (call,) = store.calls(handle.session_id)
    assert call.status == "failed" and "429" in call.error
    assert "429" in notices[0].message and notices[0].hint
    assert handle.session.state.phase == "ready"  # nothing parsed; the user may retry


def test_401_fails_without_retry_and_says_the_key_was_rejected(fake, store, catalog):
    fake.script([{"kind": "status", "status": 401}])
    notices, handle = _infer_once(store, catalog, _client(fake))
    assert len(fake.requests()) == 1
    assert store.calls(handle.session_id)[0].status == "failed"
    assert "key" in notices[0].hint.lower()


def test_slow_first_token_past_the_read_timeout_fails_as_a_timeout(fake, store, catalog):
    fake.script([{"kind": "slow_first_token", "delay_s": 1.2, "repeat": 3}])
    notices, handle = _infer_once(store, catalog, _client(fake, read_timeout=0.3))
    (call,) = store.calls(handle.session_id)
    assert call.status == "failed"
    assert "timed out" in notices[0].message.lower() or "timeout" in notices[0].message.lower()


def test_stream_cut_mid_reply_keeps_the_partial_text(fake, store, catalog):
    fake.script([{"kind": "drop", "text": "CALL: addWhiteboard(\"half"}])
    notices, handle = _infer_once(store, catalog, _client(fake))
    (call,) = store.calls(handle.session_id)
    assert call.status == "partial"
    assert call.response_text == 'CALL: addWhiteboard("half'
    assert notices and notices[0].level == "error"
    assert handle.session.state.whiteboard == []  # a broken reply runs no tool


def test_malformed_chunk_is_an_error_not_text(fake, store, catalog):
    fake.script([{"kind": "malformed", "text": "CALL: pass"}])
    _notices, handle = _infer_once(store, catalog, _client(fake))
    (call,) = store.calls(handle.session_id)
    assert call.status in {"partial", "failed"}
    assert "malformed" in call.error.lower()


def test_error_object_inside_the_stream_is_an_error(fake, store, catalog):
    fake.script([{"kind": "error_in_stream", "text": "CALL: ",
                  "message": "upstream model crashed"}])
    notices, handle = _infer_once(store, catalog, _client(fake))
    (call,) = store.calls(handle.session_id)
    assert call.status == "partial" and "upstream model crashed" in call.error
    assert "upstream model crashed" in notices[0].message
