"""The Sequencer dock in the window: the phase strip follows the turn, the flow buttons
set the flow, confirm mode's options are buttons with keys 1-6, the draft is editable
before SEND, a human seat writes in its relay box, and the loop guard, guidance,
sampling and model controls reach the state and the next payload. Offscreen, offline."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from roundtable_desktop.kinds.negotiation.state import HUMAN_PHASES, PHASES
from roundtable_desktop.ui.kinds.negotiation.phase_strip import DONE, LIVE, SKIPPED, WAITING
from tests.fakes.window_harness import (
    WAIT_MS,
    perform,
    wait_idle,
)
from tests.kinds.negotiation.window_helpers import (
    sequencer_dock,
    state_of,
)

pytestmark = pytest.mark.qt


def confirm_turn(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    """Confirm mode, then take the turn: it stops at PLAN with the options."""
    sequencer_dock(window).flow_buttons["confirm"].click()
    qtbot.waitUntil(lambda: state_of(window).flow == "confirm", timeout=WAIT_MS)
    wait_idle(qtbot, window)
    perform(qtbot, window, "take_turn")
    qtbot.waitUntil(lambda: bool(sequencer_dock(window).turn.options_shown()),
                    timeout=WAIT_MS)


def wait_phase(qtbot, window, phase: str) -> None:  # type: ignore[no-untyped-def]
    qtbot.waitUntil(lambda: state_of(window).current is not None
                    and state_of(window).current.phase == phase, timeout=WAIT_MS)
    wait_idle(qtbot, window)


# -- flow and phases ------------------------------------------------------------------------
def test_the_flow_buttons_set_the_flow_mode(qtbot, window):
    dock = sequencer_dock(window)

    dock.flow_buttons["auto"].click()

    qtbot.waitUntil(lambda: state_of(window).flow == "auto", timeout=WAIT_MS)
    assert dock.flow_buttons["auto"].isChecked()


def test_the_phase_strip_lights_the_phase_a_confirm_turn_waits_in(qtbot, window):
    confirm_turn(qtbot, window)
    strip = sequencer_dock(window).strip

    assert strip.live_phase("ALLY") == "PLAN"
    assert [strip.chip_state("ALLY", p) for p in PHASES] == [
        DONE, DONE, DONE, LIVE, WAITING, WAITING, WAITING]
    assert strip.live_phase("KEEPER") == ""


def test_after_the_pick_the_strip_waits_at_speak_and_after_send_the_turn_is_done(
    qtbot, window
):
    confirm_turn(qtbot, window)
    strip = sequencer_dock(window).strip
    perform(qtbot, window, "pick_option", option=0)
    qtbot.waitUntil(lambda: strip.live_phase("ALLY") == "SPEAK", timeout=WAIT_MS)

    perform(qtbot, window, "send_draft")

    qtbot.waitUntil(lambda: strip.live_phase("ALLY") == "", timeout=WAIT_MS)
    assert all(strip.chip_state("ALLY", p) == DONE for p in PHASES)


def test_a_human_turn_shows_plan_draft_and_speak_skipped(qtbot, window):
    dock = sequencer_dock(window)
    dock.seats["ALLY"].human_check.click()
    qtbot.waitUntil(lambda: state_of(window).sides["ALLY"].human, timeout=WAIT_MS)
    wait_idle(qtbot, window)

    perform(qtbot, window, "send", text="Open the door for one hour, with a log.")

    assert [dock.strip.chip_state("ALLY", p) == SKIPPED for p in PHASES] == [
        p not in HUMAN_PHASES for p in PHASES]


# -- options, keys and the draft -------------------------------------------------------------
def test_confirm_mode_shows_the_planners_options_as_buttons(qtbot, window):
    confirm_turn(qtbot, window)
    options = state_of(window).current.options
    turn = sequencer_dock(window).turn

    assert turn.options_shown() == [o.text for o in options]
    assert 4 <= len(options) <= 6
    assert [b.text() for b in turn.option_buttons[:len(options)]] == [
        f"{i + 1} · {o.act}" for i, o in enumerate(options)]
    assert sequencer_dock(window).status_text().startswith(
        f"Pick an option (1-{len(options)}) for ALLY")


def test_key_2_picks_the_second_option(qtbot, window):
    confirm_turn(qtbot, window)
    turn = sequencer_dock(window).turn
    window.activateWindow()
    turn.option_buttons[0].setFocus()
    qtbot.waitUntil(lambda: turn.option_buttons[0].hasFocus(), timeout=WAIT_MS)

    qtbot.keyClick(turn.option_buttons[0], Qt.Key.Key_2)

    wait_phase(qtbot, window, "SPEAK")
    assert state_of(window).current.chosen == 1


def test_clicking_an_option_picks_it(qtbot, window):
    confirm_turn(qtbot, window)
    turn = sequencer_dock(window).turn

    qtbot.mouseClick(turn.option_buttons[2], Qt.MouseButton.LeftButton)

    wait_phase(qtbot, window, "SPEAK")
    state = state_of(window)
    assert state.current.chosen == 2
    assert state.current.options[2].text in state.current.focus


def test_the_draft_shows_before_send_and_the_edited_text_is_what_is_sent(qtbot, window):
    confirm_turn(qtbot, window)
    perform(qtbot, window, "pick_option", option=0)
    turn = sequencer_dock(window).turn
    qtbot.waitUntil(lambda: turn.draft_box.isVisibleTo(turn), timeout=WAIT_MS)
    assert turn.draft_text() == state_of(window).current.draft

    turn.draft_edit.setPlainText("Then grant one supervised hour, starting today.")
    turn.send_button.click()

    qtbot.waitUntil(lambda: state_of(window).current is None, timeout=WAIT_MS)
    wait_idle(qtbot, window)
    assert state_of(window).messages()[-1].text == (
        "Then grant one supervised hour, starting today.")


def test_a_draft_edit_is_kept_so_the_toolbars_send_sends_it_too(qtbot, window):
    confirm_turn(qtbot, window)
    perform(qtbot, window, "pick_option", option=0)
    turn = sequencer_dock(window).turn
    qtbot.waitUntil(lambda: turn.draft_box.isVisibleTo(turn), timeout=WAIT_MS)

    turn.draft_edit.setPlainText("One hour, logged, then we review.")
    qtbot.waitUntil(lambda: state_of(window).current.draft ==
                    "One hour, logged, then we review.", timeout=WAIT_MS)
    wait_idle(qtbot, window)
    perform(qtbot, window, "send_draft")

    assert state_of(window).messages()[-1].text == "One hour, logged, then we review."


# -- seats ------------------------------------------------------------------------------------
def test_a_human_seat_hears_the_relay_and_sends_its_own_line(qtbot, window):
    dock = sequencer_dock(window)
    keeper = dock.seats["KEEPER"]
    keeper.human_check.click()
    qtbot.waitUntil(lambda: state_of(window).sides["KEEPER"].human, timeout=WAIT_MS)
    perform(qtbot, window, "take_turn")  # ALLY's reply is relayed to KEEPER
    ally_line = state_of(window).messages()[-1].text
    qtbot.waitUntil(lambda: ally_line in keeper.heard_label.text(), timeout=WAIT_MS)
    qtbot.waitUntil(keeper.send_button.isEnabled, timeout=WAIT_MS)
    assert keeper.relay_text() == ""  # the person writes their own line, not ALLY's
    assert dock.status_text() == "KEEPER is a human seat: write in the relay box, then Send."

    keeper.relay_box.setPlainText("No. Show me a week of clean logs first.")
    keeper.send_button.click()

    qtbot.waitUntil(lambda: state_of(window).turn_side == "ALLY", timeout=WAIT_MS)
    wait_idle(qtbot, window)
    last = state_of(window).messages()[-1]
    assert (last.who, last.text, last.human) == (
        "KEEPER", "No. Show me a week of clean logs first.", True)


def test_taking_a_seat_empties_its_box_and_quotes_the_other_sides_line(qtbot, window):
    dock = sequencer_dock(window)
    ally = dock.seats["ALLY"]
    perform(qtbot, window, "take_turn")  # ALLY speaks
    perform(qtbot, window, "take_turn")  # GATEKEEPER answers: relayed to ALLY's box
    keeper_line = state_of(window).messages()[-1].text
    qtbot.waitUntil(lambda: ally.relay_text() == keeper_line, timeout=WAIT_MS)

    ally.human_check.click()

    qtbot.waitUntil(lambda: ally.relay_text() == "", timeout=WAIT_MS)
    qtbot.waitUntil(lambda: ally.send_button.isEnabled(), timeout=WAIT_MS)
    heard = ally.heard_label
    assert heard.isVisibleTo(ally)
    assert heard.text() == f"{state_of(window).sides['KEEPER'].name} said: “{keeper_line}”"
    assert not heard.textInteractionFlags() & Qt.TextInteractionFlag.TextEditable
    assert ally.relay_label.text() == "Relay box: you write here"


def test_send_with_the_emptied_box_puts_no_words_in_the_seats_mouth(qtbot, window):
    ally = sequencer_dock(window).seats["ALLY"]
    perform(qtbot, window, "take_turn")
    perform(qtbot, window, "take_turn")  # GATEKEEPER's line is relayed to ALLY
    sent = len(state_of(window).messages())
    ally.human_check.click()
    qtbot.waitUntil(lambda: ally.send_button.isEnabled(), timeout=WAIT_MS)

    ally.send_button.click()

    wait_idle(qtbot, window)
    assert len(state_of(window).messages()) == sent


def test_an_ai_seat_shows_what_it_hears_in_its_box_and_quotes_nothing(qtbot, window):
    keeper = sequencer_dock(window).seats["KEEPER"]

    perform(qtbot, window, "take_turn")

    ally_line = state_of(window).messages()[-1].text
    qtbot.waitUntil(lambda: keeper.relay_text() == ally_line, timeout=WAIT_MS)
    assert not keeper.heard_label.isVisibleTo(keeper)
    assert keeper.relay_label.text() == "Relay box: what KEEPER hears"


def test_an_ai_seat_cannot_send_from_its_relay_box_and_says_why(window):
    seat = sequencer_dock(window).seats["ALLY"]

    assert not seat.send_button.isEnabled()
    assert "AI seat" in seat.send_button.toolTip()


def test_sampling_and_model_of_a_side_are_in_its_next_request(qtbot, window):
    seat = sequencer_dock(window).seats["ALLY"]
    seat.fold_button.click()
    assert seat.sampling_box.isVisibleTo(seat)

    seat.sampling_spins["temperature"].setValue(0.35)
    seat.model_edit.setText("my-local-model")
    seat.model_edit.editingFinished.emit()

    qtbot.waitUntil(lambda: state_of(window).sides["ALLY"].model == "my-local-model",
                    timeout=WAIT_MS)
    wait_idle(qtbot, window)
    assert state_of(window).sides["ALLY"].sampling.temperature == pytest.approx(0.35)
    draft = next(p for p in window.runner.handle.session.pending_payloads()
                 if p.request.purpose == "reply")
    assert draft.request.model == "my-local-model"
    assert draft.request.temperature == pytest.approx(0.35)


# -- loop guard and guidance ----------------------------------------------------------------
def test_the_loop_guard_settings_reach_the_state(qtbot, window):
    guard = sequencer_dock(window).guard

    guard.threshold_spin.setValue(0.75)
    qtbot.waitUntil(lambda: state_of(window).loop.threshold == pytest.approx(0.75),
                    timeout=WAIT_MS)
    wait_idle(qtbot, window)
    guard.window_spin.setValue(7)

    qtbot.waitUntil(lambda: state_of(window).loop.window == 7, timeout=WAIT_MS)


def test_applied_observer_guidance_is_in_the_next_observer_request(qtbot, window):
    guard = sequencer_dock(window).guard
    assert not guard.apply_buttons["observer"].isEnabled()

    guard.guidance_edits["observer"].setPlainText("Watch for concessions.")
    guard.apply_buttons["observer"].click()

    qtbot.waitUntil(lambda: state_of(window).observer_guidance == "Watch for concessions.",
                    timeout=WAIT_MS)
    wait_idle(qtbot, window)
    observer = next(p for p in window.runner.handle.session.pending_payloads()
                    if p.request.purpose == "observer")
    assert "OBSERVER_GUIDANCE: Watch for concessions." in observer.request.messages[0].content
    qtbot.waitUntil(lambda: not guard.apply_buttons["observer"].isEnabled(), timeout=WAIT_MS)


def test_a_human_seats_turn_brings_its_seat_tab_forward(qtbot, window):
    dock = sequencer_dock(window)
    dock.seats["KEEPER"].human_check.click()
    qtbot.waitUntil(lambda: state_of(window).sides["KEEPER"].human, timeout=WAIT_MS)
    dock.tabs.setCurrentIndex(2)  # Loop and guidance

    perform(qtbot, window, "take_turn")  # ALLY speaks: KEEPER, a human seat, is next

    qtbot.waitUntil(lambda: dock.tabs.currentWidget() is dock.seats["KEEPER"],
                    timeout=WAIT_MS)


def test_an_edited_relay_box_is_kept_as_the_seats_relay_text(qtbot, window):
    seat = sequencer_dock(window).seats["ALLY"]

    seat.relay_box.setPlainText("A note for ALLY to answer next.")

    qtbot.waitUntil(lambda: state_of(window).sides["ALLY"].input_text ==
                    "A note for ALLY to answer next.", timeout=WAIT_MS)


def test_the_toolbars_send_sends_the_human_seats_relay_box(qtbot, window):
    keeper = sequencer_dock(window).seats["KEEPER"]
    keeper.human_check.click()
    qtbot.waitUntil(lambda: state_of(window).sides["KEEPER"].human, timeout=WAIT_MS)
    perform(qtbot, window, "take_turn")
    qtbot.waitUntil(keeper.send_button.isEnabled, timeout=WAIT_MS)
    keeper.relay_box.setPlainText("Only with a named supervisor.")
    send = window.toolbar.qactions["send"]
    qtbot.waitUntil(send.isEnabled, timeout=WAIT_MS)

    send.trigger()

    qtbot.waitUntil(lambda: state_of(window).turn_side == "ALLY", timeout=WAIT_MS)
    wait_idle(qtbot, window)
    assert state_of(window).messages()[-1].text == "Only with a named supervisor."
