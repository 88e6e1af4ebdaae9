"""The Polygon dock's own drawing (pyqtgraph), for any kind: PlotDrawing.

It draws the neutral model of polygon_model.py: the participants of the session's
summary, the speaker (its current actor, or who answers now) and the edges. `refresh()`
reads the bridge's summary; `show_participants` draws any list. The speaker's dot stays
on its vertex and is highlighted there (larger, amber, outlined; its name bold); once
the session ended nobody is. Edges show what one participant wrote reaching another's
context: when A writes something shared (a spoken transcript line, or a tool that
changed the whiteboard, transcript or suggestions), the edges A→others glow faintly
until each of them reads (their call starts or their turn comes); then A→B flashes, a
small dot travels from A to B, and the flash fades. Each frame touches only the active
edges.
Size: names are in the dock's font (so zoom scales them like every other text) and the
dots and gaps are measured in that font's height; the polygon takes the largest scale at
which every name and dot is inside the plot and no name touches another name or any dot
(polygon_layout.py). Names are shortened ("Teodor L.", "Teo…") only when that is what
keeps them apart or the polygon readable; the vertex's tooltip has the full name, and
its shape (square: administrator) and colour (green: a human seat) say the rest. Names
are measured bold, as the speaker's is, so nothing moves when the speaker changes. The
names sit on a veil of the background above the edges and the faint polygon outline.
Background, names and edges follow the window's theme (BridgeDock.theme_palette).
Must hold no engine logic, never change the state, and name no kind.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPalette, QTextDocument
from PySide6.QtWidgets import QVBoxLayout

from roundtable_desktop.domain.events import ToolRan
from roundtable_desktop.domain.summary import Participant
from roundtable_desktop.domain.tools import ToolStatus
from roundtable_desktop.ui.docks.polygon_drawing import PolygonDrawing
from roundtable_desktop.ui.docks.polygon_layout import (
    ANCHORS,
    SHIFTS,
    Layout,
    Marks,
    Place,
    Point,
    choose_layout,
    extent,
    polygon,
)
from roundtable_desktop.ui.docks.polygon_model import (
    ADMIN_ROLE,
    Pair,
    edge_segment,
    polygon_scene,
    speakers_of_new_lines,
    vertex_tooltip,
)
from roundtable_desktop.ui.text_label import WrappedLabel
from roundtable_desktop.ui.theme import inks

if TYPE_CHECKING:
    from roundtable_desktop.ui.docks.polygon_dock import PolygonDock

SHARED_PARTS = frozenset({"whiteboard", "transcript", "suggestions"})
SPEAKER_COLOUR = "#f5b82e"
VERTEX_COLOUR = "#4a78c2"
HUMAN_COLOUR = "#3f9f6a"
# Marks in units of the name font's height, so they scale with zoom like the names.
SPEAKER_DOT, DOT, TRAVELLER = 1.4, 0.95, 0.45
LABEL_GAP, NAME_GAP = 0.2, 0.7
_MARGIN = 6  # pixels kept clear at the plot's edges
_LABEL_FILL_ALPHA = 215  # names sit on a veil of the background, above the edges
_OUTLINE_ALPHA = 60  # the polygon's sides: there, but quieter than any interaction
_TEXT_MARGIN = 1.0  # around a name's text, inside its veil (Qt's default is 4)


class PlotDrawing(PolygonDrawing):
    """The summary's participants on a pyqtgraph plot, the turn line above it."""

    def attach(self, dock: PolygonDock, layout: QVBoxLayout) -> None:
        super().attach(dock, layout)
        self.plot = pg.PlotWidget()
        self.plot.setObjectName("polygonPlot")
        self.plot.setAntialiasing(True)
        self.plot.setBackground(None)
        item = self.plot.getPlotItem()
        item.hideAxis("left")
        item.hideAxis("bottom")
        item.hideButtons()
        item.setMenuEnabled(False)
        item.setMouseEnabled(x=False, y=False)
        item.getViewBox().setDefaultPadding(0)
        self.plot.setAspectLocked(True)
        self.plot.setXRange(-1.5, 1.5, padding=0)
        self.plot.setYRange(-1.5, 1.5, padding=0)
        item.getViewBox().sigResized.connect(self._on_view_resized)
        self.turn_label = WrappedLabel("")
        self.turn_label.setObjectName("polygonTurn")
        layout.addWidget(self.turn_label)
        layout.addWidget(self.plot, 1)

        self.vertices = pg.ScatterPlotItem(pxMode=True)
        self.vertices.setZValue(10)
        self.travellers = pg.ScatterPlotItem(pxMode=True)
        self.travellers.setZValue(5)
        self.outline = pg.PlotCurveItem()  # the polygon itself, faint, under everything
        self.outline.setZValue(0)
        self.plot.addItem(self.outline)
        self.plot.addItem(self.vertices)
        self.plot.addItem(self.travellers)

        self._seats: list[Participant] = []
        self._current: str | None = None
        self._positions: dict[str, Point] = {}
        self._labels: dict[str, pg.TextItem] = {}
        self._shown: dict[str, str] = {}  # each name as drawn (maybe shortened)
        self._layout: Layout | None = None
        self._marks = Marks(dot=32.0, gap=4.0, name_gap=14.0)
        self._edges: dict[Pair, pg.PlotCurveItem] = {}
        self._inks = inks(dock.theme_palette())

        dock.bridge.stateChanged.connect(self._on_bridge_state_changed)
        dock.bridge.toolRan.connect(self._on_bridge_tool_ran)
        self._follow_palette()

    # -- reading (tests) ------------------------------------------------------------------
    def current_actor_id(self) -> str | None:
        return self._current

    def vertex_colour(self, actor_id: str) -> str:
        spot = self._spot(actor_id)
        return spot.brush().color().name() if spot is not None else ""

    def turn_text(self) -> str:
        return self.turn_label.full_text()

    def label_rects(self) -> dict[str, QRectF]:
        """Each name's rectangle in the plot's scene (pixels), as drawn now."""
        self._apply_range()
        rects = {}
        for actor_id, label in self._labels.items():
            if label.isVisible():
                label.updateTransform(force=True)
                rects[actor_id] = label.textItem.sceneBoundingRect()
        return rects

    def dot_rects(self) -> dict[str, QRectF]:
        """Each vertex's dot in the same scene pixels, from the drawn spots."""
        self._apply_range()
        view = self.plot.getPlotItem().getViewBox()
        rects = {}
        for spot in self.vertices.points():
            centre = view.mapViewToScene(spot.pos())
            half = spot.size() / 2
            rects[spot.data()] = QRectF(centre.x() - half, centre.y() - half, 2 * half, 2 * half)
        return rects

    def vertex_positions(self) -> dict[str, Point]:
        """Each vertex in units of the radius (the polygon's centre at 0, 0)."""
        return dict(self._positions)

    def polygon_span(self) -> float:
        """The polygon's diameter on screen, in pixels."""
        return 2 * self._layout.scale if self._layout is not None and self._seats else 0.0

    def shown_names(self) -> dict[str, str]:
        return dict(self._shown)

    def label_fonts(self) -> dict[str, QFont]:
        """Each name's font as drawn (the speaker's is bold)."""
        return {actor_id: label.textItem.font() for actor_id, label in self._labels.items()}

    def view_rect(self) -> QRectF:
        """The plot area in the same scene pixels as `label_rects`."""
        return self.plot.getPlotItem().getViewBox().sceneBoundingRect()

    def background_colour(self) -> str:
        return self.plot.backgroundBrush().color().name()

    # -- refresh --------------------------------------------------------------------------
    def session_changed(self) -> None:
        self._current = None

    def refresh(self) -> None:
        bridge = self.dock.bridge
        summary = bridge.summary()
        edges = self.dock.edges
        if summary is not None:
            everyone = [p.id for p in summary.participants]
            for writer in speakers_of_new_lines(summary, edges.seen_lines):
                edges.wrote(writer, everyone)
            edges.seen_lines = len(summary.transcript)
            if summary.ended:
                edges.pending.clear()  # nobody will read what waits: no promise left
        scene = polygon_scene(summary, bridge.current_actor_id(), self.dock.answering,
                              bridge.awaiting_human())
        self.show_participants(scene.seats, scene.speaker)
        self.turn_label.set_full_text(scene.caption)

    def show_participants(self, seats: list[Participant], speaker: str | None) -> None:
        """Draw these participants, `speaker` highlighted (None: nobody speaks)."""
        if [s.id for s in seats] != [s.id for s in self._seats]:
            self._rebuild([s.id for s in seats])
        self._seats = list(seats)
        if speaker != self._current:
            self._current = speaker
            self._deliver_to(speaker)
        self._arrange()

    def _rebuild(self, ids: list[str]) -> None:
        for label in self._labels.values():
            self.plot.removeItem(label)
        for curve in self._edges.values():
            self.plot.removeItem(curve)
        self._labels.clear()
        self._edges.clear()
        self._shown.clear()
        for actor_id in ids:
            label = pg.TextItem(anchor=(0.5, 1.0))
            label.textItem.document().setDocumentMargin(_TEXT_MARGIN)
            label.setZValue(8)
            self.plot.addItem(label)
            self._labels[actor_id] = label
        self._positions = dict(zip(ids, polygon(len(ids)), strict=True))
        self.dock.edges.keep_only(set(ids))

    # -- arranging ------------------------------------------------------------------------
    def _name_font(self, bold: bool) -> QFont:
        font = QFont(self.plot.font())  # the plot's font follows the window's zoom
        font.setBold(bold)
        return font

    def _arrange(self) -> None:
        """Lay the polygon out for the plot's size and the names' font, then draw it."""
        view = self.plot.getPlotItem().getViewBox()
        width, height = view.width() - 2 * _MARGIN, view.height() - 2 * _MARGIN
        if not self._seats or width <= 0 or height <= 0:
            self._layout = None
            self._draw()
            return
        bold = self._name_font(True)
        em = QFontMetricsF(bold).height()
        self._marks = Marks(dot=round(SPEAKER_DOT * em), gap=max(2.0, LABEL_GAP * em),
                            name_gap=NAME_GAP * em)
        metrics = QFontMetricsF(bold)
        layout, shown = choose_layout([s.name for s in self._seats],
                                      lambda text: self._measure(text, bold),
                                      metrics.horizontalAdvance, width, height, self._marks)
        self._layout = layout
        self._shown = {s.id: text for s, text in zip(self._seats, shown, strict=True)}
        self._positions = {s.id: p for s, p in zip(self._seats, layout.positions, strict=True)}
        self._draw()

    def _measure(self, text: str, font: QFont) -> tuple[float, float]:
        """A name's box as a TextItem draws it (its document, margins included)."""
        if not text:
            return (0.0, 0.0)
        document = QTextDocument()
        document.setDefaultFont(font)
        document.setDocumentMargin(_TEXT_MARGIN)
        document.setPlainText(text)
        size = document.size()
        return (math.ceil(size.width()) + 1.0, math.ceil(size.height()) + 1.0)

    def _apply_range(self) -> None:
        """Centre the names and dots in the plot at the layout's scale."""
        view = self.plot.getPlotItem().getViewBox()
        layout = self._layout
        if layout is not None and self._seats:
            sizes = [self._measure(self._shown.get(s.id, ""), self._name_font(True))
                     for s in self._seats]
            left, top, right, bottom = extent(layout.positions, sizes, layout.places,
                                              layout.scale, self._marks)
            scale = max(layout.scale, 1e-3)
            cx, cy = (left + right) / 2 / scale, -(top + bottom) / 2 / scale
            half_w, half_h = view.width() / 2 / scale, view.height() / 2 / scale
            view.setRange(xRange=(cx - half_w, cx + half_w), yRange=(cy - half_h, cy + half_h),
                          padding=0)
        view.prepareForPaint()  # the range, applied now

    def _draw(self) -> None:
        """Dots, names and edges at the current layout."""
        ink = self._inks
        palette = self.dock.theme_palette()
        text_colour = palette.color(QPalette.ColorRole.Text).name()
        fill = QColor(palette.color(QPalette.ColorRole.Base))
        fill.setAlpha(_LABEL_FILL_ALPHA)
        dot = self._marks.dot
        spots = []
        layout = self._layout
        scale = max(layout.scale, 1e-3) if layout is not None else 1.0
        places: list[Place] = layout.places if layout is not None \
            else ["above"] * len(self._seats)
        for seat, place in zip(self._seats, places, strict=True):
            speaking = seat.id == self._current
            colour = SPEAKER_COLOUR if speaking else (
                HUMAN_COLOUR if seat.human else VERTEX_COLOUR)
            x, y = self._positions.get(seat.id, (0.0, 0.0))
            spots.append({
                "pos": (x, y),
                "size": dot if speaking else round(dot * DOT / SPEAKER_DOT),
                "symbol": "s" if seat.role == ADMIN_ROLE else "o",
                "brush": pg.mkBrush(colour),
                "pen": pg.mkPen(ink.outline, width=3 if speaking else 1),
                "data": seat.id,
            })
            label = self._labels[seat.id]
            label.setFont(self._name_font(speaking))
            label.fill = pg.mkBrush(fill)
            label.setText(self._shown.get(seat.id, ""),
                          color=ink.speaker if speaking else text_colour)
            label.setVisible(bool(self._shown.get(seat.id)) and layout is not None)
            (ax, ay), (sx, sy) = ANCHORS[place], SHIFTS[place]
            reach = self._marks.reach / scale
            label.setAnchor((ax, ay))
            label.setPos(x + sx * reach, y - sy * reach)
        names = {seat.id: vertex_tooltip(seat) for seat in self._seats}
        self.vertices.setData(spots, hoverable=True,  # the full name, however it is drawn
                              tip=lambda x, y, data: names.get(data, ""))
        ring = [self._positions[s.id] for s in self._seats if s.id in self._positions]
        ring += ring[:1] if len(ring) > 2 else []
        line = QColor(palette.color(QPalette.ColorRole.Text))
        line.setAlpha(_OUTLINE_ALPHA)
        self.outline.setData([p[0] for p in ring], [p[1] for p in ring],
                             pen=pg.mkPen(line, width=1))
        self._apply_range()
        self._paint_edges()

    def _spot(self, actor_id: str) -> Any:  # a pyqtgraph SpotItem, or None (untyped)
        return next((s for s in self.vertices.points() if s.data() == actor_id), None)

    # -- theme and size ------------------------------------------------------------------
    def _on_view_resized(self) -> None:
        self._arrange()

    def theme_changed(self) -> None:
        self._follow_palette()
        self._arrange()  # names change colour and size with the theme and zoom

    def _follow_palette(self) -> None:
        pal = self.dock.theme_palette()
        self._inks = inks(pal)
        self.plot.setBackground(pal.color(QPalette.ColorRole.Base))

    # -- interactions ---------------------------------------------------------------------
    def _on_bridge_tool_ran(self, event: ToolRan) -> None:
        result = event.result
        if result.status != ToolStatus.OK or not SHARED_PARTS & set(result.changed):
            return
        if event.actor_id is not None:
            self.dock.edges.wrote(event.actor_id, list(self._positions))
        self._paint_edges()

    def call_started(self, actor_id: str | None) -> None:
        self._deliver_to(actor_id)  # the caller's context holds what others wrote
        self.dock.schedule_refresh()

    def call_finished(self, actor_id: str | None) -> None:
        self.dock.schedule_refresh()

    def _deliver_to(self, target: str | None) -> None:
        """The target's context now holds what others wrote: flash those edges."""
        if self.dock.edges.read(target):
            self._paint_edges()
            self.dock.animate()

    def tick(self) -> bool:
        self._paint_edges()
        return False

    def _paint_edges(self) -> None:
        edges = self.dock.edges
        active = edges.active()
        for pair in list(self._edges):
            if pair not in active:
                self._edges[pair].setVisible(False)
        travellers = []
        edge_colour = QColor(self._inks.edge)
        for pair in active:
            if pair[0] not in self._positions or pair[1] not in self._positions:
                continue
            (x1, y1), (x2, y2) = self._segment(pair)
            curve = self._edges.get(pair)
            if curve is None:
                curve = pg.PlotCurveItem()
                curve.setZValue(1)
                self.plot.addItem(curve)
                self._edges[pair] = curve
            curve.setData([x1, x2], [y1, y2])
            flash = edges.flash.get(pair, 0.0)
            edge = QColor(edge_colour)
            if flash > 0.0:
                edge.setAlpha(int(80 + 175 * flash))
                pen = pg.mkPen(edge, width=1.5 + 5 * flash)
            else:  # written, not yet read: a faint dashed promise
                edge.setAlpha(150)
                pen = pg.mkPen(edge, width=1.5, style=Qt.PenStyle.DashLine)
            curve.setPen(pen)
            curve.setVisible(True)
            t = min(1.0, (1.0 - flash) * 2.5)
            if flash > 0.05 and t < 1.0:  # on its way; gone once it arrives
                travellers.append({"pos": (x1 + (x2 - x1) * t, y1 + (y2 - y1) * t)})
        size = max(4.0, self._marks.dot * TRAVELLER / SPEAKER_DOT)
        self.travellers.setData(travellers, size=size, brush=pg.mkBrush(edge_colour),
                                pen=pg.mkPen(self._inks.outline, width=1))

    def _segment(self, pair: Pair) -> tuple[Point, Point]:
        scale = self._layout.scale if self._layout is not None else 100.0
        return edge_segment(self._positions[pair[0]], self._positions[pair[1]],
                            self._marks.reach / max(scale, 1e-3))

    def _on_bridge_state_changed(self, _part: str) -> None:
        self.dock.schedule_refresh()  # any part may add a spoken line or change the speaker
