"""The Polygon dock, drawn: for 2 to 8 participants at three dock sizes every name is
inside the plot and clear of every other name and of every dot, the polygon uses most of
the dock, and the speaker is highlighted on its own vertex. Checked from the geometry of
the drawn items (scene rectangles), not from pixels."""

from __future__ import annotations

import math

import pytest
from PySide6.QtCore import QPointF, QRectF

from roundtable_desktop.domain.summary import Participant
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.docks.polygon_dock import PolygonDock
from roundtable_desktop.ui.docks.polygon_plot import SPEAKER_COLOUR
from roundtable_desktop.ui.theme import apply_theme

pytestmark = pytest.mark.qt

NAMES = ["Marguerite Osei", "Teodor Lindqvist", "Inés Varga", "Corin Ashby",
         "Priyanka Raghunathan", "Olu Adeyemi", "Jean-Baptiste Moreau", "Mei Lin"]
DOCK_SIZES = [(260, 220), (440, 360), (900, 700)]
# The polygon's diameter as a share of the plot's shorter side, at least.
MOST_OF_THE_DOCK = {(260, 220): 0.35, (440, 360): 0.5, (900, 700): 0.75}


def _seats(count: int) -> list[Participant]:
    return [Participant(id=f"p{i}", name=NAMES[i],
                        role="administrator" if i == 0 else "participant", human=i == 3)
            for i in range(count)]


@pytest.fixture
def polygon(qtbot):
    def make(width: int, height: int, count: int, speaker: str = "p1",
             zoom: float = 1.0) -> PolygonDock:
        dock = PolygonDock(EngineBridge())
        qtbot.addWidget(dock)
        apply_theme(dock, "light", zoom)  # the window's font at that zoom
        dock.resize(width, height)
        dock.show()
        qtbot.waitUntil(lambda: dock.width() == width and dock.height() == height)
        dock.drawing.show_participants(_seats(count), speaker)
        qtbot.waitUntil(lambda: len(dock.drawing.dot_rects()) == count)
        return dock

    return make


def _centre(rect: QRectF) -> QPointF:
    return rect.center()


def _overlaps(dock: PolygonDock) -> list[str]:
    drawing = dock.drawing
    names, dots, view = drawing.label_rects(), drawing.dot_rects(), drawing.view_rect()
    found = []
    shown = list(names.items())
    for i, (a, rect) in enumerate(shown):
        if not view.contains(rect):
            found.append(f"{a} outside the plot")
        found += [f"{a} over {b}" for b, other in shown[i + 1:] if rect.intersects(other)]
        found += [f"{a} over the dot of {b}" for b, dot in dots.items() if rect.intersects(dot)]
    found += [f"dot of {a} outside the plot" for a, dot in dots.items() if not view.contains(dot)]
    return found


@pytest.mark.parametrize("size", DOCK_SIZES, ids=[f"{w}x{h}" for w, h in DOCK_SIZES])
@pytest.mark.parametrize("count", range(2, 9))
def test_names_stay_clear_of_each_other_and_of_every_dot(polygon, size, count):
    dock = polygon(*size, count)

    assert _overlaps(dock) == []
    assert len(dock.drawing.label_rects()) == count


@pytest.mark.parametrize("size", DOCK_SIZES, ids=[f"{w}x{h}" for w, h in DOCK_SIZES])
@pytest.mark.parametrize("count", range(2, 9))
def test_the_polygon_uses_most_of_its_dock(polygon, size, count):
    dock = polygon(*size, count)
    view = dock.drawing.view_rect()

    assert dock.drawing.polygon_span() >= MOST_OF_THE_DOCK[size] * min(view.width(), view.height())


@pytest.mark.parametrize("count", [3, 5, 8])
def test_at_presenter_zoom_names_stay_clear_in_the_default_dock(polygon, count):
    dock = polygon(440, 360, count, zoom=1.4)

    assert _overlaps(dock) == []
    assert len(dock.drawing.label_rects()) == count


def test_the_speaker_is_highlighted_on_its_own_vertex(polygon):
    dock = polygon(440, 360, 6, speaker="p2")
    dots = dock.drawing.dot_rects()
    centres = {a: _centre(r) for a, r in dots.items()}
    middle = QPointF(sum(c.x() for c in centres.values()) / 6,
                     sum(c.y() for c in centres.values()) / 6)
    radii = [math.dist((c.x(), c.y()), (middle.x(), middle.y())) for c in centres.values()]

    assert max(radii) - min(radii) < 1.0  # every dot, the speaker's too, on the polygon
    assert dock.vertex_colour("p2") == SPEAKER_COLOUR
    assert dots["p2"].width() == max(r.width() for r in dots.values())
    assert dock.drawing.label_fonts()["p2"].bold()
    assert not dock.drawing.label_fonts()["p1"].bold()


def test_nothing_moves_when_the_speaker_changes(polygon, qtbot):
    dock = polygon(440, 360, 5, speaker="p0")
    dots = {a: _centre(r) for a, r in dock.drawing.dot_rects().items()}
    names = dock.drawing.label_rects()

    dock.drawing.show_participants(_seats(5), "p3")

    assert {a: _centre(r) for a, r in dock.drawing.dot_rects().items()} == dots
    assert dock.vertex_colour("p3") == SPEAKER_COLOUR
    assert dock.vertex_colour("p0") != SPEAKER_COLOUR
    moved = {a for a, r in dock.drawing.label_rects().items() if _centre(r) != _centre(names[a])}
    assert moved <= {"p0", "p3"}  # only the names that changed weight, and only in place
    assert _overlaps(dock) == []


def test_the_polygon_grows_with_its_dock(polygon, qtbot):
    dock = polygon(260, 220, 5)
    spans = [dock.drawing.polygon_span()]

    for width, height in DOCK_SIZES[1:]:
        dock.resize(width, height)
        qtbot.waitUntil(lambda w=width: dock.width() == w)
        spans.append(dock.drawing.polygon_span())

    assert spans == sorted(spans) and spans[-1] > 2 * spans[0]


def test_long_names_are_shortened_not_overlapped_in_a_small_dock(polygon):
    dock = polygon(260, 220, 6)

    shown = dock.drawing.shown_names()
    assert any(shown[s.id] != s.name for s in _seats(6))
    for seat in _seats(6):
        text = shown[seat.id].rstrip("…").rstrip(".")
        assert seat.name.startswith(text.split(" ")[0]) or not text
    assert _overlaps(dock) == []


def test_in_a_large_dock_every_name_is_shown_whole(polygon):
    dock = polygon(900, 700, 8)

    assert dock.drawing.shown_names() == {s.id: s.name for s in _seats(8)}
