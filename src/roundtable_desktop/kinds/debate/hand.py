"""A hand that mixes decks: card references, each resolved to its deck and contract.

A reference is a card id of the hand's own deck ("mara-okafor") or a card of another
deck, named with its deck ("my-cards/ada-brennan"); a plain id that the own deck lacks
is looked for in the other decks (found in exactly one, it is that card). The hand is
3-8 distinct unlocked cards (the seed's hand builder); the command line may deal up to
`LARGE_HAND` (16: four tables, the scale the seed's table sizes are for). Every refusal
is one sentence (`HandError`). Must not call models, hold session state or import Qt.
"""

from __future__ import annotations

from roundtable_desktop.kinds.debate.deck import (
    MAX_HAND,
    MIN_HAND,
    Contract,
    Deck,
    DeckError,
    HandError,
    deck_names,
    load_deck,
)
from roundtable_desktop.kinds.debate.state import Agent

LARGE_HAND = 16
SEP = "/"


def card_ref(deck: str, card_id: str, home: str) -> str:
    """The reference of a card of `deck` in a hand whose own deck is `home`."""
    return card_id if deck == home else f"{deck}{SEP}{card_id}"


def _other_deck_with(card_id: str, home: str) -> Deck | None:
    found = []
    for name in deck_names():
        if name == home:
            continue
        try:
            deck = load_deck(name)
        except DeckError:
            continue
        if any(c.id == card_id for c in deck.cards):
            found.append(deck)
    return found[0] if len(found) == 1 else None


def resolve_card(home: Deck, ref: str) -> tuple[Deck, Contract]:
    """The deck and card a reference names, or a HandError saying why not."""
    name, sep, card_id = ref.partition(SEP)
    if sep:
        try:
            deck = home if name == home.name else load_deck(name)
        except DeckError as exc:
            raise HandError(exc.message) from None
    else:
        deck, card_id = home, ref
        if not any(c.id == card_id for c in home.cards):
            deck = _other_deck_with(card_id, home.name) or home
    try:
        return deck, deck.card(card_id)
    except KeyError:
        raise HandError(f"The {deck.name} deck has no card {card_id!r}; its cards are: "
                        f"{', '.join(c.id for c in deck.cards)}.") from None


def resolve_hand(home: Deck, refs: list[str], topic: str, most: int = MAX_HAND
                 ) -> tuple[list[tuple[Deck, Contract]], str]:
    """The hand's (deck, card) pairs and its topic, or a HandError saying what is wrong."""
    if not topic.strip():
        raise HandError("Write a topic for the debate first.")
    if not MIN_HAND <= len(refs) <= most:
        raise HandError(f"A hand is {MIN_HAND}-{most} cards; this one has {len(refs)}.")
    pairs = [resolve_card(home, ref) for ref in refs]
    ids = [card.id for _, card in pairs]
    if len(set(ids)) != len(ids):
        raise HandError("A card can be in the hand only once.")
    for _, card in pairs:
        if card.locked:
            raise HandError(f"{card.name} ({card.id}) is locked and cannot be dealt.")
    return pairs, topic.strip()


def agents_from(pairs: list[tuple[Deck, Contract]]) -> list[Agent]:
    return [Agent(id=c.id, name=c.name, handle=c.handle, suite=c.suite, deck=d.name,
                  avatar=str(d.avatar_path(c)), contract=c) for d, c in pairs]
