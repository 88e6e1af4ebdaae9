"""Where the Polygon dock puts its vertices and names, and how large it draws them.

Pure geometry in pixels (x right, y down) from the names' pixel sizes and the sizes of
the marks (dots, gaps), which the dock scales with its font, so zoom scales everything.
The vertices sit on a regular polygon, the first one at the top, or turned by half a
step when that fits larger. Names keep their size on screen while the polygon scales,
so the scale (pixels per unit of radius) that fits the plot is solved for, for
each of a few placements of the names (above/below, beside, radial, and the preferred
one with colliding names moved beside their vertex); the largest placement in which no
name touches another name or any dot wins. A dot's box is the speaker's (the largest),
so whoever speaks, nothing moves and nothing overlaps. `choose_layout` shortens the
names ("Teodor L.", "Teodor", "Teo…") only as much as it takes for a clear layout of a
comfortable size. Must not import Qt or pyqtgraph: text is measured by the caller's
functions.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

MAX_SCALE = 400.0  # pixels per unit of radius: a lone pair must not fill a large dock
MIN_SCALE = 30.0  # below this the polygon is a blot: rather shorter names
# Longest name tried, as a share of the plot's width: full names first, then each a
# little shorter, so names are cut only as much as needed.
NAME_LIMITS: tuple[float | None, ...] = (None, *(0.6 * 0.87 ** k for k in range(12)))
# Full names are kept while the polygon's diameter is at least this share of the plot's
# shorter side; below it, shorter names for a larger polygon.
COMFORT = 0.5
ELLIPSIS = "…"
_SIDE = 1e-6  # |y| below this: a vertex on the horizontal axis

Place = Literal["above", "below", "left", "right",
                "above_left", "above_right", "below_left", "below_right"]
Box = tuple[float, float, float, float]  # left, top, right, bottom
Size = tuple[float, float]  # a name's width and height in pixels
Point = tuple[float, float]  # a vertex in units of the radius, y up

# Where a name hangs off its vertex: the name's anchor point (0..1 across its box) and
# the direction from the vertex to that point (each axis -1, 0 or 1, y down).
ANCHORS: dict[Place, tuple[float, float]] = {
    "above": (0.5, 1.0), "below": (0.5, 0.0), "left": (1.0, 0.5), "right": (0.0, 0.5),
    "above_left": (1.0, 1.0), "above_right": (0.0, 1.0),
    "below_left": (1.0, 0.0), "below_right": (0.0, 0.0),
}
SHIFTS: dict[Place, tuple[int, int]] = {
    "above": (0, -1), "below": (0, 1), "left": (-1, 0), "right": (1, 0),
    "above_left": (-1, -1), "above_right": (1, -1),
    "below_left": (-1, 1), "below_right": (1, 1),
}


@dataclass(frozen=True, slots=True)
class Marks:
    """The sizes of the marks in pixels (the dock derives them from its font)."""

    dot: float  # the largest dot's diameter: the speaker's
    gap: float  # between a dot's edge and its name
    name_gap: float  # between two names side by side, so they do not read as one

    @property
    def half(self) -> float:
        return self.dot / 2

    @property
    def reach(self) -> float:
        """From a vertex to the near edge of its name."""
        return self.half + self.gap


@dataclass(frozen=True, slots=True)
class Layout:
    positions: list[Point]  # each vertex, in units of the radius, y up
    places: list[Place]  # where each name hangs
    scale: float  # pixels per unit
    clear: bool  # fits, nothing touches, not smaller than MIN_SCALE


def polygon(count: int, turned: bool = False) -> list[Point]:
    """`count` vertices on the unit circle, clockwise from the top (or half a step on)."""
    n = max(count, 1)
    start = math.pi / 2 - (math.pi / n if turned else 0.0)
    points = []
    for i in range(count):
        angle = start - 2 * math.pi * i / n
        x, y = math.cos(angle), math.sin(angle)
        points.append((0.0 if abs(x) < 1e-9 else x, 0.0 if abs(y) < 1e-9 else y))
    return points


def placements(points: list[Point]) -> list[list[Place]]:
    """The fixed placements to try, most preferred first: upper names above and lower
    names below their vertex (side names below, above, or staggered: the right one above,
    the left one below); radial (outwards, corners included); and beside (left or right)
    for all but the top and bottom vertex."""
    def vertical(x: float, y: float, side: Place | None) -> Place:
        if abs(y) < _SIDE:
            return side or ("above" if x > 0 else "below")
        return "above" if y > 0 else "below"

    return [
        [vertical(x, y, "below") for x, y in points],
        [vertical(x, y, "above") for x, y in points],
        [vertical(x, y, None) for x, y in points],
        [_radial(x, y) for x, y in points],
        [_beside(x, y) for x, y in points],
    ]


def _radial(x: float, y: float) -> Place:
    sector = round(math.degrees(math.atan2(y, x)) / 45) % 8  # 0 = right, counter-clockwise
    order: list[Place] = ["right", "above_right", "above", "above_left",
                          "left", "below_left", "below", "below_right"]
    return order[sector]


def _beside(x: float, y: float) -> Place:
    if abs(x) < _SIDE:
        return "above" if y > 0 else "below"
    return "right" if x > 0 else "left"


def name_box(point: Point, size: Size, place: Place, scale: float, marks: Marks) -> Box:
    """A name's box in pixels, the polygon's centre at the origin."""
    px, py = point[0] * scale, -point[1] * scale
    (ax, ay), (sx, sy) = ANCHORS[place], SHIFTS[place]
    left = px + sx * marks.reach - ax * size[0]
    top = py + sy * marks.reach - ay * size[1]
    return (left, top, left + size[0], top + size[1])


def dot_box(point: Point, scale: float, marks: Marks) -> Box:
    px, py = point[0] * scale, -point[1] * scale
    return (px - marks.half, py - marks.half, px + marks.half, py + marks.half)


def boxes(points: list[Point], sizes: list[Size], places: list[Place], scale: float,
          marks: Marks) -> tuple[list[Box], list[Box]]:
    """Each name's box and each dot's box, in pixels at `scale`."""
    names = [name_box(p, s, place, scale, marks)
             for p, s, place in zip(points, sizes, places, strict=True)]
    return names, [dot_box(p, scale, marks) for p in points]


def extent(points: list[Point], sizes: list[Size], places: list[Place], scale: float,
           marks: Marks) -> Box:
    """The box around every name and dot, in pixels."""
    names, dots = boxes(points, sizes, places, scale, marks)
    every = names + dots
    return (min(b[0] for b in every), min(b[1] for b in every),
            max(b[2] for b in every), max(b[3] for b in every))


def fits(points: list[Point], sizes: list[Size], places: list[Place], scale: float,
         marks: Marks, width: float, height: float) -> bool:
    left, top, right, bottom = extent(points, sizes, places, scale, marks)
    return right - left <= width and bottom - top <= height


def fitting_scale(points: list[Point], sizes: list[Size], places: list[Place], marks: Marks,
                  width: float, height: float) -> float:
    """The largest scale (up to MAX_SCALE) at which everything fits width x height, or 0
    when nothing does (a name longer than the plot is wide).

    Every box edge moves linearly with the scale (its vertex's coordinate times the
    scale, plus a constant), so each pair of boxes bounds the scale directly: no search.
    """
    scale = MAX_SCALE
    for axis, room in ((0, width), (1, height)):
        # Per box: how fast its edges move with the scale, and its near and far edge at 0.
        edges = []
        for (point, size, place) in zip(points, sizes, places, strict=True):
            rate = point[0] if axis == 0 else -point[1]
            box = name_box(point, size, place, 0.0, marks)
            edges.append((rate, box[axis], box[axis + 2]))
            dot = dot_box(point, 0.0, marks)
            edges.append((rate, dot[axis], dot[axis + 2]))
        for rate_far, _, far in edges:
            for rate_near, near, _ in edges:
                spread, used = rate_far - rate_near, far - near
                if used > room + 1e-9:
                    return 0.0
                if spread > 1e-12:
                    scale = min(scale, (room - used) / spread)
    return max(scale, 0.0)


def collisions(points: list[Point], sizes: list[Size], places: list[Place], scale: float,
               marks: Marks) -> list[int]:
    """The names that touch another name (closer than name_gap side by side) or any dot."""
    names, dots = boxes(points, sizes, places, scale, marks)
    hit: set[int] = set()
    for i, a in enumerate(names):
        for j in range(i + 1, len(names)):
            if meet(a, names[j], marks.name_gap, 1.0):
                hit.update((i, j))
        if any(meet(a, d, 1.0, 1.0) for d in dots):
            hit.add(i)
    return sorted(hit)


def best_layout(sizes: list[Size], width: float, height: float, marks: Marks,
                min_scale: float = MIN_SCALE) -> Layout:
    """The clear layout (fits, nothing touches, scale >= min_scale) with the largest
    polygon; if there is none, the preferred placement at the scale that fits, marked
    not clear (the caller may shorten the names)."""
    best: Layout | None = None
    fallback: Layout | None = None
    for turned in (False, True):
        points = polygon(len(sizes), turned)
        for places in [*placements(points), _untangled(points, sizes, marks, width, height)]:
            scale = fitting_scale(points, sizes, places, marks, width, height)
            clear = scale >= min_scale and not collisions(points, sizes, places, scale, marks)
            layout = Layout(points, places, scale, clear)
            if fallback is None:
                fallback = layout
            if clear and (best is None or scale > best.scale + 1e-6):
                best = layout
    assert fallback is not None
    return best or fallback


def _untangled(points: list[Point], sizes: list[Size], marks: Marks, width: float,
               height: float) -> list[Place]:
    """The preferred placement with colliding names moved beside their vertex, the one
    furthest from the vertical axis first, until nothing collides or nothing can move."""
    places = list(placements(points)[0])
    for _ in range(len(points)):
        scale = fitting_scale(points, sizes, places, marks, width, height)
        movable = [i for i in collisions(points, sizes, places, scale, marks)
                   if places[i] in ("above", "below") and abs(points[i][0]) >= _SIDE]
        if not movable:
            break
        i = max(movable, key=lambda k: abs(points[k][0]))
        places[i] = _beside(*points[i])
    return places


def meet(a: Box, b: Box, gap_x: float, gap_y: float) -> bool:
    """True when the boxes overlap or come closer than the gaps."""
    return (a[0] < b[2] + gap_x and b[0] < a[2] + gap_x
            and a[1] < b[3] + gap_y and b[1] < a[3] + gap_y)


def choose_layout(names: list[str], measure: Callable[[str], Size],
                  width_of: Callable[[str], float], width: float, height: float,
                  marks: Marks) -> tuple[Layout, list[str]]:
    """The layout to draw and each name as drawn: full names if they are clear at a
    comfortable size (COMFORT); else the shortening that gives the largest clear
    polygon; at worst no names (the caller keeps them in tooltips)."""
    comfortable = COMFORT * min(width, height) / 2
    clear: list[tuple[Layout, list[str]]] = []
    for limit in NAME_LIMITS:
        shown = names if limit is None else [shorten(n, limit * width, width_of) for n in names]
        layout = best_layout([measure(n) for n in shown], width, height, marks)
        if layout.clear:
            if layout.scale >= comfortable:
                return layout, shown
            clear.append((layout, shown))
    if clear:
        return max(clear, key=lambda c: c[0].scale)
    nameless = best_layout([(0.0, 0.0)] * len(names), width, height, marks, min_scale=0.0)
    return nameless, [""] * len(names)


def shorten(name: str, room: float, width_of: Callable[[str], float]) -> str:
    """The name if it fits `room` pixels, else the first name and initials ("Teodor L."),
    else the first name, else as much of the first name as fits before "…" ("" if not
    even one letter does)."""
    words = name.split()
    tries = [name]
    if len(words) > 1:
        tries += [" ".join([words[0], *(w[0] + "." for w in words[1:])]), words[0]]
    for text in tries:
        if width_of(text) <= room:
            return text
    first = words[0] if words else name
    for end in range(len(first) - 1, 0, -1):
        if width_of(first[:end] + ELLIPSIS) <= room:
            return first[:end] + ELLIPSIS
    return ""
