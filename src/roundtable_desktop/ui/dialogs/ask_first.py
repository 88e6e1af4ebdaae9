"""The question asked before an action that throws work away or ends something for
good: what will be lost, in the kind's words (ui/kinds/spec.py `AskFirst`), with the
action's own name on the button that does it and Cancel as the default.

`AskFirstBox` is a QMessageBox opened with `open()` (never `exec()`: the window runs on
qasync, see PITFALLS.md): `open_question` shows it and calls `on_yes` from the slot of
the yes button's click; closing it any other way does nothing. Must hold no engine
logic and perform nothing itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from PySide6.QtWidgets import QAbstractButton, QMessageBox, QPushButton, QWidget


class AskFirst(Protocol):
    """What the question reads (ui/kinds/spec.py `AskFirst` is one): read by shape, so a
    kind's window may ask it without this module importing the kinds' spec."""

    @property
    def text(self) -> str: ...
    @property
    def yes(self) -> str: ...
    @property
    def detail(self) -> str: ...


class AskFirstBox(QMessageBox):
    """One question; `yes_button` does what it asks about."""

    def __init__(self, question: AskFirst, on_yes: Callable[[], None],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("askFirstBox")
        self.setIcon(QMessageBox.Icon.Question)
        self.setWindowTitle(question.yes)
        self.setText(question.text)
        self.setInformativeText(question.detail)
        self.yes_button: QPushButton = self.addButton(question.yes,
                                                      QMessageBox.ButtonRole.AcceptRole)
        self.yes_button.setObjectName("askFirstYes")
        cancel = self.addButton(QMessageBox.StandardButton.Cancel)
        self.setDefaultButton(cancel)  # Enter keeps the work; the action takes a click
        self.setEscapeButton(cancel)
        self._on_yes = on_yes
        self.buttonClicked.connect(self._on_button_clicked)

    def _on_button_clicked(self, button: QAbstractButton) -> None:
        if button is self.yes_button:
            self._on_yes()


def open_question(parent: QWidget, question: AskFirst,
                  on_yes: Callable[[], None]) -> AskFirstBox:
    """Show `question` beside `parent` (window-modal, not blocking); deleted once done."""
    box = AskFirstBox(question, on_yes, parent)
    box.finished.connect(box.deleteLater)
    box.open()
    return box
