"""The Cards dock's keyboard: Enter in the grid adds the card, Delete (or Backspace) in
the hand removes its selected card, Ctrl+Return anywhere in the dock deals.

Ctrl+Return is taken at ShortcutOverride so the window's Ctrl+Return (the session's
step) does not fire while the dock has the focus. An event filter that calls back into
the dock: must hold no hand, no deck state and no engine logic.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QWidget


class DebateCardsKeyFilter(QObject):
    def __init__(self, parent: QObject, *, grid: QWidget, hand_list: QWidget,
                 deal: Callable[[], object], add: Callable[[], None],
                 remove: Callable[[], None]) -> None:
        super().__init__(parent)
        self._grid, self._hand_list = grid, hand_list
        self._deal, self._add, self._remove = deal, add, remove

    def watch(self, *widgets: QWidget) -> None:
        for widget in widgets:
            widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress) \
                and isinstance(event, QKeyEvent) and is_deal_key(event):
            if kind == QEvent.Type.ShortcutOverride:
                event.accept()  # ours, not the window's: it comes back as a key press
            else:
                self._deal()
            return True
        if kind == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
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


def is_deal_key(event: QKeyEvent) -> bool:
    return event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and bool(
        event.modifiers() & Qt.KeyboardModifier.ControlModifier)
