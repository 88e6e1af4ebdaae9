"""The Opinions dock (pyqtgraph): each minion's score for each participant over time,
over the five mode bands shaded (1-20 Hostile/Minimal … 86-100 Obsessed/Eager).

x is the message a score changed at (0: the start), whole numbers only on its axis
(TurnAxis: never 0.2 … 0.8 between two messages); y the score, the band boundaries on
the left axis and the bands' names on the right one, beside the plot, so a name is
never printed over a curve. One curve per minion and participant, the colour the
minion's (the theme's inks in order), the line style the participant's. A picker shows
one minion's curves or all. The data is the legion state's score history
(`state.scores`), read again on every change of it, so a replay step shows the curves
as they were. Colours follow the theme: curves take its inks, the bands alternate two
shades of its text colour, the axes its palette.
Must hold no engine logic.
"""

from __future__ import annotations

import html

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from roundtable_desktop.kinds.legion.state import BANDS, MAX_SCORE, MIN_SCORE, LegionState
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.kinds.legion.dock_base import LegionDock
from roundtable_desktop.ui.plots import follow_palette, still_plot
from roundtable_desktop.ui.theme import Inks, inks
from roundtable_desktop.ui.window.session_runner import SessionRunner

ALL_MINIONS = "All minions"
MINION_INKS = ("tool", "error", "added", "live", "warning", "system", "outline")
PARTICIPANT_STYLES = (Qt.PenStyle.SolidLine, Qt.PenStyle.DashLine, Qt.PenStyle.DotLine,
                      Qt.PenStyle.DashDotLine)
PARTICIPANT_DASHES = ("━━", "╍╍", "┅┅", "━┅")
BAND_ALPHA = (18, 40)  # the bands' shades, alternating, over the plot's background


class TurnAxis(pg.AxisItem):
    """An axis of counted things (messages): ticks at whole numbers only, however short
    the range (pyqtgraph would tick 0.2 … 0.8 between 0 and 1)."""

    def tickSpacing(self, minVal: float, maxVal: float,
                    size: float) -> list[tuple[float, float]]:
        levels = [(spacing, offset) for spacing, offset in
                  super().tickSpacing(minVal, maxVal, size)
                  if spacing >= 1 and float(spacing).is_integer()]
        return levels or [(1.0, 0.0)]

    def tickStrings(self, values: list[float], scale: float,
                    spacing: float) -> list[str]:
        return [str(round(v * scale)) for v in values]


def short_mode(mode: str) -> str:
    """A band's name as the axis shows it: "Friendly" for "Friendly/Proactive"."""
    return mode.split("/", 1)[0]


class LegionOpinionsDock(LegionDock):
    def __init__(self, bridge: EngineBridge, parent: QWidget | None = None, *,
                 runner: SessionRunner | None = None) -> None:
        super().__init__("Opinions", "legionOpinionsDock", bridge, parent, runner=runner)
        self._curves: dict[tuple[str, str], pg.PlotDataItem] = {}
        self._bands: list[pg.LinearRegionItem] = []
        self._band_ticks: list[tuple[float, str]] = []  # the right axis's names
        self._inks: Inks = inks(self.theme_palette())

        self.picker = QComboBox()
        self.picker.setObjectName("legionOpinionsPicker")
        self.picker.currentTextChanged.connect(self._on_picker_changed)
        self.legend = QLabel()
        self.legend.setObjectName("legionOpinionsLegend")
        self.legend.setWordWrap(True)
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.plot = still_plot("legionOpinionsPlot", grid=False,  # the mode bands are its grid
                               axis_items={"bottom": TurnAxis(orientation="bottom")})
        self.plot.setAntialiasing(True)
        item = self.plot.getPlotItem()
        self.plot.setToolTip("x: the message a score changed at (0 is the start); "
                             "y: the score, over its mode band ("
                             + ", ".join(f"{low}-{high} {mode}" for low, high, mode in BANDS)
                             + ")")
        item.getViewBox().disableAutoRange()  # the bands stay whole as curves come
        self.plot.setYRange(MIN_SCORE - 1, MAX_SCORE + 1, padding=0)
        self.plot.getAxis("left").setTicks([[(low, str(low)) for low, _, _ in BANDS]])
        item.showAxis("right")  # the bands' names, beside the curves, never over them
        self.band_axis: pg.AxisItem = item.getAxis("right")
        self.band_axis.setStyle(tickLength=0)
        self.band_axis.setTicks([[]])  # never the axis's own numbers: names, once it is sized
        item.getViewBox().sigResized.connect(self._fit_band_labels)
        self.plot.setMinimumSize(160, 110)
        for low, high, _mode in BANDS:
            band = pg.LinearRegionItem(values=(low - 0.5, high + 0.5),
                                       orientation="horizontal", movable=False)
            band.setZValue(-10)
            for line in band.lines:
                line.setPen(pg.mkPen(None))
            self.plot.addItem(band)
            self._bands.append(band)

        bar = QHBoxLayout()
        bar.addWidget(QLabel("Show"))
        bar.addWidget(self.picker, 1)
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(bar)
        layout.addWidget(self.legend)
        layout.addWidget(self.plot, 1)
        self.setWidget(body)
        self.setMinimumSize(220, 200)
        self._follow_palette()
        self.refresh()

    # -- reading (tests) ----------------------------------------------------------------------
    def curve_keys(self) -> list[tuple[str, str]]:
        """(minion, participant) of every curve drawn now."""
        return list(self._curves)

    def curve(self, minion: str, participant: str) -> pg.PlotDataItem | None:
        return self._curves.get((minion, participant))

    def band_names(self) -> list[str]:
        """The bands, by their full names (the right axis shows their first words)."""
        return [mode for _, _, mode in BANDS]

    def band_labels(self) -> list[str]:
        """The names on the right axis now (a band too short to hold one shows none)."""
        return [text for _value, text in self._band_ticks]

    # -- refresh ------------------------------------------------------------------------------
    def refresh(self) -> None:
        state = self.state()
        names = [m.name for m in state.minions] if state is not None else []
        wanted = [ALL_MINIONS, *names]
        if [self.picker.itemText(i) for i in range(self.picker.count())] != wanted:
            shown = self.picker.currentText()
            self.picker.blockSignals(True)
            self.picker.clear()
            self.picker.addItems(wanted)
            self.picker.setCurrentText(shown if shown in wanted else ALL_MINIONS)
            self.picker.blockSignals(False)
        self._draw(state)

    def _series(self, state: LegionState) -> dict[tuple[str, str], tuple[list[int], list[int]]]:
        """Each minion's trajectory for each participant it scores: (steps, scores); the
        starting scores are the points at step 0."""
        shown = self.picker.currentText()
        found: dict[tuple[str, str], tuple[list[int], list[int]]] = {}
        for minion in state.minions:
            if shown not in (ALL_MINIONS, minion.name):
                continue
            for participant in minion.scores:
                found[(minion.name, participant)] = ([], [])
        for point in state.scores:
            series = found.get((point.minion, point.participant))
            if series is not None:
                series[0].append(point.step)
                series[1].append(point.score)
        for (minion_name, participant), (xs, ys) in found.items():
            if not xs or xs[0] != 0:  # no start point recorded: the scenario's start
                minion = state.minion(minion_name)
                start = ys[0] if ys else minion.scores[participant]
                xs.insert(0, 0)
                ys.insert(0, start)
            last = state.messages[-1].id if state.messages else 0
            if xs[-1] < last:  # the score holds until now
                xs.append(last)
                ys.append(ys[-1])
        return found

    def _draw(self, state: LegionState | None) -> None:
        series = self._series(state) if state is not None else {}
        for key in [k for k in self._curves if k not in series]:
            self.plot.removeItem(self._curves.pop(key))
        minions = list(dict.fromkeys(m for m, _ in series))
        participants = list(dict.fromkeys(p for _, p in series))
        for (minion, participant), (xs, ys) in series.items():
            curve = self._curves.get((minion, participant))
            if curve is None:
                curve = self._curves[(minion, participant)] = self.plot.plot()
            colour = QColor(self._minion_colour(state, minion))
            style = PARTICIPANT_STYLES[participants.index(participant)
                                       % len(PARTICIPANT_STYLES)]
            curve.setData(xs, ys, pen=pg.mkPen(colour, width=2, style=style),
                          stepMode=None, symbol="o", symbolSize=5,
                          symbolBrush=pg.mkBrush(colour), symbolPen=pg.mkPen(colour))
        last = max((xs[-1] for xs, _ in series.values()), default=1)
        self.plot.setXRange(0, max(1, last), padding=0.04)
        self.plot.setYRange(MIN_SCORE - 1, MAX_SCORE + 1, padding=0)  # every band, always
        self.legend.setText(self._legend_html(state, minions, participants))
        self.legend.setVisible(bool(series))

    def _fit_band_labels(self, *_args: object) -> None:
        """A band's name shows only where the band is at least a line of text high (a
        short plot on a laptop would stack them on one another)."""
        height = self.plot.getViewBox().height()
        line = self.fontMetrics().height()
        shown = [((low + high) / 2, short_mode(mode)) for low, high, mode in BANDS
                 if height * (high - low + 1) / (MAX_SCORE - MIN_SCORE + 3) >= line * 1.1]
        if shown != self._band_ticks:
            self._band_ticks = shown
            self.band_axis.setTicks([shown])

    def _minion_colour(self, state: LegionState | None, name: str) -> str:
        names = [m.name for m in state.minions] if state is not None else [name]
        index = names.index(name) if name in names else 0
        return getattr(self._inks, MINION_INKS[index % len(MINION_INKS)])

    def _legend_html(self, state: LegionState | None, minions: list[str],
                     participants: list[str]) -> str:
        colours = " &nbsp; ".join(
            f'<span style="color:{self._minion_colour(state, m)}">●</span>&nbsp;'
            f"{html.escape(m)}" for m in minions)
        styles = " &nbsp; ".join(
            f"{PARTICIPANT_DASHES[i % len(PARTICIPANT_DASHES)]}&nbsp;{html.escape(p)}"
            for i, p in enumerate(participants))
        return f"{colours} &nbsp;·&nbsp; scores for: {styles}"

    # -- theme --------------------------------------------------------------------------------
    def _follow_palette(self) -> None:
        pal = self.theme_palette()
        self._inks = inks(pal)
        text = pal.color(QPalette.ColorRole.Text)
        follow_palette((self.plot,), pal, self.font())
        self.band_axis.setPen(pg.mkPen(text))
        self.band_axis.setTextPen(pg.mkPen(text))
        self.band_axis.setTickFont(self.font())
        for index, band in enumerate(self._bands):
            shade = QColor(text)
            shade.setAlpha(BAND_ALPHA[index % 2])
            band.setBrush(pg.mkBrush(shade))
        self._fit_band_labels()

    def _on_theme_changed(self) -> None:
        self._follow_palette()
        self._draw(self.state())

    def _on_picker_changed(self, _text: str) -> None:
        self._draw(self.state())
