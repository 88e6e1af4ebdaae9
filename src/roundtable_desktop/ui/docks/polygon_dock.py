"""The Polygon dock: the participants at the vertices of a regular polygon, edges lit as
they reach each other. One dock for every kind; how a kind draws its vertices is a hook.

The dock keeps what every polygon shares: who answers now (each call in flight, by actor,
in order), the edges (polygon_model.Interactions: waiting, flashing, fading; a live
session's kept while replay shows its own), the frame timer that runs only while
something fades or moves (so an idle polygon costs nothing), and when to redraw: a
session shown or ended, the theme or the zoom changed, a refresh asked for. What it draws, and
the controls around it, come from its PolygonDrawing (polygon_drawing.py): by default
the kind-neutral drawing of the summary's participants (polygon_plot.PlotDrawing); a
kind's window spec may list a PolygonDock subclass that hands in its own drawing (one
that shades each vertex by a stance and paints an avatar in it, say). Must hold no engine
logic, never change the state, and name no kind."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QTimer
from PySide6.QtWidgets import QVBoxLayout, QWidget

from roundtable_desktop.domain.events import CallFinished, CallStarted
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.docks.bridge_dock import BridgeDock
from roundtable_desktop.ui.docks.polygon_drawing import PolygonDrawing
from roundtable_desktop.ui.docks.polygon_model import Interactions
from roundtable_desktop.ui.docks.polygon_plot import PlotDrawing

FRAME_MS = 40


class PolygonDock(BridgeDock):
    def __init__(self, bridge: EngineBridge, parent: QWidget | None = None, *,
                 drawing: PolygonDrawing | None = None, title: str = "Polygon",
                 object_name: str = "polygonDock") -> None:
        super().__init__(title, object_name, bridge, parent)
        drawing = drawing if drawing is not None else PlotDrawing()
        self.drawing = drawing
        self.answering: list[str] = []  # actors with a call in flight, in order
        # The edges of each live session (by id), kept across replay; replay's own apart.
        self._by_session: dict[str, Interactions] = {}
        self.edges = Interactions(decay=drawing.decay)
        self._timer = QTimer(self)
        self._timer.setInterval(FRAME_MS)
        self._timer.timeout.connect(self._on_timer_tick)

        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(6, 4, 6, 4)
        drawing.attach(self, layout)
        self.setWidget(body)
        self.setMinimumSize(*drawing.minimum_size)
        bridge.callStarted.connect(self._on_bridge_call_started)
        bridge.callFinished.connect(self._on_bridge_call_finished)
        # An end no call brings (the user ends the session) changes the caption too.
        bridge.sessionEnded.connect(self._on_bridge_session_ended)
        self._on_bridge_session_changed()

    # -- reading (tests and the window) --------------------------------------------------
    def vertex_colour(self, actor_id: str) -> str:
        return self.drawing.vertex_colour(actor_id)

    def edge_heat(self, source: str, target: str) -> float:
        return self.edges.heat(source, target)

    def animating(self) -> bool:
        return self._timer.isActive()

    # -- what the drawing asks for ---------------------------------------------------------
    def animate(self) -> None:
        """Run the frame timer (it stops itself once nothing fades or moves)."""
        if not self._timer.isActive() and not self.retired:
            self._timer.start()

    # -- refresh --------------------------------------------------------------------------
    def refresh(self) -> None:
        self.drawing.refresh()

    def retire(self) -> None:
        super().retire()
        self._timer.stop()

    def _on_bridge_session_changed(self) -> None:
        self.edges = self._edges_of_shown_session()
        self.answering = []
        self._timer.stop()
        self.drawing.session_changed()
        super()._on_bridge_session_changed()
        if self.edges.flash:
            self.animate()

    def _on_bridge_session_ended(self, _reason: str) -> None:
        self.schedule_refresh()

    def _edges_of_shown_session(self) -> Interactions:
        """The live session's edges (kept while replay shows another moment), or fresh
        ones for replay, whose history is read as already delivered."""
        summary = self.bridge.summary()
        seen = len(summary.transcript) if summary is not None else 0
        session_id = self.bridge.session_id()
        fresh = Interactions(seen_lines=seen, decay=self.drawing.decay)
        if self.bridge.read_only or session_id is None:
            return fresh
        if session_id not in self._by_session:
            self._by_session = {session_id: fresh}  # one live at a time
        return self._by_session[session_id]

    def _on_timer_tick(self) -> None:
        fading = self.edges.fade()
        moving = self.drawing.tick()
        if not fading and not moving:
            self._timer.stop()

    # -- theme and size ------------------------------------------------------------------
    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._theme_timer.start()  # zoom: the names and marks change size

    def _on_theme_changed(self) -> None:
        self.drawing.theme_changed()

    # -- calls ----------------------------------------------------------------------------
    def _on_bridge_call_started(self, event: CallStarted) -> None:
        if event.actor_id and event.actor_id not in self.answering:
            self.answering.append(event.actor_id)
        self.drawing.call_started(event.actor_id)

    def _on_bridge_call_finished(self, event: CallFinished) -> None:
        if event.actor_id in self.answering:
            self.answering.remove(event.actor_id)
        self.drawing.call_finished(event.actor_id)
