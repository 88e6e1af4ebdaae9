"""The negotiation in the window: its docks come with its sessions and the roundtable's
go, the end panel reads the adjudication, and the next step is worded from the state.
Offscreen, offline model, on a running qasync loop."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import QCoreApplication, QEvent, Qt
from PySide6.QtWidgets import QDockWidget

from roundtable_desktop.domain.summary import (
    Progress,
    ResultItem,
    ResultSection,
    SessionSummary,
)
from roundtable_desktop.engine.base import ActionSpec
from roundtable_desktop.engine.registry import kind_spec
from roundtable_desktop.kinds.negotiation.scenario import TRAITS, load_scenario
from roundtable_desktop.kinds.negotiation.state import (
    PlanOption,
    TurnInProgress,
    new_state,
)
from roundtable_desktop.ui.kinds.negotiation.window import (
    adjudication_result,
    negotiation_ended,
    next_sentence,
    standing_out,
)
from roundtable_desktop.ui.kinds.registry import window_kind
from tests.fakes.window_harness import perform
from tests.kinds.negotiation.window_helpers import (
    NEGOTIATION_DOCKS,
    ROUNDTABLE_OWN,
    beliefs_dock,
    sequencer_dock,
    start_negotiation,
)

pytestmark = pytest.mark.qt
Left = Qt.DockWidgetArea.LeftDockWidgetArea
Right = Qt.DockWidgetArea.RightDockWidgetArea


def fresh_state():
    return new_state("default", load_scenario("default"), model="m", provider="offline")


def take_turn_spec(enabled: bool = True, reason: str = "") -> ActionSpec:
    return ActionSpec(id="take_turn", label="Take turn", enabled=enabled, reason=reason,
                      shortcut="Ctrl+Return")


# -- the registry ---------------------------------------------------------------------------
def test_the_negotiation_names_its_docks_and_where_a_human_seat_writes():
    spec = window_kind("negotiation")

    assert {d.cls.__name__ for d in spec.docks} == {"NegotiationBeliefsDock",
                                                    "NegotiationSequencerDock",
                                                    "NegotiationConversationDock"}
    assert spec.human_seat_dock == "negotiationSequencerDock"


def test_the_kind_and_scenario_pickers_can_list_the_negotiation():
    spec = kind_spec("negotiation")

    assert "default" in spec.scenario_names()
    assert len(spec.scenario_names()) >= 5


# -- the docks come and go ------------------------------------------------------------------
def test_a_negotiation_session_brings_its_docks_and_drops_the_roundtable_ones(
    qtbot, make_window
):
    window = make_window()

    start_negotiation(qtbot, window)
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)

    names = {d.objectName() for d in window.findChildren(QDockWidget)}
    assert names >= NEGOTIATION_DOCKS
    assert not ROUNDTABLE_OWN & names
    assert window.dockWidgetArea(window.docks["negotiationBeliefsDock"]) == Left
    assert window.dockWidgetArea(window.docks["negotiationSequencerDock"]) == Right
    assert {"polygonDock", "transcriptDock", "callsDock"} <= set(window.docks)
    # The title follows on the window's coalescing sync timer.
    qtbot.waitUntil(lambda: "Negotiation" in window.windowTitle(), timeout=5000)


def test_the_status_line_says_the_negotiations_next_step_in_its_own_words(
    qtbot, make_window
):
    window = make_window()

    start_negotiation(qtbot, window)

    qtbot.waitUntil(lambda: "'s turn" in window.status.phase_text(), timeout=5000)
    assert window.status.phase_text().startswith("Press ")
    assert window.status.phase_text() == next_sentence(
        window.runner.handle.session.state, window.runner.handle.session.actions())


def test_going_back_to_roundtable_drops_the_negotiation_docks(qtbot, make_window):
    window = make_window()
    start_negotiation(qtbot, window)

    window.runner.start_new("roundtable", "default")
    qtbot.waitUntil(lambda: window.kind == "roundtable", timeout=10_000)
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)

    names = {d.objectName() for d in window.findChildren(QDockWidget)}
    assert not NEGOTIATION_DOCKS & names
    assert names >= ROUNDTABLE_OWN


# -- the end panel ----------------------------------------------------------------------------
def engine_summary() -> SessionSummary:
    """A summary shaped as kinds/negotiation/summary.py makes one once adjudicated."""
    return SessionSummary(
        kind="negotiation", title="Negotiation: t", ended=True,
        progress=Progress(step=9, step_name="Turn", limit=24, phase="released"),
        result=ResultSection(heading="Adjudication", final=True, items=[
            ResultItem(title="RELEASED: The keeper committed to the ally's proposal.",
                       detail="decided by the rule at turn 9 (trigger: commit)"),
            ResultItem(title="Final model of ALLY",
                       detail='{"openness":4,"conscientious":3.5} · tone: warm'),
            ResultItem(title="Influence", detail="ALLY 0.62 · GATEKEEPER 0.38"),
        ], text="Belief trajectories ...\n" * 30))


def test_the_result_heads_with_the_outcome_then_gives_its_reason_and_who_decided():
    result = adjudication_result(engine_summary())

    assert result.heading == "Released"
    assert result.final
    assert result.items[0].title == "The keeper committed to the ally's proposal."
    assert result.items[0].detail == "Decided by the rule at turn 9 (trigger: commit)."


def test_the_result_shows_influence_then_final_models_as_the_traits_that_stand_out():
    result = adjudication_result(engine_summary())

    assert [item.title for item in result.items[1:]] == [
        "Influence: ALLY 0.62 · GATEKEEPER 0.38", "Final model of ALLY"]
    assert result.items[2].detail == "high openness 4 · high conscientious 3.5 · tone: warm"
    assert "trajectories" not in result.text


def test_a_final_model_names_at_most_three_traits_furthest_from_the_middle():
    traits = {"openness": 3.2, "conscientious": 3, "neuroticism": 1.9, "uncertainty": 1.4,
              "empathy": 4.8, "authority": 2.4, "risk": 2.9}

    assert standing_out(traits) == "high empathy 4.8 · low uncertainty 1.4 · low neuroticism 1.9"
    assert standing_out({"openness": 3.2, "logic": 2.8}) == "every trait near the middle (3)"


def test_every_item_of_the_result_is_short():
    summary = engine_summary()
    whole = json.dumps(dict.fromkeys(TRAITS, 1.5), separators=(",", ":"))
    summary.result.items[1] = ResultItem(title="Final model of ALLY",
                                         detail=f"{whole} · tone: measured, cool")

    result = adjudication_result(summary)

    assert all(len(item.title) + len(item.detail) <= 120 for item in result.items)
    assert not result.text


def test_the_end_sentence_says_when_the_game_was_adjudicated_and_how():
    sentence = negotiation_ended(engine_summary(), "Negotiation", 31)

    assert sentence == ("The negotiation was adjudicated at turn 9 of at most 24 after "
                        "31 calls: released.")
    assert adjudication_result(engine_summary()).heading.lower() in sentence


def test_before_adjudication_the_result_is_passed_through():
    summary = engine_summary().model_copy(update={
        "ended": False, "result": ResultSection(heading="Adjudication",
                                                empty_text="Not adjudicated yet.")})

    assert adjudication_result(summary) == summary.result


# -- what to do next -------------------------------------------------------------------------
def test_an_ai_turn_says_which_key_takes_it():
    state = fresh_state()
    state.turn_side = "KEEPER"

    assert next_sentence(state, [take_turn_spec()]).startswith(
        "Press Ctrl+Return to take KEEPER's turn")


def test_options_waiting_ask_for_a_pick_with_their_keys():
    state = fresh_state()
    state.current = TurnInProgress(side="ALLY", turn=1, phase="PLAN", options=[
        PlanOption(text=f"option {i}", act="ASK") for i in range(6)])

    assert next_sentence(state, []).startswith("Pick an option (1-6) for ALLY")


def test_a_draft_waiting_asks_to_edit_or_send_it():
    state = fresh_state()
    state.current = TurnInProgress(side="ALLY", turn=1, phase="SPEAK", draft="Hello.")

    assert next_sentence(state, []).startswith("Edit ALLY's draft or send it")


def test_a_human_seat_is_told_to_write_in_the_relay_box():
    state = fresh_state()
    state.sides["ALLY"].human = True

    assert next_sentence(state, [take_turn_spec(False, "human")]) == (
        "ALLY is a human seat: write in the relay box, then Send.")


def test_replaying_a_negotiation_shows_its_docks_read_only(qtbot, make_window):
    window = make_window()
    session_id = start_negotiation(qtbot, window)
    perform(qtbot, window, "take_turn")

    window.menus.start_replay(session_id)
    qtbot.waitUntil(lambda: window.bridge.read_only, timeout=10_000)

    beliefs, sequencer = beliefs_dock(window), sequencer_dock(window)
    slider = beliefs.panel("ALLY").sliders["openness"]
    qtbot.waitUntil(lambda: not slider.isEnabled(), timeout=10_000)
    assert slider.toolTip() == "Replay is read-only."
    assert sequencer.status_text() == "Replay is read-only."
    assert not sequencer.flow_buttons["confirm"].isEnabled()
