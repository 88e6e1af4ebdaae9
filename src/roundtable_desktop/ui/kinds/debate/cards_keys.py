"""The Cards dock's keyboard: Enter in the grid adds the card, Delete (or Backspace) in
the hand removes its selected card.

Ctrl+Return is not taken here: it is the window's next step (the toolbar's, as the
status line names it) wherever the focus is; Deal has its own key (Alt+D, the button's).
An event filter that calls back into the dock: must hold no hand, no deck state and no
engine logic.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QWidget


class DebateCardsKeyFilter(QObject):
    def __init__(self, parent: QObject, *, grid: QWidget, hand_list: QWidget,
                 add: Callable[[], None], remove: Callable[[], None]) -> None:
        super().__init__(parent)
        self._grid, self._hand_list = grid, hand_list
        self._add, self._remove = add, remove

    def watch(self, *widgets: QWidget) -> None:
        for widget in widgets:
            widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            key = event.key()
            if watched is self._grid and key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) \
                    and not event.modifiers() & Qt.KeyboardModifier.ControlModifier:
                self._add()
                return True
            if watched is self._hand_list and key in (Qt.Key.Key_Delete,
                                                      Qt.Key.Key_Backspace):
                self._remove()
                return True
        return super().eventFilter(watched, event)
