"""The legion in front of an audience (issue 27): the centre never empty between calls,
End the session asks first and says what ends and what stays, the opinion chart counts
turns in whole numbers with its band names clear of the curves. Offscreen, on a running
qasync loop, offline model."""

from __future__ import annotations

import pyqtgraph as pg
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from roundtable_desktop.ui.context.payload_tabs import TabState
from roundtable_desktop.ui.dialogs.ask_first import AskFirstBox
from roundtable_desktop.ui.kinds.legion.chat_dock import MESSAGE_LINES
from roundtable_desktop.ui.kinds.legion.opinions_dock import short_mode
from roundtable_desktop.ui.window.main_window import MainWindow
from tests.fakes.window_harness import WAIT_MS, wait_idle
from tests.kinds.legion.window_helpers import (
    chat,
    minion_dock,
    opinions,
    start_legion,
    state_of,
    write,
)

pytestmark = pytest.mark.qt


def centre_shows_a_request(window: MainWindow) -> bool:
    view = window.context_view
    return view.loaded and bool(view.document()) and bool(view.tab_titles())


# -- the centre -----------------------------------------------------------------------------------
def test_while_the_commander_writes_the_centre_shows_the_requests_just_sent(qtbot,
                                                                            make_window):
    window = make_window(start=False)
    start_legion(qtbot, window)
    write(qtbot, window, "commander-alpha", "hi")

    qtbot.waitUntil(lambda: centre_shows_a_request(window), timeout=WAIT_MS)
    assert window.runner.handle.session.pending_payloads() == []  # nothing would be sent
    assert "Alpha · response" in window.context_view.tab_titles()[-1]


def test_a_reopened_legion_shows_its_last_request_as_sent(qtbot, make_window):
    window = make_window(start=False)
    start_legion(qtbot, window)
    write(qtbot, window, "commander-alpha", "hi")
    session_id = window.runner.handle.session_id
    last = window.bridge.store().calls(session_id)[-1]

    window.runner.reopen(session_id)
    qtbot.waitUntil(lambda: window.context_view.current_tab() is not None
                    and window.context_view.current_tab().state == TabState.PREVIOUS
                    and window.context_view.loaded, timeout=WAIT_MS)
    wait_idle(qtbot, window)

    view = window.context_view
    assert view.caption() == f"Last request — {last.label}"
    assert view.current_tab().call_id == last.id and view.reply_shown()
    assert state_of(window) is not None and not state_of(window).ended


def test_before_the_first_call_the_centre_says_nothing_has_been_sent_yet(qtbot,
                                                                          make_window):
    window = make_window(start=False)
    start_legion(qtbot, window)

    qtbot.waitUntil(lambda: window.context_view.loaded, timeout=WAIT_MS)
    assert window.context_view.caption().startswith("Nothing has been sent yet")


# -- the opinion chart ----------------------------------------------------------------------------
def shown_ticks(axis) -> list[tuple[float, str]]:  # type: ignore[no-untyped-def]
    """(value, text) of every tick the axis draws over its range now."""
    low, high = axis.range
    found = []
    for spacing, values in axis.tickValues(low, high, axis.width() or 300):
        found += list(zip(values, axis.tickStrings(values, axis.scale, spacing), strict=True))
    return found


def test_the_opinion_charts_turns_are_whole_numbers(qtbot, make_window):
    window = make_window(start=False)
    start_legion(qtbot, window)
    plot = opinions(window).plot
    axis = plot.getAxis("bottom")

    at_start = shown_ticks(axis)  # x from 0 to 1: pyqtgraph alone ticks 0.2 … 0.8
    assert at_start and all(float(v).is_integer() for v, _ in at_start)
    assert [text for _, text in at_start] == ["0", "1"]

    write(qtbot, window, "commander-alpha", "hi")
    later = shown_ticks(axis)
    assert later and all(float(v).is_integer() and text == str(int(v)) for v, text in later)


def test_the_band_names_stand_beside_the_curves_never_over_them(qtbot, make_window):
    window = make_window(start=False)
    start_legion(qtbot, window)
    dock = opinions(window)
    dock.raise_()
    qtbot.waitUntil(lambda: dock.plot.isVisible() and bool(dock.band_labels()),
                    timeout=WAIT_MS)

    assert "Neutral" in dock.band_labels()
    assert set(dock.band_labels()) <= {short_mode(mode) for mode in dock.band_names()}
    box = dock.plot.getViewBox().sceneBoundingRect()
    names = dock.band_axis.sceneBoundingRect()
    assert names.left() >= box.right() - 1  # the names' axis lies right of the curves
    texts = [item for item in dock.plot.getPlotItem().items if isinstance(item, pg.TextItem)]
    assert texts == []  # no text drawn inside the plot


# -- End the session ------------------------------------------------------------------------------
def ask_to_end(qtbot, window: MainWindow) -> AskFirstBox:  # type: ignore[no-untyped-def]
    """Click End the session (from the toolbar's More menu, as the toolbar holds it)."""
    qtbot.waitUntil(lambda: "end" in window.toolbar.qactions
                    and window.toolbar.qactions["end"].isEnabled(), timeout=WAIT_MS)
    window.toolbar.qactions["end"].trigger()
    qtbot.waitUntil(lambda: window.toolbar.question is not None
                    and window.toolbar.question.isVisible(), timeout=WAIT_MS)
    return window.toolbar.question


def test_end_the_session_asks_first_naming_what_ends_and_what_stays(qtbot, make_window):
    window = make_window(start=False)
    start_legion(qtbot, window)
    write(qtbot, window, "commander-alpha", "hi")
    messages = len(state_of(window).messages)

    box = ask_to_end(qtbot, window)

    assert isinstance(box, QMessageBox) and box.text() == "End the session?"
    assert box.informativeText() == (
        f"The minions stop answering and Rowan can no longer write; the chat "
        f"({messages} messages) stays saved, to export or replay.")
    assert box.yes_button.text() == "End the session"
    assert box.defaultButton() is not box.yes_button  # Enter keeps the session going
    assert not state_of(window).ended  # nothing ends until the answer is yes


def test_cancel_keeps_the_session_going(qtbot, make_window):
    window = make_window(start=False)
    start_legion(qtbot, window)
    box = ask_to_end(qtbot, window)

    qtbot.keyClick(box, Qt.Key.Key_Escape)

    qtbot.waitUntil(lambda: window.toolbar.question is None, timeout=WAIT_MS)
    wait_idle(qtbot, window)
    assert not state_of(window).ended and not window.bridge.ended()


def test_yes_ends_the_session(qtbot, make_window):
    window = make_window(start=False)
    start_legion(qtbot, window)
    box = ask_to_end(qtbot, window)

    qtbot.mouseClick(box.yes_button, Qt.MouseButton.LeftButton)

    qtbot.waitUntil(lambda: state_of(window).ended, timeout=WAIT_MS)
    wait_idle(qtbot, window)
    assert window.toolbar.question is None
    polygon = window.docks["polygonDock"].drawing  # no call ended it: it says so anyway
    qtbot.waitUntil(lambda: polygon.turn_text().endswith("ended"), timeout=WAIT_MS)


# -- the conversation in a small dock ---------------------------------------------------------
def fully_shown(widget) -> bool:  # type: ignore[no-untyped-def]
    """Shown at its whole height: not hidden, not cut by a scroll area's fold (the test
    screen is narrower than any laptop: its width is not what is tested)."""
    return widget.isVisible() and \
        widget.visibleRegion().boundingRect().height() == widget.height()


def test_in_presenter_mode_the_chat_keeps_its_lines_and_the_line_to_write_in(qtbot,
                                                                             make_window):
    window = make_window(start=False)
    window.set_presenter_mode(True)
    start_legion(qtbot, window)
    write(qtbot, window, "commander-alpha", "hi")
    dock = chat(window)
    dock.raise_()

    qtbot.waitUntil(lambda: fully_shown(dock.editor) and fully_shown(dock.send_button),
                    timeout=WAIT_MS)
    lines = dock.messages.fontMetrics().lineSpacing()
    assert dock.messages.height() >= MESSAGE_LINES * lines
    if not dock.roomy():  # the channels in one row over the conversation, names whole
        assert dock.channels.height() < 3 * lines
        metrics = dock.channels.fontMetrics()
        for row in range(dock.channels.count()):
            item = dock.channels.item(row)
            assert dock.channels.visualItemRect(item).width() >= \
                metrics.horizontalAdvance(item.text())


def test_in_presenter_mode_three_minions_at_work_leave_the_chat_its_lines(qtbot, make_window):
    window = make_window(start=False)
    window.set_presenter_mode(True)
    start_legion(qtbot, window)
    dock = chat(window)
    dock.raise_()
    state = state_of(window)
    panel = minion_dock(window)
    panel.speed.setValue(panel.speed.maximum())  # ten times the predicted time: they wait
    qtbot.waitUntil(lambda: state.speed == 10, timeout=WAIT_MS)
    dock.select_channel("war-room")
    qtbot.waitUntil(dock.can_send, timeout=WAIT_MS)
    dock.editor.setText("Alpha, Beta, Gamma: status please.")
    qtbot.keyClick(dock.editor, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: dock.thinking.text().count("is typing…") == 3, timeout=WAIT_MS)

    qtbot.waitUntil(lambda: fully_shown(dock.editor) and fully_shown(dock.thinking),
                    timeout=WAIT_MS)
    lines = dock.messages.fontMetrics().lineSpacing()
    assert dock.messages.height() >= MESSAGE_LINES * lines
    minion_dock(window).speed.setValue(0)  # the replies waiting post now
    qtbot.waitUntil(lambda: sum(m.role == "minion" for m in state.messages) >= 3,
                    timeout=WAIT_MS * 3)
    wait_idle(qtbot, window)
