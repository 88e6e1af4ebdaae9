"""Helpers for the tutor's window tests: start an exercise in the real window, find its
docks, write as the student and wait for the trickster."""

from __future__ import annotations

from PySide6.QtCore import Qt

from roundtable_desktop.kinds.tutor.state import TutorState
from roundtable_desktop.ui.kinds.tutor.chat_dock import TutorChatDock
from roundtable_desktop.ui.window.main_window import MainWindow
from tests.fakes.window_harness import WAIT_MS, wait_idle


def start_tutor(qtbot, window: MainWindow, scenario: str) -> None:  # type: ignore[no-untyped-def]
    window.runner.start_new("tutor", scenario)
    qtbot.waitUntil(lambda: window.kind == "tutor" and isinstance(state_of(window), TutorState)
                    and state_of(window).cartridge.task_id == scenario, timeout=WAIT_MS)
    wait_idle(qtbot, window)


def state_of(window: MainWindow) -> TutorState | None:
    handle = window.runner.handle
    state = getattr(handle.session, "state", None) if handle is not None else None
    return state if isinstance(state, TutorState) else None


def chat(window: MainWindow) -> TutorChatDock:
    dock = window.docks["tutorChatDock"]
    assert isinstance(dock, TutorChatDock)
    return dock


def write(qtbot, window: MainWindow, text: str) -> None:  # type: ignore[no-untyped-def]
    dock = chat(window)
    qtbot.waitUntil(dock.can_send, timeout=WAIT_MS)
    dock.editor.setPlainText(text)
    qtbot.mouseClick(dock.send_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: any(text in line for line in dock.lines()), timeout=WAIT_MS)
    wait_idle(qtbot, window)
