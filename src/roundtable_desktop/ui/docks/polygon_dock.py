"""The Polygon dock (pyqtgraph): actors at the vertices of a regular polygon.

The current speaker's vertex is large and bright, with a bold label. Edges show what one
actor wrote reaching another's context: when A writes something shared (whiteboard,
transcript, suggestions), the edges A→others glow faintly until each of them takes a
turn; then A→B flashes, a dot travels from A to B, and the flash fades. The fade runs on
a QTimer only while something is fading, and each frame touches only the active edges,
so an idle polygon costs nothing.
Names sit centred above (upper half) or below (lower half) their vertex, or beside it
when that is what keeps them apart (polygon_layout.py), and the view range is fitted in
pixels so every name and vertex is inside the plot at any dock size and zoom; names
shrink a little rather than overlap. Background, names and edges follow the window's
theme (BridgeDock.theme_palette).
Must hold no engine logic and never change the state.
"""

from __future__ import annotations

import html
import math

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QRectF, Qt, QTimer
from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from roundtable_desktop.domain.actors import Role
from roundtable_desktop.domain.events import ToolRan
from roundtable_desktop.domain.tools import ToolStatus
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.docks.bridge_dock import BridgeDock
from roundtable_desktop.ui.docks.polygon_layout import (
    REACH,
    SPEAKER_SIZE,
    VERTEX_SIZE,
    Place,
    best_layout,
    extent,
)
from roundtable_desktop.ui.theme import inks

FRAME_MS = 40
DECAY = 0.93  # per frame: a flash fades out in about two seconds
PENDING_GLOW = 0.25
SHARED_PARTS = frozenset({"whiteboard", "transcript", "suggestions"})
SPEAKER_COLOUR = "#f5b82e"
VERTEX_COLOUR = "#4a78c2"
HUMAN_COLOUR = "#3f9f6a"
_RADIUS = 1.0
_EDGE_OFFSET = 0.035  # A→B and B→A run side by side
_MARGIN = 8  # pixels kept clear at the plot's edges
# Where a name hangs off its vertex: the text's anchor point, and the direction (units).
_ANCHORS: dict[Place, tuple[float, float]] = {
    "above": (0.5, 1.0), "below": (0.5, 0.0), "left": (1.0, 0.5), "right": (0.0, 0.5),
}
_SHIFT: dict[Place, tuple[int, int]] = {
    "above": (0, 1), "below": (0, -1), "left": (-1, 0), "right": (1, 0),
}
_NAME_SHRINK = (1.0, 0.85, 0.7)  # name sizes tried when the names do not fit
Pair = tuple[str, str]


class PolygonDock(BridgeDock):
    def __init__(self, bridge: EngineBridge, parent: QWidget | None = None) -> None:
        super().__init__("Polygon", "polygonDock", bridge, parent)
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
        self.plot.setAspectLocked(True)
        self.plot.setXRange(-1.5, 1.5, padding=0)
        self.plot.setYRange(-1.5, 1.5, padding=0)
        item.getViewBox().sigResized.connect(self._on_view_resized)
        self.turn_label = QLabel()
        self.turn_label.setObjectName("polygonTurn")
        self.turn_label.setTextFormat(Qt.TextFormat.PlainText)
        self.turn_label.setWordWrap(True)  # a long name must not widen the dock
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.addWidget(self.turn_label)
        layout.addWidget(self.plot, 1)
        self.setWidget(body)
        self.setMinimumSize(260, 240)

        self.vertices = pg.ScatterPlotItem(pxMode=True)
        self.vertices.setZValue(10)
        self.dots = pg.ScatterPlotItem(pxMode=True, size=11, brush=pg.mkBrush(SPEAKER_COLOUR),
                                       pen=pg.mkPen("#ffffff", width=1))
        self.dots.setZValue(5)
        self.plot.addItem(self.vertices)
        self.plot.addItem(self.dots)

        self._ids: list[str] = []
        self._positions: dict[str, tuple[float, float]] = {}
        self._labels: dict[str, pg.TextItem] = {}
        self._label_fonts: dict[str, QFont] = {}  # at full size; _fit_view may shrink
        self._edges: dict[Pair, pg.PlotCurveItem] = {}
        self._flash: dict[Pair, float] = {}
        self._pending: set[Pair] = set()
        self._current: str | None = None
        self._inks = inks(self.theme_palette())

        self._timer = QTimer(self)
        self._timer.setInterval(FRAME_MS)
        self._timer.timeout.connect(self._on_timer_tick)

        bridge.stateChanged.connect(self._on_bridge_state_changed)
        bridge.toolRan.connect(self._on_bridge_tool_ran)
        self._follow_palette()
        self.refresh()

    # -- reading (tests and the window) --------------------------------------------------
    def current_actor_id(self) -> str | None:
        return self._current

    def vertex_colour(self, actor_id: str) -> str:
        for spot in self.vertices.points():
            if spot.data() == actor_id:
                return spot.brush().color().name()
        return ""

    def edge_heat(self, source: str, target: str) -> float:
        pair = (source, target)
        return max(self._flash.get(pair, 0.0), PENDING_GLOW if pair in self._pending else 0.0)

    def animating(self) -> bool:
        return self._timer.isActive()

    def label_rects(self) -> dict[str, QRectF]:
        """Each name's rectangle in the plot's scene (pixels), as drawn now."""
        self.plot.getPlotItem().getViewBox().prepareForPaint()  # the range, applied
        rects = {}
        for actor_id, label in self._labels.items():
            label.updateTransform(force=True)
            rects[actor_id] = label.textItem.sceneBoundingRect()
        return rects

    def view_rect(self) -> QRectF:
        """The plot area in the same scene pixels as `label_rects`."""
        return self.plot.getPlotItem().getViewBox().sceneBoundingRect()

    def background_colour(self) -> str:
        return self.plot.backgroundBrush().color().name()

    # -- refresh --------------------------------------------------------------------------
    def _on_bridge_session_changed(self) -> None:
        self._flash.clear()
        self._pending.clear()
        self._current = None
        self._timer.stop()
        super()._on_bridge_session_changed()

    def refresh(self) -> None:
        state = self.state()
        ids = [a.id for a in state.actors] if state else []
        if ids != self._ids:
            self._layout(ids)
        current = state.actor.id if state and state.actors else None
        if current != self._current:
            self._current = current
            self._deliver_to(current)
        self._paint_vertices()
        if state is not None and state.actors:
            self.turn_label.setText(
                f"Turn {state.turn} · round {state.round} · speaking: {state.actor.name}"
            )
        else:
            self.turn_label.setText("No session")
        self._paint_edges()

    def _layout(self, ids: list[str]) -> None:
        for label in self._labels.values():
            self.plot.removeItem(label)
        for curve in self._edges.values():
            self.plot.removeItem(curve)
        self._labels.clear()
        self._label_fonts.clear()
        self._edges.clear()
        self._ids = ids
        n = max(len(ids), 1)
        self._positions = {}
        for i, actor_id in enumerate(ids):
            angle = math.pi / 2 - 2 * math.pi * i / n
            x, y = _RADIUS * math.cos(angle), _RADIUS * math.sin(angle)
            self._positions[actor_id] = (x, y)
            # Above the vertex in the upper half, below it otherwise (sides included).
            label = pg.TextItem(anchor=(0.5, 1.0 if y > 1e-6 else 0.0))
            label.setPos(x, y)
            self.plot.addItem(label)
            self._labels[actor_id] = label
        known = set(ids)
        self._flash = {p: h for p, h in self._flash.items() if set(p) <= known}
        self._pending = {p for p in self._pending if set(p) <= known}

    def _paint_vertices(self) -> None:
        state = self.state()
        spots = []
        ink = self._inks
        text_colour = self.theme_palette().color(QPalette.ColorRole.Text).name()
        base = QFont(self.font())
        base.setPointSizeF(max(base.pointSizeF(), 10.0))
        for actor_id in self._ids:
            actor = state.actor_by_id(actor_id) if state else None
            speaking = actor_id == self._current
            colour = SPEAKER_COLOUR if speaking else (
                HUMAN_COLOUR if actor and actor.human else VERTEX_COLOUR)
            x, y = self._positions[actor_id]
            spots.append({
                "pos": (x, y),
                "size": SPEAKER_SIZE if speaking else VERTEX_SIZE,
                "symbol": "s" if actor and actor.role == Role.ADMINISTRATOR else "o",
                "brush": pg.mkBrush(colour),
                "pen": pg.mkPen(ink.outline, width=3 if speaking else 1),
                "data": actor_id,
            })
            label = self._labels[actor_id]
            font = QFont(base)
            font.setBold(speaking)
            label.setFont(font)
            self._label_fonts[actor_id] = font
            name = html.escape(actor.name if actor else actor_id)
            role = " (admin)" if actor and actor.role == Role.ADMINISTRATOR else ""
            human = " · human" if actor and actor.human else ""
            colour_text = ink.speaker if speaking else text_colour
            label.setHtml(f"<span style='color:{colour_text}'>{name}{role}{human}</span>")
        self.vertices.setData(spots)
        self._fit_view()

    # -- fitting and theme ----------------------------------------------------------------
    def _fit_view(self) -> None:
        """Set the range so every vertex and name is inside the plot, as large as fits.

        Names have a fixed size in pixels while the polygon scales, so the scale (pixels
        per unit) is found by bisection: the largest at which the pixel extent of all
        vertices and names fits the view, for the placement of names that fits largest
        without collisions (polygon_layout); if none is clear, with smaller names.
        Names sit a few pixels off their vertex, a distance in units only once the
        scale is known.
        """
        view = self.plot.getPlotItem().getViewBox()
        width, height = view.width() - 2 * _MARGIN, view.height() - 2 * _MARGIN
        if width <= 0 or height <= 0 or not self._ids:
            return
        for shrink in _NAME_SHRINK:  # smaller names rather than names over each other
            sizes = {}
            for actor_id, label in self._labels.items():
                font = QFont(self._label_fonts.get(actor_id, label.textItem.font()))
                font.setPointSizeF(font.pointSizeF() * shrink)
                label.setFont(font)
                rect = label.textItem.boundingRect()
                sizes[actor_id] = (rect.width(), rect.height())
            names = [(self._positions[a], sizes.get(a, (0.0, 0.0))) for a in self._ids]
            places, scale, clear = best_layout(names, width, height)
            if clear:
                break
        left, top, right, bottom = extent(names, places, scale)
        cx, cy = (left + right) / 2 / scale, -(top + bottom) / 2 / scale
        half_w, half_h = view.width() / 2 / scale, view.height() / 2 / scale
        view.setRange(xRange=(cx - half_w, cx + half_w), yRange=(cy - half_h, cy + half_h),
                      padding=0)
        offset = REACH / scale
        for actor_id, place in zip(self._ids, places, strict=True):
            x, y = self._positions[actor_id]
            anchor, pos = _ANCHORS[place], (x + _SHIFT[place][0] * offset,
                                            y + _SHIFT[place][1] * offset)
            self._labels[actor_id].setAnchor(anchor)
            self._labels[actor_id].setPos(*pos)

    def _on_view_resized(self) -> None:
        self._fit_view()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._theme_timer.start()  # zoom: the names change size

    def _on_theme_changed(self) -> None:
        self._follow_palette()
        if self._ids:
            self._paint_vertices()  # names change colour and size with the theme
            self._paint_edges()

    def _follow_palette(self) -> None:
        pal = self.theme_palette()
        self._inks = inks(pal)
        self.plot.setBackground(pal.color(QPalette.ColorRole.Base))

    # -- interactions ---------------------------------------------------------------------
    def _on_bridge_tool_ran(self, event: ToolRan) -> None:
        result = event.result
        if result.status != ToolStatus.OK or not SHARED_PARTS & set(result.changed):
            return
        for target in self._ids:
            if target != event.actor_id:
                self._pending.add((event.actor_id, target))
        self._paint_edges()

    def _deliver_to(self, target: str | None) -> None:
        """The target's context now holds what others wrote: flash those edges."""
        if target is None:
            return
        arrived = [p for p in self._pending if p[1] == target]
        for pair in arrived:
            self._pending.discard(pair)
            self._flash[pair] = 1.0
        if arrived and not self._timer.isActive():
            self._timer.start()

    def _on_timer_tick(self) -> None:
        for pair in list(self._flash):
            heat = self._flash[pair] * DECAY
            if heat < 0.02:
                del self._flash[pair]
            else:
                self._flash[pair] = heat
        self._paint_edges()
        if not self._flash:
            self._timer.stop()

    def _paint_edges(self) -> None:
        active = {p for p in self._flash} | self._pending
        for pair in list(self._edges):
            if pair not in active:
                self._edges[pair].setVisible(False)
        dots = []
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
            flash = self._flash.get(pair, 0.0)
            edge = QColor(self._inks.edge)
            if flash > 0.0:
                edge.setAlpha(int(80 + 175 * flash))
                pen = pg.mkPen(edge, width=1.5 + 5 * flash)
            else:  # written, not yet read: a faint dashed promise
                edge.setAlpha(150)
                pen = pg.mkPen(edge, width=1.5, style=Qt.PenStyle.DashLine)
            curve.setPen(pen)
            curve.setVisible(True)
            if flash > 0.05:
                t = min(1.0, (1.0 - flash) * 2.5)
                dots.append({"pos": (x1 + (x2 - x1) * t, y1 + (y2 - y1) * t)})
        self.dots.setData(dots)

    def _segment(self, pair: Pair) -> tuple[tuple[float, float], tuple[float, float]]:
        (x1, y1), (x2, y2) = self._positions[pair[0]], self._positions[pair[1]]
        dx, dy = x2 - x1, y2 - y1
        length = math.hypot(dx, dy) or 1.0
        ox, oy = -dy / length * _EDGE_OFFSET, dx / length * _EDGE_OFFSET
        trim = 0.08 / length
        return (
            (x1 + dx * trim + ox, y1 + dy * trim + oy),
            (x2 - dx * trim + ox, y2 - dy * trim + oy),
        )

    def _on_bridge_state_changed(self, part: str) -> None:
        if part in {"turn", "actors", "ended"}:
            self.schedule_refresh()
