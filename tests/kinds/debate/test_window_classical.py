"""Classical mode in the window: Classical beside Deal starts a classical debate; the
Conversation dock shows the transcript as it streams (sentences appear while the speech
runs), marks an interruption where it cut in and on the interrupter's turn, shows a
silent turn as a quiet line, the current plans with their urgency and the sidebar of
citations (never inline); the polygon lights the speaker's edges. Offscreen, offline."""

from __future__ import annotations

import pytest

from roundtable_desktop.kinds.debate.state import DebateState
from roundtable_desktop.ui.kinds.debate.cards_dock import DebateCardsDock
from roundtable_desktop.ui.kinds.debate.conversation_dock import DebateConversationDock
from roundtable_desktop.ui.kinds.debate.conversation_text import (
    CUT_IN_MARK,
    CUT_MARK,
    ConversationInks,
    conversation_html,
    plan_rows,
)
from roundtable_desktop.ui.kinds.debate.polygon_dock import DebatePolygonDock
from tests.fakes.window_harness import (
    WAIT_MS,
    offline_choice,
    wait_idle,
)
from tests.kinds.debate.conftest import AI_SIX, TOPIC
from tests.kinds.debate.test_window_debate import dock, start_debate, state_of

pytestmark = pytest.mark.qt

TURN_CAP = 30
TURN_MS = WAIT_MS * 6  # a classical turn is many calls (plans after each sentence)


def deal_classical(qtbot, window) -> DebateConversationDock:  # type: ignore[no-untyped-def]
    start_debate(qtbot, window)
    cards = dock(window, "debateCardsDock", DebateCardsDock)
    cards.set_hand(list(AI_SIX))
    cards.topic.setText(TOPIC)
    cards.set_mode("classical")
    assert cards.deal()
    qtbot.waitUntil(lambda: state_of(window) is not None
                    and state_of(window).mode == "classical"
                    and [a.id for a in state_of(window).agents] == AI_SIX, timeout=WAIT_MS)
    wait_idle(qtbot, window)
    return dock(window, "debateConversationDock", DebateConversationDock)


def step(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    window.runner.perform(window.runner.handle.session.next_step())
    qtbot.waitUntil(lambda: not window.runner.busy, timeout=TURN_MS)


def interrupted(state: DebateState) -> bool:
    return state.classical is not None and bool(state.classical.interruptions())


def test_classical_beside_deal_starts_a_classical_debate_of_that_hand(qtbot, make_window):
    window = make_window(start=False)

    conversation = deal_classical(qtbot, window)

    state = state_of(window)
    assert state.mode == "classical" and state.topic == TOPIC
    assert "classical" in conversation.heading.text().lower()
    labels = [a.id for a in window.runner.handle.session.actions()]
    assert "turn" in labels and "round" not in labels


def test_a_classical_debate_runs_with_an_interruption_marked_in_the_conversation(
    qtbot, make_window
):
    window = make_window(start=False)
    conversation = deal_classical(qtbot, window)
    step(qtbot, window)  # claims
    step(qtbot, window)  # stances
    qtbot.waitUntil(lambda: state_of(window).phase == "turn", timeout=WAIT_MS)

    for _ in range(TURN_CAP):
        if interrupted(state_of(window)) or state_of(window).phase != "turn":
            break
        step(qtbot, window)

    state = state_of(window)
    assert interrupted(state), "no interruption in the offline classical debate"
    cut = state.classical.interruptions()[0]
    who = state.agent(cut.interrupted_by).name
    qtbot.waitUntil(lambda: f"{CUT_MARK} interrupted by {who}" in
                    conversation.transcript_text(), timeout=WAIT_MS)
    assert cut.sentences[-1] in conversation.transcript_text()
    assert not cut.cut_off or cut.cut_off not in conversation.transcript_text()
    step(qtbot, window)  # the interrupter has the floor
    qtbot.waitUntil(lambda: f"{CUT_IN_MARK} cuts in on {state.agent(cut.speaker).name}" in
                    conversation.transcript_text(), timeout=WAIT_MS)
    assert any(line.startswith(CUT_IN_MARK) for line in conversation.lines())

    state = state_of(window)  # the plans: every agent's latest, with its urgency
    qtbot.waitUntil(lambda: len(conversation.plan_texts()) == len(state.agents),
                    timeout=WAIT_MS)
    rows = plan_rows(state)
    assert [(r.name, f"{r.urgency:.2f}") for r in rows] == [
        (name, urgency) for name, _, urgency in conversation.plan_texts()]
    assert {r.action for r in rows} <= {"speak", "interrupt", "listen", "speaking", "-"}
    sidebar = state.classical.sidebar  # citations beside the speech, never inline
    if sidebar:
        assert conversation.sidebar_lines()[0].startswith(f"Turn {sidebar[-1].turn} · ")
        spoken = " ".join(t.text for t in state.classical.turns)
        assert all(e.source not in spoken for e in sidebar if e.source.startswith("http"))
    else:
        assert conversation.sidebar_lines()[0].startswith("Nothing cited yet")


def test_sentences_appear_while_the_speech_streams_and_the_speakers_edges_light(
    qtbot, make_window
):
    window = make_window(offline_choice(delay_s=0.004), start=False)
    conversation = deal_classical(qtbot, window)
    polygon = dock(window, "debatePolygonDock", DebatePolygonDock)
    step(qtbot, window)
    step(qtbot, window)
    seen: dict[str, object] = {}

    def speaking_with_a_sentence() -> bool:
        c = state_of(window).classical
        if c is None or c.live is None or not c.live.sentences or not c.live.speaker:
            return False
        shown = conversation.transcript_text()
        if window.runner.busy and "speaking…" in shown and c.live.sentences[0] in shown:
            seen["speaker"], seen["sentence"] = c.live.speaker, c.live.sentences[0]
            return True  # a sentence on screen while its speech still streams
        return False

    for _ in range(TURN_CAP):  # a silent turn has no speech: try the next turn
        window.runner.perform(window.runner.handle.session.next_step())
        qtbot.waitUntil(lambda: speaking_with_a_sentence() or not window.runner.busy,
                        timeout=TURN_MS)
        if "speaker" in seen:
            break
        qtbot.waitUntil(lambda: not window.runner.busy, timeout=TURN_MS)
    assert "speaker" in seen, "no speech in the offline classical debate"
    speaker = str(seen["speaker"])
    assert str(seen["sentence"]) in conversation.transcript_text()
    other = next(a.id for a in state_of(window).agents if a.id != speaker)
    qtbot.waitUntil(lambda: polygon.edge_heat(speaker, other) > 0.3, timeout=WAIT_MS)
    assert polygon.drawing.round_label.text().startswith(("Turn", "Initial"))
    window.runner.stop()  # the rest of the turn is not needed
    qtbot.waitUntil(lambda: not window.runner.busy, timeout=TURN_MS)


def test_a_silent_turn_is_one_quiet_line_and_model_text_is_escaped():
    from roundtable_desktop.kinds.debate.classical.state import (
        ClassicalState,
        ClassicalTurn,
    )
    from tests.kinds.debate.conftest import make_session

    state = make_session().state
    a, b = state.agents[0], state.agents[1]
    state.mode = "classical"
    state.classical = ClassicalState(turns=[
        ClassicalTurn(index=1, silent=True),
        ClassicalTurn(index=2, speaker=a.id, sentences=["<b>Bold</b> claim."],
                      interrupted_by=b.id, cut_off="And then"),
        ClassicalTurn(index=3, speaker=b.id, interrupts=a.id, sentences=["No."]),
    ])
    ink = ConversationInks(text="#000000", quiet="#777777", cut="#aa0000", speaker="#885500")

    page = conversation_html(state, ink)

    assert "Turn 1 · silence" in page and 'color:#777777"><i>Turn 1' in page
    assert "&lt;b&gt;Bold&lt;/b&gt; claim." in page and "<b>Bold</b>" not in page
    assert f"{CUT_MARK} interrupted by {b.name}" in page
    assert f"{CUT_IN_MARK} cuts in on {a.name}" in page
    assert "And then" not in page
