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
)
from roundtable_desktop.kinds.debate.hand import LARGE_HAND, agents_from, resolve_hand
from roundtable_desktop.kinds.debate.state import Agent, DebateState

ROUNDS_PER_TABLE = (3, 5)  # the seed's round budget per table
MERGE_CYCLES = (2, 3)  # the seed's merge cycles (3 by default for 7+ agents)
MAX_EVENTS = (1, 50)  # the safety cap the user may set
TOOL_CALLS = (0, 5)  # an agent's tool calls a turn
MODES = ("blitz", "classical")
MAX_TURNS = 60


def agents_of(deck: Deck, cards: list[Contract]) -> list[Agent]:
    return agents_from([(deck, c) for c in cards])


def deck_for(scenario: str, options: Mapping[str, Any]) -> Deck:
    name = str(options.get("deck") or "")
    if not name:
        names = deck_names()
        if not names:
            raise DeckError("No debate deck is installed (resources/debate/decks).")
        name = scenario if scenario in names else names[0]
    return load_deck(name)


def _within(options: Mapping[str, Any], name: str, bounds: tuple[int, int], default: int,
            what: str) -> int:
    raw = options.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except (TypeError, ValueError):
        raise DeckError(f"The {what} must be a whole number from {bounds[0]} to "
                        f"{bounds[1]}; {raw!r} is not one.") from None
    if not bounds[0] <= value <= bounds[1]:
        raise DeckError(f"The {what} must be from {bounds[0]} to {bounds[1]}; "
                        f"{value} is not.")
    return value


def schedule(state: DebateState, options: Mapping[str, Any]) -> None:
    """Rounds per table (3-5, default 3), merge cycles (2-3, default 3 for 7+ agents,
    else 2), the event cap (1-50, default 12) and tool calls a turn (0-5, default 2),
    each refused in one sentence when out of range; `bundled_tools` false leaves the
    deck's records server out."""
    state.rounds_per_table = _within(options, "rounds", ROUNDS_PER_TABLE, 3,
                                     "number of rounds per table")
    state.merge_cycles = _within(options, "merge_cycles", MERGE_CYCLES,
                                 3 if len(state.agents) >= 7 else 2,
                                 "number of merge cycles")
    state.max_events = _within(options, "max_events", MAX_EVENTS, 12, "event cap")
    state.tool_calls = _within(options, "tool_calls", TOOL_CALLS, 2,
                               "number of tool calls a turn")
    if "bundled_tools" in options:
        state.bundled_tools = str(options["bundled_tools"]).lower() not in ("0", "false", "no")


def new_state(scenario: str, options: Mapping[str, Any]) -> DebateState:
    """The state for `options` (deck, hand, topic, rounds, merge_cycles, max_events,
    mode, and for classical mode max_turns and replan_sentences); the deck's demo hand and
    topic where none is given."""
    deck = deck_for(scenario, options)
    ids = parse_hand_ids(options.get("hand")) or deck.demo_hand
    topic = str(options.get("topic") or deck.demo_topic or deck.topic_hint)
    pairs, topic = resolve_hand(deck, ids, topic, most=LARGE_HAND)
    state = DebateState(deck=deck.name, deck_title=deck.title, topic=topic,
                        agents=agents_from(pairs))
    schedule(state, options)
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
