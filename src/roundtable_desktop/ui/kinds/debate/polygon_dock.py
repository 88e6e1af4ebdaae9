"""The debate's polygon: each agent at a vertex (avatar, name), edges lighting as agents
answer each other, and each vertex shaded for / against on the selected claim, round by
round.

The shared Polygon dock draws the kind-neutral model (participants, speaker, edges) and
has no avatars nor per-claim stance, so the debate draws its own here (tabbed over it).
A vertex is a disc in its side's colour (for: the theme's "added" ink, against: its
"error" ink, uncertain: grey), as strong as the agent's confidence, with the avatar
inside it. The round slider shows any round (0: the initial stances); a new round moves
it to the latest and the colours fade from the old stance to the new one. When an
agent's answer lands, the edges from it to its tablemates (whose last answers it read)
flash and fade (classical mode: each sentence lights the speaker's edges to everyone,
a cut-in the interrupter's edge to the speaker); agents answering now have an amber
outline. The claim follows the game room's selector (ClaimFocus). Must hold no engine
logic.
"""

from __future__ import annotations

import html
import math

from PySide6.QtCore import QPointF, QRectF, Qt, QTimer
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFontMetrics,
    QPainter,
    QPainterPath,
    QPaintEvent,
    QPalette,
    QPen,
    QPixmap,
)
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from roundtable_desktop.domain.events import CallFinished, CallStarted, StateChanged
from roundtable_desktop.kinds.debate.state import DebateState
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.kinds.debate.dock_base import DebateDock, focused_claim
from roundtable_desktop.ui.kinds.debate.polygon_model import (
    Pair,
    VertexStance,
    answer_pairs,
    last_round,
    shade,
    side_counts,
    speech_pairs,
    stances_at,
    table_mates,
)
from roundtable_desktop.ui.theme import inks
from roundtable_desktop.ui.window.session_runner import SessionRunner

FRAME_MS = 40
FADE_FRAMES = 12  # a stance change fades over about half a second
DECAY = 0.92
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
        self.heat: dict[Pair, float] = {}
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


class DebatePolygonDock(DebateDock):
    def __init__(self, bridge: EngineBridge, parent: QWidget | None = None, *,
                 runner: SessionRunner | None = None) -> None:
        super().__init__("Debate polygon", "debatePolygonDock", bridge, parent,
                         runner=runner)
        self.claim_combo = QComboBox()
        self.claim_combo.setObjectName("debatePolygonClaim")
        self.claim_combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.claim_combo.setMinimumContentsLength(8)
        self.round_slider = QSlider(Qt.Orientation.Horizontal)
        self.round_slider.setObjectName("debateRoundSlider")
        self.round_slider.setRange(0, 0)
        self.round_label = QLabel("Initial stances")
        self.round_label.setObjectName("debateRoundLabel")
        self.caption = QLabel()
        self.caption.setObjectName("debatePolygonCaption")
        self.caption.setWordWrap(True)
        self.legend = QLabel()
        self.legend.setObjectName("debatePolygonLegend")
        self.legend.setWordWrap(True)
        self.legend.setToolTip("The stronger the colour, the surer the agent; an amber ring: "
                               "answering now; a lit edge: an answer to a tablemate.")
        self.view = DebatePolygonView()
        top = QHBoxLayout()
        top.addWidget(self.claim_combo, 1)
        rounds = QHBoxLayout()
        rounds.addWidget(self.round_label)
        rounds.addWidget(self.round_slider, 1)
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.addLayout(top)
        layout.addWidget(self.caption)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.legend)
        layout.addLayout(rounds)
        self.setWidget(body)
        self.setMinimumSize(200, 200)

        self._avatars: dict[str, QPixmap] = {}
        self._targets: dict[str, QColor] = {}
        self._from: dict[str, QColor] = {}
        self._frame = FADE_FRAMES
        self._follow_latest = True
        self._stances: dict[str, VertexStance] = {}
        self._timer = QTimer(self)
        self._timer.setInterval(FRAME_MS)
        self._timer.timeout.connect(self._on_timer_tick)
        self.claim_combo.currentIndexChanged.connect(self._on_claim_combo_changed)
        self.round_slider.valueChanged.connect(self._on_round_slider_changed)
        bridge.callStarted.connect(self._on_bridge_call_started)
        bridge.callFinished.connect(self._on_bridge_call_finished)
        self._palette_inks = self._inks()
        self.refresh()
        # Tabbed over the shared Polygon, which the window brings forward: this one leads.
        QTimer.singleShot(0, self._on_placed)

    def _on_placed(self) -> None:
        if not self.retired:
            self.raise_()

    # -- reading (tests) ---------------------------------------------------------------
    def claim(self) -> str:
        return focused_claim(self.debate(), self.focus)

    def vertex_stance(self, agent: str) -> VertexStance | None:
        return self._stances.get(agent)

    def vertex_colour(self, agent: str) -> str:
        """The fill the vertex fades to (the colour it shows once settled)."""
        colour = self._targets.get(agent)
        return colour.name() if colour is not None else ""

    def edge_heat(self, source: str, target: str) -> float:
        return self.view.heat.get((source, target), 0.0)

    def vertex_names(self) -> list[str]:
        return [name for _, name, _ in self.view.agents]

    # -- refresh ------------------------------------------------------------------------
    def refresh(self) -> None:
        state = self.debate()
        self._follow_palette()
        if state is None:
            self.view.agents = []
            self.caption.setText("No debate is shown.")
            self.view.update()
            return
        self._fill_claims(state)
        latest = last_round(state)
        self.round_slider.blockSignals(True)
        self.round_slider.setRange(0, latest)
        if self._follow_latest:  # a new round moves a slider left at the latest
            self.round_slider.setValue(latest)
        self.round_slider.blockSignals(False)
        self.view.agents = [(a.id, a.name, self._avatar(a.id, a.avatar)) for a in state.agents]
        shown = self.round_slider.value()
        if state.mode == "classical":  # one conversation: everyone hears everyone
            self.view.tables = {p for a in state.agents for p in speech_pairs(state, a.id)}
        else:
            self.view.tables = answer_pairs(state, shown) if shown else {
                (a, b) for t in state.tables for a in t.agents for b in t.agents if a != b}
        self._shade(state, shown)
        self.view.update()

    def _fill_claims(self, state: DebateState) -> None:
        items = [(c.id, f"{c.id}: {c.text}") for c in state.claims]
        current = [(self.claim_combo.itemData(i), self.claim_combo.itemText(i))
                   for i in range(self.claim_combo.count())]
        if items != current:
            self.claim_combo.blockSignals(True)
            self.claim_combo.clear()
            for cid, text in items:
                self.claim_combo.addItem(text, cid)
            self.claim_combo.blockSignals(False)
        claim = focused_claim(state, self.focus)
        index = self.claim_combo.findData(claim)
        if index >= 0 and index != self.claim_combo.currentIndex():
            self.claim_combo.blockSignals(True)
            self.claim_combo.setCurrentIndex(index)
            self.claim_combo.blockSignals(False)
        self.claim_combo.setVisible(bool(items))
        if index >= 0:
            self.claim_combo.setToolTip(state.claim(claim).text)

    def _shade(self, state: DebateState, round_: int) -> None:
        claim = focused_claim(state, self.focus)
        background = self.theme_palette().color(QPalette.ColorRole.Base).name()
        self._stances = stances_at(state, claim, round_) if claim else {}
        targets = {aid: QColor(shade(st, self._palette_inks, background))
                   for aid, st in self._stances.items()}
        final = " (final table)" if any(r.final and r.index == round_ for r in state.rounds) \
            else ""
        step = "Turn" if state.mode == "classical" else "Round"
        self.round_label.setText(f"{step} {round_}{final}" if round_ else "Initial stances")
        if claim:
            self.caption.setText(f"{claim}: {side_counts(self._stances)}")
        else:
            self.caption.setText("No claims yet: the shading starts with the stances.")
        if {k: v.name() for k, v in targets.items()} != {
                k: v.name() for k, v in self._targets.items()}:
            self._from = {aid: self._current_fill(aid) for aid in targets}
            self._targets = targets
            self._frame = 0
            self._timer.start()
        self._apply_frame()

    def _current_fill(self, aid: str) -> QColor:
        return QColor(self.view.fills.get(aid, self._targets.get(aid, QColor(UNCERTAIN))))

    def _apply_frame(self) -> None:
        t = min(1.0, self._frame / FADE_FRAMES)
        fills = {}
        for aid, target in self._targets.items():
            start = self._from.get(aid, target)
            fills[aid] = QColor(int(start.red() + (target.red() - start.red()) * t),
                                int(start.green() + (target.green() - start.green()) * t),
                                int(start.blue() + (target.blue() - start.blue()) * t))
        self.view.fills = fills

    def _on_timer_tick(self) -> None:
        self._frame += 1
        self._apply_frame()
        for pair in list(self.view.heat):
            self.view.heat[pair] *= DECAY
            if self.view.heat[pair] < 0.02:
                del self.view.heat[pair]
        self.view.update()
        if self._frame >= FADE_FRAMES and not self.view.heat:
            self._timer.stop()

    # -- events ---------------------------------------------------------------------------
    def _on_bridge_event_received(self, event: object) -> None:
        super()._on_bridge_event_received(event)
        if not isinstance(event, StateChanged) or not event.detail:
            return
        state = self.debate()
        if state is None:
            return
        if event.part == "answer":  # its answer reads its tablemates' last answers
            pairs = [(event.detail, mate) for mate in table_mates(state, event.detail)]
        elif event.part == "sentence":  # classical: the speaker's edges light
            pairs = speech_pairs(state, event.detail)
        elif event.part == "interruption":  # "interrupter>speaker"
            who, _, speaker = event.detail.partition(">")
            pairs = [(who, speaker)]
        else:
            return
        for pair in pairs:
            self.view.heat[pair] = 1.0
        self._timer.start()
        self.view.update()

    def _on_bridge_call_started(self, event: CallStarted) -> None:
        if event.actor_id:
            self.view.answering.add(event.actor_id)
            self.view.update()

    def _on_bridge_call_finished(self, event: CallFinished) -> None:
        self.view.answering.discard(event.actor_id or "")
        self.view.update()

    def _on_claim_combo_changed(self, index: int) -> None:
        claim = self.claim_combo.itemData(index)
        if claim:
            self.focus.set_claim(str(claim))

    def _on_round_slider_changed(self, value: int) -> None:
        self._follow_latest = value == self.round_slider.maximum()
        self.schedule_refresh()

    def _on_bridge_session_changed(self) -> None:
        self.view.heat.clear()
        self.view.answering.clear()
        self._follow_latest = True
        super()._on_bridge_session_changed()

    # -- theme ----------------------------------------------------------------------------
    def _inks(self) -> dict[str, str]:
        ink = inks(self.theme_palette())
        return {"pro": ink.added, "con": ink.error, "uncertain": UNCERTAIN}

    def _follow_palette(self) -> None:
        self._palette_inks = self._inks()
        pal = self.theme_palette()
        self.view.text_colour = pal.color(QPalette.ColorRole.Text)
        self.view.edge_colour = QColor(inks(pal).edge)
        swatch = " &nbsp; ".join(
            f'<span style="color:{c}">●</span>&nbsp;{html.escape(w)}' for w, c in (
                ("for", self._palette_inks["pro"]), ("against", self._palette_inks["con"]),
                ("uncertain", UNCERTAIN)))
        self.legend.setText(swatch)

    def _on_theme_changed(self) -> None:
        self._targets = {}
        self.refresh()

    def _avatar(self, aid: str, path: str) -> QPixmap:
        if aid not in self._avatars:
            self._avatars[aid] = QPixmap(path)
        return self._avatars[aid]
