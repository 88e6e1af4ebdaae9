"""Decks the builder writes to the user data folder are dealt from like bundled ones, and a
user deck with a bundled deck's name wins."""

from __future__ import annotations

import shutil

from roundtable_desktop.engine.registry import kind_spec
from roundtable_desktop.kinds.debate.deck import (
    deck_names,
    decks_dir,
    load_deck,
    user_decks_dir,
)


def _copy_bundled(name: str, as_name: str) -> None:
    shutil.copytree(decks_dir() / name, user_decks_dir() / as_name)


def test_a_user_deck_is_listed_with_the_bundled_ones_and_offered_as_a_scenario():
    _copy_bundled("remote-work", "my-deck")
    assert {"ai-regulation", "remote-work", "my-deck"} <= set(deck_names())
    assert load_deck("my-deck").folder == str(user_decks_dir() / "my-deck")
    assert "my-deck" in kind_spec("debate").scenario_names()


def test_a_user_deck_with_a_bundled_decks_name_wins():
    _copy_bundled("remote-work", "ai-regulation")
    deck = load_deck("ai-regulation")
    assert deck.folder == str(user_decks_dir() / "ai-regulation")
    assert deck.title == "Remote work"
    assert deck_names().count("ai-regulation") == 1


def test_with_a_root_only_that_root_is_read(tmp_path):
    _copy_bundled("remote-work", "my-deck")
    assert "my-deck" not in deck_names(decks_dir().parents[1])


def test_a_card_built_into_a_bundled_decks_name_keeps_the_bundled_cards(tmp_path):
    import asyncio

    from roundtable_desktop.kinds.debate.persona_build.pipeline import build_deck
    from roundtable_desktop.llm.offline import OfflineClient
    from tests.kinds.debate.persona_build_helpers import (
        build_session,
        deck_config,
        fake_fetch,
        items,
        persona_entry,
    )

    bundled = load_deck("remote-work")
    config = deck_config(tmp_path, persona_entry("ada-brennan", "Ada Brennan"),
                         name="remote-work")
    session = build_session(OfflineClient(delay_s=0), config, user_decks_dir())
    report = asyncio.run(build_deck(session, config, user_decks_dir(), model="offline",
                                    fetch=fake_fetch({"ada-brennan": items("ada")})))
    assert report.adopted and report.built
    deck = load_deck("remote-work")
    assert deck.folder == str(user_decks_dir() / "remote-work")
    assert [c.id for c in deck.cards] == [*(c.id for c in bundled.cards), "ada-brennan"]
    assert deck.demo_hand == bundled.demo_hand
