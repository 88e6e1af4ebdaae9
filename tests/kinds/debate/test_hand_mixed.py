"""A hand may mix decks: cards of another deck named "deck/id" (or a plain id the hand's
deck lacks, found in one other deck), refused in one sentence when there is no such
deck or card; the command line may deal up to 16 cards."""

from __future__ import annotations

import pytest

from roundtable_desktop.kinds.debate.deck import HandError, load_deck
from roundtable_desktop.kinds.debate.hand import resolve_hand
from roundtable_desktop.kinds.debate.setup import new_state
from tests.kinds.debate.conftest import AI_SIX, TOPIC, make_session, run_steps


def test_a_card_of_another_deck_joins_the_hand_with_its_deck():
    state = new_state("ai-regulation", {"hand": [*AI_SIX[:3], "remote-work/clara-voss"],
                                        "topic": TOPIC})
    clara = state.agents[-1]
    assert clara.id == "clara-voss" and clara.deck == "remote-work"
    assert "remote-work" in clara.avatar and state.deck == "ai-regulation"


def test_a_plain_id_of_one_other_deck_is_that_card():
    pairs, _ = resolve_hand(load_deck("ai-regulation"), [*AI_SIX[:2], "clara-voss"], TOPIC)
    assert [d.name for d, _ in pairs] == ["ai-regulation", "ai-regulation", "remote-work"]


@pytest.mark.parametrize(("ref", "words"), [
    ("no-such-deck/x", "There is no deck 'no-such-deck'"),
    ("remote-work/nobody", "The remote-work deck has no card 'nobody'")])
def test_a_reference_to_nothing_is_refused_in_one_sentence(ref, words):
    with pytest.raises(HandError) as caught:
        resolve_hand(load_deck("ai-regulation"), [*AI_SIX[:2], ref], TOPIC)
    assert caught.value.message.startswith(words)


def test_a_mixed_hand_plays_offline_to_the_map():
    session = make_session(hand=[*AI_SIX[:3], "remote-work/clara-voss"])
    assert run_steps(session)
    assert session.state.map is not None


def test_the_command_line_deals_up_to_sixteen_cards_and_no_more():
    cards = [c.id for c in load_deck("ai-regulation").cards if not c.locked] + \
        [f"remote-work/{c.id}" for c in load_deck("remote-work").cards if not c.locked]
    assert len(new_state("ai-regulation", {"hand": cards[:16], "topic": TOPIC}).agents) == 16
    with pytest.raises(HandError):
        new_state("ai-regulation", {"hand": [*cards, "remote-work/x"][:17], "topic": TOPIC})
