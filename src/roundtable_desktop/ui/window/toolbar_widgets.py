"""The session toolbar's parts: the Stop bar, a spin box and a combo box that behave on a
crowded toolbar, the "»" button's room, the labelled pickers and the list of kinds.

Must hold no session logic: session_toolbar.py decides what they show.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QAction, QKeySequence, QPaintEvent, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QProxyStyle,
    QSpinBox,
    QStyle,
    QStyleOption,
    QStyleOptionComboBox,
    QStylePainter,
    QToolBar,
    QWidget,
)

from roundtable_desktop.engine.registry import all_kinds
from roundtable_desktop.ui.elided_label import elide_words

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


class ElidingCombo(QComboBox):
    """A combo box that shows the whole words of its choice that fit, then "…" (a long
    scenario title), never a word cut off at its edge; the list shows titles whole."""

    def paintEvent(self, _event: QPaintEvent) -> None:
        painter = QStylePainter(self)
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        painter.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, option)
        field = self.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                            QStyle.SubControl.SC_ComboBoxEditField, self)
        metrics = self.fontMetrics()
        option.currentText = elide_words(
            option.currentText, lambda t: metrics.horizontalAdvance(t) <= field.width() - 4)
        painter.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, option)


class OverflowStyle(QProxyStyle):
    """Makes room for the "»" button: Qt's fixed 12 px extent cannot hold a glyph at a
    readable size, and a stylesheet width only pushes the button out of the window."""

    def pixelMetric(self, metric: QStyle.PixelMetric, option: QStyleOption | None = None,
                    widget: QWidget | None = None) -> int:
        if metric == QStyle.PixelMetric.PM_ToolBarExtensionExtent and widget is not None:
            metrics = widget.fontMetrics()
            return metrics.horizontalAdvance(OVERFLOW_TEXT) + 2 * metrics.height()
        return super().pixelMetric(metric, option, widget)


def labelled(text: str, fields: tuple[QWidget, ...], parent: QWidget) -> QWidget:
    """A label and its fields as one toolbar entry, so they overflow together."""
    box = QWidget(parent)
    box.setObjectName("newSessionPickers")
    row = QHBoxLayout(box)
    row.setContentsMargins(12, 0, 0, 0)  # apart from the actions: it starts a new session
    row.setSpacing(4)
    label = QLabel(text, box)
    label.setToolTip("Choose a kind, then a scenario: each choice starts a new session "
                     "(New session, Ctrl+N, starts another of the same)")
    row.addWidget(label)
    for field in fields:
        row.addWidget(field)
    return box


def kind_model() -> QStandardItemModel:
    """Every registered kind, in the order they were registered."""
    model = QStandardItemModel()
    for spec in all_kinds():
        item = QStandardItem(spec.name.capitalize())
        item.setData(spec.name, KIND_NAME)
        item.setToolTip(f"{spec.title}: {spec.description}")
        model.appendRow(item)
    return model
