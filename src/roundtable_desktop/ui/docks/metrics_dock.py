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
from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QResizeEvent
from PySide6.QtWidgets import (
    QBoxLayout,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLayout,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from roundtable_desktop.domain.calls import CallStatus
from roundtable_desktop.domain.events import CallFinished, CallStarted
from roundtable_desktop.domain.plural import count_of
from roundtable_desktop.engine.forecast import Forecast
from roundtable_desktop.store.errors import StoreError
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.docks.bridge_dock import StoredCallsDock
from roundtable_desktop.ui.plots import follow_palette, still_plot
from roundtable_desktop.ui.text_label import WrappedLabel, buddy_label
from roundtable_desktop.ui.theme import Inks, inks

BY_PURPOSE, BY_PARTICIPANT = "By purpose", "By participant"
# The theme's inks the curves take, in order (each theme's seven are distinct).
SERIES_INKS = ("tool", "live", "warning", "added", "error", "system", "outline")
NO_PARTICIPANT = "no participant"
PLACEHOLDER = "No calls yet: latency and tokens appear here after the first call."
# The plots sit side by side when their area is at least this much wider than tall.
SIDE_BY_SIDE_RATIO = 1.6
PLOT_MIN = (110, 56)  # pixels: a plot still shows its ticks and points
LABEL_LINES = 1.6  # a value label per this many lines of its text, at most


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


class _ValueAxis(pg.AxisItem):
    """A value axis whose labels never run into one another: at most one label per
    LABEL_LINES lines of its text along the axis (pyqtgraph picks about log(pixels)
    labels whatever the font, so a short plot at a large zoom stacked them), at 1, 2,
    2.5 or 5 times a power of ten."""

    def tickSpacing(self, minVal: float, maxVal: float, size: float
                    ) -> list[tuple[float, float]]:
        span = maxVal - minVal
        if span <= 0 or size <= 0:
            return super().tickSpacing(minVal, maxVal, size)
        font = self.style.get("tickFont") or QFont()
        line = QFontMetricsF(font).height()
        most = max(1, int(size // (LABEL_LINES * line)))
        raw = span / most
        magnitude = 10 ** math.floor(math.log10(raw))
        step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
        return [(step, 0)]


class _PlotsArea(QWidget):
    """The two plots, each under its heading: side by side when the area is wide and
    low, one above the other when it is tall."""

    def __init__(self, columns: list[QWidget]) -> None:
        super().__init__()
        self.setObjectName("metricsPlots")
        self._columns = columns
        self.row = QBoxLayout(QBoxLayout.Direction.TopToBottom, self)
        # Its least size is the side-by-side one (minimumSizeHint), whichever way the
        # plots sit now: a low dock never needs to scroll them, they go side by side.
        self.row.setSizeConstraint(QLayout.SizeConstraint.SetNoConstraint)
        self.row.setContentsMargins(0, 0, 0, 0)
        self.row.setSpacing(8)
        for column in columns:
            self.row.addWidget(column, 1)

    def side_by_side(self) -> bool:
        return self.row.direction() == QBoxLayout.Direction.LeftToRight

    def minimumSizeHint(self) -> QSize:
        least = [c.minimumSizeHint() for c in self._columns]
        return QSize(sum(s.width() for s in least) + self.row.spacing() * (len(least) - 1),
                     max(s.height() for s in least))

    def _stacked_height(self) -> int:
        least = [c.minimumSizeHint().height() for c in self._columns]
        return sum(least) + self.row.spacing() * (len(least) - 1)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        size = event.size()
        wide = size.width() >= SIDE_BY_SIDE_RATIO * size.height() \
            or size.height() < self._stacked_height()
        direction = QBoxLayout.Direction.LeftToRight if wide else \
            QBoxLayout.Direction.TopToBottom
        if direction != self.row.direction():
            self.row.setDirection(direction)


def _headed(heading: str, name: str, plot: QWidget) -> QWidget:
    column = QWidget()
    layout = QVBoxLayout(column)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(0)
    label = WrappedLabel(heading)  # a second line in a narrow column, never cut
    label.setObjectName(name)
    label.setContentsMargins(6, 2, 6, 0)
    layout.addWidget(label)
    layout.addWidget(plot, 1)
    return column


class MetricsDock(StoredCallsDock):
    def __init__(self, bridge: EngineBridge, parent: QWidget | None = None) -> None:
        super().__init__("Metrics", "metricsDock", bridge, parent)
        self.group_combo = QComboBox()
        self.group_combo.setObjectName("metricsGroup")
        self.group_combo.addItems([BY_PURPOSE, BY_PARTICIPANT])
        self.group_combo.setToolTip("One curve per purpose of the calls, or per participant.")
        self.group_combo.currentIndexChanged.connect(self._on_group_combo_changed)
        self.totals = WrappedLabel()  # a second line when narrow: never widens the dock
        self.totals.setObjectName("metricsTotals")
        self.totals.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.legend = QLabel()
        self.legend.setObjectName("metricsLegend")
        self.legend.setTextFormat(Qt.TextFormat.RichText)  # names are escaped (_legend_html)
        self.legend.setWordWrap(True)
        self.legend.setContentsMargins(10, 0, 6, 0)
        self.legend.setMinimumWidth(1)  # a narrow dock wraps or clips it: never widens
        self.latency_plot = self._plot("metricsLatency")
        self.tokens_plot = self._plot("metricsTokens")
        self.tokens_plot.setXLink(self.latency_plot)
        self.plots = _PlotsArea([
            _headed("Latency per call (s)", "metricsLatencyHeading", self.latency_plot),
            _headed("Tokens per call (prompt + reply)", "metricsTokensHeading",
                    self.tokens_plot)])
        self.placeholder = QLabel(PLACEHOLDER)
        self.placeholder.setObjectName("metricsPlaceholder")
        self.placeholder.setTextFormat(Qt.TextFormat.PlainText)
        self.placeholder.setWordWrap(True)
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setContentsMargins(12, 12, 12, 12)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.placeholder)
        self.stack.addWidget(self.plots)
        bar = QHBoxLayout()
        bar.setContentsMargins(6, 2, 6, 2)
        bar.addWidget(buddy_label("&Curves:", self.group_combo))
        bar.addWidget(self.group_combo)
        bar.addWidget(self.legend, 2)  # on the bar's line: the plots keep that height
        bar.addWidget(self.totals, 2, Qt.AlignmentFlag.AlignRight)
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(0, 0, 8, 4)  # the last call's mark clear of the edge
        layout.setSpacing(0)
        layout.addLayout(bar)
        # What the action started last was forecast to cost, beside what it spent.
        self.forecast_label = QLabel()
        self.forecast_label.setObjectName("metricsForecast")
        self.forecast_label.setWordWrap(True)
        self.forecast_label.setContentsMargins(6, 0, 6, 2)
        self.forecast_label.setVisible(False)
        self._forecast: tuple[Forecast, int, str | None] | None = None
        layout.addWidget(self.forecast_label)
        layout.addWidget(self.stack, 1)
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

    def showing_placeholder(self) -> bool:
        """True while no call has finished: a sentence stands where the plots will be."""
        return self.stack.currentWidget() is self.placeholder

    def plots_side_by_side(self) -> bool:
        return self.plots.side_by_side()

    def group_by_participant(self, yes: bool) -> None:
        self.group_combo.setCurrentIndex(1 if yes else 0)

    # -- refresh ----------------------------------------------------------------------------
    def refresh(self) -> None:
        """Reload every finished call of the shown session from the store."""
        self._points, self._started, self._count = [], {}, 0
        self._update_names()
        records = self.stored_call_summaries()
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
    def _plot(self, name: str) -> pg.PlotWidget:
        plot = still_plot(name, axis_items={"left": _ValueAxis("left")})
        plot.setAntialiasing(True)
        plot.getPlotItem().getViewBox().setDefaultPadding(0.08)  # marks at the edges stay whole
        plot.setMinimumSize(*PLOT_MIN)
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
        self.totals.set_full_text(
            f"{count_of(calls, 'call')}, mean {mean:.2f} s" if calls else "")
        self._show_forecast()
        self.stack.setCurrentWidget(self.plots if calls else self.placeholder)

    # -- forecast beside spent ------------------------------------------------------------
    def set_forecast(self, forecast: Forecast, since: int) -> None:
        """Show what the action just started was forecast to cost, beside what the calls
        after the first `since` spend."""
        self._forecast = (forecast, since, self.bridge.session_id())
        self._show_forecast()

    def forecast_text(self) -> str:
        return self.forecast_label.text() if self._forecast is not None else ""

    def _show_forecast(self) -> None:
        if self._forecast is not None and self._forecast[2] != self.bridge.session_id():
            self._forecast = None  # another session is shown
        if self._forecast is None:
            self.forecast_label.setVisible(False)
            return
        forecast, since, _ = self._forecast
        calls, prompt, completion, cost = self._spent_since(since)
        money = "" if forecast.cost_usd is None else f", ${forecast.cost_usd:.4f}"
        spent_money = f", ${cost:.4f}" if cost is not None else ""
        self.forecast_label.setText(
            f"Forecast: {count_of(forecast.calls, 'call')}, {forecast.prompt_tokens:,} + "
            f"{forecast.completion_tokens:,} tokens{money} · spent: {count_of(calls, 'call')}, "
            f"{prompt:,} + {completion:,} tokens{spent_money}")
        self.forecast_label.setVisible(True)

    def _spent_since(self, since: int) -> tuple[int, int, int, float | None]:
        store, session_id = self.bridge.store(), self.bridge.session_id()
        if store is None or not session_id:
            return 0, 0, 0, None
        try:
            calls = store.call_summaries(session_id)[since:]
        except StoreError:
            return 0, 0, 0, None
        costs = [c.cost_usd for c in calls if c.cost_usd is not None]
        return (len(calls), sum(c.prompt_tokens or 0 for c in calls),
                sum(c.completion_tokens or 0 for c in calls),
                sum(costs) if costs else None)

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
        follow_palette((self.latency_plot, self.tokens_plot), pal, self.font())

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
