"""The debate's polygon: the shared Polygon dock with the debate's drawing (DebateDrawing):
each agent at a vertex (avatar, name), edges lighting as agents answer each other, and
each vertex shaded for / against on the selected claim, round by round.

The shared Polygon dock (tabbed under this one) draws the kind-neutral summary, which has
no avatars nor per-claim stance; this one is the same dock drawing the debate's way. A
vertex is a disc in its side's colour (for: the theme's "added" ink, against: its
"error" ink, uncertain: grey), as strong as the agent's confidence, with the avatar
inside it (polygon_view.py). The round slider shows any round (0: the initial stances);
a new round moves it to the latest and the colours fade from the old stance to the new
one. When an agent's answer lands, the edges from it to its tablemates (whose last
answers it read) flash and fade (classical mode: each sentence lights the speaker's
edges to everyone, a cut-in the interrupter's edge to the speaker); agents answering now
have an amber outline. In blitz mode the vertices go table by table (the tables of the
round shown), so tablemates sit side by side. The claim follows the game room's
selector (ClaimFocus).
Must hold no engine logic.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QColor, QPalette, QPixmap
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QSlider, QVBoxLayout, QWidget

from roundtable_desktop.domain.events import StateChanged
from roundtable_desktop.kinds.debate.state import DebateState
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.docks.bridge_dock import shown_state
from roundtable_desktop.ui.docks.polygon_dock import PolygonDock
from roundtable_desktop.ui.docks.polygon_drawing import PolygonDrawing
from roundtable_desktop.ui.kinds.debate.dock_base import (
    DebateDock,
    claim_focus,
    fill_claim_combo,
    focused_claim,
)
from roundtable_desktop.ui.kinds.debate.polygon_model import (
    VertexStance,
    answer_pairs,
    last_round,
    seat_order,
    shade,
    side_counts,
    speech_pairs,
    stances_at,
    table_mates,
)
from roundtable_desktop.ui.kinds.debate.polygon_view import UNCERTAIN, DebatePolygonView
from roundtable_desktop.ui.theme import inks
from roundtable_desktop.ui.window.session_runner import SessionRunner

FADE_FRAMES = 12  # a stance change fades over about half a second


class DebatePolygonDock(PolygonDock):
    """The Polygon dock drawing the debate's way, under its own name."""

    def __init__(self, bridge: EngineBridge, parent: QWidget | None = None, *,
                 runner: SessionRunner | None = None) -> None:
        super().__init__(bridge, parent, drawing=DebateDrawing(runner),
                         title="Debate polygon", object_name="debatePolygonDock")


class DebateDrawing(PolygonDrawing):
    """The agents of the debate shown, shaded by their stance on the focused claim."""

    minimum_size = (200, 200)
    decay = 0.92

    def __init__(self, runner: SessionRunner | None = None) -> None:
        super().__init__()
        self._runner = runner

    def attach(self, dock: PolygonDock, layout: QVBoxLayout) -> None:
        super().attach(dock, layout)
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
        layout.addLayout(top)
        layout.addWidget(self.caption)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.legend)
        layout.addLayout(rounds)

        self._avatars: dict[str, QPixmap] = {}
        self._targets: dict[str, QColor] = {}
        self._from: dict[str, QColor] = {}
        self._frame = FADE_FRAMES
        self._follow_latest = True
        self._stances: dict[str, VertexStance] = {}
        self.focus = claim_focus(dock.bridge)
        self.focus.changed.connect(dock.schedule_refresh)
        self.claim_combo.currentIndexChanged.connect(self._on_claim_combo_changed)
        self.round_slider.valueChanged.connect(self._on_round_slider_changed)
        dock.bridge.eventReceived.connect(self._on_bridge_event_received)
        if self._runner is not None:  # as every debate dock: what may be done changes
            self._runner.busyChanged.connect(dock.schedule_refresh)
        self._palette_inks = self._inks()
        # Tabbed over the shared Polygon, which the window brings forward: this one leads.
        QTimer.singleShot(0, self._on_placed)

    def _on_placed(self) -> None:
        if not self.dock.retired:
            self.dock.raise_()

    # -- reading (tests) ---------------------------------------------------------------
    def state(self) -> DebateState | None:
        return shown_state(self.dock.bridge, DebateState)

    def claim(self) -> str:
        return focused_claim(self.state(), self.focus)

    def vertex_stance(self, agent: str) -> VertexStance | None:
        return self._stances.get(agent)

    def vertex_colour(self, agent: str) -> str:
        """The fill the vertex fades to (the colour it shows once settled)."""
        colour = self._targets.get(agent)
        return colour.name() if colour is not None else ""

    def vertex_names(self) -> list[str]:
        return [name for _, name, _ in self.view.agents]

    # -- refresh ------------------------------------------------------------------------
    def session_changed(self) -> None:
        self._follow_latest = True

    def refresh(self) -> None:
        state = self.state()
        self._follow_palette()
        self.view.answering = set(self.dock.answering)
        self.view.heat = self.dock.edges.flash
        if state is None:
            self.view.agents = []
            self.caption.setText("No debate is shown.")
            self.view.update()
            return
        index = fill_claim_combo(self.claim_combo, state, self.focus)
        self.claim_combo.setVisible(bool(state.claims))
        if index >= 0:
            self.claim_combo.setToolTip(state.claim(focused_claim(state, self.focus)).text)
        latest = last_round(state)
        self.round_slider.blockSignals(True)
        self.round_slider.setRange(0, latest)
        if self._follow_latest:  # a new round moves a slider left at the latest
            self.round_slider.setValue(latest)
        self.round_slider.blockSignals(False)
        shown = self.round_slider.value()
        order = [a.id for a in state.agents] if state.mode == "classical" else \
            seat_order(state, shown)  # tablemates side by side
        self.view.agents = [(a.id, a.name, self._avatar(a.id, a.avatar))
                            for a in (state.agent(aid) for aid in order)]
        if state.mode == "classical":  # one conversation: everyone hears everyone
            self.view.tables = {p for a in state.agents for p in speech_pairs(state, a.id)}
        else:
            self.view.tables = answer_pairs(state, shown) if shown else {
                (a, b) for t in state.tables for a in t.agents for b in t.agents if a != b}
        self._shade(state, shown)
        self.view.update()

    def _shade(self, state: DebateState, round_: int) -> None:
        claim = focused_claim(state, self.focus)
        background = self.dock.theme_palette().color(QPalette.ColorRole.Base).name()
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
            self.dock.animate()
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

    def tick(self) -> bool:
        self._frame += 1
        self._apply_frame()
        self.view.update()
        return self._frame < FADE_FRAMES

    # -- events ---------------------------------------------------------------------------
    def _on_bridge_event_received(self, event: object) -> None:
        if self.dock.retired:
            return
        if isinstance(event, DebateDock.refresh_on):
            self.dock.schedule_refresh()
        if not isinstance(event, StateChanged) or not event.detail:
            return
        state = self.state()
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
        self.dock.edges.light(pairs)
        self.dock.animate()
        self.view.update()

    def call_started(self, actor_id: str | None) -> None:
        self.view.answering = set(self.dock.answering)
        self.view.update()

    def call_finished(self, actor_id: str | None) -> None:
        self.view.answering = set(self.dock.answering)
        self.view.update()

    def _on_claim_combo_changed(self, index: int) -> None:
        claim = self.claim_combo.itemData(index)
        if claim:
            self.focus.set_claim(str(claim))

    def _on_round_slider_changed(self, value: int) -> None:
        self._follow_latest = value == self.round_slider.maximum()
        self.dock.schedule_refresh()

    # -- theme ----------------------------------------------------------------------------
    def _inks(self) -> dict[str, str]:
        ink = inks(self.dock.theme_palette())
        return {"pro": ink.added, "con": ink.error, "uncertain": UNCERTAIN}

    def _follow_palette(self) -> None:
        self._palette_inks = self._inks()
        pal = self.dock.theme_palette()
        self.view.text_colour = pal.color(QPalette.ColorRole.Text)
        self.view.edge_colour = QColor(inks(pal).edge)
        swatch = " &nbsp; ".join(
            f'<span style="color:{c}">●</span>&nbsp;{html.escape(w)}' for w, c in (
                ("for", self._palette_inks["pro"]), ("against", self._palette_inks["con"]),
                ("uncertain", UNCERTAIN)))
        self.legend.setText(swatch)

    def theme_changed(self) -> None:
        self._targets = {}
        self.refresh()

    def _avatar(self, aid: str, path: str) -> QPixmap:
        if aid not in self._avatars:
            self._avatars[aid] = QPixmap(path)
        return self._avatars[aid]
