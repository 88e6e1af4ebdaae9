"""Where the Polygon dock's names go, and the scale at which the polygon and its names fit.

Pure geometry in pixels (x right, y down) from vertex positions in units (y up) and the
names' pixel sizes. Names keep their size on screen while the polygon scales, so the
scale that fits a plot is found by bisection. A few placements are tried (side names
below, beside or staggered; names that collide moved beside their vertex one by one;
every name beside its vertex) and the largest in which no name touches another name or
a vertex wins. Must not import Qt or pyqtgraph.
"""

from __future__ import annotations

from typing import Literal

SPEAKER_SIZE, VERTEX_SIZE = 34, 22  # vertex diameters, pixels
LABEL_GAP = 4  # pixels between a vertex and its name
DOT = SPEAKER_SIZE / 2 + 2  # half a vertex box: the speaker's vertex is the largest
REACH = DOT + LABEL_GAP  # vertex centre to the near edge of its name
MAX_SCALE = 400.0  # pixels per unit: a lone vertex must not fill the dock
MIN_SCALE = 45.0  # below this the polygon is a blot: better smaller names
NAME_GAP = 16  # pixels: names closer than this side by side read as one
_SIDE = 1e-6  # |y| below this: a vertex on the horizontal axis

Place = Literal["above", "below", "left", "right"]
Box = tuple[float, float, float, float]  # left, top, right, bottom
# One vertex: its position in units, and its name's width and height in pixels.
Name = tuple[tuple[float, float], tuple[float, float]]


def placements(names: list[Name]) -> list[list[Place]]:
    """The fixed placements to try, in order of preference: upper names above and lower
    names below their vertex, the side vertices' names below, beside (outwards) or
    staggered (the right one above); and every name beside its vertex."""
    def place(x: float, y: float, side: Place | None) -> Place:
        if abs(y) >= _SIDE or side is None:
            return "above" if y >= _SIDE else "below"
        return side

    pos = [p for p, _ in names]
    return [
        [place(x, y, "below") for x, y in pos],
        [place(x, y, "right" if x > 0 else "left") for x, y in pos],
        [place(x, y, "above" if x > 0 else "below") for x, y in pos],
        [_beside(x, y) for x, y in pos],
    ]


def _beside(x: float, y: float) -> Place:
    if abs(x) < _SIDE:
        return "above" if y > 0 else "below"
    return "right" if x > 0 else "left"


def boxes(names: list[Name], places: list[Place], scale: float) -> tuple[list[Box], list[Box]]:
    """Each name's box and each vertex's box in pixels at `scale`."""
    name_boxes, vertex_boxes = [], []
    for ((x, y), (w, h)), place in zip(names, places, strict=True):
        px, py = x * scale, -y * scale
        if place == "above":
            name_boxes.append((px - w / 2, py - REACH - h, px + w / 2, py - REACH))
        elif place == "below":
            name_boxes.append((px - w / 2, py + REACH, px + w / 2, py + REACH + h))
        elif place == "left":
            name_boxes.append((px - REACH - w, py - h / 2, px - REACH, py + h / 2))
        else:
            name_boxes.append((px + REACH, py - h / 2, px + REACH + w, py + h / 2))
        vertex_boxes.append((px - DOT, py - DOT, px + DOT, py + DOT))
    return name_boxes, vertex_boxes


def extent(names: list[Name], places: list[Place], scale: float) -> Box:
    """The box around every name and vertex, in pixels."""
    name_boxes, vertex_boxes = boxes(names, places, scale)
    every = name_boxes + vertex_boxes
    return (min(b[0] for b in every), min(b[1] for b in every),
            max(b[2] for b in every), max(b[3] for b in every))


def fitting_scale(names: list[Name], places: list[Place], width: float, height: float) -> float:
    """The largest scale (up to MAX_SCALE) at which everything fits width x height, or
    1.0 when nothing does (names longer than the plot is wide)."""
    if fits(names, places, MAX_SCALE, width, height):
        return MAX_SCALE
    low, high = 1.0, MAX_SCALE
    for _ in range(40):
        mid = (low + high) / 2
        low, high = (mid, high) if fits(names, places, mid, width, height) else (low, mid)
    return low


def fits(names: list[Name], places: list[Place], scale: float, width: float,
         height: float) -> bool:
    left, top, right, bottom = extent(names, places, scale)
    return right - left <= width and bottom - top <= height


def collisions(names: list[Name], places: list[Place], scale: float) -> list[int]:
    """The names that touch another name (closer than NAME_GAP side by side) or another
    actor's vertex at `scale`."""
    name_boxes, vertex_boxes = boxes(names, places, scale)
    hit: set[int] = set()
    for i, a in enumerate(name_boxes):
        for j in range(i + 1, len(name_boxes)):
            if _meet(a, name_boxes[j], NAME_GAP):
                hit.update((i, j))
        if any(j != i and _meet(a, v, 0) for j, v in enumerate(vertex_boxes)):
            hit.add(i)
    return sorted(hit)


def collides(names: list[Name], places: list[Place], scale: float) -> bool:
    return bool(collisions(names, places, scale))


def best_layout(
    names: list[Name], width: float, height: float
) -> tuple[list[Place], float, bool]:
    """The placement and scale to draw, and whether it is clear (fits, no collisions,
    the polygon not shrunk below MIN_SCALE): the largest clear one, or the preferred
    placement when none is (the names are too long for the plot; the caller may try
    smaller names)."""
    tried = []
    for places in [*placements(names), _untangled(names, width, height)]:
        scale = fitting_scale(names, places, width, height)
        ok = (scale >= MIN_SCALE and fits(names, places, scale, width, height)
              and not collides(names, places, scale))
        tried.append((ok, scale, places))
    clear = [t for t in tried if t[0]]
    is_clear, scale, places = max(clear, key=lambda t: t[1]) if clear else tried[0]
    return places, scale, is_clear


def _untangled(names: list[Name], width: float, height: float) -> list[Place]:
    """The preferred placement with colliding names moved beside their vertex, the one
    furthest from the vertical axis first, until nothing collides or nothing can move."""
    places = list(placements(names)[0])
    for _ in range(len(names)):
        scale = fitting_scale(names, places, width, height)
        movable = [i for i in collisions(names, places, scale)
                   if places[i] in ("above", "below") and abs(names[i][0][0]) >= _SIDE]
        if not movable:
            break
        i = max(movable, key=lambda k: abs(names[k][0][0]))
        places[i] = _beside(*names[i][0])
    return places


def _meet(a: Box, b: Box, gap: float) -> bool:
    return a[0] < b[2] + gap and b[0] < a[2] + gap and a[1] < b[3] and b[1] < a[3]
