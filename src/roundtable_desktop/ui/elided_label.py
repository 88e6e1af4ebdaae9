"""A one-line label that never asks for the width of its text, and the word-wise
eliding it uses.

It takes the width its layout gives it and shows the whole words that fit, then "…",
never a word cut in the middle; the full text is its tooltip. So a long message (a
status line, a speaker's name) can never make its window wider. Must not hold any
session logic.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

ELLIPSIS = "…"
_TRAILING = " ,;:·—–-"  # dropped before the ellipsis: "Waiting for you…", not "you —…"


def elide_words(text: str, fits: Callable[[str], bool]) -> str:
    """`text` if it fits, else the longest run of its first whole words that fits with
    "…" after it, else "…" alone: never a word cut in the middle."""
    if fits(text):
        return text
    words = text.split(" ")
    for count in range(len(words) - 1, 0, -1):
        head = " ".join(words[:count]).rstrip(_TRAILING)
        if head and fits(head + ELLIPSIS):
            return head + ELLIPSIS
    return ELLIPSIS


class ElidedLabel(QLabel):
    """One line of plain text that takes the width its layout gives it and never asks for
    more: the whole words that fit, then "…"; the full text is the tooltip."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setWordWrap(False)
        # Ignored: the layout gives it room by stretch, never by the text's length.
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self._full = ""
        self.set_full_text(text)

    def set_full_text(self, text: str) -> None:
        self._full = text
        self.setToolTip(text)
        self._elide()

    def full_text(self) -> str:
        return self._full

    def shown_text(self) -> str:
        return self.text()

    def minimumSizeHint(self) -> QSize:
        margins = self.contentsMargins()
        width = self.fontMetrics().horizontalAdvance(ELLIPSIS) + margins.left() + margins.right()
        return QSize(width, super().minimumSizeHint().height())

    def sizeHint(self) -> QSize:  # from the full text, so eliding never changes it
        margins = self.contentsMargins()
        width = self.fontMetrics().horizontalAdvance(self._full) + margins.left() + margins.right()
        return QSize(width, super().sizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._elide()  # zoom: the same width holds fewer words

    def _elide(self) -> None:
        room = self.contentsRect().width()
        metrics = self.fontMetrics()
        shown = elide_words(self._full, lambda t: metrics.horizontalAdvance(t) <= room)
        if shown != self.text():
            self.setText(shown)
