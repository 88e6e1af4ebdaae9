"""The replay page in a browser (QtWebEngine, offscreen): its script rebuilds every request
byte for byte, renders it as the context view does, and steps with the arrow keys."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import shiboken6
from PySide6.QtCore import QUrl
from PySide6.QtWebEngineCore import QWebEnginePage, QWebEngineProfile
from PySide6.QtWebEngineWidgets import QWebEngineView
from PySide6.QtWidgets import QApplication

from roundtable_desktop.context.request_document import messages_from_document
from roundtable_desktop.engine.session_export import export_session
from roundtable_desktop.store.database import SessionStore
from tests.engine.test_replay_page import LONG_LINE, board_kind, record_board  # noqa: F401

WAIT_MS = 20_000


@pytest.fixture(params=["", LONG_LINE], ids=["short-lines", "a-chunk-cut-in-a-character"])
def page_view(qtbot, tmp_path: Path, request):  # type: ignore[no-untyped-def]
    with SessionStore.open(tmp_path / "s.sqlite3") as store:
        session_id = record_board(store, 5, extra=request.param)
        page = tmp_path / "replay.html"
        page.write_text(export_session(store, session_id, "replay"), encoding="utf-8")
        sent = [call.request["messages"] for call in store.calls(session_id)]
    view = QWebEngineView()
    # A page of a profile the application owns: the default profile would be released
    # before the page (Qt warns "WebEnginePage still not deleted", and a later paint in
    # the same process segfaults: shared/PITFALLS.md). The page goes with the view.
    view.setPage(QWebEnginePage(_app_profile(), view))
    view.resize(1366, 768)
    view.load(QUrl.fromLocalFile(str(page)))
    qtbot.waitUntil(lambda: js(qtbot, view, "document.getElementById('rt-where').textContent")
                    .startswith("Step 1 of 5"), timeout=WAIT_MS)
    yield view, sent
    view.close()
    shiboken6.delete(view)  # now, with its page: before any profile is released


def _app_profile() -> QWebEngineProfile:
    """One profile for these pages (JavaScript on, unlike the context view's), owned by
    the QApplication so it outlives every page."""
    app = QApplication.instance()
    assert app is not None
    profile = app.property("replayPageTestProfile")
    if not isinstance(profile, QWebEngineProfile):
        profile = QWebEngineProfile(app)
        app.setProperty("replayPageTestProfile", profile)
    return profile


def js(qtbot, view: QWebEngineView, script: str):  # type: ignore[no-untyped-def]
    found: list[object] = []
    view.page().runJavaScript(script, 0, lambda value: found.append(value))
    qtbot.waitUntil(lambda: bool(found), timeout=WAIT_MS)
    return found[0]


def test_the_pages_script_rebuilds_every_request_byte_for_byte(qtbot, page_view):
    view, sent = page_view
    rebuilt = json.loads(js(qtbot, view, "JSON.stringify([0, 1, 2, 3, 4].map("
                                          "(i) => window.rtRequestOf(i).messages))"))
    assert rebuilt == sent


def test_the_page_renders_the_request_as_the_context_view_reads_it_back(qtbot, page_view):
    view, sent = page_view
    html = js(qtbot, view, "new XMLSerializer().serializeToString("
                           "document.getElementById('request'))")
    assert [m.model_dump(exclude_none=True) for m in messages_from_document(html)] == sent[0]
    layer = js(qtbot, view, "document.querySelector('.rt-layer .rt-layer-source').textContent")
    assert layer == "board/role.md"


def test_the_right_arrow_key_shows_the_next_step(qtbot, page_view):
    view, _ = page_view
    js(qtbot, view, "document.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight'}))")
    qtbot.waitUntil(lambda: js(qtbot, view, "document.getElementById('rt-where').textContent")
                    .startswith("Step 2 of 5"), timeout=WAIT_MS)
    assert "Line 0: one more line" in js(qtbot, view, "document.getElementById('request')"
                                                      ".textContent")
