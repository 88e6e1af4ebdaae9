"""When the session has ended, the central view says so: it shows the last step's whole
requests as they were sent, each with its reply, and never a "Next payload" (nothing
will be sent). A roundtable meeting (its last request comes from the store), the test
panel kind (its last round's two tabs stay with their replies), and a finished session
reopened. Offscreen, on a running qasync loop."""

from __future__ import annotations

import json

import pytest

from roundtable_desktop.context.request_document import messages_from_document
from roundtable_desktop.ui.context.payload_tabs import ENDED_NOTE, TabState
from roundtable_desktop.ui.context.stored_calls import last_batch, request_document
from roundtable_desktop.ui.window.main_window import MainWindow
from tests.fakes.panel_kind import (
    panel_kind,  # noqa: F401 (autouse: the panel kind)
)
from tests.fakes.window_harness import (
    WAIT_MS,
    perform,
    wait_idle,
)

pytestmark = pytest.mark.qt


def finish_roundtable(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    for _ in range(40):  # short Auto runs: each one well within a wait on a busy machine
        if window.bridge.ended():
            break
        perform(qtbot, window, "auto", steps=6)
    assert window.bridge.ended()


def finish_panel(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    before = window.bridge.session_id()
    window.runner.start_new("panel", "default")
    qtbot.waitUntil(lambda: window.bridge.session_id() not in (None, before), timeout=WAIT_MS)
    wait_idle(qtbot, window)
    for line in ("Only with a time limit.", "And a note-taker."):
        perform(qtbot, window, "ask")
        perform(qtbot, window, "send", text=line)
    assert window.bridge.ended()


def shows_last_requests(window: MainWindow) -> bool:
    view = window.context_view
    tabs = view.tabs()
    return bool(tabs) and all(t.state == TabState.LAST for t in tabs) and view.loaded \
        and view.document() == view.current_tab().document


def last_calls(window: MainWindow):  # type: ignore[no-untyped-def]
    return last_batch(window.runner.store.calls(window.bridge.session_id()))


def test_an_ended_meeting_shows_its_last_request_never_a_next_payload(qtbot, make_window):
    window = make_window()

    finish_roundtable(qtbot, window)
    qtbot.waitUntil(lambda: shows_last_requests(window), timeout=WAIT_MS)

    view = window.context_view
    (last,) = last_calls(window)
    assert "Next payload" not in view.caption()
    assert view.caption() == f"Last request — {last.label} {ENDED_NOTE}"
    assert view.tab_titles() == [f"✓ {last.label}"]
    assert view.document() == request_document(last, "roundtable")


def test_the_last_request_shown_is_the_one_sent_with_its_reply_under_it(qtbot, make_window):
    window = make_window()

    finish_roundtable(qtbot, window)
    qtbot.waitUntil(lambda: shows_last_requests(window), timeout=WAIT_MS)

    (last,) = last_calls(window)
    shown = [m.to_body() for m in messages_from_document(window.context_view.document())]
    assert json.dumps(shown) == json.dumps(last.request["messages"])
    qtbot.waitUntil(lambda: window.context_view.reply_shown() == last.response_text,
                    timeout=WAIT_MS)
    assert window.context_view.reply.heading.full_text().startswith("Reply — done in")


def test_an_ended_panel_keeps_its_last_rounds_tabs_each_with_its_reply(qtbot, make_window):
    window = make_window()

    finish_panel(qtbot, window)
    qtbot.waitUntil(lambda: shows_last_requests(window), timeout=WAIT_MS)

    view = window.context_view
    calls = last_calls(window)
    assert len(calls) == 2  # the two panelists answered the last round at once
    assert [t.label for t in view.tabs()] == [c.label for c in calls]
    for index, call in enumerate(calls):
        view.select_tab(index)
        assert view.caption() == f"Last request — {call.label} {ENDED_NOTE}"
        qtbot.waitUntil(lambda c=call: view.loaded and view.document() is not None
                        and messages_from_document(view.document())[-1].content
                        == c.request["messages"][-1]["content"], timeout=WAIT_MS)
        assert call.response_text and view.reply_shown() == call.response_text


def test_a_finished_session_reopened_shows_its_last_request(qtbot, make_window):
    window = make_window()
    finish_roundtable(qtbot, window)
    ended_id = window.bridge.session_id()
    (last,) = last_calls(window)
    window.runner.start_new()
    qtbot.waitUntil(lambda: window.bridge.session_id() not in (None, ended_id),
                    timeout=WAIT_MS)
    wait_idle(qtbot, window)

    window.runner.reopen(ended_id)
    qtbot.waitUntil(lambda: window.bridge.session_id() == ended_id, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: shows_last_requests(window), timeout=WAIT_MS)

    assert window.context_view.caption() == f"Last request — {last.label} {ENDED_NOTE}"
    assert window.context_view.document() == request_document(last, "roundtable")
