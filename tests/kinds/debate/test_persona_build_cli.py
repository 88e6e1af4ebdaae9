"""`roundtable personas build` and `personas list`: the bundled sample corpus builds
offline into a deck the debate kind deals from; progress one line per call; --only;
versioning said in the output; exit code non-zero only when every persona failed; a bad
deck config is one line naming the field."""

from __future__ import annotations

import json

import pytest

from roundtable_desktop.cli.main import main
from roundtable_desktop.kinds.debate.deck import (
    load_contract,
    load_deck,
    read_deck,
    user_decks_dir,
    validate_hand,
)
from roundtable_desktop.paths import resources_dir
from roundtable_desktop.store.database import SessionStore
from tests.kinds.debate.persona_build_helpers import items, persona_entry, write_config

SAMPLE = resources_dir() / "debate" / "sample_corpus" / "deck-config.json"
SAMPLE_IDS = ["nadia-voss", "owen-achterberg", "priya-ramdani"]


def _build(*extra: str, config=SAMPLE, db=None) -> int:  # type: ignore[no-untyped-def]
    argv = ["personas", "build", "--deck-config", str(config), "--offline", "--delay", "0"]
    return main([*argv, *(["--db", str(db)] if db else []), *extra])


def test_the_bundled_sample_builds_offline_into_a_deck_a_debate_is_dealt_from(capsys):
    assert _build() == 0
    deck = load_deck("city-transit")  # the user data folder, where --out defaults
    assert [c.id for c in deck.cards] == SAMPLE_IDS
    assert deck.folder == str(user_decks_dir() / "city-transit")
    for card in deck.cards:
        assert 10 <= len(card.anchors) <= 15
        assert (user_decks_dir() / "city-transit" / "corpus" / f"{card.id}.json").is_file()
        assert deck.avatar_path(card).read_bytes().startswith(b"\x89PNG")
    hand = validate_hand(deck, deck.demo_hand, deck.demo_topic)
    assert len(hand.cards) == 3
    assert main(["run", "--kind", "debate", "--deck", "city-transit", "--offline",
                 "--delay", "0", "--turns", "2", "--quiet"]) == 0


def test_progress_is_one_line_per_call_and_per_persona(capsys):
    assert _build("--only", "owen-achterberg") == 0
    out = capsys.readouterr().out
    assert "[owen-achterberg] 1/9 Owen Achterberg: filter" in out
    assert "[owen-achterberg] 9/9 Owen Achterberg: anchors" in out
    assert "built  owen-achterberg:" in out and "1 of 1 persona(s) built." in out
    assert "nadia-voss" not in out


def test_only_builds_just_that_persona_into_out(tmp_path, capsys):
    out = tmp_path / "decks"
    assert _build("--only", "priya-ramdani", "--out", str(out)) == 0
    deck = read_deck(out / "city-transit")
    assert [c.id for c in deck.cards] == ["priya-ramdani"]
    assert not (user_decks_dir() / "city-transit").exists()


def test_a_rebuild_keeps_the_previous_contract_and_says_so(tmp_path, capsys):
    out = tmp_path / "decks"
    assert _build("--only", "nadia-voss", "--out", str(out)) == 0
    first = load_contract(out / "city-transit" / "contracts" / "nadia-voss.json")
    capsys.readouterr()
    assert _build("--only", "nadia-voss", "--out", str(out)) == 0
    said = capsys.readouterr().out
    history = list((out / "city-transit" / "contracts" / "history").glob("nadia-voss.*.json"))
    assert len(history) == 1
    assert f"previous version kept as {history[0]}" in said
    assert json.loads(history[0].read_text())["corpus_built_at"] == first.corpus_built_at


def test_the_exit_code_is_non_zero_only_when_every_persona_failed(tmp_path, capsys):
    notes = tmp_path / "ada-brennan" / "notes"
    notes.mkdir(parents=True)
    for i, item in enumerate(items("ada")):
        (notes / f"{i:02d}.txt").write_text(item.text, encoding="utf-8")
    config = write_config(tmp_path, persona_entry("ada-brennan", "Ada Brennan"),
                          persona_entry("bo-lind", "Bo Lind"))
    assert _build("--out", str(tmp_path / "decks"), config=config) == 0
    said = capsys.readouterr().out
    assert "failed bo-lind: Reading the folder failed:" in said
    assert _build("--only", "bo-lind", "--out", str(tmp_path / "decks"), config=config) == 1


@pytest.mark.parametrize(("config", "field"), [
    ({"name": "Bad Name", "title": "t", "topic": "t", "personas": []}, "field name:"),
    ({"name": "d", "title": "t", "topic": "t",
      "personas": [{"id": "a", "name": "A", "handle": "@a", "sources": {}}]},
     "field personas.0.sources: give at least one of feed, x, folder, manual"),
    ({"name": "d", "title": "t", "topic": "t",
      "personas": [{"id": "a", "name": "A", "handle": "@a", "sources": {"x": "no spaces"}}]},
     "field personas.0.sources.x:"),
    ({"name": "d", "title": "t", "topic": "t", "limits": {"keep": 3},
      "personas": [{"id": "a", "name": "A", "handle": "@a", "sources": {"folder": "f"}}]},
     "field limits.keep:"),
    ({"name": "d", "title": "t", "topic": "t", "personas": [
        {"id": "a", "name": "A", "handle": "@a", "sources": {"folder": "f"}},
        {"id": "a", "name": "B", "handle": "@b", "sources": {"folder": "f"}}]},
     "persona id 'a' appears twice"),
])
def test_a_bad_deck_config_is_one_line_naming_the_field(tmp_path, capsys, config, field):
    path = tmp_path / "deck-config.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    assert _build(config=path) == 2
    err = capsys.readouterr().err
    assert err.startswith("roundtable: deck-config.json is not a valid deck config:")
    assert field in err and len(err.strip().splitlines()) == 1


def test_an_unknown_only_id_names_the_personas_there_are(capsys):
    assert _build("--only", "nobody") == 2
    assert "has no persona 'nobody'; its personas are: nadia-voss" in capsys.readouterr().err


def test_out_may_not_be_the_bundled_decks_folder(capsys):
    assert _build("--out", str(resources_dir() / "debate" / "decks")) == 2
    assert "bundled decks folder" in capsys.readouterr().err


def test_personas_list_shows_a_built_user_deck_with_the_bundled_ones(capsys):
    assert _build("--only", "owen-achterberg") == 0
    capsys.readouterr()
    assert main(["personas", "list"]) == 0
    out = capsys.readouterr().out
    assert "city-transit (user): City transit (sample corpus), 1 card(s)" in out
    assert "ai-regulation (bundled)" in out


def test_the_build_is_a_stored_session_that_exports_its_calls(tmp_path, capsys):
    db = tmp_path / "s.sqlite3"
    assert _build("--only", "owen-achterberg", db=db) == 0
    capsys.readouterr()
    assert main(["sessions", "--db", str(db)]) == 0
    assert "persona-build" in capsys.readouterr().out
    assert main(["export", "--db", str(db), "--format", "md"]) == 0
    text = capsys.readouterr().out
    assert "Build report" in text and "## Calls (9)" in text


def test_a_stored_build_cannot_be_continued_and_says_so(tmp_path, capsys):
    db = tmp_path / "s.sqlite3"
    assert _build("--only", "owen-achterberg", db=db) == 0
    capsys.readouterr()
    store = SessionStore.open(db, readonly=True)
    session_id = store.latest_session_id()
    store.close()
    assert main(["run", "--continue", session_id[:8], "--db", str(db), "--offline"]) == 2
    assert "cannot be opened or continued" in capsys.readouterr().err


def test_a_build_against_an_openai_compatible_server_sends_nine_recorded_calls(
        fake_openai, tmp_path, capsys, monkeypatch):
    from roundtable_desktop.kinds.debate.persona_build.sources.folder import read_folder
    from tests.kinds.debate.persona_build_helpers import nine_replies

    corpus = read_folder(SAMPLE.parent / "owen" / "notes")
    fake_openai.reset()
    fake_openai.script([{"kind": "ok", "text": text}
                        for text in nine_replies(corpus, "Owen Achterberg", anchors=10)])
    monkeypatch.setenv("ROUNDTABLE_API_KEY", "sk-test")
    db = tmp_path / "s.sqlite3"
    code = main(["personas", "build", "--deck-config", str(SAMPLE), "--only", "owen-achterberg",
                 "--base-url", fake_openai.base_url, "--model", "m", "--db", str(db),
                 "--out", str(tmp_path / "decks")])
    assert code == 0, capsys.readouterr()
    assert fake_openai.stats()["count"] == 9
    assert len(read_deck(tmp_path / "decks" / "city-transit").cards[0].anchors) == 10
    store = SessionStore.open(db, readonly=True)
    try:
        calls = store.calls(store.latest_session_id())
    finally:
        store.close()
    assert [c.purpose for c in calls] == ["persona"] * 9
    assert calls[0].label == "Owen Achterberg: filter"
    assert calls[-1].label == "Owen Achterberg: anchors"
    assert all(c.status == "ok" for c in calls)
