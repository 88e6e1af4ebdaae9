"""The legion in front of an audience (issue 27): the centre never empty between calls,
End the session asks first and says what ends, the opinion chart counts turns in whole
numbers with its band names clear of the curves. Offscreen, on a running qasync loop,
offline model."""

from __future__ import annotations

import pytest

from roundtable_desktop.ui.context.payload_tabs import TabState
from roundtable_desktop.ui.window.main_window import MainWindow
from tests.fakes.window_harness import WAIT_MS, wait_idle
from tests.kinds.legion.window_helpers import start_legion, state_of, write

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
