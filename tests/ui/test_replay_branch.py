"""Replay's "Branch from here": a new live session from the replayed step's checkpoint,
no call of the parent sent again, and replay of the branch shows the inherited steps
marked. The test panel kind, offscreen, on a running qasync loop."""

from __future__ import annotations

import pytest

from roundtable_desktop.ui.window.main_window import MainWindow
from tests.fakes.panel_kind import (
    panel_kind,  # noqa: F401 (autouse: the panel kind)
)
from tests.fakes.window_harness import WAIT_MS, perform, wait_idle

pytestmark = pytest.mark.qt


def _panel_two_rounds(qtbot, window: MainWindow) -> str:  # type: ignore[no-untyped-def]
    before = window.bridge.session_id()
    window.runner.start_new("panel", "default")
    qtbot.waitUntil(lambda: window.bridge.session_id() not in (None, before), timeout=WAIT_MS)
    wait_idle(qtbot, window)
    perform(qtbot, window, "ask")
    perform(qtbot, window, "send", text="Go on.")
    perform(qtbot, window, "ask")
    return str(window.bridge.session_id())


def test_branch_from_here_opens_a_live_branch_of_that_step_with_no_call_of_its_own(
        qtbot, make_window):
    window = make_window()
    parent = _panel_two_rounds(qtbot, window)
    parent_calls = window.runner.store.calls(parent)
    window.menus.start_replay(parent)
    bar = window.menus.replay_widget
    assert bar is not None
    bar.set_step(0)  # the first round's first call: its action was step 1
    assert bar.current_branch_step() == 1
    assert bar.branch_action.isEnabled()
    bar.branch_action.trigger()
    qtbot.waitUntil(lambda: window.bridge.session_id() not in (None, parent), timeout=WAIT_MS)
    wait_idle(qtbot, window)
    branch = str(window.bridge.session_id())
    store = window.runner.store
    origin = store.branch_origin(branch)
    assert origin is not None and origin.parent_id == parent and origin.step == 1
    assert store.calls(branch) == []
    assert store.calls(parent) == parent_calls
    assert not bar.isVisible()  # replay left for the live branch


def test_replay_of_a_branch_shows_the_inherited_steps_marked_then_its_own(
        qtbot, make_window):
    window = make_window()
    parent = _panel_two_rounds(qtbot, window)
    window.runner.branch(parent, 1)
    qtbot.waitUntil(lambda: window.bridge.session_id() not in (None, parent), timeout=WAIT_MS)
    wait_idle(qtbot, window)
    perform(qtbot, window, "send", text="Another line.")
    perform(qtbot, window, "ask")
    branch = str(window.bridge.session_id())
    window.menus.start_replay(branch)
    bar = window.menus.replay_widget
    assert bar is not None
    inherited = window.runner.store.calls_until_step(parent, 1)
    own = window.runner.store.calls(branch)
    assert bar.step_count() == len(inherited) + len(own) == 4
    bar.set_step(0)
    assert f"inherited from {parent[:8]}" in bar.step_label.text()
    bar.set_step(bar.step_count() - 1)
    assert "inherited" not in bar.step_label.text()
    assert bar.current_branch_step() == 3  # the branch's own second step, after 1 inherited


def test_branch_from_here_fits_on_the_replay_bar_of_a_laptop_screen(qtbot, make_window):
    from PySide6.QtCore import QPoint, QRect

    window = make_window()
    window.resize(1366, 768)
    parent = _panel_two_rounds(qtbot, window)
    window.menus.start_replay(parent)
    bar = window.menus.replay_widget
    assert bar is not None
    button = bar.widgetForAction(bar.branch_action)
    leave = bar.widgetForAction(bar.leave_action)
    assert button is not None and leave is not None

    def place(widget) -> QRect:  # type: ignore[no-untyped-def]
        return QRect(widget.mapTo(window, QPoint(0, 0)), widget.size())

    qtbot.waitUntil(lambda: button.isVisible() and leave.isVisible()
                    and window.rect().contains(place(leave))
                    and place(button).right() < place(leave).left(), timeout=WAIT_MS)


def test_the_session_picker_shows_a_branch_under_its_parent_with_its_step(qtbot, make_window):
    from roundtable_desktop.ui.dialogs.session_list_dialog import SessionListDialog

    window = make_window()
    parent = _panel_two_rounds(qtbot, window)
    window.runner.branch(parent, 2)
    qtbot.waitUntil(lambda: window.bridge.session_id() not in (None, parent), timeout=WAIT_MS)
    wait_idle(qtbot, window)
    branch = str(window.bridge.session_id())
    dialog = SessionListDialog(window.runner.store)
    qtbot.addWidget(dialog)
    tops = [dialog.tree.topLevelItem(i) for i in range(dialog.tree.topLevelItemCount())]
    [parent_item] = [item for item in tops if item.text(5) == parent[:8]]
    assert parent_item.childCount() == 1
    child = parent_item.child(0)
    assert child.text(5) == branch[:8]
    assert child.text(0).startswith("[at step 2] ")


def test_branching_while_the_live_session_works_asks_first_and_cancel_keeps_it_running(
        qtbot, make_window):
    from roundtable_desktop.engine.base import Action
    from roundtable_desktop.ui.dialogs.ask_first import AskFirstBox
    from roundtable_desktop.ui.window.session_runner import ClientChoice
    from tests.fakes.paced_client import PacedClient

    window = make_window(lambda: ClientChoice(PacedClient(words=400, delay_s=0.02),
                                              "paced", "paced"))
    live = window.bridge.session_id()
    window.runner.perform(Action(id="auto", steps=5))
    qtbot.waitUntil(lambda: window.runner.busy, timeout=WAIT_MS)
    box = window.menus.branch_from(str(live), 1)
    assert isinstance(box, AskFirstBox)
    qtbot.waitUntil(box.isVisible, timeout=WAIT_MS)
    assert "stays saved" in box.informativeText()
    box.reject()
    assert window.bridge.session_id() == live and window.runner.busy  # nothing branched
