"""What the debate's polygon paints: each agent at a vertex of a regular polygon, a disc in
the colour it is given (its stance) with its avatar inside and its name below, an amber
ring while it answers, faint lines between tablemates and the edges as hot as they are.
A crowded polygon (more than 6 agents: two tables or more; or a view under 14 lines
high) names each by its first name
("Mara O." where two share one) beside its disc on the side away from the centre, the
ring drawn smaller to leave the names room; the full name is the vertex's tooltip.
Paints what it is given; must hold no engine logic and never read the state.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QEvent, QPointF, QRectF, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFontMetrics,
    QHelpEvent,
    QPainter,
    QPainterPath,
    QPaintEvent,
    QPen,
    QPixmap,
)
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from roundtable_desktop.ui.kinds.debate.polygon_model import Pair, short_names

ANSWERING = "#f5b82e"
UNCERTAIN = "#8a9099"
CROWDED = 6  # beyond this many vertices: first names, beside the disc, away from the centre
SHORT = 14  # a view fewer lines high than this names its vertices the same way


class DebatePolygonView(QWidget):
    """Paints the vertices, names, avatars and edges it is given."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("debatePolygonView")
        self.setMinimumSize(180, 160)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.agents: list[tuple[str, str, QPixmap]] = []
        self.fills: dict[str, QColor] = {}
        self.answering: set[str] = set()
        self.heat: dict[Pair, float] = {}  # the dock's flashing edges
        self.tables: set[Pair] = set()
        self.edge_colour = QColor("#b87400")
        self.text_colour = QColor("#000000")

    def crowded(self) -> bool:
        """Many agents, or a short view (a laptop's dock in presenter mode)."""
        return len(self.agents) > CROWDED or (
            len(self.agents) > 1 and self.height() < self.fontMetrics().lineSpacing() * SHORT)

    def labels(self) -> list[str]:
        """The names painted, in the vertices' order."""
        names = [name for _, name, _ in self.agents]
        return short_names(names) if self.crowded() else names

    def label_room(self) -> float:
        """The width a crowded polygon keeps beside its ring for the names."""
        metrics = self.fontMetrics()
        return max((metrics.horizontalAdvance(t) for t in self.labels()), default=0) + 6

    def positions(self) -> dict[str, QPointF]:
        n = len(self.agents)
        if n == 0:
            return {}
        dot = self.dot_size()
        line = self.fontMetrics().lineSpacing()
        if self.crowded():
            radius = max(10.0, min(self.width() / 2 - dot / 2 - self.label_room(),
                                   self.height() / 2 - dot / 2 - line - 4))
            cx, cy = self.width() / 2, self.height() / 2
            return {aid: QPointF(cx + radius * math.cos(-math.pi / 2 + 2 * math.pi * i / n),
                                 cy + radius * math.sin(-math.pi / 2 + 2 * math.pi * i / n))
                    for i, (aid, _, _) in enumerate(self.agents)}
        radius = max(10.0, min(self.width() / 2 - dot * 0.9,
                               (self.height() - line * 2) / 2 - dot * 0.7))
        cx, cy = self.width() / 2, self.height() / 2 - line / 2
        return {aid: QPointF(cx + radius * math.cos(-math.pi / 2 + 2 * math.pi * i / n),
                             cy + radius * math.sin(-math.pi / 2 + 2 * math.pi * i / n))
                for i, (aid, _, _) in enumerate(self.agents)}

    def dot_size(self) -> float:
        n = max(1, len(self.agents))
        side = min(self.width(), self.height())
        if n > CROWDED:  # the discs clear each other on the ring the names leave
            line = self.fontMetrics().lineSpacing()
            ring = min(self.width() / 2 - self.label_room() - 20,
                       self.height() / 2 - 20 - line)
            return max(18.0, min(44.0, 0.8 * 2 * math.pi * ring / n))
        return max(26.0, min(72.0, side * (0.22 if n <= 4 else 0.17 if n <= 6 else 0.14)))

    def name_boxes(self) -> list[QRectF]:
        """Where a crowded polygon's names are painted, in the vertices' order."""
        at, dot = self.positions(), self.dot_size()
        middle = QPointF(self.width() / 2, self.height() / 2)
        metrics = QFontMetrics(self.font())
        return [name_box(metrics, label, at[aid], middle, dot)[0]
                for (aid, _, _), label in zip(self.agents, self.labels(), strict=True)]

    def name_at(self, point: QPointF) -> str:
        """The full name of the agent whose disc is under `point` ("" if none)."""
        radius, at = self.dot_size() / 2, self.positions()
        for aid, name, _ in self.agents:
            centre = at[aid]
            if math.hypot(point.x() - centre.x(), point.y() - centre.y()) <= radius:
                return name
        return ""

    def event(self, event: QEvent) -> bool:
        if isinstance(event, QHelpEvent) and event.type() == QEvent.Type.ToolTip:
            name = self.name_at(QPointF(event.pos()))
            if name:
                QToolTip.showText(event.globalPos(), name, self)
            else:
                QToolTip.hideText()
            return True
        return super().event(event)

    def paintEvent(self, _event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        at = self.positions()
        dot = self.dot_size()
        faint = QColor(self.text_colour)
        faint.setAlpha(40)
        for a, b in self.tables:  # who sits with whom: faint
            if a < b and a in at and b in at:
                painter.setPen(QPen(faint, 1))
                painter.drawLine(at[a], at[b])
        for (a, b), heat in self.heat.items():
            if a in at and b in at and heat > 0.02:
                edge = QColor(self.edge_colour)
                edge.setAlpha(int(60 + 195 * heat))
                painter.setPen(QPen(edge, 1.5 + 4 * heat))
                painter.drawLine(at[a], at[b])
        metrics = QFontMetrics(self.font())
        chord = _chord(at)  # the room between neighbouring vertices, for their names
        labels = self.labels()
        middle = QPointF(self.width() / 2, self.height() / 2)
        for (aid, name, avatar), label in zip(self.agents, labels, strict=True):
            centre = at[aid]
            box = QRectF(centre.x() - dot / 2, centre.y() - dot / 2, dot, dot)
            ring = QPen(QColor(ANSWERING), 4) if aid in self.answering else QPen(
                self.text_colour, 1)
            painter.setPen(ring)
            painter.setBrush(QBrush(self.fills.get(aid, QColor(UNCERTAIN))))
            painter.drawEllipse(box)
            if not avatar.isNull():
                inner = box.adjusted(dot * 0.17, dot * 0.17, -dot * 0.17, -dot * 0.17)
                clip = QPainterPath()
                clip.addEllipse(inner)
                painter.save()
                painter.setClipPath(clip)
                painter.drawPixmap(inner.toRect(), avatar)
                painter.restore()
            painter.setPen(self.text_colour)
            if self.crowded():
                box_of, align = name_box(metrics, label, centre, middle, dot)
                painter.drawText(box_of, align | Qt.AlignmentFlag.AlignVCenter, label)
                continue
            width = int(min(self.width() / 2, max(dot * 2.2, chord * 0.95)))
            shown = metrics.elidedText(name, Qt.TextElideMode.ElideRight, max(30, width))
            text_box = QRectF(centre.x() - width / 2 - 4, box.bottom() + 2, width + 8,
                              metrics.lineSpacing())
            painter.drawText(text_box, Qt.AlignmentFlag.AlignHCenter, shown)
        painter.end()


def name_box(metrics: QFontMetrics, text: str, centre: QPointF, middle: QPointF,
             dot: float) -> tuple[QRectF, Qt.AlignmentFlag]:
    """Where `text` goes beside the disc at `centre`: on the side away from `middle`."""
    dx, dy = centre.x() - middle.x(), centre.y() - middle.y()
    width, height = metrics.horizontalAdvance(text) + 4, metrics.lineSpacing()
    gap = dot / 2 + 3
    if abs(dx) < dot * 0.6:  # top or bottom of the ring: above or below the disc
        top = centre.y() - gap - height if dy < 0 else centre.y() + gap
        return QRectF(centre.x() - width / 2, top, width, height), Qt.AlignmentFlag.AlignHCenter
    if dx > 0:
        return QRectF(centre.x() + gap, centre.y() - height / 2, width, height), \
            Qt.AlignmentFlag.AlignLeft
    return QRectF(centre.x() - gap - width, centre.y() - height / 2, width, height), \
        Qt.AlignmentFlag.AlignRight


def _chord(at: dict[str, QPointF]) -> float:
    points = list(at.values())
    if len(points) < 2:
        return 200.0
    a, b = points[0], points[1]
    return math.hypot(a.x() - b.x(), a.y() - b.y())
