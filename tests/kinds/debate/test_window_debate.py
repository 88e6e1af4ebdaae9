"""The debate in the window: its docks replace the roundtable's, a hand is dealt from the
card browser (a locked card cannot be chosen, a short hand is refused with the reason),
the offline debate plays to the disagreement map, a round's answers stream side by side,
the polygon's shading follows the selected claim, and the context view shows each
agent's payload exactly as it is sent. Offscreen, offline model, on a running qasync
loop."""

from __future__ import annotations

import pytest

from roundtable_desktop.context.request_document import messages_from_document
from roundtable_desktop.kinds.debate.state import DebateState
from roundtable_desktop.kinds.debate.summary import outcome_words
from roundtable_desktop.ui.kinds.debate.answers_dock import DebateAnswersDock
from roundtable_desktop.ui.kinds.debate.cards_dock import DebateCardsDock
from roundtable_desktop.ui.kinds.debate.polygon_dock import DebatePolygonDock
from roundtable_desktop.ui.kinds.debate.room_dock import DebateRoomDock
from roundtable_desktop.ui.kinds.debate.window import debate_ended
from roundtable_desktop.ui.kinds.registry import window_kind
from roundtable_desktop.ui.window.main_window import MainWindow
from tests.fakes.window_harness import (
    WAIT_MS,
    offline_choice,
    wait_idle,
)
from tests.kinds.debate.conftest import AI_SIX

pytestmark = pytest.mark.qt

HAND = ["mara-okafor", "dev-lindqvist", "ines-barros", "tomas-reyes"]
LOCKED = "odile-fontaine"
TOPIC = "Should frontier AI models need a licence before public release?"
ROUNDTABLE_OWN = {"actorsDock", "candidatesDock", "whiteboardDock", "mcpDock", "composerDock"}
DEBATE_OWN = {"debateCardsDock", "debateRoomDock", "debatePolygonDock", "debateAnswersDock"}


def state_of(window: MainWindow) -> DebateState | None:
    handle = window.runner.handle
    state = getattr(handle.session, "state", None) if handle is not None else None
    return state if isinstance(state, DebateState) else None


def start_debate(qtbot, window: MainWindow, deck: str = "ai-regulation") -> None:  # type: ignore[no-untyped-def]
    window.runner.start_new("debate", deck)
    qtbot.waitUntil(lambda: window.kind == "debate" and state_of(window) is not None,
                    timeout=WAIT_MS)
    wait_idle(qtbot, window)


def dock(window: MainWindow, name: str, cls: type):  # type: ignore[no-untyped-def]
    found = window.docks[name]
    assert isinstance(found, cls)
    return found


def step(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    """Do what the session offers next, as the toolbar's Ctrl+Return would."""
    window.runner.perform(window.runner.handle.session.next_step())
    wait_idle(qtbot, window)


def play_to_the_map(qtbot, window: MainWindow, cap: int = 20) -> None:  # type: ignore[no-untyped-def]
    for _ in range(cap):
        if state_of(window).ended:
            return
        step(qtbot, window)
    assert state_of(window).ended, "the debate did not reach its map"


def test_the_debate_names_its_docks():
    spec = window_kind("debate")
    assert {d.cls.__name__ for d in spec.docks} == {
        "DebateCardsDock", "DebateRoomDock", "DebatePolygonDock", "DebateAnswersDock",
        "DebateConversationDock"}


def test_a_debate_shows_its_docks_and_the_roundtables_go(qtbot, make_window):
    window = make_window()
    assert set(window.docks) >= ROUNDTABLE_OWN

    start_debate(qtbot, window)

    assert set(window.docks) >= DEBATE_OWN
    assert not ROUNDTABLE_OWN & set(window.docks)
    assert {"polygonDock", "transcriptDock", "callsDock", "metricsDock"} <= set(window.docks)


def test_a_hand_dealt_from_the_cards_plays_offline_to_the_map_the_end_panel_shows(
    qtbot, make_window
):
    window = make_window(start=False)
    start_debate(qtbot, window)
    cards = dock(window, "debateCardsDock", DebateCardsDock)
    cards.set_hand(list(reversed(AI_SIX)))
    cards.topic.setText(TOPIC)
    assert cards.deal()
    qtbot.waitUntil(lambda: [a.id for a in state_of(window).agents] == list(reversed(AI_SIX)),
                    timeout=WAIT_MS)
    wait_idle(qtbot, window)

    play_to_the_map(qtbot, window)

    qtbot.waitUntil(lambda: window.end_panel.isVisible(), timeout=WAIT_MS)
    state = state_of(window)
    statuses = {o.status for o in state.outcomes}
    assert statuses and statuses <= {"converged", "split"}  # which ones: the seed's run
    panel = window.end_panel
    converged = sum(1 for o in state.outcomes if o.status == "converged")
    assert panel.heading_text() == \
        f"{converged} converged, {len(state.outcomes) - converged} split"
    assert panel.headline_text() == debate_ended(window.bridge.summary(), "Debate",
                                                 window.call_count())
    assert panel.headline_text().startswith("Stopped after 3 merge cycles, in ")
    titles = panel.item_titles()
    assert titles[:len(state.outcomes)] == [f"{o.claim} {o.status}" for o in state.outcomes]
    assert "Crux" in titles
    room = dock(window, "debateRoomDock", DebateRoomDock)
    qtbot.waitUntil(lambda: "ended" in room.next_label.text(), timeout=WAIT_MS)
    assert room.crux_lines() and room.flip_lines()


def test_after_the_map_the_game_room_holds_the_whole_map_in_the_results_words(
    qtbot, make_window
):
    """One played debate, three readings (a debate to its map takes a while offscreen)."""
    window = make_window(start=False)
    start_debate(qtbot, window)
    play_to_the_map(qtbot, window)
    room = dock(window, "debateRoomDock", DebateRoomDock)
    room.select_claim("c1")
    qtbot.waitUntil(lambda: room.tabs.tabText(2).startswith("Map ("), timeout=WAIT_MS)

    lines = room.map_lines()  # the whole map, which the end panel leaves out
    assert lines[0] == window.bridge.summary().result.text
    first = outcome_words(window.runner.handle.session.state.outcomes[0])
    for part in (first, "Why it stopped", "Crux: ", "Fault line (",
                 "Flip conditions of ", "Evidence ledger of ", "Resolution path"):
        assert any(line.startswith(part) for line in lines), part
    # A claim's outcome beside how the debate stopped: one result, never "diverged".
    assert "merge cycle" in room.outcome.text() and "diverged" not in room.outcome.text()
    # The schedule and the cap are in sight.
    assert room.schedule.text() == ("Round 3 of 3 per table, a merge after each; tables "
                                    "reseated at 2 merges; at most 12 events (the cap).")
    # The sidebar's Tools tab: every call of the deck's records server, with its citation.
    pulls = window.runner.handle.session.state.pulls
    tools = room.tool_lines()
    assert len(tools) == len(pulls) > 0 and room.tabs.tabText(3) == f"Tools ({len(pulls)})"
    cited = next(p for p in pulls if p.citation)
    assert any(f"cited: {cited.citation}" in line for line in tools)


def test_a_rounds_answers_stream_side_by_side_each_into_its_agents_column(
    qtbot, make_window
):
    window = make_window(offline_choice(delay_s=0.004), start=False)
    start_debate(qtbot, window)
    step(qtbot, window)  # claims
    step(qtbot, window)  # stances
    answers = dock(window, "debateAnswersDock", DebateAnswersDock)
    answers.show()
    answers.raise_()
    state = state_of(window)
    seated = [a for t in state.tables for a in t.agents]
    qtbot.waitUntil(lambda: answers.column_ids() == seated, timeout=WAIT_MS)

    window.runner.perform(window.runner.handle.session.next_step())  # round 1
    qtbot.waitUntil(lambda: len(answers.streaming()) >= 2 and sum(
        bool(answers.column_text(a)) for a in answers.streaming()) >= 2, timeout=WAIT_MS)
    partial = {a: answers.column_text(a) for a in answers.streaming()}
    assert not any(text.lstrip().startswith("{") for text in partial.values())
    wait_idle(qtbot, window)

    turns = {t.agent: t.response for t in state_of(window).rounds[0].turns}
    qtbot.waitUntil(lambda: all(answers.column_text(a) == turns[a] for a in seated),
                    timeout=WAIT_MS)
    for agent, text in partial.items():  # what streamed was the start of its own answer
        assert turns[agent].startswith(text[:20])


def test_the_polygon_shading_follows_the_selected_claim(qtbot, make_window):
    window = make_window(start=False)
    start_debate(qtbot, window)
    play_to_the_map(qtbot, window)
    state = state_of(window)
    room = dock(window, "debateRoomDock", DebateRoomDock)
    polygon = dock(window, "debatePolygonDock", DebatePolygonDock)
    last = max(s.round for s in state.stances)

    def sides(claim: str) -> dict[str, str]:
        return {a.id: s.stance for a in state.agents
                if (s := next(x for x in reversed(state.stances)
                              if x.agent == a.id and x.claim == claim and x.round <= last))}

    # Two claims on which the agents stand differently (which ones: the seed's run).
    first, second = next((a.id, b.id) for a in state.claims for b in state.claims
                         if a.id < b.id and sides(a.id) != sides(b.id))
    for claim in (first, second):
        room.select_claim(claim)
        qtbot.waitUntil(lambda c=claim: polygon.drawing.claim() == c and {
            a.id: polygon.drawing.vertex_stance(a.id).side for a in state.agents} == sides(c),
            timeout=WAIT_MS)
    assert polygon.drawing.claim_combo.currentData() == second
    colours = [polygon.vertex_colour(a.id) for a in state.agents]
    room.select_claim(first)
    qtbot.waitUntil(lambda: [polygon.vertex_colour(a.id) for a in state.agents] != colours,
                    timeout=WAIT_MS)


def test_the_polygon_shows_any_round_and_the_initial_stances(qtbot, make_window):
    window = make_window(start=False)
    start_debate(qtbot, window)
    play_to_the_map(qtbot, window)
    state = state_of(window)
    polygon = dock(window, "debatePolygonDock", DebatePolygonDock)
    claim = polygon.drawing.claim()

    polygon.drawing.round_slider.setValue(0)

    initial = {s.agent: s.stance for s in state.stances if s.round == 0 and s.claim == claim}
    qtbot.waitUntil(lambda: {a: polygon.drawing.vertex_stance(a).side for a in initial} == initial
                    and polygon.drawing.round_label.text() == "Initial stances",
                    timeout=WAIT_MS)
    first_seating = [a for t in state.rounds[0].tables for a in t.agents]
    assert sorted(first_seating) == sorted(a.id for a in state.agents)
    # table by table, as the first round seated them
    assert polygon.drawing.vertex_names() == [state.agent(a).name for a in first_seating]


def test_an_agents_answer_lights_the_edges_to_its_tablemates(qtbot, make_window):
    window = make_window(start=False)
    start_debate(qtbot, window)
    step(qtbot, window)
    step(qtbot, window)
    polygon = dock(window, "debatePolygonDock", DebatePolygonDock)
    table = state_of(window).tables[0].agents

    window.runner.perform(window.runner.handle.session.next_step())  # round 1
    qtbot.waitUntil(lambda: polygon.edge_heat(table[0], table[1]) > 0.3, timeout=WAIT_MS)
    wait_idle(qtbot, window)


def test_the_context_view_shows_an_agents_payload_exactly_as_it_is_sent(qtbot, make_window):
    window = make_window(start=False)
    start_debate(qtbot, window)
    step(qtbot, window)  # claims
    step(qtbot, window)  # stances: the round's payloads are pending now
    session = window.runner.handle.session
    payloads = session.pending_payloads()
    assert len(payloads) == len(state_of(window).agents)
    agent = payloads[1]
    qtbot.waitUntil(lambda: agent.label in window.context_view.tab_titles(), timeout=WAIT_MS)
    window.context_view.select_tab(window.context_view.tab_titles().index(agent.label))
    qtbot.waitUntil(lambda: window.context_view.loaded and
                    window.context_view.document() == agent.document, timeout=WAIT_MS)

    def read_back() -> str:
        results: list[str | None] = []
        window.context_view.read_request_element(results.append)
        qtbot.waitUntil(lambda: bool(results), timeout=WAIT_MS)
        return str(results[0])

    # The page swaps documents a moment after the view knows its new one: read the page
    # until it shows the tab chosen (a page still showing the one before would differ).
    shown = read_back()
    for _ in range(50):
        if messages_from_document(shown) == agent.request.messages:
            break
        qtbot.waitUntil(lambda: window.context_view.loaded, timeout=WAIT_MS)
        shown = read_back()
    assert messages_from_document(shown) == agent.request.messages
    assert messages_from_document(window.context_view.document()) == agent.request.messages
