"""The box a human seat writes in: an editor and its Send button, for every kind's chat.

The dock that holds it says why the seat may not send now (`blocked()`: "" when it may)
and adds what it shows beside the button to `row` (a status line, a Clear button); the
box keeps the two in step: the editor is enabled while the seat may write, Send while
there is also something written (with `empty_hint`, its tooltip says why not). Send —
the button, Ctrl+Return in a many-line editor, Enter in a one-line one — emits
`submitted(text)`, stripped, and clears the editor, unless the seat may not send or
`holding()` says the key is taken (a completer's popup is open). `send_from_toolbar()` is
the toolbar's send: what is written goes, else the cursor goes to the editor.
The editor and the button are named `<name>Editor` and `<name>Send`.
Must hold no engine logic: the dock, or the window, performs what is submitted.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

SEND_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter)


def _never() -> bool:
    return False


class SeatInput(QWidget):
    """Many lines: the editor above `row` (the Send button last). One line: the editor and
    the button side by side in `row`."""

    submitted = Signal(str)

    def __init__(self, name: str, *, blocked: Callable[[], str], one_line: bool = False,
                 send_text: str = "Send  (Ctrl+Return)", empty_hint: str | None = None,
                 holding: Callable[[], bool] = _never, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._blocked = blocked
        self._holding = holding
        self._empty_hint = empty_hint
        self.editor: QLineEdit | QPlainTextEdit
        if one_line:
            self.editor = QLineEdit()
            self.editor.setClearButtonEnabled(True)
            self.editor.returnPressed.connect(self.send)
        else:
            self.editor = QPlainTextEdit()
            self.editor.installEventFilter(self)  # Ctrl+Return sends
        self.editor.setObjectName(f"{name}Editor")
        self.editor.textChanged.connect(self._on_editor_text_changed)
        self.send_button = QPushButton(send_text)
        self.send_button.setObjectName(f"{name}Send")
        self.send_button.clicked.connect(self.send)

        if one_line:
            self.row = QHBoxLayout(self)
            self.row.addWidget(self.editor, 1)
        else:
            column = QVBoxLayout(self)
            column.setContentsMargins(0, 0, 0, 0)
            column.addWidget(self.editor, 1)
            self.row = QHBoxLayout()
            column.addLayout(self.row)
        self.row.setContentsMargins(0, 0, 0, 0)
        self.row.addWidget(self.send_button)

    # -- reading --------------------------------------------------------------------------------
    def written(self) -> str:
        """What the editor holds, as written."""
        editor = self.editor
        return editor.text() if isinstance(editor, QLineEdit) else editor.toPlainText()

    # -- keeping in step ------------------------------------------------------------------------
    def update_send(self) -> str:
        """Enable the editor and Send as the seat may; why it may not ("" when it may)."""
        why = self._blocked()
        self.editor.setEnabled(not why)
        enabled = not why and bool(self.written().strip())
        self.send_button.setEnabled(enabled)
        if self._empty_hint is not None:
            self.send_button.setToolTip("" if enabled else why or self._empty_hint)
        return why

    # -- sending --------------------------------------------------------------------------------
    def send(self) -> None:
        text = self.written().strip()
        if not text or self._blocked() or self._holding():
            return
        self.submitted.emit(text)
        self.editor.clear()

    def send_from_toolbar(self) -> None:
        """The toolbar's send: send what is written, else start writing."""
        if self.written().strip() and not self._blocked():
            self.send()
        elif self.editor.isEnabled():
            self.editor.setFocus()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (watched is self.editor and event.type() == QEvent.Type.KeyPress
                and isinstance(event, QKeyEvent) and event.key() in SEND_KEYS
                and event.modifiers() & Qt.KeyboardModifier.ControlModifier):
            self.send()
            return True
        return super().eventFilter(watched, event)

    def _on_editor_text_changed(self, *_text: str) -> None:
        self.update_send()
