"""The pane under the payload: the reply the shown tab's call streams, as plain text.

A heading says how the call is going (streaming, done in how long, what went wrong) and
a read-only plain-text area holds the reply: model text is never markup here. Showing
the same tab again appends only what arrived since (one insert, following the end if
the reader is there); another tab's reply replaces the text. Must not know sessions,
calls in flight or the bridge (context_view.py hands it the tab).
"""

from __future__ import annotations

from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QPlainTextEdit, QVBoxLayout, QWidget

from roundtable_desktop.ui.context.payload_tabs import PayloadTab
from roundtable_desktop.ui.elided_label import ElidedLabel
from roundtable_desktop.ui.theme import monospace_font


class ReplyPane(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("replyPane")
        self.heading = ElidedLabel("")
        self.heading.setObjectName("replyHeading")
        self.text_view = QPlainTextEdit()
        self.text_view.setObjectName("replyText")
        self.text_view.setReadOnly(True)
        self.text_view.setUndoRedoEnabled(False)
        self.text_view.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        # The family only: the window's stylesheet sets the size, so zoom scales it.
        family = monospace_font(self.font()).family().replace('"', "")
        self.text_view.setStyleSheet(f'QPlainTextEdit {{ font-family: "{family}", monospace; }}')
        column = QVBoxLayout(self)
        # Two lines at least: the centre may be short (a laptop, the end panel above).
        self.text_view.setMinimumHeight(2 * self.text_view.fontMetrics().lineSpacing() + 12)
        column.setContentsMargins(6, 4, 6, 0)
        column.setSpacing(2)
        column.addWidget(self.heading)
        column.addWidget(self.text_view, 1)
        self._key: str | None = None  # whose reply the pane holds
        self._shown = ""  # the text it holds

    @property
    def key(self) -> str | None:
        return self._key

    def text(self) -> str:
        return self.text_view.toPlainText()

    def clear_tab(self) -> None:
        self._key, self._shown = None, ""

    def show_tab(self, tab: PayloadTab) -> None:
        """Show `tab`'s reply: only what arrived since, if it is the tab shown already."""
        self.heading.set_full_text(tab.reply_heading())
        if tab.key != self._key or not tab.reply.startswith(self._shown):
            self._key, self._shown = tab.key, tab.reply
            self.text_view.setPlainText(tab.reply)
            self._scroll_to_end()
            return
        added = tab.reply[len(self._shown):]
        if not added:
            return
        bar = self.text_view.verticalScrollBar()
        follow = bar.value() >= bar.maximum() - 4
        cursor = QTextCursor(self.text_view.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertText(added)
        self._shown = tab.reply
        if follow:
            self._scroll_to_end()

    def _scroll_to_end(self) -> None:
        bar = self.text_view.verticalScrollBar()
        bar.setValue(bar.maximum())
