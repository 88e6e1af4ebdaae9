"""The Sequencer's turn in progress: the planner's options waiting for a pick, and the
draft waiting before SEND.

Options (confirm mode, the turn stopped at PLAN): one large button per option, "1 ·
PROPOSE" over the option's text (wrapped), keys 1-6 pick them while the window is
active (a text box being typed in keeps its digits). `picked(index)` is 0-based.
The draft (confirm mode, stopped before SEND): an editor holding the cleaned reply;
edits are kept in the engine (edit_draft) once typing pauses, so the toolbar's Send
draft sends them too; Send emits `sendRequested(text)`. The editor is never
overwritten while it holds edits not yet kept. Each part is hidden when nothing waits.
Must hold no engine logic: the dock performs what this emits.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QCommandLinkButton,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from roundtable_desktop.kinds.negotiation.state import NegotiationState

MAX_OPTIONS = 6
DRAFT_PAUSE_MS = 700


class TurnPanel(QWidget):
    picked = Signal(int)
    draftEdited = Signal(str)
    sendRequested = Signal(str)

    def __init__(self, shortcut_parent: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.options_box = QGroupBox("Planner options: pick one (keys 1-6)")
        self.options_box.setObjectName("optionsBox")
        options_column = QVBoxLayout(self.options_box)
        options_column.setSpacing(4)
        self.option_buttons: list[QCommandLinkButton] = []
        self.shortcuts: list[QShortcut] = []
        for index in range(MAX_OPTIONS):
            button = QCommandLinkButton()
            button.setObjectName(f"option_{index + 1}")
            policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
            policy.setHeightForWidth(True)  # the text wraps to the dock's width
            button.setSizePolicy(policy)
            button.clicked.connect(lambda _=False, i=index: self._on_option_chosen(i))
            options_column.addWidget(button)
            self.option_buttons.append(button)
            key = QShortcut(QKeySequence(str(index + 1)), shortcut_parent)
            key.setContext(Qt.ShortcutContext.WindowShortcut)
            key.activated.connect(lambda i=index: self._on_option_chosen(i))
            self.shortcuts.append(key)

        self.draft_box = QGroupBox("Draft: edit it or send it")
        self.draft_box.setObjectName("draftBox")
        self.draft_edit = QPlainTextEdit()
        self.draft_edit.setObjectName("draftEditor")
        self.draft_edit.setTabChangesFocus(True)
        self.draft_edit.setFixedHeight(self.draft_edit.fontMetrics().lineSpacing() * 5 + 12)
        self.draft_edit.textChanged.connect(self._on_draft_edit_text_changed)
        self.draft_note = QLabel()
        self.draft_note.setObjectName("draftNote")
        self.draft_note.setWordWrap(True)
        self.draft_note.setTextFormat(Qt.TextFormat.PlainText)
        self.send_button = QPushButton("Send draft")
        self.send_button.setObjectName("draftSend")
        self.send_button.clicked.connect(self._on_send_clicked)
        row = QHBoxLayout()
        row.addWidget(self.draft_note, 1)
        row.addWidget(self.send_button)
        draft_column = QVBoxLayout(self.draft_box)
        draft_column.addWidget(self.draft_edit)
        draft_column.addLayout(row)
        self._draft_pause = QTimer(self)
        self._draft_pause.setSingleShot(True)
        self._draft_pause.setInterval(DRAFT_PAUSE_MS)
        self._draft_pause.timeout.connect(self._keep_draft)
        self._draft_loaded = ""
        self._filling = False

        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.options_box)
        column.addWidget(self.draft_box)
        self._count = 0
        self._enabled = False
        self.show_state(None, blocked="")

    # -- reading (tests) --------------------------------------------------------------------
    def options_shown(self) -> list[str]:
        return [b.description() for b in self.option_buttons[:self._count]
                if b.isVisibleTo(self)]

    def draft_text(self) -> str:
        return self.draft_edit.toPlainText()

    # -- filling ----------------------------------------------------------------------------
    def show_state(self, state: NegotiationState | None, *, blocked: str,
                   send_keys: str = "") -> None:
        cur = state.current if state is not None else None
        waiting_pick = bool(cur and cur.phase == "PLAN" and cur.options and not cur.human)
        waiting_send = bool(cur and cur.phase == "SPEAK" and cur.draft)
        options = cur.options if (cur is not None and waiting_pick) else []
        self._count = min(len(options), MAX_OPTIONS)
        self._enabled = waiting_pick and not blocked
        for index, button in enumerate(self.option_buttons):
            if index < self._count:
                option = options[index]
                button.setText(f"{index + 1} · {option.act}")
                button.setDescription(option.text)
                button.setEnabled(self._enabled)
                button.setToolTip(blocked or f"Pick this option (key {index + 1}): it becomes "
                                  "FOCUS_THIS_TURN of the draft.")
            button.setVisible(index < self._count)
        for index, key in enumerate(self.shortcuts):
            key.setEnabled(self._enabled and index < self._count)
        if cur is not None and waiting_pick:
            failed = f" The last draft failed: {cur.draft_failed}." if cur.draft_failed else ""
            self.options_box.setTitle(f"{cur.side}'s options: pick one (keys 1-{self._count})"
                                      + ("" if not failed else " — retry"))
            self.options_box.setToolTip(failed.strip())
        self.options_box.setVisible(waiting_pick)

        self._filling = True
        try:
            draft = cur.draft if (cur is not None and waiting_send) else ""
            shown = self.draft_edit.toPlainText()
            if shown == self._draft_loaded and draft != shown:
                self.draft_edit.setPlainText(draft)
            if shown == self._draft_loaded or shown.strip() == draft.strip():
                self._draft_loaded = self.draft_edit.toPlainText()
        finally:
            self._filling = False
        if cur is not None and waiting_send:
            self.draft_box.setTitle(f"{cur.side}'s draft: edit it or send it")
            self.draft_note.setText(f"Act {cur.act or '?'}" + (
                f", intent {cur.intent}" if cur.intent else "") + ".")
        self.draft_edit.setEnabled(waiting_send and not blocked)
        self.send_button.setEnabled(waiting_send and not blocked)
        self.send_button.setText(f"Send draft ({send_keys})" if send_keys else "Send draft")
        self.draft_box.setVisible(waiting_send)

    # -- slots ------------------------------------------------------------------------------
    def _on_option_chosen(self, index: int) -> None:
        if self._enabled and index < self._count:
            self._enabled = False  # one pick per wait: a second key press does nothing
            self.picked.emit(index)

    def _on_draft_edit_text_changed(self) -> None:
        if not self._filling and self.draft_edit.toPlainText() != self._draft_loaded:
            self._draft_pause.start()

    def _keep_draft(self) -> None:
        text = self.draft_edit.toPlainText()
        if text.strip() and text != self._draft_loaded:
            self._draft_loaded = text
            self.draftEdited.emit(text)

    def _on_send_clicked(self) -> None:
        self._draft_pause.stop()
        text = self.draft_edit.toPlainText()
        self._draft_loaded = text
        self.sendRequested.emit(text)
