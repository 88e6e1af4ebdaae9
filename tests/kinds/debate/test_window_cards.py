"""The Cards dock: the card browser, a card's detail and the hand builder, in the window.

A hand built by keyboard is dealt to the debate shown (Deal's own key is Alt+D; Ctrl+Return
stays the step the status line names); a locked card is greyed and cannot be chosen; a
hand of fewer than three cards is refused with the engine's reason; a hand of another
deck starts a debate of that deck; dealing over a debate under way asks first, naming
what would stop; the deck's topic is shown whole. Offscreen, offline model."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from roundtable_desktop.kinds.debate.deck import DIMENSIONS, load_deck
from roundtable_desktop.ui.dialogs.ask_first import AskFirstBox
from roundtable_desktop.ui.kinds.debate.cards_dock import DebateCardsDock
from roundtable_desktop.ui.rehearsal.layout_checks import elided_texts
from roundtable_desktop.ui.text_label import WrappedLabel
from tests.fakes.window_harness import WAIT_MS, wait_idle
from tests.kinds.debate.test_window_debate import (
    HAND,
    LOCKED,
    TOPIC,
    dock,
    start_debate,
    state_of,
    step,
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


def test_a_hand_is_dealt_to_the_debate_shown_with_its_own_key_alt_d(qtbot, cards):
    window, found = cards
    session_id = window.bridge.session_id()
    found.set_hand(HAND)
    found.topic.setText("Should open-weight models be licensed?")
    found.topic.setFocus()
    assert "Ctrl+Return" not in found.deal_button.text()

    qtbot.keyClick(found.topic, Qt.Key.Key_D, Qt.KeyboardModifier.AltModifier)

    qtbot.waitUntil(lambda: [a.id for a in state_of(window).agents] == HAND, timeout=WAIT_MS)
    assert state_of(window).topic == "Should open-weight models be licensed?"
    assert window.bridge.session_id() == session_id


def test_ctrl_return_after_a_deal_click_plays_the_step_the_status_line_names(qtbot, cards):
    """Issue 27.1: the key the status line names re-dealt and wiped the debate."""
    window, found = cards
    session_id = window.bridge.session_id()
    found.set_hand(HAND)
    found.topic.setText(TOPIC)
    qtbot.mouseClick(found.deal_button, Qt.MouseButton.LeftButton)  # the focus stays here
    qtbot.waitUntil(lambda: [a.id for a in state_of(window).agents] == HAND, timeout=WAIT_MS)
    wait_idle(qtbot, window)
    assert "Ctrl+Return" in window.status.phase_label.full_text()
    found.deal_button.setFocus()

    qtbot.keyClick(found.deal_button, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)

    qtbot.waitUntil(lambda: bool(state_of(window).claims), timeout=WAIT_MS)  # drawn
    wait_idle(qtbot, window)
    assert window.bridge.session_id() == session_id
    assert [a.id for a in state_of(window).agents] == HAND
    assert found.question.box is None


def under_way(qtbot, window, found):  # type: ignore[no-untyped-def]
    """The shown debate with its claims drawn and stances taken, and the hand to deal."""
    step(qtbot, window)  # claims
    step(qtbot, window)  # stances
    found.set_hand(HAND)
    found.topic.setText("Should open-weight models be licensed?")
    return window.bridge.session_id(), window.call_count()


def test_dealing_over_a_debate_under_way_asks_first_naming_what_would_stop(qtbot, cards):
    window, found = cards
    session_id, calls = under_way(qtbot, window, found)
    claims = len(state_of(window).claims)

    assert found.deal()

    box = found.question.box
    assert box is not None and box.isVisible()
    assert box.text() == (
        f"Deal again? The debate under way (its {claims} claims, the agents' stances and "
        f"{calls} calls) stays saved in Past debates, but it is not finished: a new debate "
        "takes its place.")
    assert box.windowModality() != Qt.WindowModality.ApplicationModal  # open(), not exec()
    wait_idle(qtbot, window)
    assert window.bridge.session_id() == session_id  # nothing happens until answered


def test_the_deal_question_is_the_shared_ask_first_question_keeping_by_default(
        qtbot, cards):
    window, found = cards
    under_way(qtbot, window, found)

    assert found.deal()

    box = found.question.box
    assert isinstance(box, AskFirstBox)
    assert found.question.deal_button() is box.yes_button
    assert box.yes_button.text() == "Deal a new debate"
    assert box.defaultButton() is box.escapeButton()
    assert box.escapeButton().text() == "Keep this debate"


def test_keeping_the_debate_under_way_changes_nothing(qtbot, cards):
    window, found = cards
    session_id, _ = under_way(qtbot, window, found)
    agents = [a.id for a in state_of(window).agents]
    assert found.deal()
    box = found.question.box

    box.escapeButton().click()

    qtbot.waitUntil(lambda: found.question.box is None, timeout=WAIT_MS)
    wait_idle(qtbot, window)
    assert window.bridge.session_id() == session_id
    assert [a.id for a in state_of(window).agents] == agents
    assert state_of(window).claims


def test_dealing_anew_after_the_question_starts_a_new_debate_with_the_hand(qtbot, cards):
    window, found = cards
    session_id, _ = under_way(qtbot, window, found)
    assert found.deal()

    found.question.deal_button().click()

    qtbot.waitUntil(lambda: window.bridge.session_id() != session_id and
                    state_of(window) is not None and
                    [a.id for a in state_of(window).agents] == HAND, timeout=WAIT_MS)
    assert state_of(window).topic == "Should open-weight models be licensed?"
    assert not state_of(window).claims


def test_the_decks_topic_is_shown_whole_wrapped_never_cut(qtbot, cards):
    window, found = cards
    deck = load_deck("ai-regulation")
    found.resize(320, found.height())  # narrower than the topic's one line
    qtbot.waitUntil(lambda: found.deck_note.width() < found.deck_note.fontMetrics()
                    .horizontalAdvance(deck.description), timeout=WAIT_MS)

    assert isinstance(found.deck_note, WrappedLabel)
    assert found.deck_note.shown_text() == deck.description
    assert found.deck_note.height() >= found.deck_note.heightForWidth(
        found.deck_note.width())
    assert not [p for p in elided_texts(window) if "debateDeckNote" in p]


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
