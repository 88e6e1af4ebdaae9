"""Replay in the window, for every kind: each step shows the whole request as it was sent
(system prompt layers marked, every message; parsed back it is the stored request's
messages byte for byte) with that call's reply under it, and leaving replay gives the
live tabs back whole. A roundtable meeting and the test panel kind (two calls a round).
Offscreen, on a running qasync loop."""

from __future__ import annotations

import json
from itertools import pairwise

import pytest
from PySide6.QtCore import QPoint, QRect

from roundtable_desktop.context.request_document import messages_from_document
from roundtable_desktop.store.records import CallRecord
from roundtable_desktop.ui.context.payload_tabs import TabState
from roundtable_desktop.ui.window.main_window import MainWindow
from tests.fakes.panel_kind import (
    panel_kind,  # noqa: F401 (autouse: the panel kind)
)
from tests.fakes.window_harness import (
    WAIT_MS,
    perform,
    wait_idle,
    wait_view,
)

pytestmark = pytest.mark.qt


def start_panel(qtbot, window: MainWindow) -> str:  # type: ignore[no-untyped-def]
    before = window.bridge.session_id()
    window.runner.start_new("panel", "default")
    qtbot.waitUntil(lambda: window.bridge.session_id() not in (None, before), timeout=WAIT_MS)
    wait_idle(qtbot, window)
    return str(window.bridge.session_id())


def shows_call(window: MainWindow, call: CallRecord) -> bool:
    view = window.context_view
    tab = view.current_tab()
    return (tab is not None and tab.call_id == call.id and view.loaded
            and view.document() == tab.document)


def assert_step_shows_what_was_sent(qtbot, window: MainWindow, call: CallRecord) -> None:  # type: ignore[no-untyped-def]
    qtbot.waitUntil(lambda: shows_call(window, call), timeout=WAIT_MS)
    view = window.context_view
    document = view.document()
    assert document is not None
    shown = [m.to_body() for m in messages_from_document(document)]
    assert json.dumps(shown) == json.dumps(call.request["messages"])  # byte for byte
    system = call.request["messages"][0]
    assert system["role"] == "system"
    in_system = [layer for layer in call.layers if layer.text in system["content"]]
    assert in_system  # the system prompt's layers are marked
    for layer in in_system:
        assert f'data-layer="{layer.name}"' in document
    assert view.caption().startswith("Replay — ")
    assert view.tab_titles() == [call.label]
    assert view.reply_shown() == call.response_text  # the reply, under its payload


def replay_every_step(qtbot, window: MainWindow, session_id: str) -> list[CallRecord]:  # type: ignore[no-untyped-def]
    calls = window.runner.store.calls(session_id)
    window.menus.start_replay(session_id)
    bar = window.menus.replay_widget
    assert bar is not None and bar.step_count() == len(calls)
    for index, call in enumerate(calls):
        bar.set_step(index)
        assert_step_shows_what_was_sent(qtbot, window, call)
    return calls


def test_replay_shows_each_roundtable_request_whole_with_its_reply(qtbot, make_window):
    window = make_window()
    perform(qtbot, window, "infer")
    perform(qtbot, window, "run_tools")
    perform(qtbot, window, "next_turn")
    perform(qtbot, window, "infer")

    calls = replay_every_step(qtbot, window, str(window.bridge.session_id()))

    assert len(calls) >= 2
    assert all(call.response_text for call in calls)


def test_replay_shows_each_panel_request_whole_with_its_reply(qtbot, make_window):
    window = make_window()
    session_id = start_panel(qtbot, window)
    perform(qtbot, window, "ask")
    perform(qtbot, window, "send", text="Only with a time limit.")
    perform(qtbot, window, "ask")

    calls = replay_every_step(qtbot, window, session_id)

    assert len(calls) == 4  # two rounds of two panelists
    assert {call.purpose for call in calls} == {"stance"}


def test_the_replay_shortcut_is_in_the_session_menu(make_window):
    window = make_window()

    replay = window.menus.replay_action

    assert replay in window.menus.session_menu.actions()
    assert replay.shortcut().toString() == "Ctrl+Shift+R"


def test_leaving_replay_gives_back_the_live_tabs_with_their_replies(qtbot, make_window):
    window = make_window()
    session_id = start_panel(qtbot, window)
    perform(qtbot, window, "ask")  # two replies; the panel now waits for the human
    view = window.context_view
    qtbot.waitUntil(lambda: [t.state for t in view.tabs()] == [TabState.SENT] * 2,
                    timeout=WAIT_MS)
    view.select_tab(1)
    titles, current, reply = view.tab_titles(), view.current_tab().key, view.reply_shown()
    assert reply

    window.menus.start_replay(session_id)
    qtbot.waitUntil(lambda: window.bridge.read_only and view.tab_titles() != titles,
                    timeout=WAIT_MS)
    window.menus.live_action.trigger()
    qtbot.waitUntil(lambda: view.loaded and view.current_tab() is not None
                    and view.document() == view.current_tab().document, timeout=WAIT_MS)

    assert view.tab_titles() == titles
    assert view.current_tab().key == current
    assert view.reply_shown() == reply


def test_leaving_replay_shows_the_live_meetings_next_payload_again(qtbot, make_window):
    window = make_window()
    perform(qtbot, window, "infer")
    perform(qtbot, window, "run_tools")
    session_id = str(window.bridge.session_id())

    window.menus.start_replay(session_id)
    first = window.runner.store.calls(session_id)[0]
    qtbot.waitUntil(lambda: shows_call(window, first), timeout=WAIT_MS)
    window.menus.live_action.trigger()

    wait_view(qtbot, window)
    assert window.context_view.caption().startswith("Next payload — ")


@pytest.mark.parametrize("size", [(1366, 768), (1920, 1080)], ids=["laptop", "desktop"])
def test_the_replay_bar_shows_its_title_and_every_control_inside_the_window(
    qtbot, make_window, size
):
    window = make_window()
    window.resize(*size)
    perform(qtbot, window, "infer")

    window.menus.start_replay(str(window.bridge.session_id()))
    bar = window.menus.replay_widget
    qtbot.waitUntil(lambda: bar.isVisible() and window.bridge.read_only, timeout=WAIT_MS)

    title = bar.title_label
    inner = window.rect()
    controls = [title, bar.widgetForAction(bar.prev_action), bar.slider,
                bar.widgetForAction(bar.next_action), bar.step_label,
                bar.widgetForAction(bar.leave_action)]

    def places() -> list[QRect]:
        return [QRect(w.mapTo(window, QPoint(0, 0)), w.size()) for w in controls]

    def in_a_row() -> bool:  # none over another
        return all(a.right() < b.left() for a, b in pairwise(places()))

    qtbot.waitUntil(lambda: title.width() >= title.fontMetrics().horizontalAdvance(
        "Replay: What should") and in_a_row(), timeout=WAIT_MS)
    assert title.shown_text().startswith("Replay: ")
    for widget, place in zip(controls, places(), strict=True):
        assert widget.isVisible() and inner.contains(place), widget.objectName()
