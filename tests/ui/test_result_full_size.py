"""An ended session's result at full size (F10) reads whole at every zoom step on a
1366x768 laptop: the text steps down until it needs no scrolling, and going back gives
the window's size back."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRect

from roundtable_desktop.ui.theme import ZOOM_STEPS
from tests.fakes.window_harness import WAIT_MS, perform, wait_idle

pytestmark = pytest.mark.qt

LAPTOP = QRect(0, 0, 1366, 768)


def _ended(qtbot, make_window, zoom: float):  # type: ignore[no-untyped-def]
    window = make_window(start=False)
    window.place_on_screen(LAPTOP)
    window.setGeometry(LAPTOP)
    while window.zoom < zoom - 1e-6:
        window.zoom_by(1)
    window.runner.start_new("roundtable")
    wait_idle(qtbot, window)
    perform(qtbot, window, "auto", steps=200)
    qtbot.waitUntil(lambda: window.end_panel.isVisible(), timeout=WAIT_MS * 6)
    return window


@pytest.mark.parametrize("zoom", [1.0, 1.4, ZOOM_STEPS[-1]], ids=["1.0", "1.4", "max"])
def test_at_full_size_the_result_needs_no_scrolling_at_any_zoom(qtbot, make_window, zoom):
    window = _ended(qtbot, make_window, zoom)

    window.toggle_full_result()

    qtbot.waitUntil(lambda: not window.end_panel.fitting, timeout=WAIT_MS)
    assert not window.end_panel.needs_scrolling()
    window.toggle_full_result()
    assert window.context_view.isVisible()
