"""Helpers for the legion's window tests: start a legion session in the real window, find
its docks, write as the Commander and wait for the minions."""

from __future__ import annotations

from PySide6.QtCore import Qt

from roundtable_desktop.kinds.legion.state import LegionState
from roundtable_desktop.ui.kinds.legion.analytics_dock import LegionAnalyticsDock
from roundtable_desktop.ui.kinds.legion.chat_dock import LegionChatDock
from roundtable_desktop.ui.kinds.legion.minion_dock import LegionMinionDock
from roundtable_desktop.ui.kinds.legion.opinions_dock import LegionOpinionsDock
from roundtable_desktop.ui.window.main_window import MainWindow
from tests.fakes.window_harness import WAIT_MS, wait_idle

LEGION_DOCKS = {"legionChatDock", "legionOpinionsDock", "legionMinionDock",
                "legionAnalyticsDock"}
ROUNDTABLE_OWN = {"actorsDock", "candidatesDock", "whiteboardDock", "mcpDock", "composerDock"}


def start_legion(qtbot, window: MainWindow, scenario: str = "default") -> None:  # type: ignore[no-untyped-def]
    window.runner.start_new("legion", scenario)
    qtbot.waitUntil(lambda: window.kind == "legion" and state_of(window) is not None
                    and state_of(window).scenario == scenario, timeout=WAIT_MS)
    wait_idle(qtbot, window)


def state_of(window: MainWindow) -> LegionState | None:
    handle = window.runner.handle
    state = getattr(handle.session, "state", None) if handle is not None else None
    return state if isinstance(state, LegionState) else None


def chat(window: MainWindow) -> LegionChatDock:
    dock = window.docks["legionChatDock"]
    assert isinstance(dock, LegionChatDock)
    return dock


def minion_dock(window: MainWindow) -> LegionMinionDock:
    dock = window.docks["legionMinionDock"]
    assert isinstance(dock, LegionMinionDock)
    return dock


def opinions(window: MainWindow) -> LegionOpinionsDock:
    dock = window.docks["legionOpinionsDock"]
    assert isinstance(dock, LegionOpinionsDock)
    return dock


def analytics(window: MainWindow) -> LegionAnalyticsDock:
    dock = window.docks["legionAnalyticsDock"]
    assert isinstance(dock, LegionAnalyticsDock)
    return dock


def write(qtbot, window: MainWindow, channel: str, text: str, *, answers: int = 1) -> None:  # type: ignore[no-untyped-def]
    """Pick `channel`, write `text`, press Enter; wait until `answers` minion messages
    more are in that channel and the window is idle."""
    dock = chat(window)
    dock.select_channel(channel)
    qtbot.waitUntil(lambda: dock.channel() == channel and dock.can_send(), timeout=WAIT_MS)
    state = state_of(window)
    assert state is not None
    before = sum(1 for m in state.channel_messages(channel) if m.role == "minion")
    dock.editor.setText(text)
    qtbot.keyClick(dock.editor, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: sum(1 for m in state.channel_messages(channel)
                                if m.role == "minion") >= before + answers, timeout=WAIT_MS * 3)
    wait_idle(qtbot, window)
