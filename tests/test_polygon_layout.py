"""The Polygon dock's geometry: names and vertices fit the plot and never collide."""

from __future__ import annotations

import math

from roundtable_desktop.ui.docks.polygon_layout import (
    MAX_SCALE,
    Name,
    best_layout,
    collides,
    extent,
)


def _square(name_width: float) -> list[Name]:
    names = []
    for i in range(4):
        angle = math.pi / 2 - 2 * math.pi * i / 4
        names.append(((math.cos(angle), math.sin(angle)), (name_width, 20.0)))
    return names


def _fits(names: list[Name], places, scale: float, width: float, height: float) -> bool:
    left, top, right, bottom = extent(names, places, scale)
    return right - left <= width + 1e-6 and bottom - top <= height + 1e-6


def test_a_roomy_plot_puts_side_names_under_their_vertex():
    names = _square(120)

    places, scale, clear = best_layout(names, 600, 600)

    assert clear
    assert places == ["above", "below", "below", "below"]
    assert _fits(names, places, scale, 600, 600)
    assert not collides(names, places, scale)


def test_a_narrow_plot_moves_side_names_so_they_do_not_run_together():
    names = _square(150)

    places, scale, clear = best_layout(names, 300, 260)

    assert clear
    assert places[1] != places[3] or places[1] in ("left", "right")
    assert _fits(names, places, scale, 300, 260)
    assert not collides(names, places, scale)


def test_a_lone_vertex_does_not_fill_the_plot():
    names: list[Name] = [((0.0, 1.0), (80.0, 20.0))]

    _, scale, _ = best_layout(names, 400, 400)

    assert scale == MAX_SCALE


def test_seven_seats_fit_without_collisions_in_the_default_dock():
    names = []
    for i in range(7):
        angle = math.pi / 2 - 2 * math.pi * i / 7
        names.append(((math.cos(angle), math.sin(angle)), (130.0, 24.0)))

    places, scale, clear = best_layout(names, 420, 330)

    assert clear and not collides(names, places, scale)
    assert _fits(names, places, scale, 420, 330)


def test_names_too_long_for_the_plot_are_reported_not_clear():
    names = _square(400)

    _, scale, clear = best_layout(names, 300, 260)

    assert not clear
    assert scale >= 1.0
