"""A whole offline negotiation in the window in confirm mode, played as a presenter does:
Confirm in the Sequencer, Take turn on the toolbar, an option button for each pick, the
draft's Send button, until the game is adjudicated; then the end panel shows the
outcome and the Sequencer says so. Offscreen, offline model."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from tests.fakes.window_harness import WAIT_MS, wait_idle
from tests.kinds.negotiation.window_helpers import sequencer_dock, state_of

pytestmark = pytest.mark.qt
MAX_TURNS = 24


def play_one_turn(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    """Take turn, pick the option the policy would (clicking its button), send."""
    dock = sequencer_dock(window)
    take = window.toolbar.qactions["take_turn"]
    qtbot.waitUntil(take.isEnabled, timeout=WAIT_MS)
    take.trigger()
    qtbot.waitUntil(lambda: state_of(window).ended or bool(dock.turn.options_shown()),
                    timeout=WAIT_MS)
    wait_idle(qtbot, window)
    if state_of(window).ended:
        return
    pick = window.runner.handle.session.next_step().option
    qtbot.mouseClick(dock.turn.option_buttons[pick], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dock.turn.send_button.isVisibleTo(dock)
                    and dock.turn.send_button.isEnabled(), timeout=WAIT_MS)
    wait_idle(qtbot, window)
    dock.turn.send_button.click()
    qtbot.waitUntil(lambda: state_of(window).current is None, timeout=WAIT_MS)
    wait_idle(qtbot, window)


def test_a_confirm_mode_game_played_by_picking_options_ends_in_an_adjudication(
    qtbot, window
):
    sequencer_dock(window).flow_buttons["confirm"].click()
    qtbot.waitUntil(lambda: state_of(window).flow == "confirm", timeout=WAIT_MS)
    wait_idle(qtbot, window)

    for _ in range(MAX_TURNS):
        if state_of(window).ended:
            break
        play_one_turn(qtbot, window)

    state = state_of(window)
    assert state.ended, "no adjudication within the turn cap"
    panel = window.end_panel
    qtbot.waitUntil(panel.isVisible, timeout=WAIT_MS)
    assert panel.heading_text() == state.adjudication.outcome.capitalize()
    assert state.adjudication.reason.rstrip(".") in " ".join(panel.item_titles())
    assert any(title.startswith("Influence") for title in panel.item_titles())
    assert "adjudicated" in panel.headline_text()
    assert sequencer_dock(window).status_text().startswith(
        f"Adjudicated: {state.adjudication.outcome}")
    assert all(m.act for m in state.messages()[2:])  # every line sent carries its act
