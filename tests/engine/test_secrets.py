"""Invariant 6: an API key lives only in the keyring (or the environment for the CLI);
it never reaches the store, exports, payloads, logs or error messages."""

from __future__ import annotations

import logging
import os

import keyring

from roundtable_desktop.cli.main import main
from roundtable_desktop.llm.keys import ENV_VARS, LLM_KEY, SERVICE, X_KEY, KeyStore

KEY = "sk-live-SUPERSECRET-4242424242"


def _scan(paths, text_blobs) -> list[str]:
    hits = [str(p) for p in paths if KEY.encode() in p.read_bytes()]
    hits += [blob[:40] for blob in text_blobs if KEY in blob]
    return hits


def test_key_from_the_keyring_is_used_and_never_written_anywhere(
    fake_openai, tmp_path, capsys, caplog, isolated_home
):
    fake_openai.reset()
    fake_openai.script([
        {"kind": "ok", "text": "CALL: addWhiteboard(\"hi\")\nCALL: passTurn()"},
        {"kind": "status", "status": 401,
         "body": {"error": {"message": f"Invalid key {KEY}"}}},
    ])
    KeyStore().set(LLM_KEY, KEY)
    db = tmp_path / "s.sqlite3"
    caplog.set_level(logging.DEBUG)
    main(["run", "--base-url", fake_openai.base_url, "--model", "m", "--turns", "2",
          "--db", str(db)])
    outputs = [capsys.readouterr().out, capsys.readouterr().err, caplog.text]
    for fmt in ("html", "md", "json"):
        main(["export", "--db", str(db), "--format", fmt, "--out", str(tmp_path / f"e.{fmt}")])
    assert fake_openai.requests()[0]["authorization"] == "Bearer ***"  # the key was sent
    files = [db, *tmp_path.glob("e.*"), *[p for p in isolated_home.rglob("*") if p.is_file()]]
    wal = db.with_name(db.name + "-wal")
    if wal.exists():
        files.append(wal)
    assert _scan(files, outputs) == []


def test_key_from_the_environment_works_for_the_cli(fake_openai, tmp_path, monkeypatch, capsys):
    fake_openai.reset()
    fake_openai.script([{"kind": "ok", "text": "CALL: passTurn()"}])
    monkeypatch.setenv("ROUNDTABLE_API_KEY", KEY)
    code = main(["run", "--base-url", fake_openai.base_url, "--model", "m", "--turns", "1",
                 "--db", str(tmp_path / "s.sqlite3")])
    assert code == 0
    assert KEY not in capsys.readouterr().out


def test_key_store_writes_only_to_the_keyring(memory_keyring):
    assert KeyStore().set(LLM_KEY, KEY) is True
    assert memory_keyring.secrets[(SERVICE, LLM_KEY)] == KEY


def test_without_a_usable_keyring_the_key_stays_in_memory_and_it_says_so():
    from keyring.backends import fail

    keyring.set_keyring(fail.Keyring())
    keys = KeyStore()
    assert keys.set(LLM_KEY, KEY) is False
    assert keys.get(LLM_KEY) == KEY
    assert "memory for this run only" in keys.status()


def test_no_key_from_the_environment_reaches_a_test_the_x_token_included():
    # The autouse fixture (tests/conftest.py) clears every variable KeyStore reads.
    assert ENV_VARS[X_KEY] == "ROUNDTABLE_X_TOKEN"
    assert not set(ENV_VARS.values()) & set(os.environ)
