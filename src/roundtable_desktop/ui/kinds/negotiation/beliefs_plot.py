"""The beliefs over turns (pyqtgraph): one trait, self vs observed, for both sides; and
the influence scores.

The trait plot draws four curves from the state's `trait_history` (one point per turn,
turn 0 the scenario's start): each side's self profile (solid) and the observer's model
of it (dashed), ALLY in one ink and KEEPER in another; the trait is chosen in the combo
above it. The influence plot draws `influence_history` (0-1, how far each side moved
the observer's model of the other). The legend is a label above the plots (it never
hides a point); colours follow the theme, the axes the dock's font. Must hold no engine
logic: it draws what it is handed.
"""

from __future__ import annotations

import html

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from roundtable_desktop.kinds.negotiation.scenario import TRAIT_MAX, TRAIT_MIN, TRAITS
from roundtable_desktop.kinds.negotiation.state import ALLY, KEEPER, NegotiationState
from roundtable_desktop.ui.plots import follow_palette as plots_follow_palette
from roundtable_desktop.ui.plots import still_plot
from roundtable_desktop.ui.text_label import buddy_label
from roundtable_desktop.ui.theme import Inks

PLOT_MIN_HEIGHT = 120


def side_inks(inks: Inks) -> dict[str, str]:
    """The ink of each side, the same in the sliders' markers and the plots."""
    return {ALLY: inks.tool, KEEPER: inks.warning}


class BeliefsPlot(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.trait_combo = QComboBox()
        self.trait_combo.setObjectName("beliefsTrait")
        self.trait_combo.addItems(list(TRAITS))
        self.trait_combo.setToolTip("The trait whose self and observed values are drawn.")
        self.trait_combo.currentIndexChanged.connect(self._on_trait_combo_changed)
        self.legend = QLabel()
        self.legend.setObjectName("beliefsLegend")
        self.legend.setTextFormat(Qt.TextFormat.RichText)  # names are escaped
        self.legend.setWordWrap(True)
        self.trait_plot = _plot("beliefsTraitPlot", "Value")
        self.trait_plot.setYRange(TRAIT_MIN, TRAIT_MAX, padding=0.05)
        self.influence_plot = _plot("beliefsInfluencePlot", "Influence")
        self.influence_plot.setYRange(0.0, 1.0, padding=0.05)
        self.influence_plot.setLabel("bottom", "Turn")
        self.influence_plot.setXLink(self.trait_plot)
        self.trait_lines: dict[tuple[str, str], pg.PlotDataItem] = {
            (side, which): self.trait_plot.plot()
            for side in (ALLY, KEEPER) for which in ("self", "observed")}
        self.influence_lines: dict[str, pg.PlotDataItem] = {
            side: self.influence_plot.plot() for side in (ALLY, KEEPER)}

        bar = QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        bar.addWidget(buddy_label("&Trait:", self.trait_combo))
        bar.addWidget(self.trait_combo, 1)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        column.addLayout(bar)
        column.addWidget(self.legend)
        column.addWidget(self.trait_plot, 3)
        column.addWidget(self.influence_plot, 2)
        self._state: NegotiationState | None = None
        self._inks: dict[str, str] = {ALLY: "#1a5fb4", KEEPER: "#8a5600"}
        self._names: dict[str, str] = {ALLY: ALLY, KEEPER: KEEPER}

    # -- reading (tests) --------------------------------------------------------------------
    def trait(self) -> str:
        return self.trait_combo.currentText()

    def set_trait(self, trait: str) -> None:
        self.trait_combo.setCurrentText(trait)

    def series(self, side: str, which: str) -> tuple[list[float], list[float]]:
        """The points of a curve: `which` is self, observed or influence."""
        line = (self.influence_lines[side] if which == "influence"
                else self.trait_lines[(side, which)])
        xs, ys = line.getData()
        return ([] if xs is None else [float(x) for x in xs],
                [] if ys is None else [float(y) for y in ys])

    # -- drawing ----------------------------------------------------------------------------
    def show_state(self, state: NegotiationState | None) -> None:
        self._state = state
        if state is not None:
            self._names = {side: state.sides[side].name for side in (ALLY, KEEPER)}
        self._draw()

    def follow_palette(self, pal: QPalette, inks: Inks) -> None:
        self._inks = side_inks(inks)
        plots_follow_palette((self.trait_plot, self.influence_plot), pal, self.font())
        self._draw()

    def _draw(self) -> None:
        state, trait = self._state, self.trait()
        history = state.trait_history if state is not None else []
        turns = [float(p.turn) for p in history]
        for (side, which), line in self.trait_lines.items():
            values = [float((p.self_profile if which == "self" else p.observed)
                            .get(side, {}).get(trait, 0.0)) for p in history]
            style = Qt.PenStyle.SolidLine if which == "self" else Qt.PenStyle.DashLine
            colour = QColor(self._inks[side])
            line.setData(turns, values, pen=pg.mkPen(colour, width=2, style=style),
                         symbol="o" if which == "self" else "t", symbolSize=6,
                         symbolBrush=pg.mkBrush(colour), symbolPen=pg.mkPen(colour))
        points = state.influence_history if state is not None else []
        xs = [float(p.turn) for p in points]
        for side, line in self.influence_lines.items():
            ys = [p.ally if side == ALLY else p.keeper for p in points]
            colour = QColor(self._inks[side])
            line.setData(xs, ys, pen=pg.mkPen(colour, width=2), symbol="o", symbolSize=6,
                         symbolBrush=pg.mkBrush(colour), symbolPen=pg.mkPen(colour))
        last = max(turns + xs + [1.0])
        self.trait_plot.setXRange(0, last, padding=0.04)
        step = max(1, round(last / 6))
        for plot in (self.trait_plot, self.influence_plot):
            plot.getAxis("bottom").setTickSpacing(step, step)
        self.legend.setText(self._legend_html())

    def _legend_html(self) -> str:
        parts = []
        for side in (ALLY, KEEPER):
            colour = self._inks[side]
            name = html.escape(self._names.get(side, side))
            parts.append(f'<span style="color:{colour}">━━</span>&nbsp;{name} self '
                         f'&nbsp;<span style="color:{colour}">╍╍</span>&nbsp;observed')
        return "<br/>".join(parts)

    def _on_trait_combo_changed(self, _index: int) -> None:
        self._draw()


def _plot(name: str, title: str) -> pg.PlotWidget:
    plot = still_plot(name)
    plot.setAntialiasing(True)
    plot.setMinimumHeight(PLOT_MIN_HEIGHT)
    plot.setLabel("left", title)
    return plot
