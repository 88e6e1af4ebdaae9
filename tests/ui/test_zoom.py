"""Zoom (Ctrl++ / Ctrl+- / Ctrl+0) scales every text of the window by one factor, and
Ctrl+0 gives back exactly the sizes the window started with: toolbar, status, dock
titles, the Actors list (its rows too), the polygon's names, the other docks' views."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QWidget

from roundtable_desktop.ui.kinds.roundtable.dock_base import meeting_state
from roundtable_desktop.ui.theme import ZOOM_STEPS
from roundtable_desktop.ui.window.main_window import MainWindow
from tests.fakes.window_harness import WAIT_MS

pytestmark = pytest.mark.qt

ROUNDING = 0.11  # point sizes are rounded to 0.1 pt


def _size(widget: QWidget) -> float:
    return widget.font().pointSizeF()


def text_sizes(window: MainWindow) -> dict[str, float]:
    """The point size of a text of each kind in the window, as it is drawn."""
    actors = window.docks["actorsDock"]
    polygon = window.docks["polygonDock"]
    rows = actors.actor_list
    current = next(rows.item(r) for r in range(rows.count()) if rows.item(r).font().bold())
    other = next(rows.item(r) for r in range(rows.count()) if not rows.item(r).font().bold())
    sizes = {
        "toolbar button": _size(window.toolbar.button("infer")),
        "toolbar New button": _size(window.toolbar.new_button),
        "menu bar": _size(window.menuBar()),
        "status line": _size(window.status.phase_label),
        "status badge": _size(window.status.badge),
        "dock title": _size(actors),
        "actors list": _size(rows),
        "actors row": other.font().resolve(rows.font()).pointSizeF(),
        "actors current row": current.font().resolve(rows.font()).pointSizeF(),
        "actor editor": _size(actors.name_edit),
        "transcript": _size(window.docks["transcriptDock"].view),
        "candidates": _size(window.docks["candidatesDock"]),
        "polygon turn line": _size(polygon.drawing.turn_label),
    }
    for actor_id, font in polygon.drawing.label_fonts().items():
        sizes[f"polygon name {actor_id}"] = font.pointSizeF()
    return sizes


def _polygon_settled(window: MainWindow) -> bool:
    """The polygon re-lays its names out on the next pass after a font change."""
    polygon = window.docks["polygonDock"]
    plot = polygon.drawing.plot.font().pointSizeF()
    return all(abs(f.pointSizeF() - plot) < 0.01 for f in polygon.drawing.label_fonts().values())


def test_zoom_in_twice_scales_every_text_by_the_same_factor(qtbot, make_window):
    window = make_window()
    before = text_sizes(window)

    window.menus.zoom_in_action.trigger()
    window.menus.zoom_in_action.trigger()
    qtbot.waitUntil(lambda: _polygon_settled(window), timeout=WAIT_MS)

    factor = window.zoom
    assert factor == pytest.approx(ZOOM_STEPS[ZOOM_STEPS.index(1.0) + 2])
    after = text_sizes(window)
    assert after.keys() == before.keys()
    wrong = {name: (before[name], after[name]) for name in before
             if abs(after[name] - before[name] * factor) > ROUNDING * factor}
    assert wrong == {}


def test_reset_zoom_restores_exactly_the_starting_sizes(qtbot, make_window):
    window = make_window()
    before = text_sizes(window)
    window.menus.zoom_in_action.trigger()
    window.menus.zoom_in_action.trigger()
    window.menus.zoom_out_action.trigger()
    qtbot.waitUntil(lambda: _polygon_settled(window), timeout=WAIT_MS)

    window.menus.zoom_reset_action.trigger()
    qtbot.waitUntil(lambda: _polygon_settled(window), timeout=WAIT_MS)

    assert text_sizes(window) == before
    assert window.context_view.zoomFactor() == pytest.approx(1.0)


def test_zoom_grows_the_actors_rows_and_reset_gives_their_height_back(qtbot, make_window):
    window = make_window()
    rows = window.docks["actorsDock"].actor_list
    height = rows.visualItemRect(rows.item(0)).height()

    window.menus.zoom_in_action.trigger()
    window.menus.zoom_in_action.trigger()
    qtbot.waitUntil(lambda: rows.visualItemRect(rows.item(0)).height() > height,
                    timeout=WAIT_MS)
    window.menus.zoom_reset_action.trigger()

    qtbot.waitUntil(lambda: rows.visualItemRect(rows.item(0)).height() == height,
                    timeout=WAIT_MS)


def test_zoom_grows_the_polygon_names_and_dots(qtbot, make_window):
    window = make_window()
    polygon = window.docks["polygonDock"]
    speaker = meeting_state(window.bridge).actor.id
    dot = polygon.drawing.dot_rects()[speaker].width()
    name = polygon.drawing.label_fonts()[speaker].pointSizeF()

    for _ in range(3):
        window.menus.zoom_in_action.trigger()
    qtbot.waitUntil(lambda: _polygon_settled(window), timeout=WAIT_MS)

    assert polygon.drawing.label_fonts()[speaker].pointSizeF() > name
    qtbot.waitUntil(lambda: polygon.drawing.dot_rects()[speaker].width() > dot, timeout=WAIT_MS)


def test_the_zoom_keys_are_ctrl_plus_minus_and_zero(make_window):
    window = make_window(start=False)
    menus = window.menus

    assert QKeySequence("Ctrl++") in menus.zoom_in_action.shortcuts()
    assert menus.zoom_out_action.shortcut() == QKeySequence("Ctrl+-")
    assert menus.zoom_reset_action.shortcut() == QKeySequence("Ctrl+0")
