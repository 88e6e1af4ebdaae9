"""What the debate's polygon paints: each agent at a vertex of a regular polygon, a disc in
the colour it is given (its stance) with its avatar inside and its name below, an amber
ring while it answers, faint lines between tablemates and the edges as hot as they are.
Paints what it is given; must hold no engine logic and never read the state.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFontMetrics,
    QPainter,
    QPainterPath,
    QPaintEvent,
    QPen,
    QPixmap,
)
from PySide6.QtWidgets import QSizePolicy, QWidget

from roundtable_desktop.ui.kinds.debate.polygon_model import Pair

ANSWERING = "#f5b82e"
UNCERTAIN = "#8a9099"


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

    def positions(self) -> dict[str, QPointF]:
        n = len(self.agents)
        if n == 0:
            return {}
        dot = self.dot_size()
        line = self.fontMetrics().lineSpacing()
        radius = max(10.0, min(self.width() / 2 - dot * 0.9,
                               (self.height() - line * 2) / 2 - dot * 0.7))
        cx, cy = self.width() / 2, self.height() / 2 - line / 2
        return {aid: QPointF(cx + radius * math.cos(-math.pi / 2 + 2 * math.pi * i / n),
                             cy + radius * math.sin(-math.pi / 2 + 2 * math.pi * i / n))
                for i, (aid, _, _) in enumerate(self.agents)}

    def dot_size(self) -> float:
        n = max(1, len(self.agents))
        side = min(self.width(), self.height())
        return max(26.0, min(72.0, side * (0.22 if n <= 4 else 0.17 if n <= 6 else 0.14)))

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
        for aid, name, avatar in self.agents:
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
            width = int(min(self.width() / 2, max(dot * 2.2, chord * 0.95)))
            shown = metrics.elidedText(name, Qt.TextElideMode.ElideRight, max(30, width))
            painter.setPen(self.text_colour)
            text_box = QRectF(centre.x() - width / 2 - 4, box.bottom() + 2, width + 8,
                              metrics.lineSpacing())
            painter.drawText(text_box, Qt.AlignmentFlag.AlignHCenter, shown)
        painter.end()


def _chord(at: dict[str, QPointF]) -> float:
    points = list(at.values())
    if len(points) < 2:
        return 200.0
    a, b = points[0], points[1]
    return math.hypot(a.x() - b.x(), a.y() - b.y())
