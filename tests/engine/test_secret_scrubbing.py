"""Invariant 6 against servers and models that echo a key: scrub, then cut; and every
stored, printed, exported or re-sent text is scrubbed of every known key, the model's and
YouTube's (issue 9, cases 3 and 4). tests/engine/test_secrets.py covers where keys are kept."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from roundtable_desktop.cli.main import main
from roundtable_desktop.domain.secrets import (
    MIN_FRAGMENT,
    REDACTED,
    SecretFilter,
    remember_secret,
    scrub,
    scrub_bytes,
)
from roundtable_desktop.llm.chat_chunks import (
    MAX_SERVER_MESSAGE_CHARS,
    server_message,
    stream_error_message,
)
from roundtable_desktop.llm.keys import LLM_KEY, YOUTUBE_KEY, KeyStore
from tests.fakes.youtube_fixture import fake_youtube  # noqa: F401

KEY = "sk-echo-7Qv2xDO9NOTleak91c4ZZpq3MTw8KfRb0A"  # 42 characters, as in the issue
YOUTUBE = "AIzaSyD-echoEcho-0123456789abcdefghijk"


def _leaked_pieces(text: str, secret: str = KEY, size: int = 6) -> list[str]:
    """Every piece of `secret` at least `size` characters long that appears in `text`."""
    return [secret[i:i + size] for i in range(len(secret) - size + 1)
            if secret[i:i + size] in text]


def _store_files(db: Path) -> list[Path]:
    return [p for p in db.parent.glob(db.name + "*") if p.is_file()]


def _all_text(paths: list[Path]) -> str:
    return "\n".join(p.read_bytes().decode("utf-8", errors="replace") for p in paths)


# -- the registry --------------------------------------------------------------------------
def test_a_remembered_secret_is_redacted_wherever_it_appears():
    remember_secret(KEY)
    assert scrub(f"a{KEY}b {KEY}") == f"a{REDACTED}b {REDACTED}"


@pytest.mark.parametrize("kept", [MIN_FRAGMENT, 20, len(KEY) - 1])
def test_a_cut_off_head_of_a_secret_is_redacted(kept):
    remember_secret(KEY)
    assert scrub(f"echo: {KEY[:kept]}…") == f"echo: {REDACTED}…"


@pytest.mark.parametrize("kept", [MIN_FRAGMENT, 20, len(KEY) - 1])
def test_a_cut_off_tail_of_a_secret_is_redacted(kept):
    remember_secret(KEY)
    assert scrub(f"…{KEY[-kept:]} end") == f"…{REDACTED} end"


def test_a_value_too_short_to_be_a_key_is_not_remembered():
    remember_secret("sk-test")
    assert scrub("sk-test and sk-testing") == "sk-test and sk-testing"


def test_a_very_long_token_is_remembered_and_redacted_like_a_short_key():
    token = "eyJ" + "".join(chr(65 + (i * 7) % 26) for i in range(2000))
    remember_secret(token)
    assert scrub(f"Bearer {token[:1500]}") == f"Bearer {REDACTED}"


def test_text_without_a_known_secret_is_returned_as_it_is():
    remember_secret(KEY)
    text = "nothing to see " * 1000
    assert scrub(text) is text


def test_scrub_bytes_redacts_a_secret_inside_json():
    remember_secret(KEY)
    data = json.dumps({"whiteboard": [f"my key is {KEY}"]}).encode()
    assert KEY.encode() not in scrub_bytes(data)
    assert json.loads(scrub_bytes(data)) == {"whiteboard": [f"my key is {REDACTED}"]}


@pytest.mark.parametrize("size", [1, 2, 3, 4, 7, 13])
def test_a_secret_split_across_streamed_pieces_is_redacted(size):
    remember_secret(KEY)
    text = f"Here it is: {KEY}. Done."
    pieces = [text[i:i + size] for i in range(0, len(text), size)]
    shown = SecretFilter()
    out = [shown.feed(p) for p in pieces] + [shown.flush()]
    assert "".join(out) == f"Here it is: {REDACTED}. Done."
    assert all(not _leaked_pieces(piece, size=3) or piece == "" for piece in out)


def test_the_stream_filter_holds_back_only_what_could_begin_a_secret():
    remember_secret(KEY)
    shown = SecretFilter()
    assert shown.feed("hello, world ") == "hello, world "  # nothing here is in the key


def test_the_key_store_remembers_every_key_it_reads_or_writes(monkeypatch):
    monkeypatch.setenv("ROUNDTABLE_YOUTUBE_KEY", YOUTUBE)
    keys = KeyStore()
    keys.set(LLM_KEY, KEY)
    assert keys.get(YOUTUBE_KEY) == YOUTUBE
    assert scrub(f"{KEY} {YOUTUBE}") == f"{REDACTED} {REDACTED}"


# -- case 3: scrub, then cut ---------------------------------------------------------------
def _echo_across_the_cut() -> str:
    """A server message whose echoed key straddles the 300-character cut."""
    return "x" * (MAX_SERVER_MESSAGE_CHARS - 10) + f" {KEY} is not a valid key."


def test_an_error_body_echoing_the_key_across_the_cut_keeps_no_piece_of_it():
    remember_secret(KEY)
    body = json.dumps({"error": {"message": _echo_across_the_cut()}}).encode()
    message = server_message(body)
    assert len(message) <= MAX_SERVER_MESSAGE_CHARS
    assert _leaked_pieces(message, size=4) == []


@pytest.mark.parametrize("chunk", [
    {"error": {"message": "PLACEHOLDER"}},
    {"object": "error", "message": "PLACEHOLDER"},
], ids=["openai-style", "vllm-style"])
def test_a_stream_error_echoing_the_key_across_the_cut_keeps_no_piece_of_it(chunk):
    remember_secret(KEY)
    document = json.loads(json.dumps(chunk).replace("PLACEHOLDER", _echo_across_the_cut()))
    message = stream_error_message(document, None)
    assert message is not None and _leaked_pieces(message, size=4) == []


def test_a_cli_run_against_a_server_echoing_the_key_across_the_cut_leaks_it_nowhere(
    fake_openai, tmp_path, monkeypatch, capsys, caplog
):
    fake_openai.reset()
    echo = {"error": {"message": _echo_across_the_cut()}}
    fake_openai.script([
        {"kind": "status", "status": 500, "body": echo, "repeat": 3},
        {"kind": "error_in_stream", "text": "CALL: ", "message": _echo_across_the_cut()},
    ])
    monkeypatch.setenv("ROUNDTABLE_API_KEY", KEY)
    caplog.set_level(logging.DEBUG)
    db = tmp_path / "cut.sqlite3"
    main(["run", "--base-url", fake_openai.base_url, "--model", "m", "--turns", "1",
          "--db", str(db)])
    captured = capsys.readouterr()
    assert "answered HTTP 500" in captured.err and "reported an error" in captured.err
    for fmt in ("html", "md", "json"):
        main(["export", "--db", str(db), "--format", fmt, "--out", str(tmp_path / f"e.{fmt}")])
    everything = "\n".join([captured.out, captured.err, caplog.text,
                            _all_text(_store_files(db) + list(tmp_path.glob("e.*")))])
    assert _leaked_pieces(everything, size=MIN_FRAGMENT) == []


# -- case 4: a key echoed in a reply -------------------------------------------------------
def _echo_run(fake_openai, tmp_path, capsys, caplog, secret: str) -> tuple[str, str]:
    """Two turns: the model writes `secret` on the whiteboard, then passes. Returns all
    that was printed, logged, stored and exported, and the second request as sent."""
    fake_openai.reset()
    fake_openai.script([
        {"kind": "ok", "chunk_size": 3,
         "text": f'Note: {secret}\nCALL: addWhiteboard("the key is {secret}")\n'
                 "CALL: passTurn()"},
        {"kind": "ok", "text": "CALL: passTurn()"},
    ])
    caplog.set_level(logging.DEBUG)
    db = tmp_path / "echo.sqlite3"
    code = main(["run", "--base-url", fake_openai.base_url, "--model", "m", "--turns", "2",
                 "--db", str(db)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    for fmt in ("html", "md", "json"):
        main(["export", "--db", str(db), "--format", fmt, "--out", str(tmp_path / f"e.{fmt}")])
    second_request = json.dumps(fake_openai.requests()[1]["body"], ensure_ascii=False)
    everything = "\n".join([captured.out, captured.err, caplog.text,
                            _all_text(_store_files(db) + list(tmp_path.glob("e.*")))])
    return everything, second_request


def test_the_model_key_echoed_in_a_reply_reaches_no_output_store_export_or_payload(
    fake_openai, tmp_path, monkeypatch, capsys, caplog
):
    monkeypatch.setenv("ROUNDTABLE_API_KEY", KEY)
    everything, second_request = _echo_run(fake_openai, tmp_path, capsys, caplog, KEY)
    assert f"the key is {REDACTED}" in second_request  # the whiteboard, as the next actor sees it
    assert _leaked_pieces(second_request, size=MIN_FRAGMENT) == []
    assert _leaked_pieces(everything, size=MIN_FRAGMENT) == []


def test_the_youtube_key_echoed_in_a_reply_is_scrubbed_as_well(
    fake_openai, fake_youtube, tmp_path, monkeypatch, capsys, caplog  # noqa: F811
):
    fake_youtube.reset()
    monkeypatch.setenv("ROUNDTABLE_API_KEY", KEY)
    monkeypatch.setenv("ROUNDTABLE_YOUTUBE_KEY", YOUTUBE)
    monkeypatch.setenv("ROUNDTABLE_YOUTUBE_BASE_URL", fake_youtube.base_url)
    everything, second_request = _echo_run(fake_openai, tmp_path, capsys, caplog, YOUTUBE)
    assert _leaked_pieces(second_request, YOUTUBE, size=MIN_FRAGMENT) == []
    assert _leaked_pieces(everything, YOUTUBE, size=MIN_FRAGMENT) == []
