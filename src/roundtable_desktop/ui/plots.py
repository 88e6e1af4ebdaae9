"""Plots the docks draw series on (pyqtgraph), built and coloured the same way.

`still_plot` is a plot that only shows: no buttons, no menu, no zoom or pan by the mouse,
a faint grid across unless told. `follow_palette` gives plots the theme's background, their axes the
theme's text colour and the dock's font (so zoom scales the ticks like every other text).
Must hold no engine logic.
"""

from __future__ import annotations

from collections.abc import Iterable

import pyqtgraph as pg
from PySide6.QtGui import QFont, QPalette


def still_plot(name: str, *, axis_items: dict[str, pg.AxisItem] | None = None,
               grid: bool = True) -> pg.PlotWidget:
    plot = pg.PlotWidget(axisItems=axis_items)
    plot.setObjectName(name)
    item = plot.getPlotItem()
    item.hideButtons()
    item.setMenuEnabled(False)
    item.setMouseEnabled(x=False, y=False)
    if grid:
        item.showGrid(x=False, y=True, alpha=0.25)
    return plot


def follow_palette(plots: Iterable[pg.PlotWidget], palette: QPalette, font: QFont) -> None:
    text = palette.color(QPalette.ColorRole.Text)
    for plot in plots:
        plot.setBackground(palette.color(QPalette.ColorRole.Base))
        item = plot.getPlotItem()
        for side in ("left", "bottom"):
            axis = item.getAxis(side)
            axis.setPen(pg.mkPen(text))
            axis.setTextPen(pg.mkPen(text))
            axis.setTickFont(font)
            axis.label.setFont(font)
