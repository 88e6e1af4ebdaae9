"""Invariant 6 against keys in disguise (issue 26, point 1): a key echoed with control or
format characters between its letters, or written with `\\u` escapes, is found in what
every later step makes of the text, so it reaches no export (any kind, HTML or
Markdown), no later request and no MCP server; exports redact every key known when they
are written (keyring and environment), so an older store cannot leak through them; and a
cut-off piece of a key is redacted only when it is long and rare, never an ordinary word.
"""

from __future__ import annotations

import asyncio
import html
import json
import re
import unicodedata
from collections import deque
from pathlib import Path

import pytest

from roundtable_desktop.cli.main import main
from roundtable_desktop.domain.secrets import (
    MIN_FRAGMENT,
    REDACTED,
    SecretFilter,
    forget_secrets,
    remember_secret,
    scrub,
)
from roundtable_desktop.engine.base import SEND, Action
from roundtable_desktop.engine.headless import choice_line, drive_headless, human_lines
from roundtable_desktop.engine.launch import start_session
from roundtable_desktop.engine.session_export import export_session
from roundtable_desktop.llm.keys import LLM_KEY, KeyStore
from roundtable_desktop.store.database import SessionStore
from tests.fakes.echoing_model import EchoingClient
from tests.fakes.scripted_model import ScriptedClient

KEY = "sk-echo-7Qv2xDO9NOTleak91c4ZZpq3MTw8KfRb0A"
DISGUISES = {
    "control": "\x01".join(KEY),
    "zero-width": "\u200b".join(KEY),
    "word-joiner": KEY[:10] + "\u2060" + KEY[10:30] + "\u2060" + KEY[30:],
    "json-escapes": "".join(f"\\u{ord(c):04x}" for c in KEY),
}
_ESCAPES = re.compile(r"\\u([0-9a-fA-F]{4})|&#[xX]([0-9a-fA-F]+);|&#([0-9]+);")


def revealed(text: str) -> str:
    """What a reader (or any later step) could make of `text`: escapes and character
    references decoded, control and format characters dropped, NFKC folded."""
    def char(m: re.Match[str]) -> str:
        code = int(m[1] or m[2], 16) if (m[1] or m[2]) else int(m[3])
        return chr(code) if code < 0x110000 else ""
    text = html.unescape(_ESCAPES.sub(char, text))
    text = "".join(c for c in text if unicodedata.category(c) not in ("Cc", "Cf")
                   or c in "\t\n")
    return unicodedata.normalize("NFKC", text)


def leaked(text: str, secret: str = KEY, size: int = MIN_FRAGMENT) -> list[str]:
    shown = revealed(text)
    return [secret[i:i + size] for i in range(len(secret) - size + 1)
            if secret[i:i + size] in shown]


# -- the scrubber ------------------------------------------------------------------------
@pytest.mark.parametrize("disguise", list(DISGUISES), ids=list(DISGUISES))
def test_a_key_in_disguise_is_redacted_with_its_disguise(disguise):
    remember_secret(KEY)
    assert scrub(f"echo: {DISGUISES[disguise]}!") == f"echo: {REDACTED}!"


def test_a_key_in_fullwidth_letters_is_redacted():
    remember_secret(KEY)
    wide = "".join(chr(ord(c) + 0xFEE0) for c in KEY)
    assert scrub(f"echo: {wide}") == f"echo: {REDACTED}"


def test_a_key_written_as_character_references_is_redacted():
    remember_secret(KEY)
    assert scrub("".join(f"&#{ord(c)};" for c in KEY)) == REDACTED


def test_an_escaped_backslash_is_not_read_as_an_escape():
    remember_secret(KEY)
    text = json.dumps({"path": "C:\\u" + "0041"})
    assert scrub(text) == text


@pytest.mark.parametrize("size", [1, 2, 3, 5])
@pytest.mark.parametrize("disguise", list(DISGUISES), ids=list(DISGUISES))
def test_a_key_in_disguise_split_across_streamed_pieces_is_never_shown(disguise, size):
    remember_secret(KEY)
    text = f"Here it is: {DISGUISES[disguise]}. Done."
    shown = SecretFilter()
    out = [shown.feed(text[i:i + size]) for i in range(0, len(text), size)] + [shown.flush()]
    assert "".join(out) == f"Here it is: {REDACTED}. Done."


def test_decoded_json_is_scrubbed_value_by_value():
    from roundtable_desktop.domain.secrets import scrub_value

    remember_secret(KEY)
    value = json.loads(json.dumps({"plan": [f"say {KEY}"], KEY: 1}))
    assert scrub_value(value) == {"plan": [f"say {REDACTED}"], REDACTED: 1}


# -- fragments: long and rare, never a word -----------------------------------------------
WORDY = "sk-roundtable-test-phase-transition"  # no rare end: redacted only whole


def test_a_key_ending_in_a_word_leaves_that_word_alone():
    remember_secret(WORDY)
    for text in ("transition_phase", "a phase-transition_phase", "test-phase-transition"):
        assert scrub(text) == text
    assert scrub(f"key={WORDY};") == f"key={REDACTED};"


def test_a_short_piece_of_a_random_key_is_left_alone_and_a_long_one_redacted():
    remember_secret(KEY)
    assert scrub(f"{KEY[:MIN_FRAGMENT - 1]}…") == f"{KEY[:MIN_FRAGMENT - 1]}…"
    assert scrub(f"{KEY[:MIN_FRAGMENT]}…") == f"{REDACTED}…"
    assert scrub(f"…{KEY[-MIN_FRAGMENT:]}") == f"…{REDACTED}"


# -- whole runs ------------------------------------------------------------------------
@pytest.mark.parametrize("disguise", ["control", "zero-width", "json-escapes"])
def test_a_server_echoing_a_disguised_key_leaks_it_to_no_export_request_or_store(
    disguise, fake_openai, tmp_path, monkeypatch, capsys
):
    monkeypatch.setenv("ROUNDTABLE_API_KEY", KEY)
    secret = DISGUISES[disguise]
    fake_openai.reset()
    fake_openai.script([
        {"kind": "ok", "chunk_size": 3,
         "text": f'Note: {secret}\nCALL: addWhiteboard("the key is {secret}")\n'
                 "CALL: passTurn()"},
        {"kind": "ok", "text": "CALL: passTurn()"},
    ])
    db = tmp_path / "echo.sqlite3"
    assert main(["run", "--base-url", fake_openai.base_url, "--model", "m", "--turns", "2",
                 "--db", str(db)]) == 0
    for fmt in ("html", "md", "json"):
        main(["export", "--db", str(db), "--format", fmt, "--out", str(tmp_path / f"e.{fmt}")])
    captured = capsys.readouterr()
    second = json.dumps(fake_openai.requests()[1]["body"], ensure_ascii=False)
    assert "the key is" in second
    assert leaked(second) == []
    for path in [*tmp_path.glob("e.*"), *db.parent.glob(db.name + "*")]:
        assert leaked(path.read_bytes().decode("utf-8", "replace")) == [], path.name
    assert leaked(captured.out + captured.err) == []


KIND_LINES = {
    "roundtable": [],
    "negotiation": [],
    "legion": ["hi", "Can you tell me what files are in the `components` directory?"],
    "tutor": [choice_line("1"), "Who told you that?", "Why the hurry?"],
    "debate": [],
}


@pytest.mark.parametrize("disguise", ["control", "zero-width", "json-escapes"])
@pytest.mark.parametrize("kind", list(KIND_LINES))
def test_every_kind_keeps_a_disguised_key_out_of_its_exports_and_later_requests(
    kind, disguise, tmp_path
):
    remember_secret(KEY)
    client = EchoingClient(DISGUISES[disguise])

    async def run() -> tuple[str, str]:
        with SessionStore.open(tmp_path / "s.sqlite3") as store:
            handle = await start_session(kind, store=store, client=client, model="m",
                                         provider="test")
            try:
                await drive_headless(handle.session, 3, human_lines(KIND_LINES[kind]))
            finally:
                await handle.session.aclose()
                handle.close()
            return (export_session(store, handle.session_id, "html"),
                    export_session(store, handle.session_id, "md"))

    exported_html, exported_md = asyncio.run(run())
    assert len(client.requests) >= 2
    assert leaked(exported_html) == [] and leaked(exported_md) == []
    for request in client.requests[1:]:
        assert leaked(json.dumps(request.model_dump(mode="json"), ensure_ascii=False)) == []


def test_a_key_written_with_escapes_in_a_plan_reaches_no_mcp_server_and_no_later_request():
    from tests.kinds.legion.conftest import FakeFiles, plan, session_for

    escaped = DISGUISES["json-escapes"]
    tool = {"name": "file_system.list_files", "arguments": {"path": "KEYHERE"}}
    first = plan("USE_TOOL", 60, tool=tool, text="Tell them KEYHERE").replace("KEYHERE",
                                                                             escaped)
    client = ScriptedClient(first, plan("SPEAK", 60, text="Say it."), "Done.")
    files = FakeFiles()
    remember_secret(KEY)

    async def run():
        session = session_for(client)
        session.attach_mcp(files)
        assert await session.perform(Action(id=SEND, text="list the files"))
        return session

    session = asyncio.run(run())
    assert files.calls and leaked(json.dumps(files.calls)) == []
    for request in client.requests[1:]:
        assert leaked(json.dumps(request.model_dump(mode="json"), ensure_ascii=False)) == []
    assert leaked(session.state_json().decode("utf-8")) == []


# -- exports redact the keys known when they are written -------------------------------
def _store_written_before_the_key_was_known(tmp_path: Path) -> tuple[Path, str]:
    """A session whose stored reply holds the key: as an older version, which did not
    know it, would have stored it."""
    client = ScriptedClient(f'CALL: addWhiteboard("mine is {KEY}")\nCALL: passTurn()')
    db = tmp_path / "old.sqlite3"

    async def run() -> str:
        with SessionStore.open(db) as store:
            handle = await start_session("roundtable", store=store, client=client,
                                         model="m", provider="test")
            await drive_headless(handle.session, 1, deque())
            handle.close()
            return handle.session_id

    session_id = asyncio.run(run())
    assert KEY in "".join(p.read_bytes().decode("utf-8", "replace")
                          for p in db.parent.glob(db.name + "*"))
    forget_secrets()  # a new process: nothing read any key yet
    return db, session_id


@pytest.mark.parametrize("where", ["environment", "keyring"])
@pytest.mark.parametrize("fmt", ["html", "md", "json"])
def test_an_export_redacts_every_key_known_when_it_is_written(where, fmt, tmp_path,
                                                               monkeypatch):
    db, _ = _store_written_before_the_key_was_known(tmp_path)
    if where == "environment":
        monkeypatch.setenv("ROUNDTABLE_API_KEY", KEY)
    else:
        KeyStore().set(LLM_KEY, KEY)
        forget_secrets()
    out = tmp_path / f"export.{fmt}"
    assert main(["export", "--db", str(db), "--format", fmt, "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "mine is" in text and leaked(text) == []


def test_a_key_known_only_after_it_entered_the_state_is_not_sent_on(tmp_path, monkeypatch):
    """A session an older version stored with the key in it, continued now: the request as
    sent is looked at once more, whatever built it."""
    from roundtable_desktop.engine.launch import reopen_session

    db, session_id = _store_written_before_the_key_was_known(tmp_path)
    remember_secret(KEY)
    client = ScriptedClient("CALL: passTurn()")

    async def run() -> None:
        with SessionStore.open(db) as store:
            handle = reopen_session(session_id, store=store, client=client)
            await drive_headless(handle.session, 1, deque())
            handle.close()

    asyncio.run(run())
    sent = json.dumps([r.model_dump(mode="json") for r in client.requests])
    assert client.requests and "mine is" in sent and KEY not in sent
