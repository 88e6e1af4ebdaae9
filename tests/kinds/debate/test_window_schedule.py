"""The schedule a hand is dealt with, seen and set in the Cards dock before Deal: rounds
per table (3-5), merge cycles (2-3, 3 by default for 7+ cards) and the event cap
(1-50), bounded as the engine bounds them; the debate dealt has that schedule and the
game room says it. Offscreen, offline model."""

from __future__ import annotations

import pytest

from roundtable_desktop.kinds.debate.deck import load_deck
from roundtable_desktop.kinds.debate.setup import MAX_EVENTS, MERGE_CYCLES, ROUNDS_PER_TABLE
from roundtable_desktop.ui.kinds.debate.cards_dock import DebateCardsDock
from roundtable_desktop.ui.kinds.debate.room_dock import DebateRoomDock
from tests.fakes.window_harness import WAIT_MS
from tests.kinds.debate.test_window_debate import HAND, dock, start_debate, state_of

pytestmark = pytest.mark.qt


@pytest.fixture
def cards(qtbot, make_window):  # type: ignore[no-untyped-def]
    window = make_window(start=False)
    start_debate(qtbot, window)
    found = dock(window, "debateCardsDock", DebateCardsDock)
    found.show()
    found.raise_()
    return window, found


def test_the_schedule_is_shown_before_deal_with_the_engines_bounds(cards):
    _, found = cards
    view = found.schedule
    assert view.isVisible() and found.deal_button.isVisible()
    assert (view.rounds.minimum(), view.rounds.maximum()) == ROUNDS_PER_TABLE
    assert (view.cycles.minimum(), view.cycles.maximum()) == MERGE_CYCLES
    assert (view.cap.minimum(), view.cap.maximum()) == MAX_EVENTS
    assert view.mapTo(found, view.rect().bottomLeft()).y() <= \
        found.deal_button.mapTo(found, found.deal_button.rect().topLeft()).y()  # above Deal
    words = ("3 rounds per table, a merge after each; the first 2 merges reseat the "
             "tables; at most 12 events.")
    assert view.note_text() == words
    assert words in view.toolTip()


def test_the_schedule_shows_the_shown_debates_own(qtbot, cards):
    window, found = cards
    state = state_of(window)
    assert (found.schedule.rounds.value(), found.schedule.cycles.value(),
            found.schedule.cap.value()) == (state.rounds_per_table, state.merge_cycles,
                                            state.max_events)


def test_a_deal_with_a_schedule_set_deals_a_debate_with_that_schedule(qtbot, cards):
    window, found = cards
    session_id = window.bridge.session_id()
    found.set_hand(HAND)
    found.schedule.rounds.setValue(4)
    found.schedule.cycles.setValue(3)
    found.schedule.cap.setValue(9)

    assert found.deal()

    qtbot.waitUntil(lambda: window.bridge.session_id() != session_id and
                    state_of(window) is not None and
                    [a.id for a in state_of(window).agents] == HAND, timeout=WAIT_MS)
    state = state_of(window)
    assert (state.rounds_per_table, state.merge_cycles, state.max_events) == (4, 3, 9)
    room = dock(window, "debateRoomDock", DebateRoomDock)
    qtbot.waitUntil(lambda: "of 4 per table" in room.schedule.text(), timeout=WAIT_MS)
    assert "at most 9 events" in room.schedule.text()


def test_merge_cycles_follow_the_hands_size_until_the_user_sets_them(cards):
    _, found = cards
    ids = [c.id for c in load_deck("ai-regulation").cards if not c.locked][:8]
    found.set_hand(ids)
    assert found.schedule.cycles.value() == 3  # 7+ cards
    found.set_hand(ids[:3])
    assert found.schedule.cycles.value() == 2

    found.schedule.cycles.setValue(3)
    found.set_hand(ids[:4])

    assert found.schedule.cycles.value() == 3


def test_a_cap_under_the_rounds_is_said_before_deal(cards):
    _, found = cards
    found.schedule.rounds.setValue(5)
    found.schedule.cap.setValue(2)

    assert found.schedule.note_text().endswith(
        "The cap stops the tables after 2 rounds, before their 5.")
    assert found.schedule.note.isVisible()


def test_a_value_out_of_range_cannot_be_entered(qtbot, cards):
    _, found = cards
    found.schedule.rounds.setValue(9)
    found.schedule.cap.setValue(0)

    assert found.schedule.rounds.value() == ROUNDS_PER_TABLE[1]
    assert found.schedule.cap.value() == MAX_EVENTS[0]


def test_classical_mode_has_no_schedule_of_rounds(cards):
    _, found = cards
    found.set_mode("classical")

    assert not found.schedule.rounds.isEnabled()
    assert not found.schedule.cap.isEnabled()
    assert found.schedule.note_text().startswith("Classical mode")


def test_deal_stays_in_sight_below_the_schedule_on_a_laptop(qtbot, cards):
    window, found = cards
    window.resize(1366, 768)
    qtbot.waitUntil(lambda: window.width() == 1366, timeout=5000)

    button = found.deal_button
    qtbot.waitUntil(lambda: button.visibleRegion().boundingRect() == button.rect(),
                    timeout=5000)  # whole, not scrolled out of the dock
    assert found.schedule.visibleRegion().boundingRect() == found.schedule.rect()
