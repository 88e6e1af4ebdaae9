"""The hand the Cards dock builds: which cards, in order, each of which deck (a hand
mixes decks), and the refusal of a card that cannot join it (locked, already there, the
hand full), in one sentence. `refs()` names the hand as the deal does: ids of its first
card's deck, "deck/id" for the others (kinds/debate/hand.py). Decks are read through
`deck_named` (the deck shown, else loaded). Must not build widgets or hold engine logic.
"""

from __future__ import annotations

from roundtable_desktop.kinds.debate.deck import MAX_HAND, Deck, DeckError, load_deck
from roundtable_desktop.kinds.debate.hand import card_ref


def deck_named(name: str, shown: Deck | None) -> Deck | None:
    """The deck called `name`: the one shown if it is, else read (None if unreadable)."""
    if shown is not None and shown.name == name:
        return shown
    try:
        return load_deck(name)
    except DeckError:
        return None


class DebateHand:
    """The cards of the hand, in order, and the deck of each."""

    def __init__(self) -> None:
        self.ids: list[str] = []
        self.decks: dict[str, str] = {}  # card id -> its deck

    def __len__(self) -> int:
        return len(self.ids)

    def __contains__(self, card_id: object) -> bool:
        return card_id in self.ids

    def clear(self) -> None:
        self.ids, self.decks = [], {}

    def refusal(self, deck: Deck, card_id: str) -> str:
        """Why the card cannot join the hand ("" when it can)."""
        card = deck.card(card_id)
        if card.locked:
            return f"{card.name} is locked and cannot be dealt."
        if card_id in self.ids:
            return f"{card.name} is already in the hand."
        if len(self.ids) >= MAX_HAND:
            return f"A hand holds at most {MAX_HAND} cards."
        return ""

    def add(self, deck: Deck, card_id: str) -> None:
        self.ids.append(card_id)
        self.decks[card_id] = deck.name

    def remove(self, card_id: str) -> None:
        if card_id in self.ids:
            self.ids.remove(card_id)
            self.decks.pop(card_id, None)

    def deck_of(self, card_id: str) -> str:
        return self.decks.get(card_id, "")

    def home(self) -> str:
        """The deck of the hand's first card ("" when the hand is empty)."""
        return self.decks.get(self.ids[0], "") if self.ids else ""

    def refs(self) -> list[str]:
        home = self.home()
        return [card_ref(self.decks.get(cid, home), cid, home) for cid in self.ids]
