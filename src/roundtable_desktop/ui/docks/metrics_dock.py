"""The Metrics dock (pyqtgraph): each finished call's latency and tokens, over the session.

x is the call's number in the session (1, 2, … in the order the calls started); one
curve per purpose (reply, stance, repair, planner …) or per participant, as chosen above
the plots. Points come from the shared events only (CallStarted numbers a call,
CallFinished brings its latency and usage), so every kind gets them; when a session is
shown (attached, or a replay step) they are reloaded from the store's call records, as
the Calls dock does. A call that did not end well is drawn as a cross. Colours follow
the theme: the curves take the theme's inks in order, the background and axes the
palette's, and the axes' text the dock's font, so zoom scales it like every other text.
Must hold no engine logic and never write to the store.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from roundtable_desktop.domain.calls import CallStatus
from roundtable_desktop.domain.events import CallFinished, CallStarted
from roundtable_desktop.domain.plural import count_of
from roundtable_desktop.store.errors import StoreError
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.docks.bridge_dock import BridgeDock
from roundtable_desktop.ui.theme import Inks, inks

BY_PURPOSE, BY_PARTICIPANT = "By purpose", "By participant"
# The theme's inks the curves take, in order (each theme's seven are distinct).
SERIES_INKS = ("tool", "live", "warning", "added", "error", "system", "outline")
NO_PARTICIPANT = "no participant"


@dataclass(frozen=True, slots=True)
class CallPoint:
    """One finished call, as the plots draw it."""

    number: int
    actor_id: str | None
    purpose: str
    latency_s: float
    tokens: int  # prompt + completion
    ok: bool


@dataclass(frozen=True, slots=True)
class _Curve:
    """A curve on both plots: a line and its marks, a scatter of their own (per-point
    symbols on the line itself crash pyqtgraph's legend sample, and the legend is a label
    above the plots so it never hides a point)."""

    lines: tuple[pg.PlotDataItem, pg.PlotDataItem]
    marks: tuple[pg.ScatterPlotItem, pg.ScatterPlotItem]

    @classmethod
    def add_to(cls, plots: tuple[pg.PlotWidget, pg.PlotWidget]) -> _Curve:
        latency, tokens = plots
        marks = (pg.ScatterPlotItem(), pg.ScatterPlotItem())
        latency.addItem(marks[0])
        tokens.addItem(marks[1])
        return cls(lines=(latency.plot(), tokens.plot()), marks=marks)


class MetricsDock(BridgeDock):
    def __init__(self, bridge: EngineBridge, parent: QWidget | None = None) -> None:
        super().__init__("Metrics", "metricsDock", bridge, parent)
        self.group_combo = QComboBox()
        self.group_combo.setObjectName("metricsGroup")
        self.group_combo.addItems([BY_PURPOSE, BY_PARTICIPANT])
        self.group_combo.setToolTip("One curve per purpose of the calls, or per participant.")
        self.group_combo.currentIndexChanged.connect(self._on_group_combo_changed)
        self.totals = QLabel()
        self.totals.setObjectName("metricsTotals")
        self.totals.setTextFormat(Qt.TextFormat.PlainText)
        self.legend = QLabel()
        self.legend.setObjectName("metricsLegend")
        self.legend.setTextFormat(Qt.TextFormat.RichText)  # names are escaped (_legend_html)
        self.legend.setWordWrap(True)
        self.legend.setContentsMargins(6, 0, 6, 2)
        self.latency_plot = self._plot("metricsLatency", "Latency", "s")
        self.tokens_plot = self._plot("metricsTokens", "Tokens", "")
        self.tokens_plot.setXLink(self.latency_plot)
        self.tokens_plot.setLabel("bottom", "Call")
        bar = QHBoxLayout()
        bar.setContentsMargins(6, 2, 6, 2)
        label = QLabel("&Curves:")
        label.setBuddy(self.group_combo)
        bar.addWidget(label)
        bar.addWidget(self.group_combo)
        bar.addStretch(1)
        bar.addWidget(self.totals)
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(0, 0, 8, 4)  # the last call's mark clear of the edge
        layout.setSpacing(0)
        layout.addLayout(bar)
        layout.addWidget(self.legend)
        layout.addWidget(self.latency_plot, 1)
        layout.addWidget(self.tokens_plot, 1)
        self.setWidget(body)
        self.setMinimumSize(220, 200)

        self._points: list[CallPoint] = []
        self._started: dict[str, tuple[int, str | None, str]] = {}  # call_id -> number…
        self._count = 0  # calls numbered so far
        self._names: dict[str, str] = {}
        self._curves: dict[str, _Curve] = {}
        self._inks: Inks = inks(self.theme_palette())

        bridge.callStarted.connect(self._on_bridge_call_started)
        bridge.callFinished.connect(self._on_bridge_call_finished)
        bridge.stateChanged.connect(self._on_bridge_state_changed)
        self._follow_palette()
        self.refresh()

    # -- reading (tests and the window) ---------------------------------------------------
    def points(self) -> list[CallPoint]:
        return list(self._points)

    def series(self) -> dict[str, list[CallPoint]]:
        """The points of each curve by the curve's name, curves in the order of their first
        call, points by call number (calls that ran at once may finish in any order)."""
        found: dict[str, list[CallPoint]] = {}
        for point in sorted(self._points, key=lambda p: p.number):
            found.setdefault(self._series_of(point), []).append(point)
        return found

    def curve(self, name: str, plot: str = "latency") -> pg.PlotDataItem | None:
        """The line of a curve on the latency or the tokens plot (None if no such curve)."""
        found = self._curves.get(name)
        return None if found is None else found.lines[0 if plot == "latency" else 1]

    def marks(self, name: str, plot: str = "latency") -> pg.ScatterPlotItem | None:
        """The points of a curve: a dot per call that ended well, a cross otherwise."""
        found = self._curves.get(name)
        return None if found is None else found.marks[0 if plot == "latency" else 1]

    def group_by_participant(self, yes: bool) -> None:
        self.group_combo.setCurrentIndex(1 if yes else 0)

    # -- refresh ----------------------------------------------------------------------------
    def refresh(self) -> None:
        """Reload every finished call of the shown session from the store."""
        self._points, self._started, self._count = [], {}, 0
        self._update_names()
        store, session_id = self.bridge.store(), self.bridge.session_id()
        records = []
        if store is not None and session_id:
            try:
                records = store.calls(session_id)
            except StoreError:
                records = []
        for number, record in enumerate(records, start=1):
            if record.status == CallStatus.PENDING or record.latency_ms is None:
                self._started[record.id] = (number, record.actor_id, record.purpose)
                continue
            self._points.append(CallPoint(
                number=number, actor_id=record.actor_id, purpose=record.purpose,
                latency_s=record.latency_ms / 1000,
                tokens=(record.prompt_tokens or 0) + (record.completion_tokens or 0),
                ok=record.status == CallStatus.OK))
        self._count = len(records)
        self._draw()

    def _update_names(self) -> None:
        summary = self.bridge.summary()
        self._names = {p.id: p.name for p in summary.participants} if summary else {}

    # -- drawing ------------------------------------------------------------------------------
    def _plot(self, name: str, title: str, units: str) -> pg.PlotWidget:
        plot = pg.PlotWidget()
        plot.setObjectName(name)
        plot.setAntialiasing(True)
        item = plot.getPlotItem()
        item.hideButtons()
        item.setMenuEnabled(False)
        item.setMouseEnabled(x=False, y=False)
        item.showGrid(x=False, y=True, alpha=0.25)
        item.getViewBox().setDefaultPadding(0.08)  # the marks at the edges stay whole
        plot.setLabel("left", title, units=units or None)
        return plot

    def _series_of(self, point: CallPoint) -> str:
        if self.group_combo.currentText() == BY_PARTICIPANT:
            if point.actor_id is None:
                return NO_PARTICIPANT
            return self._names.get(point.actor_id, point.actor_id)
        return point.purpose

    def _colour(self, index: int) -> str:
        return getattr(self._inks, SERIES_INKS[index % len(SERIES_INKS)])

    def _draw(self) -> None:
        series = self.series()
        plots = (self.latency_plot, self.tokens_plot)
        for name in [n for n in self._curves if n not in series]:
            gone = self._curves.pop(name)
            for plot, line, marks in zip(plots, gone.lines, gone.marks, strict=True):
                plot.removeItem(line)
                plot.removeItem(marks)
        for index, (name, points) in enumerate(series.items()):
            curve = self._curves.get(name)
            if curve is None:
                curve = self._curves[name] = _Curve.add_to(plots)
            colour = QColor(self._colour(index))
            style = Qt.PenStyle.SolidLine if index < len(SERIES_INKS) else Qt.PenStyle.DashLine
            numbers = [p.number for p in points]
            symbols = ["o" if p.ok else "x" for p in points]
            values = ([p.latency_s for p in points], [p.tokens for p in points])
            for line, marks, ys in zip(curve.lines, curve.marks, values, strict=True):
                line.setData(numbers, ys, pen=pg.mkPen(colour, width=2, style=style))
                marks.setData(numbers, ys, symbol=symbols, size=9, brush=pg.mkBrush(colour),
                              pen=pg.mkPen(colour, width=2))
        self._set_call_ticks()
        self.legend.setText(self._legend_html(series))
        self.legend.setVisible(bool(series))
        calls = len(self._points)
        mean = sum(p.latency_s for p in self._points) / calls if calls else 0.0
        self.totals.setText(f"{count_of(calls, 'call')}, mean {mean:.2f} s" if calls else
                            "No finished calls yet.")

    def _set_call_ticks(self) -> None:
        """Whole call numbers on the x axis, about eight of them, each point inside."""
        last = max((p.number for p in self._points), default=1)
        step = max(1, math.ceil(last / 8))
        for plot in (self.latency_plot, self.tokens_plot):
            plot.getAxis("bottom").setTickSpacing(step, step)
        self.latency_plot.setXRange(0.5, last + 0.5, padding=0)

    def _legend_html(self, series: dict[str, list[CallPoint]]) -> str:
        entries = []
        for index, name in enumerate(series):
            colour = self._colour(index)
            dash = "━━" if index < len(SERIES_INKS) else "╍╍"
            entries.append(f'<span style="color:{colour}">{dash}</span>&nbsp;'
                           f"{html.escape(name)}")
        return "&nbsp;&nbsp; ".join(entries)

    def _follow_palette(self) -> None:
        pal = self.theme_palette()
        self._inks = inks(pal)
        text = pal.color(QPalette.ColorRole.Text)
        font = self.font()
        for plot in (self.latency_plot, self.tokens_plot):
            plot.setBackground(pal.color(QPalette.ColorRole.Base))
            item = plot.getPlotItem()
            for side in ("left", "bottom"):
                axis = item.getAxis(side)
                axis.setPen(pg.mkPen(text))
                axis.setTextPen(pg.mkPen(text))
                axis.setTickFont(font)
                axis.label.setFont(font)

    def _on_theme_changed(self) -> None:
        self._follow_palette()
        self._draw()

    # -- events -------------------------------------------------------------------------------
    def _on_bridge_call_started(self, event: CallStarted) -> None:
        if event.call_id not in self._started:
            self._count += 1
            self._started[event.call_id] = (self._count, event.actor_id, event.purpose)

    def _on_bridge_call_finished(self, event: CallFinished) -> None:
        started = self._started.pop(event.call_id, None)
        if started is None:  # its start came before this dock followed the session
            self._count += 1
            started = (self._count, event.actor_id, event.purpose)
        number, actor_id, purpose = started
        outcome = event.outcome
        if actor_id is not None and actor_id not in self._names:
            self._update_names()
        self._points.append(CallPoint(
            number=number, actor_id=actor_id, purpose=purpose,
            latency_s=outcome.latency_ms / 1000, tokens=outcome.usage.total_tokens,
            ok=outcome.status == CallStatus.OK))
        self._draw()

    def _on_bridge_state_changed(self, part: str) -> None:
        if part == "actors" and self.group_combo.currentText() == BY_PARTICIPANT:
            self._update_names()
            self._draw()

    def _on_group_combo_changed(self, _index: int) -> None:
        self._draw()
