"""A column of widgets, the layout the docks build most: `column_of(*parts)` is a widget
holding its parts top to bottom (a widget or a layout; a `(part, stretch)` pair takes a
share of the spare height), with no margins unless told. Must hold no engine logic.
"""

from __future__ import annotations

from PySide6.QtWidgets import QLayout, QVBoxLayout, QWidget

Part = QWidget | QLayout | tuple[QWidget | QLayout, int]
DOCK_MARGINS = (6, 4, 6, 4)  # around a dock's body


def column_of(*parts: Part, margins: tuple[int, int, int, int] = (0, 0, 0, 0)) -> QWidget:
    box = QWidget()
    layout = QVBoxLayout(box)
    layout.setContentsMargins(*margins)
    for part in parts:
        item, stretch = part if isinstance(part, tuple) else (part, 0)
        if isinstance(item, QLayout):
            layout.addLayout(item, stretch)
        else:
            layout.addWidget(item, stretch)
    return box
