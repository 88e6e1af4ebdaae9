"""The Cards dock: the card browser, a card's detail and the hand builder, in the window.

A hand built by keyboard is dealt to the debate shown; a locked card is greyed and
cannot be chosen; a hand of fewer than three cards is refused with the engine's reason;
a hand of another deck starts a debate of that deck. Offscreen, offline model."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from roundtable_desktop.kinds.debate.deck import DIMENSIONS, load_deck
from roundtable_desktop.ui.kinds.debate.cards_dock import DebateCardsDock
from tests.fakes.window_harness import WAIT_MS, wait_idle
from tests.kinds.debate.test_window_debate import (
    HAND,
    LOCKED,
    TOPIC,
    dock,
    start_debate,
    state_of,
)

pytestmark = pytest.mark.qt


@pytest.fixture
def cards(qtbot, make_window):  # type: ignore[no-untyped-def]
    window = make_window(start=False)
    start_debate(qtbot, window)
    found = dock(window, "debateCardsDock", DebateCardsDock)
    found.show()
    found.raise_()
    found.set_hand([])
    return window, found


def test_the_grid_shows_each_card_with_its_avatar_name_handle_and_suite(cards):
    _, found = cards
    deck = load_deck("ai-regulation")
    assert found.grid.count() == len(deck.cards)
    card = deck.cards[0]
    item = found.card_item(card.id)
    assert item.text() == f"{card.name}\n{card.handle}\n{card.suite}"
    assert not item.icon().isNull()


def test_a_locked_card_is_greyed_and_cannot_be_selected_or_added(qtbot, cards):
    _, found = cards
    assert not found.selectable(LOCKED)
    assert found.card_item(LOCKED).text().endswith("locked")

    found.grid.setCurrentItem(found.card_item(LOCKED))

    assert found.grid.currentItem() is not found.card_item(LOCKED) or \
        not found.add_button.isEnabled()
    assert not found.add(LOCKED)
    assert "locked" in found.reason_text()
    assert LOCKED not in found.hand()


def test_the_detail_shows_one_sentence_for_each_of_the_six_dimensions(cards):
    _, found = cards
    card = load_deck("ai-regulation").card(HAND[1])
    found.grid.setCurrentItem(found.card_item(card.id))
    text = found.detail.text()
    for field, label in DIMENSIONS:
        assert label in text
        first = card.one_line(field)
        assert first.replace("'", "&#x27;").replace('"', "&quot;")[:40] in text or \
            first[:40] in text


def test_the_hand_is_built_with_the_keyboard(qtbot, cards):
    _, found = cards
    found.grid.setFocus()
    found.grid.setCurrentRow(0)
    qtbot.keyClick(found.grid, Qt.Key.Key_Return)
    qtbot.keyClick(found.grid, Qt.Key.Key_Right)
    qtbot.keyClick(found.grid, Qt.Key.Key_Return)
    deck = load_deck("ai-regulation")
    assert found.hand() == [deck.cards[0].id, deck.cards[1].id]

    found.hand_list.setCurrentRow(0)
    qtbot.keyClick(found.hand_list, Qt.Key.Key_Delete)

    assert found.hand() == [deck.cards[1].id]
    assert found.hand_label.text() == "Hand: 1 of 3-8 cards"


def test_a_hand_of_two_is_refused_with_the_reason_and_nothing_is_dealt(qtbot, cards):
    window, found = cards
    agents = [a.id for a in state_of(window).agents]
    found.set_hand(HAND[:2])
    found.topic.setText(TOPIC)

    qtbot.mouseClick(found.deal_button, Qt.MouseButton.LeftButton)

    assert found.reason_text() == "A hand is 3-8 cards; this one has 2."
    wait_idle(qtbot, window)
    assert [a.id for a in state_of(window).agents] == agents


def test_a_hand_is_dealt_to_the_debate_shown_with_ctrl_return(qtbot, cards):
    window, found = cards
    session_id = window.bridge.session_id()
    found.set_hand(HAND)
    found.topic.setText("Should open-weight models be licensed?")
    found.topic.setFocus()

    qtbot.keyClick(found.topic, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)

    qtbot.waitUntil(lambda: [a.id for a in state_of(window).agents] == HAND, timeout=WAIT_MS)
    assert state_of(window).topic == "Should open-weight models be licensed?"
    assert window.bridge.session_id() == session_id


def test_a_hand_of_another_deck_starts_a_debate_of_that_deck(qtbot, cards):
    window, found = cards
    found.show_deck("remote-work")
    deck = load_deck("remote-work")
    ids = [c.id for c in deck.cards if not c.locked][:3]
    found.set_hand(ids)
    found.topic.setText("Should teams return to the office three days a week?")

    assert found.deal()

    qtbot.waitUntil(lambda: state_of(window) is not None and state_of(window).deck ==
                    "remote-work" and [a.id for a in state_of(window).agents] == ids,
                    timeout=WAIT_MS)
    assert state_of(window).topic == "Should teams return to the office three days a week?"
