"""The hook of the Polygon dock: how a kind draws its polygon (PolygonDrawing).

A drawing builds the dock's body (the view, and any caption or controls around it), says
what the vertices and edges look like, and redraws when the dock tells it: a refresh, a
frame of the edges' fade, another session, another theme or zoom, a call starting or
finishing. It reads what the dock keeps for every kind (`dock.edges`, `dock.answering`,
`dock.theme_palette()`) and asks it for a refresh (`dock.schedule_refresh()`) or frames
(`dock.animate()`). Must hold no engine logic and never change the state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QVBoxLayout

from roundtable_desktop.ui.docks.polygon_model import DECAY

if TYPE_CHECKING:
    from roundtable_desktop.ui.docks.polygon_dock import PolygonDock


class PolygonDrawing(QObject):
    """How a kind draws the polygon: the hook a PolygonDock hands its drawing to.

    `attach(dock, layout)` makes the drawing the dock's child (what it follows stops with
    the dock), builds the widgets into the dock's body (the view, and any caption or
    controls around it) and connects what else it follows; then the dock calls the rest.
    The defaults do nothing."""

    minimum_size: tuple[int, int] = (200, 160)
    decay: float = DECAY  # what is left of an edge's flash after each frame

    def attach(self, dock: PolygonDock, layout: QVBoxLayout) -> None:
        self.setParent(dock)
        self.dock = dock

    def refresh(self) -> None:
        """Draw the session shown as it is now."""

    def tick(self) -> bool:
        """One frame (the edges have faded one step): redraw; True while it moves on its
        own beyond the edges (a colour fading)."""
        return False

    def session_changed(self) -> None:
        """Another session is shown (the dock refreshes next)."""

    def theme_changed(self) -> None:
        """The theme or the zoom changed: redraw in the new colours and sizes."""

    def call_started(self, actor_id: str | None) -> None:
        """A call of `actor_id` started (the dock has added it to `answering`)."""

    def call_finished(self, actor_id: str | None) -> None:
        """A call of `actor_id` finished (the dock has taken it out of `answering`)."""

    def vertex_colour(self, actor_id: str) -> str:
        """The colour the vertex shows (settled), "" when it is not drawn."""
        return ""
