"""Decks and contracts: the bundled decks validate, a broken contract is refused naming
its file and field, and a hand is 3-8 unlocked cards of one deck plus a topic."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from roundtable_desktop.domain.words import sentences
from roundtable_desktop.kinds.debate.deck import (
    DIMENSIONS,
    DeckError,
    HandError,
    deck_names,
    load_deck,
    validate_hand,
)
from roundtable_desktop.paths import resources_dir


def test_at_least_two_decks_of_six_unlocked_fictional_personas_are_bundled():
    names = deck_names()
    assert len(names) >= 2
    for name in names:
        deck = load_deck(name)
        assert sum(not c.locked for c in deck.cards) >= 6
        assert any(c.locked for c in deck.cards)  # a locked card to show greyed out


@pytest.mark.parametrize("deck", deck_names())
def test_every_contract_has_six_dimensions_anchors_a_policy_and_a_build_time(deck):
    loaded = load_deck(deck)
    for card in loaded.cards:
        for field, _ in DIMENSIONS:
            assert 3 <= len(sentences(getattr(card, field))) <= 5
            assert card.one_line(field)
        assert 10 <= len(card.anchors) <= 15
        assert all(a.source for a in card.anchors)
        assert card.evidence_policy.tool_pull_triggers
        assert card.corpus_built_at.startswith("20")
        avatar = loaded.avatar_path(card)
        assert avatar.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def _copy_deck(tmp_path: Path) -> Path:
    root = tmp_path / "resources"
    shutil.copytree(resources_dir() / "debate", root / "debate")
    return root


def test_a_contract_with_a_bad_field_is_refused_naming_file_and_field(tmp_path):
    root = _copy_deck(tmp_path)
    path = root / "debate/decks/ai-regulation/contracts/dev-lindqvist.json"
    data = json.loads(path.read_text())
    data["bias"] = "Too short."
    path.write_text(json.dumps(data))
    with pytest.raises(DeckError) as refused:
        load_deck("ai-regulation", root)
    assert "contracts/dev-lindqvist.json" in refused.value.message
    assert "field bias" in refused.value.message


def test_a_contract_missing_its_anchors_is_refused_naming_the_field(tmp_path):
    root = _copy_deck(tmp_path)
    path = root / "debate/decks/remote-work/contracts/leo-marchetti.json"
    data = json.loads(path.read_text())
    data["anchors"] = data["anchors"][:3]
    path.write_text(json.dumps(data))
    with pytest.raises(DeckError, match=r"leo-marchetti\.json.*field anchors"):
        load_deck("remote-work", root)


def test_a_contract_that_is_not_json_is_refused_naming_the_file(tmp_path):
    root = _copy_deck(tmp_path)
    (root / "debate/decks/remote-work/contracts/priya-nair.json").write_text("{oops")
    with pytest.raises(DeckError, match=r"priya-nair\.json is not readable JSON"):
        load_deck("remote-work", root)


def test_a_hand_of_three_to_eight_unlocked_cards_with_a_topic_is_dealt():
    deck = load_deck("ai-regulation")
    unlocked = [c.id for c in deck.cards if not c.locked]
    hand = validate_hand(deck, unlocked[:3], "  Licences?  ")
    assert [c.id for c in hand.cards] == unlocked[:3] and hand.topic == "Licences?"
    assert len(validate_hand(deck, unlocked[:8], "t").cards) == 8


@pytest.mark.parametrize(("ids", "topic", "says"), [
    (2, "t", "3-8 cards"),
    (9, "t", "3-8 cards"),
    (3, "  ", "topic"),
    ("dup", "t", "only once"),
    ("locked", "t", "locked"),
    ("unknown", "t", "no card"),
])
def test_a_hand_that_breaks_a_rule_is_refused(ids, topic, says):
    deck = load_deck("ai-regulation")
    unlocked = [c.id for c in deck.cards if not c.locked]
    locked = next(c.id for c in deck.cards if c.locked)
    chosen = {"dup": [unlocked[0], unlocked[0], unlocked[1]],
              "locked": [*unlocked[:2], locked],
              "unknown": [*unlocked[:2], "nobody"]}.get(ids) if isinstance(ids, str) \
        else [c.id for c in deck.cards][:ids] if ids <= 8 else [*unlocked, "x", "y"][:9]
    with pytest.raises(HandError, match=says):
        validate_hand(deck, chosen, topic)
