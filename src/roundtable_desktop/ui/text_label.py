"""Labels the docks build the same way: `text_label` for a line of text the program
writes (named, wrapped; plain text unless told, so untrusted text is never read as rich
text; selectable for copying unless told), `buddy_label` for the mnemonic label of a
field, `make_bold` for a label or item that stands out, and `WrappedLabel` for a caption
that wraps onto a second line instead of being cut (ElidedLabel's reading API).
Must hold no engine logic.
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

Policy = QSizePolicy.Policy


class _HasFont(Protocol):
    def font(self) -> QFont: ...
    def setFont(self, font: QFont) -> None: ...


def make_bold(thing: _HasFont) -> None:
    """Draw a widget's (or a list item's) text bold."""
    font = thing.font()
    font.setBold(True)
    thing.setFont(font)


def text_label(name: str, *, bold: bool = False, plain: bool = True, selectable: bool = True,
               policy: tuple[Policy, Policy] | None = None) -> QLabel:
    """A wrapped label named `name`; `plain=False` lets Qt read markup (the program's own
    words only); `policy`: its horizontal and vertical size policy."""
    label = QLabel()
    label.setObjectName(name)
    label.setWordWrap(True)
    if plain:
        label.setTextFormat(Qt.TextFormat.PlainText)
    if selectable:
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    if policy is not None:
        label.setSizePolicy(*policy)
    if bold:
        make_bold(label)
    return label


def buddy_label(text: str, buddy: QWidget) -> QLabel:
    """The label of a field ("&Find"): its mnemonic moves the focus to `buddy`."""
    label = QLabel(text)
    label.setBuddy(buddy)
    return label


class WrappedLabel(QLabel):
    """Plain text that wraps to the width its layout gives it and never asks for more:
    a caption read from across a room is never cut to "…". It reads like ElidedLabel
    (`set_full_text`, `full_text`, `shown_text`), so either may stand in a dock."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setWordWrap(True)
        self.setSizePolicy(Policy.Ignored, Policy.Preferred)
        self.setText(text)

    def set_full_text(self, text: str) -> None:
        self.setText(text)

    def full_text(self) -> str:
        return self.text()

    def shown_text(self) -> str:
        return self.text()
