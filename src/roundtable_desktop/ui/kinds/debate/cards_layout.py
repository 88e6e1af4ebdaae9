"""How the Cards dock's widgets are arranged: the deck row and its topic, then grid,
detail and hand sharing the height in a splitter (so a laptop's dock shows all three,
each scrolling inside), then the topic, the schedule and the deal row, always in sight
below. Builds layouts only: must hold no hand, no deck state and no engine logic.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSizePolicy,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from roundtable_desktop.ui.layouts import DOCK_MARGINS, column_of
from roundtable_desktop.ui.text_label import buddy_label


def row_of(*parts: tuple[QWidget, int]) -> QHBoxLayout:
    row = QHBoxLayout()
    for widget, stretch in parts:
        row.addWidget(widget, stretch)
    return row


class CardsSplitter(QSplitter):
    """Prefers no more height than its minimum: the body's preferred height (which a
    scroll area around the dock gives it, ui/window/dock_set.py) then keeps the deal
    row in sight on a laptop, and the splitter stretches into what is left."""

    def sizeHint(self) -> QSize:
        return QSize(super().sizeHint().width(), self.minimumSizeHint().height())


def cards_splitter(grid: QWidget, detail: QWidget, hand: QWidget, line: int) -> QSplitter:
    """Grid, detail and hand at 3:3:2, none collapsible, each at least three lines."""
    splitter = CardsSplitter(Qt.Orientation.Vertical)
    splitter.setObjectName("debateCardsSplitter")
    splitter.setChildrenCollapsible(False)
    for widget, stretch in ((grid, 3), (detail, 3), (hand, 2)):
        widget.setMinimumHeight(line * 3)
        splitter.addWidget(widget)
        splitter.setStretchFactor(splitter.count() - 1, stretch)
    return splitter


def hand_box(label: QLabel, add: QWidget, remove: QWidget, hand_list: QWidget) -> QWidget:
    return column_of(row_of((label, 1), (add, 0), (remove, 0)), (hand_list, 1))


def topic_row(topic: QLineEdit) -> QHBoxLayout:
    label = buddy_label("&Topic", topic)
    label.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Preferred)
    return row_of((label, 0), (topic, 1))


def cards_body(deck_row: QHBoxLayout, deck_note: QWidget, splitter: QSplitter,
               topic: QHBoxLayout, schedule: QWidget, deal_row: QHBoxLayout) -> QWidget:
    body = QWidget()
    layout = QVBoxLayout(body)
    layout.setContentsMargins(*DOCK_MARGINS)
    layout.addLayout(deck_row)
    layout.addWidget(deck_note)
    layout.addWidget(splitter, 1)
    layout.addLayout(topic)
    layout.addWidget(schedule)
    layout.addLayout(deal_row)
    return body
