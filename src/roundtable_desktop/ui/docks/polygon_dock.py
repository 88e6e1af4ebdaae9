"""The Polygon dock (pyqtgraph): actors at the vertices of a regular polygon.

The current speaker's vertex is large and bright, with a bold label. Edges show what one
actor wrote reaching another's context: when A writes something shared (whiteboard,
transcript, suggestions), the edges A→others glow faintly until each of them takes a
turn; then A→B flashes, a dot travels from A to B, and the flash fades. The fade runs on
a QTimer only while something is fading, and each frame touches only the active edges,
so an idle polygon costs nothing.
Must hold no engine logic and never change the state.
"""

from __future__ import annotations

import html
import math

import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from roundtable_desktop.domain.actors import Role
from roundtable_desktop.domain.events import ToolRan
from roundtable_desktop.domain.tools import ToolStatus
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.docks.bridge_dock import BridgeDock

FRAME_MS = 40
DECAY = 0.93  # per frame: a flash fades out in about two seconds
PENDING_GLOW = 0.25
SHARED_PARTS = frozenset({"whiteboard", "transcript", "suggestions"})
SPEAKER_COLOUR = "#f5b82e"
VERTEX_COLOUR = "#4a78c2"
HUMAN_COLOUR = "#3f9f6a"
EDGE_COLOUR = (245, 184, 46)
_RADIUS = 1.0
_EDGE_OFFSET = 0.035  # A→B and B→A run side by side
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
        self.plot.setXRange(-1.7, 1.7, padding=0)
        self.plot.setYRange(-1.45, 1.45, padding=0)
        self.turn_label = QLabel()
        self.turn_label.setObjectName("polygonTurn")
        self.turn_label.setTextFormat(Qt.TextFormat.PlainText)
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
                                       pen=pg.mkPen("w", width=1))
        self.dots.setZValue(5)
        self.plot.addItem(self.vertices)
        self.plot.addItem(self.dots)

        self._ids: list[str] = []
        self._positions: dict[str, tuple[float, float]] = {}
        self._labels: dict[str, pg.TextItem] = {}
        self._edges: dict[Pair, pg.PlotCurveItem] = {}
        self._flash: dict[Pair, float] = {}
        self._pending: set[Pair] = set()
        self._current: str | None = None

        self._timer = QTimer(self)
        self._timer.setInterval(FRAME_MS)
        self._timer.timeout.connect(self._on_timer_tick)

        bridge.stateChanged.connect(self._on_bridge_state_changed)
        bridge.toolRan.connect(self._on_bridge_tool_ran)
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
        self._edges.clear()
        self._ids = ids
        n = max(len(ids), 1)
        self._positions = {}
        for i, actor_id in enumerate(ids):
            angle = math.pi / 2 - 2 * math.pi * i / n
            x, y = _RADIUS * math.cos(angle), _RADIUS * math.sin(angle)
            self._positions[actor_id] = (x, y)
            label = pg.TextItem(anchor=(0.5 - 0.5 * math.cos(angle), 0.5 + 0.5 * math.sin(angle)))
            label.setPos(1.16 * x, 1.16 * y)
            self.plot.addItem(label)
            self._labels[actor_id] = label
        known = set(ids)
        self._flash = {p: h for p, h in self._flash.items() if set(p) <= known}
        self._pending = {p for p in self._pending if set(p) <= known}

    def _paint_vertices(self) -> None:
        state = self.state()
        spots = []
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
                "size": 34 if speaking else 22,
                "symbol": "s" if actor and actor.role == Role.ADMINISTRATOR else "o",
                "brush": pg.mkBrush(colour),
                "pen": pg.mkPen("#ffffff" if speaking else "#1d2b44", width=3 if speaking else 1),
                "data": actor_id,
            })
            label = self._labels[actor_id]
            font = QFont(base)
            font.setBold(speaking)
            label.setFont(font)
            name = html.escape(actor.name if actor else actor_id)
            role = " (admin)" if actor and actor.role == Role.ADMINISTRATOR else ""
            human = " · human" if actor and actor.human else ""
            colour_text = SPEAKER_COLOUR if speaking else "#9aa4b2"
            label.setHtml(f"<span style='color:{colour_text}'>{name}{role}{human}</span>")
        self.vertices.setData(spots)

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
            if flash > 0.0:
                pen = pg.mkPen(QColor(*EDGE_COLOUR, int(80 + 175 * flash)), width=1.5 + 5 * flash)
            else:  # written, not yet read: a faint dashed promise
                pen = pg.mkPen(QColor(*EDGE_COLOUR, 110), width=1.2,
                               style=Qt.PenStyle.DashLine)
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
