"""A new debate's state from a deck, a hand and a topic (the session options or the deck's
demo hand). Must not call models or import Qt.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from roundtable_desktop.kinds.debate.classical.state import (
    MAX_REPLAN_SENTENCES,
    ClassicalState,
)
from roundtable_desktop.kinds.debate.deck import (
    Contract,
    Deck,
    DeckError,
    deck_names,
    load_deck,
    parse_hand_ids,
    validate_hand,
)
from roundtable_desktop.kinds.debate.state import Agent, DebateState

MAX_MERGE_CYCLES = 3
MODES = ("blitz", "classical")
MAX_TURNS = 60


def agents_of(deck: Deck, cards: list[Contract]) -> list[Agent]:
    return [Agent(id=c.id, name=c.name, handle=c.handle, suite=c.suite,
                  avatar=str(deck.avatar_path(c)), contract=c) for c in cards]


def deck_for(scenario: str, options: Mapping[str, Any]) -> Deck:
    name = str(options.get("deck") or "")
    if not name:
        names = deck_names()
        if not names:
            raise DeckError("No debate deck is installed (resources/debate/decks).")
        name = scenario if scenario in names else names[0]
    return load_deck(name)


def new_state(scenario: str, options: Mapping[str, Any]) -> DebateState:
    """The state for `options` (deck, hand, topic, merge_cycles, mode, and for classical
    mode max_turns and replan_sentences); the deck's demo hand and topic where none is
    given."""
    deck = deck_for(scenario, options)
    ids = parse_hand_ids(options.get("hand")) or deck.demo_hand
    topic = str(options.get("topic") or deck.demo_topic or deck.topic_hint)
    hand = validate_hand(deck, ids, topic)
    state = DebateState(deck=deck.name, deck_title=deck.title, topic=hand.topic,
                        agents=agents_of(deck, hand.cards))
    if "merge_cycles" in options:
        state.merge_cycles = max(1, min(int(options["merge_cycles"]), MAX_MERGE_CYCLES))
    mode = str(options.get("mode") or "blitz").strip().lower()
    if mode not in MODES:
        raise DeckError(f"Unknown debate mode {mode!r}; choose blitz or classical.")
    if mode == "classical":
        state.mode = "classical"
        state.classical = ClassicalState()
        if "max_turns" in options:
            state.classical.max_turns = max(1, min(int(options["max_turns"]), MAX_TURNS))
        if "replan_sentences" in options:
            state.classical.replan_sentences = max(
                0, min(int(options["replan_sentences"]), MAX_REPLAN_SENTENCES))
    return state
