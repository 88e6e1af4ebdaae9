"""The debates page: every past debate in the store (when, topic, hand, mode, outcome and
the claims' result), newest first, searchable by topic; Replay opens the chosen one in
the window's replay (it emits `sessionChosen(session_id)`, which the window hands to
its replay bar, as the session list does).

Rows come from history.py; debates that cannot be read are left out and
the notes under the list say which. A branch of a debate sits under the debate it left
from, with the step it left at (engine/session_tree.py, as in the session list). Open
it with `open()` (non-blocking).
Must not change or delete sessions; holds no engine logic.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from roundtable_desktop.domain.plural import count_of
from roundtable_desktop.engine.session_tree import branch_note, tree_of
from roundtable_desktop.store.database import SessionStore, StoreError
from roundtable_desktop.ui.dialogs.replay_list_dialog import ID_ROLE, ReplayListDialog
from roundtable_desktop.ui.kinds.debate.history import DebateRow, debate_rows
from roundtable_desktop.ui.text_label import buddy_label

COLUMNS = ("Date", "Topic", "Hand", "Mode", "Outcome", "Claims")
TOPIC, HAND = 1, 2


class DebateHistoryDialog(ReplayListDialog):
    def __init__(self, store: SessionStore, parent: QWidget | None = None) -> None:
        # Topic and hand share the spare width; each cell's tooltip has the whole text.
        super().__init__("debateHistoryList", COLUMNS, (TOPIC, HAND), parent,
                         leave=QDialogButtonBox.StandardButton.Close)
        self.setObjectName("debateHistoryDialog")
        self.setWindowTitle("Past debates")
        # Wide enough for topics and hands on a large screen; within a laptop's width.
        room = parent.width() - 120 if parent is not None else 1100
        self.resize(max(900, min(1500, room)), 560)
        self.search = QLineEdit()
        self.search.setObjectName("debateHistorySearch")
        self.search.setPlaceholderText("Search the topics")
        self.search.setClearButtonEnabled(True)
        self.count_label = QLabel()
        self.count_label.setObjectName("debateHistoryCount")
        self.notes = QLabel()
        self.notes.setObjectName("debateHistoryNotes")
        self.notes.setTextFormat(Qt.TextFormat.PlainText)
        self.notes.setWordWrap(True)
        self.tree.currentItemChanged.connect(self._on_tree_current_changed)
        self.search.textChanged.connect(self._on_search_text_changed)

        top = QHBoxLayout()
        top.addWidget(buddy_label("&Find", self.search))
        top.addWidget(self.search, 1)
        top.addWidget(self.count_label)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Debates open in replay, read-only: nothing in them "
                                "changes."))
        layout.addLayout(top)
        layout.addWidget(self.tree, 1)
        layout.addWidget(self.notes)
        layout.addWidget(self.buttons)
        self._rows, notes = debate_rows(store)
        try:
            self._origins = store.branch_origins()
        except StoreError:
            self._origins = {}  # the list still opens, without the tree
        self.notes.setText("\n".join(notes))
        self.notes.setVisible(bool(notes))
        self._fill()

    # -- reading (tests) ------------------------------------------------------------------
    def rows(self) -> list[DebateRow]:
        """The rows listed now (after the search), top to bottom, branches under their
        parent."""
        by_id = {r.session_id: r for r in self._rows}
        return [by_id[item.data(0, ID_ROLE)] for item in self.all_items()]

    def row_texts(self, index: int) -> list[str]:
        items = self.all_items()
        assert index < len(items), f"no row {index}"
        return [items[index].text(c) for c in range(len(COLUMNS))]

    def note_text(self) -> str:
        return self.notes.text()

    def choose(self, session_id: str) -> None:
        for item in self.all_items():
            if item.data(0, ID_ROLE) == session_id:
                self.tree.setCurrentItem(item)
                return

    # -- the list -----------------------------------------------------------------------------
    def _fill(self) -> None:
        wanted = self.search.text()
        shown = [r for r in self._rows if r.matches(wanted)]
        self.tree.clear()
        for row, depth, origin in tree_of(shown, self._origins, lambda r: r.session_id):
            hand = ", ".join(row.hand)
            note = branch_note(origin, under_parent=depth > 0)
            topic = f"[{note}] {row.topic}" if note else row.topic
            self.add_row([row.when, topic, hand, row.mode.capitalize(), row.outcome,
                          row.claims or "-"], row.session_id,
                         f"{topic}\nHand: {hand}\n{row.mode} · {row.outcome}"
                         f"{' · ' + row.claims if row.claims else ''}\n"
                         f"{row.when} · {count_of(row.calls, 'call')}",
                         under=origin.parent_id if depth and origin is not None else None)
        first = self.tree.topLevelItem(0)
        if shown and first is not None:
            self.tree.setCurrentItem(first)
        total = len(self._rows)
        if not total:
            self.count_label.setText("No debates are stored yet.")
        elif len(shown) == total:
            self.count_label.setText(count_of(total, "debate"))
        else:
            self.count_label.setText(f"{len(shown)} of {count_of(total, 'debate')}")
        self.replay_button.setEnabled(bool(shown))

    def _on_search_text_changed(self, _text: str) -> None:
        self._fill()

    def _on_tree_current_changed(self, current: QTreeWidgetItem | None, _prev: object) -> None:
        self.replay_button.setEnabled(current is not None)



def open_debates_page(window: Any) -> DebateHistoryDialog:
    """The page for the main window's store; the chosen debate opens in its replay. The
    window's menus keep the dialog alive and open it (MenuEntry.run)."""
    dialog = DebateHistoryDialog(window.runner.store, window)
    dialog.sessionChosen.connect(window.menus.start_replay)
    return dialog
