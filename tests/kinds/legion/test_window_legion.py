"""The legion in the window: its docks come with its sessions and the roundtable's go; the
Commander writes in a channel and the minions answer (three at once in the war room);
a minion's message opens its diary; @name completion offers the minions; the
Opinions plot has one curve per minion and participant and follows the state; the
Minion dock edits scores and speed; the analytics count per minion. Offscreen, on a
running qasync loop, offline model or scripted model."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDockWidget

from roundtable_desktop.domain.summary import (
    Progress,
    ResultItem,
    ResultSection,
    SessionSummary,
)
from roundtable_desktop.engine.base import Action
from roundtable_desktop.kinds.legion.state import BANDS, LegionState
from roundtable_desktop.ui.kinds.legion.window import legion_ended, legion_result
from roundtable_desktop.ui.kinds.registry import window_kind
from tests.fakes.window_harness import (
    WAIT_MS,
    offline_choice,
    wait_idle,
)
from tests.kinds.legion.window_helpers import (
    LEGION_DOCKS,
    ROUNDTABLE_OWN,
    analytics,
    chat,
    minion_dock,
    opinions,
    start_legion,
    state_of,
    write,
)

pytestmark = pytest.mark.qt
Left = Qt.DockWidgetArea.LeftDockWidgetArea
Right = Qt.DockWidgetArea.RightDockWidgetArea


# -- the registry -------------------------------------------------------------------------------
def test_the_legion_names_its_docks_and_where_the_commander_writes():
    spec = window_kind("legion")

    assert {d.cls.__name__ for d in spec.docks} == {
        "LegionChatDock", "LegionOpinionsDock", "LegionMinionDock", "LegionAnalyticsDock"}
    assert spec.human_seat_dock == "legionChatDock"


def test_the_end_panel_heads_the_scores_final_and_counts_the_messages():
    summary = SessionSummary(kind="legion", title="t", ended=True,
                             progress=Progress(step=3, step_name="Commander message", counted=True,
                                               detail=["4 minion messages"]),
                             result=ResultSection(heading="Opinion scores", final=True,
                                                  items=[ResultItem(title="Alpha → Rowan: 69")]))

    assert legion_result(summary).heading == "Final opinion scores"
    assert legion_ended(summary, "Legion", 11) == (
        "The legion ended after 3 Commander messages and 4 minion messages (11 calls).")


# -- the window -----------------------------------------------------------------------------------
def test_a_legion_session_brings_its_docks_and_the_roundtables_go(qtbot, make_window):
    window = make_window()
    start_legion(qtbot, window)

    names = {d.objectName() for d in window.findChildren(QDockWidget)}
    assert set(window.docks) >= LEGION_DOCKS
    assert not (ROUNDTABLE_OWN & set(window.docks))
    assert {"transcriptDock", "callsDock", "metricsDock"} <= names
    assert window.dockWidgetArea(window.docks["legionChatDock"]) == Right
    assert window.dockWidgetArea(window.docks["legionMinionDock"]) == Left
    assert window.docks["legionAnalyticsDock"] in window.tabifiedDockWidgets(
        window.docks["metricsDock"])
    assert chat(window).status.text().startswith(
        "Write to your minions: pick a channel and press Enter")


def test_the_commander_writes_in_a_dm_and_the_minion_answers(qtbot, make_window):
    window = make_window(start=False)
    start_legion(qtbot, window)

    write(qtbot, window, "commander-alpha", "hi")

    dock = chat(window)
    assert dock.lines()[0] == "Rowan: hi"
    assert dock.lines()[1].startswith("Alpha: ")
    assert "#commander-alpha" in dock.channel_rows()


def test_three_minions_in_a_group_answer_one_message_at_once(qtbot, make_window):
    window = make_window(offline_choice(delay_s=0.003), start=False)
    start_legion(qtbot, window)

    write(qtbot, window, "war-room", "@Alpha @Beta @Gamma good morning, team", answers=3)

    state = state_of(window)
    assert state is not None
    calls = window.runner.store.calls(window.bridge.session_id())
    perceptions = [c for c in calls if c.purpose == "perception"]
    assert {c.actor_id for c in perceptions} == {"alpha", "beta", "gamma"}
    first_done = min(c.finished_at for c in perceptions)
    assert all(c.started_at < first_done for c in perceptions)  # all three were in flight
    wall = max(c.finished_at for c in calls) - min(c.started_at for c in calls)
    summed = sum(c.latency_ms for c in calls) / 1000
    print(f"group answer: {len(calls)} calls, wall {wall:.2f} s, sum {summed:.2f} s")
    assert wall < summed * 0.7
    spoke = {m.speaker for m in state.channel_messages("war-room") if m.role == "minion"}
    assert spoke == {"Alpha", "Beta", "Gamma"}


def test_the_commander_may_write_while_minions_think(qtbot, make_window):
    window = make_window(offline_choice(delay_s=0.003), start=False)
    start_legion(qtbot, window)
    dock = chat(window)
    dock.select_channel("commander-beta")
    dock.editor.setText("status report?")
    qtbot.keyClick(dock.editor, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.runner.acting(), timeout=WAIT_MS)

    assert dock.can_send()
    dock.select_channel("commander-gamma")
    dock.editor.setText("and you?")
    qtbot.keyClick(dock.editor, Qt.Key.Key_Return)

    state = state_of(window)
    qtbot.waitUntil(lambda: {m.speaker for m in state.messages if m.role == "minion"}
                    >= {"Beta", "Gamma"}, timeout=WAIT_MS * 3)
    wait_idle(qtbot, window)


def test_clicking_a_minions_message_shows_its_diary(qtbot, make_window):
    window = make_window(start=False)
    start_legion(qtbot, window)
    write(qtbot, window, "commander-alpha", "hi")
    dock = chat(window)
    state = state_of(window)
    answer = next(m for m in state.messages if m.role == "minion")

    item = dock.message_item(answer.id)
    assert item is not None
    rect = dock.messages.visualItemRect(item)
    qtbot.mouseClick(dock.messages.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())

    plan = state.diaries[answer.diary].plan
    text = dock.diary.toPlainText()
    assert plan.perceptionAnalysis in text
    assert '"selectedResponseMode"' in text and plan.responsePlan in text
    assert minion_dock(window).minion_name() == "Alpha"


def test_a_silent_minion_posts_nothing_and_its_quiet_line_is_in_its_diary(qtbot,
                                                                           make_window):
    window = make_window(start=False)
    start_legion(qtbot, window)
    state = state_of(window)
    dock = chat(window)
    # Un-addressed minions speak by chance: write until one of them stays silent.
    for round_ in range(6):
        dock.select_channel("war-room")
        qtbot.waitUntil(dock.can_send, timeout=WAIT_MS)
        dock.editor.setText(f"a note for the room, number {round_}")
        qtbot.keyClick(dock.editor, Qt.Key.Key_Return)  # the runner is busy from here
        wait_idle(qtbot, window)
        if any(d.outcome == "silent" for d in state.diaries):
            break
    silent = next(d for d in state.diaries if d.outcome == "silent")

    assert not any(silent.quiet_line() in line for line in dock.lines())
    panel = minion_dock(window)
    panel.show_minion(silent.minion)
    qtbot.waitUntil(lambda: silent.quiet_line() in panel.diary.toPlainText(), timeout=WAIT_MS)


def test_mention_completion_offers_the_minions_names(qtbot, make_window):
    window = make_window(start=False)
    start_legion(qtbot, window)
    dock = chat(window)
    qtbot.waitUntil(dock.editor.isEnabled, timeout=WAIT_MS)
    dock.editor.setFocus()

    qtbot.keyClicks(dock.editor, "hello @")
    assert dock.mention_choices() == ["@Alpha", "@Beta", "@Gamma"]
    qtbot.keyClicks(dock.editor, "g")
    assert dock.mention_choices() == ["@Gamma"]
    dock.completer.activated[str].emit("@Gamma")
    assert dock.editor.text() == "hello @Gamma "


def test_unread_counts_grow_in_channels_not_shown_and_clear_when_read(qtbot, make_window):
    window = make_window(start=False)
    start_legion(qtbot, window)
    dock = chat(window)
    dock.select_channel("commander-beta")
    state = state_of(window)

    # "#commander-alpha hi" from the toolbar's text prompt while Beta's DM is shown.
    window.runner.perform(Action(id="send", text="#commander-alpha hi"))
    qtbot.waitUntil(lambda: any(m.role == "minion" for m in state.messages), timeout=WAIT_MS)
    wait_idle(qtbot, window)

    qtbot.waitUntil(lambda: "#commander-alpha  (1)" in dock.channel_rows(),
                    timeout=WAIT_MS)
    assert dock.unread("commander-beta") == 0
    dock.select_channel("commander-alpha")
    qtbot.waitUntil(lambda: "#commander-alpha" in dock.channel_rows(), timeout=WAIT_MS)
    assert dock.unread("commander-alpha") == 0


def test_the_opinions_plot_has_a_curve_per_minion_and_participant_and_follows_the_state(
    qtbot, make_window
):
    window = make_window(start=False)
    start_legion(qtbot, window)
    plot = opinions(window)
    state: LegionState = state_of(window)
    expected = {(m.name, p) for m in state.minions for p in m.scores}
    qtbot.waitUntil(lambda: set(plot.curve_keys()) == expected, timeout=WAIT_MS)
    assert plot.band_names() == [mode for _, _, mode in BANDS]

    write(qtbot, window, "commander-alpha", "ur amazing ily")

    xs, ys = plot.curve("Alpha", "Rowan").getData()
    trajectory = state.trajectory("Alpha", "Rowan")
    assert list(ys)[: len(trajectory)] == trajectory
    assert len(trajectory) >= 2 and trajectory[-1] > trajectory[0]  # praise raised it
    assert xs[-1] == state.messages[-1].id


def test_scores_edited_in_the_minion_dock_reach_the_state_and_the_plot(qtbot, make_window):
    window = make_window(start=False)
    start_legion(qtbot, window)
    panel = minion_dock(window)
    panel.show_minion("Beta")
    qtbot.waitUntil(lambda: panel.score_spin("Rowan") is not None, timeout=WAIT_MS)

    panel.score_spin("Rowan").setValue(90)
    assert panel.band_of("Rowan") == "Obsessed/Eager"
    qtbot.mouseClick(panel.apply_scores, Qt.MouseButton.LeftButton)

    state = state_of(window)
    assert state.minion("Beta").scores["Rowan"] == 90
    plot = opinions(window)
    qtbot.waitUntil(lambda: list(plot.curve("Beta", "Rowan").getData()[1])[-1] == 90,
                    timeout=WAIT_MS)


def test_the_speed_slider_sets_the_reply_speed(qtbot, make_window):
    window = make_window(start=False)
    start_legion(qtbot, window)
    panel = minion_dock(window)

    panel.speed.setValue(5)

    assert state_of(window).speed == 0.5
    assert panel.speed_label.text() == "×0.5 of predicted"


def test_the_analytics_count_messages_calls_and_tokens_per_minion(qtbot, make_window):
    window = make_window(start=False)
    start_legion(qtbot, window)
    write(qtbot, window, "commander-alpha", "hi")
    table = analytics(window)

    qtbot.waitUntil(lambda: any(r.name == "Alpha" and r.calls >= 2 for r in table.rows),
                    timeout=WAIT_MS)
    alpha = next(r for r in table.rows if r.name == "Alpha")
    assert alpha.messages == 1
    assert alpha.prompt_tokens > 0 and alpha.mean_latency_ms is not None
    beta = next(r for r in table.rows if r.name == "Beta")
    assert beta.calls == 0 and beta.messages == 0
    assert table.table.rowCount() == 4  # three minions and the total


def test_the_toolbars_send_sends_what_is_written_in_the_chat_to_its_channel(qtbot,
                                                                           make_window):
    window = make_window(start=False)
    start_legion(qtbot, window)
    dock = chat(window)
    dock.select_channel("commander-gamma")
    qtbot.waitUntil(dock.can_send, timeout=WAIT_MS)
    dock.editor.setText("hello there")
    qaction = window.toolbar.qactions["send"]
    qtbot.waitUntil(qaction.isEnabled, timeout=WAIT_MS)

    qaction.trigger()

    state = state_of(window)
    qtbot.waitUntil(lambda: any(m.speaker == "Gamma" for m in state.messages), timeout=WAIT_MS)
    wait_idle(qtbot, window)
    assert state.channel_messages("commander-gamma")[0].text == "hello there"
    assert dock.editor.text() == ""


def test_a_minion_whose_reply_waits_its_predicted_time_shows_typing_and_the_commander_writes_on(
        qtbot, make_window):
    window = make_window(start=False)
    start_legion(qtbot, window)
    state = state_of(window)
    dock, panel = chat(window), minion_dock(window)
    panel.speed.setValue(panel.speed.maximum())  # ten times the predicted time: it waits
    qtbot.waitUntil(lambda: state.speed == 10, timeout=WAIT_MS)
    dock.select_channel("commander-alpha")
    qtbot.waitUntil(dock.can_send, timeout=WAIT_MS)
    dock.editor.setText("hi")
    qtbot.keyClick(dock.editor, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: dock.thinking.text() == "Alpha is typing…", timeout=WAIT_MS)

    assert dock.thinking.isVisible() and dock.editor.isEnabled() and dock.can_send()
    dock.editor.setText("still there?")
    qtbot.keyClick(dock.editor, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: [m.text for m in state.messages if m.role == "commander"] ==
                    ["hi", "still there?"], timeout=WAIT_MS)
    assert not any(m.role == "minion" for m in state.messages)  # Alpha's reply still waits
    panel.speed.setValue(0)  # the slider acts on replies already waiting
    qtbot.waitUntil(lambda: sum(m.role == "minion" for m in state.messages) == 2,
                    timeout=WAIT_MS * 3)
    wait_idle(qtbot, window)
    assert dock.thinking.text() == "" and not dock.thinking.isVisible()


def test_the_minion_dock_says_who_decides_whether_a_minion_speaks(qtbot, make_window):
    window = make_window(start=False)
    start_legion(qtbot, window)
    panel = minion_dock(window)
    assert panel.who_speaks.text() == "Each minion decides"
    window.runner.start_new("legion", "default", app_draws_speakers="on")  # the run option
    qtbot.waitUntil(lambda: state_of(window) is not None and state_of(window).app_draws_speakers,
                    timeout=WAIT_MS)
    qtbot.waitUntil(lambda: panel.who_speaks.text() == "The app draws",
                    timeout=WAIT_MS)
    assert "--app-draws-speakers on" in panel.who_speaks.toolTip()
