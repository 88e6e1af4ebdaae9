"""`@name` completion for the Commander's line: while the word being written starts with
"@", a popup offers the minions whose names begin with it; choosing one puts "@Name "
in place of the word. Must hold no engine logic.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QStringListModel, Qt
from PySide6.QtWidgets import QCompleter, QLineEdit


class MentionCompleter(QCompleter):
    """A completer bound to one line edit, completing the "@word" at its cursor."""

    def __init__(self, editor: QLineEdit, parent: QObject | None = None) -> None:
        self._names = QStringListModel()
        super().__init__(self._names, parent)
        self._names.setParent(self)
        self._editor = editor
        self.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        self.setWidget(editor)
        editor.textEdited.connect(self._on_editor_text_edited)
        on_text = self.activated[str]  # type: ignore[index]  # stubs lack Signal[type]
        on_text.connect(self._on_activated)

    def set_names(self, names: list[str]) -> None:
        """The minions' names, without the "@"."""
        wanted = [f"@{name}" for name in names]
        if self._names.stringList() != wanted:  # a reset would drop the prefix's filter
            self._names.setStringList(wanted)

    def choices(self) -> list[str]:
        """What the popup offers for the word being written now."""
        model = self.completionModel()
        return [model.index(i, 0).data() for i in range(model.rowCount())]

    def showing(self) -> bool:
        return self.popup().isVisible()  # type: ignore[union-attr]  # popup() makes one: never None

    def _word(self) -> tuple[int, str]:
        """Where the word being written starts, and the word ("@Al")."""
        text, cursor = self._editor.text(), self._editor.cursorPosition()
        start = cursor
        while start > 0 and not text[start - 1].isspace():
            start -= 1
        return start, text[start:cursor]

    def _on_editor_text_edited(self, _text: str) -> None:
        _start, word = self._word()
        if not word.startswith("@"):
            self.popup().hide()  # type: ignore[union-attr]  # popup() makes one: never None
            return
        self.setCompletionPrefix(word)
        if self.completionCount() == 0:
            self.popup().hide()  # type: ignore[union-attr]  # popup() makes one: never None
            return
        self.complete()

    def _on_activated(self, choice: str) -> None:
        start, word = self._word()
        text = self._editor.text()
        end = start + len(word)
        self._editor.setText(f"{text[:start]}{choice} {text[end:].lstrip()}")
        self._editor.setCursorPosition(start + len(choice) + 1)
