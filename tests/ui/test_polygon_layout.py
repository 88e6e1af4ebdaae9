"""The Polygon dock's geometry, pure: the scale that fits a plot, where names go, and that
no name touches another name or any dot."""

from __future__ import annotations

import math

from roundtable_desktop.ui.docks.polygon_layout import (
    MAX_SCALE,
    Marks,
    Size,
    best_layout,
    choose_layout,
    collisions,
    extent,
    fits,
    fitting_scale,
    placements,
    polygon,
    shorten,
)

MARKS = Marks(dot=28.0, gap=4.0, name_gap=14.0)


def _names(count: int, width: float, height: float = 22.0) -> list[Size]:
    return [(width, height)] * count


def _fits(layout, sizes, width, height) -> bool:  # type: ignore[no-untyped-def]
    left, top, right, bottom = extent(layout.positions, sizes, layout.places, layout.scale,
                                      MARKS)
    return right - left <= width + 1e-6 and bottom - top <= height + 1e-6


def test_the_first_vertex_is_at_the_top_and_the_others_follow_clockwise():
    points = polygon(4)

    assert points[0] == (0.0, 1.0)
    assert points[1] == (1.0, 0.0)  # clockwise: the right one next
    assert all(math.isclose(math.hypot(x, y), 1.0) for x, y in points)


def test_the_fitting_scale_is_the_largest_at_which_everything_fits():
    points, sizes = polygon(5), _names(5, 120)
    places = placements(points)[0]

    scale = fitting_scale(points, sizes, places, MARKS, 420, 300)

    assert fits(points, sizes, places, scale, MARKS, 420, 300 + 1e-6)
    assert not fits(points, sizes, places, scale * 1.01, MARKS, 420, 300)


def test_a_roomy_plot_puts_names_above_and_below_their_vertex():
    sizes = _names(4, 120)

    layout = best_layout(sizes, 600, 600, MARKS)

    assert layout.clear
    assert set(layout.places) <= {"above", "below"}
    assert _fits(layout, sizes, 600, 600)
    assert collisions(layout.positions, sizes, layout.places, layout.scale, MARKS) == []


def test_a_wide_short_plot_turns_the_polygon_when_that_fits_larger():
    sizes = _names(4, 100)

    layout = best_layout(sizes, 700, 220, MARKS)

    assert layout.clear
    assert layout.positions == polygon(4, turned=True)
    upright = polygon(4)
    assert all(layout.scale > fitting_scale(upright, sizes, places, MARKS, 700, 220)
               for places in placements(upright))


def test_a_narrow_plot_keeps_side_names_apart():
    sizes = _names(4, 150)

    layout = best_layout(sizes, 300, 260, MARKS)

    assert layout.clear
    assert _fits(layout, sizes, 300, 260)
    assert collisions(layout.positions, sizes, layout.places, layout.scale, MARKS) == []


def test_a_name_over_another_vertex_dot_is_a_collision():
    points = [(0.0, 0.0), (0.0, -1.0)]  # the second dot right under the first
    sizes = _names(2, 80)

    assert collisions(points, sizes, ["below", "above"], 30.0, MARKS) != []
    assert collisions(points, sizes, ["above", "below"], 30.0, MARKS) == []


def test_names_closer_than_the_gap_side_by_side_collide():
    points = [(-1.0, 0.0), (1.0, 0.0)]
    sizes = _names(2, 100)
    # Centred under vertices 2 x scale apart: 2 x scale - 100 px between the names.
    assert collisions(points, sizes, ["below", "below"], 55.0, MARKS) == [0, 1]  # 10 px
    assert collisions(points, sizes, ["below", "below"], 60.0, MARKS) == []  # 20 px


def test_a_lone_pair_does_not_fill_a_huge_plot():
    layout = best_layout(_names(2, 80), 3000, 3000, MARKS)

    assert layout.scale == MAX_SCALE


def test_seven_seats_fit_without_collisions_in_the_default_dock():
    sizes = _names(7, 130, 24)

    layout = best_layout(sizes, 420, 330, MARKS)

    assert layout.clear
    assert collisions(layout.positions, sizes, layout.places, layout.scale, MARKS) == []
    assert _fits(layout, sizes, 420, 330)


def test_names_too_long_for_the_plot_are_reported_not_clear():
    layout = best_layout(_names(4, 400), 300, 260, MARKS)

    assert not layout.clear


def _width_of(text: str) -> float:
    return 10.0 * len(text)  # a monospace font, 10 px a character


def test_a_name_is_shortened_to_initials_then_the_first_name_then_cut():
    name = "Teodor Lindqvist"

    assert shorten(name, 200, _width_of) == name
    assert shorten(name, 100, _width_of) == "Teodor L."
    assert shorten(name, 70, _width_of) == "Teodor"
    assert shorten(name, 40, _width_of) == "Teo…"
    assert shorten(name, 5, _width_of) == ""


def test_full_names_are_kept_when_they_fit_at_a_comfortable_size():
    names = ["Marguerite Osei", "Teodor Lindqvist", "Inés Varga"]

    layout, shown = choose_layout(names, lambda t: (_width_of(t), 22.0), _width_of,
                                  800, 600, MARKS)

    assert shown == names and layout.clear


def test_names_are_shortened_only_as_far_as_a_clear_layout_needs():
    names = [f"Participant Number{i}" for i in range(8)]

    layout, shown = choose_layout(names, lambda t: (_width_of(t), 22.0), _width_of,
                                  300, 200, MARKS)

    assert layout.clear
    assert shown != names and all(s for s in shown)
    sizes = [(_width_of(s), 22.0) for s in shown]
    assert collisions(layout.positions, sizes, layout.places, layout.scale, MARKS) == []
