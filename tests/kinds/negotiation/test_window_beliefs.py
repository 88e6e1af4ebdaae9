"""The Beliefs dock in the window: its sliders and markers follow the state, a slider let
go of mid-game is in the very next payload the context view shows (and the shown
document parses back to that request's messages: shown is sent) and in the request
sent, and the plots draw the trait and influence histories. Offscreen, offline model."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor

from roundtable_desktop.context.request_document import messages_from_document
from roundtable_desktop.engine.base import Action
from roundtable_desktop.kinds.negotiation.scenario import TRAITS, load_scenario
from roundtable_desktop.kinds.negotiation.state import SIDES, new_state
from roundtable_desktop.ui.kinds.negotiation.trait_panel import (
    TraitPanel,
    to_slider,
    trait_text,
)
from tests.fakes.window_harness import (
    WAIT_MS,
    edit,
    offline_choice,
    perform,
    wait_idle,
)
from tests.kinds.negotiation.window_helpers import (
    beliefs_dock,
    play_to_the_end,
    read_shown_request,
    shows_pending,
    start_negotiation,
    state_of,
)

pytestmark = pytest.mark.qt


def drag(slider, value: float) -> None:  # type: ignore[no-untyped-def]
    """Press the handle, move it to `value`, let go (as a mouse drag does)."""
    slider.setSliderDown(True)
    slider.setValue(to_slider(value))
    slider.setSliderDown(False)


def test_the_sliders_start_at_each_sides_self_profile_with_the_observers_beside(window):
    dock = beliefs_dock(window)
    state = state_of(window)

    for side in SIDES:
        panel = dock.panel(side)
        mine = state.sides[side].self_profile.as_dict()
        seen = state.sides[side].observed.dims.as_dict()
        assert panel.values() == {t: float(mine[t]) for t in TRAITS}
        assert {t: panel.observed_labels[t].text() for t in TRAITS} == {
            t: trait_text(seen[t]) for t in TRAITS}
        assert {t: panel.sliders[t].observed() for t in TRAITS} == seen


def test_the_observers_markers_follow_its_new_model_after_a_turn(qtbot, window):
    dock = beliefs_dock(window)
    perform(qtbot, window, "take_turn")  # manual flow: a whole turn, the observer included
    state = state_of(window)
    assert state.sides["KEEPER"].observed.turn == 1

    seen = state.sides["KEEPER"].observed.dims.as_dict()
    panel = dock.panel("KEEPER")
    qtbot.waitUntil(lambda: {t: panel.sliders[t].observed() for t in TRAITS} == seen,
                    timeout=WAIT_MS)
    assert panel.observed_labels["logic"].text() == trait_text(seen["logic"])
    assert "turn 1" in panel.model_note.text()


def test_a_slider_let_go_of_mid_game_is_in_the_next_payload_shown(qtbot, window):
    edit(qtbot, window, "set_flow", flow="confirm")
    perform(qtbot, window, "take_turn")  # stops at PLAN: the draft is what comes next
    qtbot.waitUntil(lambda: shows_pending(window), timeout=WAIT_MS)
    slider = beliefs_dock(window).panel("ALLY").sliders["openness"]
    assert slider.value() != to_slider(1.5)

    drag(slider, 1.5)

    qtbot.waitUntil(lambda: state_of(window).sides["ALLY"].self_profile.openness == 1.5,
                    timeout=WAIT_MS)
    qtbot.waitUntil(lambda: shows_pending(window), timeout=WAIT_MS)
    pending = window.runner.handle.session.pending_payloads()[0]
    assert pending.request.purpose == "reply"
    assert "- openness: 1.5" in pending.request.messages[0].content
    assert messages_from_document(read_shown_request(qtbot, window)) == \
        pending.request.messages


def test_the_moved_slider_is_in_the_request_sent_and_recorded(qtbot, window):
    edit(qtbot, window, "set_flow", flow="confirm")
    perform(qtbot, window, "take_turn")
    drag(beliefs_dock(window).panel("ALLY").sliders["risk"], 4.5)
    qtbot.waitUntil(lambda: state_of(window).sides["ALLY"].self_profile.risk == 4.5,
                    timeout=WAIT_MS)

    perform(qtbot, window, "pick_option", option=0)

    calls = window.runner.store.calls(window.runner.handle.session_id)
    draft = [c for c in calls if c.purpose == "reply"][-1]
    assert "- risk: 4.5" in draft.messages()[0]["content"]
    assert any(e.type == "TRAITS" and "risk=4.5" in e.text for e in state_of(window).log)


def test_a_slider_held_down_sends_nothing_until_let_go(qtbot, window):
    slider = beliefs_dock(window).panel("KEEPER").sliders["empathy"]
    before = state_of(window).sides["KEEPER"].self_profile.empathy

    slider.setSliderDown(True)
    slider.setValue(to_slider(5))
    wait_idle(qtbot, window)
    held = state_of(window).sides["KEEPER"].self_profile.empathy
    slider.setSliderDown(False)

    assert held == before
    qtbot.waitUntil(lambda: state_of(window).sides["KEEPER"].self_profile.empathy == 5,
                    timeout=WAIT_MS)


def test_the_plots_draw_each_turn_of_the_chosen_trait_and_the_influence(qtbot, window):
    perform(qtbot, window, "take_turn")
    perform(qtbot, window, "take_turn")
    plot = beliefs_dock(window).plot
    state = state_of(window)

    plot.set_trait("authority")

    qtbot.waitUntil(lambda: len(plot.series("KEEPER", "observed")[0]) ==
                    len(state.trait_history), timeout=WAIT_MS)
    xs, ys = plot.series("KEEPER", "observed")
    assert xs == [float(p.turn) for p in state.trait_history]
    assert ys == [float(p.observed["KEEPER"]["authority"]) for p in state.trait_history]
    assert plot.series("ALLY", "influence")[1] == [p.ally for p in state.influence_history]


def test_the_sliders_are_disabled_once_adjudicated_and_say_why(qtbot, window):
    play_to_the_end(qtbot, window)
    slider = beliefs_dock(window).panel("ALLY").sliders["logic"]

    qtbot.waitUntil(lambda: not slider.isEnabled(), timeout=WAIT_MS)
    assert "adjudicated" in slider.toolTip()


def test_a_slider_let_go_of_while_a_turn_streams_applies_at_once(qtbot, make_window):
    window = make_window(offline_choice(delay_s=0.01))
    start_negotiation(qtbot, window)
    window.runner.perform(Action(id="auto", steps=2))
    qtbot.waitUntil(window.runner.acting, timeout=WAIT_MS)

    drag(beliefs_dock(window).panel("KEEPER").sliders["authority"], 1)

    qtbot.waitUntil(lambda: state_of(window).sides["KEEPER"].self_profile.authority == 1,
                    timeout=WAIT_MS)
    assert window.runner.acting()  # the turn was still running
    window.runner.stop()
    wait_idle(qtbot, window)


def test_a_failed_observer_update_is_said_under_the_kept_model(qtbot):
    state = new_state("default", load_scenario("default"), model="m", provider="offline")
    side = state.sides["KEEPER"]
    side.observed = side.observed.model_copy(update={"error": "not JSON after one repair"})
    panel = TraitPanel("KEEPER")
    qtbot.addWidget(panel)

    panel.show_side(side, QColor("#123456"))

    assert "The last update failed; this model was kept (not JSON after one repair)." in \
        panel.model_note.text()
