"""Which docks the window has, where they go, and how large they start.

Two sets: the shared docks every kind uses (Calls, Transcript, Polygon, Metrics), built
once and kept, and a kind's own docks (ui/kinds/), built when a session of that kind
is shown and dropped when another kind is. A DockSpec names the dock's class, its
starting area, the dock it is tabbed with at first (by class name) and the window
services it takes (keyword arguments named after window attributes: the MCP dock takes
`mcp`). `placement_order` merges the two sets the same way for every kind: a kind's own
docks lead their column (the roundtable's Actors above the shared Polygon), tabs come
after the dock they join. `WindowDocks` places them in the window and gives the
columns and the bottom row their starting sizes: shares of the window, never less
than what a column's form needs at this zoom (up to a limit), the payload view keeping
its share. Docks are built by the window's factory (it knows the services and reports
a dock that fails); this module never knows what a dock shows.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QDockWidget,
    QFrame,
    QMainWindow,
    QScrollArea,
    QTabBar,
    QWidget,
)

from roundtable_desktop.ui.docks.bridge_dock import BridgeDock
from roundtable_desktop.ui.docks.calls_dock import CallsDock
from roundtable_desktop.ui.docks.metrics_dock import MetricsDock
from roundtable_desktop.ui.docks.polygon_dock import PolygonDock
from roundtable_desktop.ui.docks.transcript_dock import TranscriptDock

Area = Qt.DockWidgetArea
# A dock body that needs more than this (a form) scrolls inside its dock instead of
# holding its whole row or column open on a small screen.
DOCK_BODY_MIN = (360, 180)
# The dock columns and the bottom row as shares of the window, within these pixel bounds.
LEFT_SHARE, LEFT_WIDTH = 0.24, (300, 440)
RIGHT_SHARE, RIGHT_WIDTH = 0.30, (340, 580)
BOTTOM_SHARE, BOTTOM_HEIGHT = 0.28, (170, 270)
# The first two docks of a side column share its height so (the kind's own dock above).
COLUMN_SPLIT = [62, 38]
# A side column widens to what its dock's content needs at this zoom, up to this share;
# the payload view in the middle keeps at least CENTRE_SHARE (the right column gives way).
COLUMN_MAX_SHARE = 0.36
CENTRE_SHARE = 0.42
SIDES = (Area.LeftDockWidgetArea, Area.RightDockWidgetArea)
# Presenter mode: the docks share one column of this part of the window, in at most this
# many stacked tab groups.
COMPACT_SHARE, COMPACT_GROUPS = 0.40, 2
# In presenter mode the shared docks come after the kind's own, in this order.
COMPACT_SHARED_ORDER = ("TranscriptDock", "PolygonDock", "CallsDock", "MetricsDock")


@dataclass(frozen=True, slots=True)
class DockSpec:
    cls: type[QDockWidget]
    area: Area
    tab_with: str = ""  # class name of the dock this one is tabbed with at first
    services: tuple[str, ...] = ()  # window attributes passed as keyword arguments

    @property
    def class_name(self) -> str:
        return self.cls.__name__


SHARED_DOCKS: tuple[DockSpec, ...] = (
    DockSpec(PolygonDock, Area.LeftDockWidgetArea),
    DockSpec(TranscriptDock, Area.BottomDockWidgetArea),
    DockSpec(CallsDock, Area.BottomDockWidgetArea, tab_with="TranscriptDock"),
    DockSpec(MetricsDock, Area.BottomDockWidgetArea, tab_with="CallsDock"),
)

T = TypeVar("T")
Placed = tuple[DockSpec, QDockWidget]


def placement_order(kind: Sequence[tuple[DockSpec, T]],
                    shared: Sequence[tuple[DockSpec, T]]) -> list[tuple[DockSpec, T]]:
    """The order to add docks in: docks placed on their own first, the kind's ahead of
    the shared ones (each area stacks in that order), then the tabbed ones, the shared
    tabs ahead of the kind's (a tab bar reads: shared views, then the kind's)."""
    alone = [x for x in kind if not x[0].tab_with] + [x for x in shared if not x[0].tab_with]
    tabbed = [x for x in shared if x[0].tab_with] + [x for x in kind if x[0].tab_with]
    return alone + tabbed


class WindowDocks:
    """The window's docks by object name: the shared ones and the shown kind's."""

    def __init__(self, window: QMainWindow,
                 build: Callable[[DockSpec], QDockWidget | None]) -> None:
        self._window = window
        self._build = build
        self.by_name: dict[str, QDockWidget] = {}
        self._shared: list[Placed] = []
        self._own: list[Placed] = []
        self._alone: list[tuple[Area, QDockWidget]] = []  # placed on their own, in order
        window.setDockNestingEnabled(True)
        window.setCorner(Qt.Corner.BottomLeftCorner, Area.LeftDockWidgetArea)
        window.setCorner(Qt.Corner.BottomRightCorner, Area.RightDockWidgetArea)
        self._shared = self._built(SHARED_DOCKS)

    def _built(self, specs: Sequence[DockSpec]) -> list[Placed]:
        placed = []
        for spec in specs:
            dock = self._build(spec)
            if dock is not None:
                scroll_if_large(dock)
                self.by_name[dock.objectName() or spec.class_name] = dock
                placed.append((spec, dock))
        return placed

    def show_kind(self, specs: Sequence[DockSpec]) -> None:
        """Drop the shown kind's docks, build these, and place every dock afresh."""
        window = self._window
        for _spec, dock in self._own:
            if isinstance(dock, BridgeDock):
                dock.retire()  # the session it would read next is of another kind
            window.removeDockWidget(dock)
            self.by_name.pop(dock.objectName(), None)
            dock.deleteLater()
        for _spec, dock in self._shared:
            if window.dockWidgetArea(dock) != Area.NoDockWidgetArea:
                window.removeDockWidget(dock)
        self._own = self._built(specs)
        self._place(placement_order(self._own, self._shared))

    def _place(self, order: list[Placed]) -> None:
        window = self._window
        by_class: dict[str, QDockWidget] = {}
        self._alone = []
        for spec, dock in order:
            target = by_class.get(spec.tab_with) if spec.tab_with else None
            if target is not None:
                window.tabifyDockWidget(target, dock)
            else:
                window.addDockWidget(spec.area, dock)
                self._alone.append((spec.area, dock))
            dock.show()
            by_class[spec.class_name] = dock
        for spec, _dock in order:  # a tab group opens on the dock the others joined
            if spec.tab_with in by_class:
                by_class[spec.tab_with].raise_()

    def column(self, area: Area) -> list[QDockWidget]:
        """The docks placed on their own in `area`, top (or left) first."""
        return [dock for placed, dock in self._alone if placed == area]

    # -- sizes --------------------------------------------------------------------------------
    def size(self) -> None:
        """The starting sizes of the dock columns and rows (no saved layout)."""
        window = self._window
        width = window.width()
        limit = int(width * COLUMN_MAX_SHARE)
        columns = [(docks[0], _share(width, share, bounds))
                   for area, share, bounds in zip(SIDES, (LEFT_SHARE, RIGHT_SHARE),
                                                  (LEFT_WIDTH, RIGHT_WIDTH), strict=True)
                   if (docks := self.column(area))]
        widths = [max(w, min(content_width(d), limit)) for d, w in columns]
        if len(widths) == 2:
            room = int(width * (1 - CENTRE_SHARE)) - widths[0]
            widths[1] = max(min(widths[1], room), RIGHT_WIDTH[0] * 4 // 5)
        if columns:  # both at once: widening one alone takes the room from the other
            window.resizeDocks([d for d, _ in columns], widths, Qt.Orientation.Horizontal)
        for area in SIDES:
            docks = self.column(area)
            if len(docks) >= 2:  # the kind's own dock (editor, lists) gets the larger share
                window.resizeDocks(docks[:2], COLUMN_SPLIT, Qt.Orientation.Vertical)
        bottom = self.column(Area.BottomDockWidgetArea)[:1]
        if bottom:
            window.resizeDocks(bottom, [_share(window.height(), BOTTOM_SHARE, BOTTOM_HEIGHT)],
                               Qt.Orientation.Vertical)
        self.fit_tabs()

    def fit_columns(self) -> None:
        """Widen a side column whose dock's content needs more width at this zoom than it
        has (its form would be cut), up to COLUMN_MAX_SHARE of the window; never narrows."""
        self.fit_tabs()
        window = self._window
        limit = int(window.width() * COLUMN_MAX_SHARE)
        docks = [d for area in SIDES for d in self.column(area)[:1]
                 if not d.isFloating() and d.isVisible()]
        widths = [max(d.width(), min(content_width(d), limit)) for d in docks]
        if any(w > d.width() for d, w in zip(docks, widths, strict=True)):
            # Both columns at once: widening one alone takes the room from the other.
            window.resizeDocks(docks, widths, Qt.Orientation.Horizontal)

    # -- presenter: the centre first, the docks in tabs beside it ----------------------------
    def compact(self, first: Sequence[str] = ()) -> list[QDockWidget]:
        """Every dock into tab groups stacked in the right column (COMPACT_SHARE of the
        window), so the payload view takes the rest of the width and the whole height. A
        group takes docks while its tabs fit whole in the column; at most COMPACT_GROUPS
        groups; the docks left over are hidden (View › Docks shows them). The docks named
        in `first` (object names: what the kind wants the room to see) come first, then the
        kind's others, then the shared ones. Returns the hidden docks."""
        window = self._window
        shared = sorted(self._shared, key=lambda p: COMPACT_SHARED_ORDER.index(p[0].class_name)
                        if p[0].class_name in COMPACT_SHARED_ORDER else len(COMPACT_SHARED_ORDER))
        docks = [d for _s, d in [*self._own, *shared] if not d.isFloating() and not d.isHidden()]
        rank = {name: i for i, name in enumerate(first)}
        order = sorted(docks, key=lambda d: rank.get(d.objectName(), len(rank)))
        column = int(window.width() * COMPACT_SHARE)
        groups: list[list[QDockWidget]] = [[]]
        used = 0
        for dock in order:
            tab = _tab_width(dock)
            if groups[-1] and used + tab > column:
                if len(groups) == COMPACT_GROUPS:
                    break
                groups.append([])
                used = 0
            groups[-1].append(dock)
            used += tab
        placed = [d for group in groups for d in group]
        hidden = [d for d in order if d not in placed]
        for dock in order:
            window.removeDockWidget(dock)
        for group in groups:
            window.addDockWidget(Area.RightDockWidgetArea, group[0], Qt.Orientation.Vertical)
            group[0].show()
            for dock in group[1:]:
                window.tabifyDockWidget(group[0], dock)
                dock.show()
            group[0].raise_()
        for dock in hidden:
            dock.hide()
        heads = [group[0] for group in groups]
        window.resizeDocks(heads[:1], [column], Qt.Orientation.Horizontal)
        if len(heads) > 1:
            window.resizeDocks(heads, [1] * len(heads), Qt.Orientation.Vertical)
        self._alone = [(Area.RightDockWidgetArea, d) for d in heads]
        self.fit_tabs()
        return hidden

    def fit_tabs(self) -> None:
        """Docks sharing a place show every tab, titles elided, never scrolled out of
        sight (the tab bars are the window's own, made as docks are tabified)."""
        for bar in self._window.findChildren(
                QTabBar, options=Qt.FindChildOption.FindDirectChildrenOnly):
            bar.setElideMode(Qt.TextElideMode.ElideRight)
            bar.setUsesScrollButtons(False)


def scroll_if_large(dock: QDockWidget) -> None:
    """Put a dock's body in a scroll area when its minimum size is more than a laptop's
    window can give one dock (DOCK_BODY_MIN), so it never squeezes the payload view."""
    body = dock.widget()
    if body is None or isinstance(body, QAbstractScrollArea):
        return
    least = body.minimumSizeHint()
    if least.width() <= DOCK_BODY_MIN[0] and least.height() <= DOCK_BODY_MIN[1]:
        return
    area = QScrollArea()
    area.setObjectName(f"{dock.objectName()}Scroll")
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidgetResizable(True)
    area.setWidget(body)
    dock.setWidget(area)


def content_width(dock: QDockWidget) -> int:
    """The width a dock needs to show its content uncut (a scrolled form: its inside)."""
    body: QWidget | None = dock.widget()  # None before a body is set (the stubs say never)
    if body is None:
        return 0
    if isinstance(body, QScrollArea) and (inner := body.widget()) is not None:
        bar = body.verticalScrollBar().sizeHint().width()
        need = inner.minimumSizeHint().width() + bar + 2 * body.frameWidth()
    else:
        need = body.minimumSizeHint().width()
    return need + dock.width() - body.width()  # the dock's own frame around its body


def _tab_width(dock: QDockWidget) -> int:
    """About what a tab of this dock takes: its title and the tab's padding."""
    metrics = dock.fontMetrics()
    return metrics.horizontalAdvance(dock.windowTitle()) + 2 * metrics.height()


def _share(total: int, share: float, bounds: tuple[int, int]) -> int:
    return int(min(max(total * share, bounds[0]), bounds[1]))
