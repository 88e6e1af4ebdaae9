"""Choose a stored session to replay: title, kind, status, when, and how many calls; a
branch sits under the session it left from, with the step.

Emits `sessionChosen(session_id)`; the window hands it to the ReplayBar. Open it with
`open()` (non-blocking). The title column takes the spare width and every cell's
tooltip has the full title. Must not change or delete sessions.
"""

from __future__ import annotations

import time

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox, QLabel, QVBoxLayout, QWidget

from roundtable_desktop.engine.session_tree import branch_note, session_tree
from roundtable_desktop.store.database import SessionStore
from roundtable_desktop.store.errors import StoreError
from roundtable_desktop.ui.dialogs.replay_list_dialog import ReplayListDialog

COLUMNS = ("Title", "Kind", "Status", "Last active", "Calls", "Id")


class SessionListDialog(ReplayListDialog):
    def __init__(self, store: SessionStore, parent: QWidget | None = None) -> None:
        super().__init__("sessionList", COLUMNS, (0,), parent,
                         leave=QDialogButtonBox.StandardButton.Cancel)
        self.setWindowTitle("Replay a session")
        self.resize(1000, 520)
        self.message = QLabel()
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Sessions are opened read-only; nothing in them changes."))
        layout.addWidget(self.tree, 1)
        layout.addWidget(self.message)
        layout.addWidget(self.buttons)
        self._fill(store)

    def _fill(self, store: SessionStore) -> None:
        try:
            sessions = store.list_sessions(limit=500)
            origins = store.branch_origins()
        except StoreError as exc:
            self.message.setText(str(exc))
            sessions, origins = [], {}
        for info, depth, origin in session_tree(sessions, origins):
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(info.updated_at))
            note = branch_note(origin, under_parent=depth > 0)
            title = f"[{note}] {info.title}" if note else info.title
            self.add_row([title, info.kind, info.status, when, str(info.call_count),
                          info.id[:8]], info.id,
                         f"{title}\n{info.kind} · {info.status} · {when}\nid: {info.id}",
                         under=origin.parent_id if depth and origin is not None else None)
        first = self.tree.topLevelItem(0)
        if sessions and first is not None:
            self.tree.setCurrentItem(first)
        else:
            self.message.setText(self.message.text() or "No sessions are stored yet.")
        self.replay_button.setEnabled(bool(sessions))
