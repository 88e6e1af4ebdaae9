"""Dialogs that fit the screen they open on: a 1366×768 laptop at presenter zoom too.

`fit_to_screen` sizes a dialog to what it would like, but never taller or wider than its
screen's available area (less a margin for the title bar). `scrolling_body` puts a tall
form in a scroll area, so its minimum height is no longer the sum of its fields. Must
hold no dialog logic.
"""

from __future__ import annotations

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QFrame, QScrollArea, QWidget

TITLE_BAR_PX = 48  # what a window manager's title bar and frame take


def available_height(widget: QWidget) -> int:
    screen = widget.screen() or QGuiApplication.primaryScreen()
    return screen.availableGeometry().height() if screen is not None else 768


def fit_to_screen(dialog: QWidget, width: int, height: int) -> None:
    """Resize to `width`×`height`, or to what the screen holds when that is less."""
    screen = dialog.screen() or QGuiApplication.primaryScreen()
    room = screen.availableGeometry() if screen is not None else None
    if room is not None:
        width = min(width, room.width() - 16)
        height = min(height, room.height() - TITLE_BAR_PX)
        dialog.setMaximumHeight(room.height() - TITLE_BAR_PX)
    dialog.resize(width, height)


def scrolling_body(body: QWidget) -> QScrollArea:
    """`body` inside a frameless scroll area that scrolls up and down only."""
    area = QScrollArea()
    area.setObjectName(f"{body.objectName() or 'dialog'}Scroll")
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidgetResizable(True)
    area.setWidget(body)
    return area
