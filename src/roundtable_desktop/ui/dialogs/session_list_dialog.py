"""Choose a stored session to replay: title, kind, status, when, and how many calls.

Emits `sessionChosen(session_id)`; the window hands it to the ReplayBar. Open it with
`open()` (non-blocking). The title column takes the spare width and every cell's
tooltip has the full title. Must not change or delete sessions.
"""

from __future__ import annotations

import html
import time

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from roundtable_desktop.store.database import SessionStore
from roundtable_desktop.store.errors import StoreError

_ID_ROLE = Qt.ItemDataRole.UserRole


class SessionListDialog(QDialog):
    sessionChosen = Signal(str)

    def __init__(self, store: SessionStore, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Replay a session")
        self.resize(1000, 520)
        self.tree = QTreeWidget()
        self.tree.setObjectName("sessionList")
        self.tree.setHeaderLabels(["Title", "Kind", "Status", "Last active", "Calls", "Id"])
        self.tree.setRootIsDecorated(False)
        self.tree.setAlternatingRowColors(True)
        header = self.tree.header()
        header.setStretchLastSection(False)  # the title stretches, not the id
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.message = QLabel()
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Open | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.button(QDialogButtonBox.StandardButton.Open).setText("Replay")
        self.buttons.accepted.connect(self._on_replay_clicked)
        self.buttons.rejected.connect(self.reject)
        self.tree.itemActivated.connect(lambda *_: self._on_replay_clicked())
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Sessions are opened read-only; nothing in them changes."))
        layout.addWidget(self.tree, 1)
        layout.addWidget(self.message)
        layout.addWidget(self.buttons)
        self._fill(store)

    def _fill(self, store: SessionStore) -> None:
        try:
            sessions = store.list_sessions(limit=500)
        except StoreError as exc:
            self.message.setText(str(exc))
            sessions = []
        for info in sessions:
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(info.updated_at))
            item = QTreeWidgetItem(
                [info.title, info.kind, info.status, when, str(info.call_count), info.id[:8]]
            )
            item.setData(0, _ID_ROLE, info.id)
            # Titles are untrusted: escaped, or Qt would guess they are rich text.
            tip = html.escape(f"{info.title}\n{info.kind} · {info.status} · {when}\nid: {info.id}")
            tip = f"<p style='white-space:pre-wrap'>{tip}</p>"
            for col in range(self.tree.columnCount()):
                item.setToolTip(col, tip)
            self.tree.addTopLevelItem(item)
        first = self.tree.topLevelItem(0)
        if sessions and first is not None:
            self.tree.setCurrentItem(first)
        else:
            self.message.setText(self.message.text() or "No sessions are stored yet.")
        self.buttons.button(QDialogButtonBox.StandardButton.Open).setEnabled(bool(sessions))

    def _on_replay_clicked(self) -> None:
        item = self.tree.currentItem()
        if item is None:
            return
        self.sessionChosen.emit(item.data(0, _ID_ROLE))
        self.accept()
