"""The session toolbar's parts: the Stop bar, a spin box that behaves on a crowded
toolbar, the "»" button's room and the list of kinds (the New session dialog's).

Must hold no session logic: session_toolbar.py decides what they show.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QAction, QKeySequence, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QProxyStyle,
    QSpinBox,
    QStyle,
    QStyleOption,
    QToolBar,
    QWidget,
)

from roundtable_desktop.engine.registry import all_kinds

OVERFLOW_TEXT = "»"
KIND_NAME = Qt.ItemDataRole.UserRole  # where a kind's or scenario's name is kept


def keys_text(shortcut: str) -> str:
    """A spec's shortcut as this platform writes it ("" for none)."""
    return QKeySequence(shortcut).toString(QKeySequence.SequenceFormat.NativeText)


class StopBar(QToolBar):
    """Stop on a toolbar of its own, right after the session toolbar on its line: a
    main-window toolbar line gives each toolbar at least its minimum width (here, the
    Stop button) and squeezes the others first, so however narrow the window, the
    session toolbar's overflow menu takes the other actions and Stop stays shown."""

    def __init__(self, session_bar: QToolBar) -> None:
        super().__init__("Stop", session_bar.parentWidget())
        self._session_bar = session_bar
        self.setObjectName("stopToolBar")
        self.setMovable(False)
        self.setFloatable(False)
        self.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.toggleViewAction().setVisible(False)  # it follows the session toolbar
        self.stop: QAction | None = None

    def set_stop(self, stop: QAction | None) -> None:
        if stop is self.stop:
            return
        if self.stop is not None:
            self.removeAction(self.stop)
        self.stop = stop
        if stop is not None:
            self.addAction(stop)
        self.setVisible(stop is not None and not self._session_bar.isHidden())


class WholeSpinBox(QSpinBox):
    """A spin box that is never squeezed: the toolbar decides what fits by its entries'
    minimum widths, and a spin box narrower than its text made it squeeze the buttons
    before it ("Infer (Mar…rite Osei)") instead of moving the last ones into "»"."""

    def minimumSizeHint(self) -> QSize:
        return self.sizeHint()


class OverflowStyle(QProxyStyle):
    """Makes room for the "»" button: Qt's fixed 12 px extent cannot hold a glyph at a
    readable size, and a stylesheet width only pushes the button out of the window."""

    def pixelMetric(self, metric: QStyle.PixelMetric, option: QStyleOption | None = None,
                    widget: QWidget | None = None) -> int:
        if metric == QStyle.PixelMetric.PM_ToolBarExtensionExtent and widget is not None:
            metrics = widget.fontMetrics()
            return metrics.horizontalAdvance(OVERFLOW_TEXT) + 2 * metrics.height()
        return super().pixelMetric(metric, option, widget)


def kind_model() -> QStandardItemModel:
    """Every registered kind, in the order they were registered."""
    model = QStandardItemModel()
    for spec in all_kinds():
        item = QStandardItem(spec.name.capitalize())
        item.setData(spec.name, KIND_NAME)
        item.setToolTip(f"{spec.title}: {spec.description}")
        model.appendRow(item)
    return model
