"""The base of a dialog that lists stored sessions to replay (the session list, a kind's
page of its past sessions): one row a session (its id kept on the row, every cell's
tooltip the row's whole text, escaped: titles are untrusted), the chosen columns taking
the spare width; Replay, Enter or a double-click emits `sessionChosen(session_id)` and
closes, and the window hands the id to its replay. Subclasses fill the rows (`add_row`)
and lay the dialog out. Open it with `open()` (non-blocking).
Must not change or delete sessions.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QTreeWidget,
    QTreeWidgetItem,
    QWidget,
)

from roundtable_desktop.ui.docks.bridge_dock import plain_tooltip

ID_ROLE = Qt.ItemDataRole.UserRole
Button = QDialogButtonBox.StandardButton


class ReplayListDialog(QDialog):
    sessionChosen = Signal(str)

    def __init__(self, name: str, columns: Sequence[str], stretch: Sequence[int],
                 parent: QWidget | None = None, *, leave: Button = Button.Cancel) -> None:
        super().__init__(parent)
        self.tree = QTreeWidget()
        self.tree.setObjectName(name)
        self.tree.setHeaderLabels(list(columns))
        self.tree.setRootIsDecorated(False)
        self.tree.setAlternatingRowColors(True)
        header = self.tree.header()
        header.setStretchLastSection(False)  # the chosen columns stretch, not the last
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        for column in stretch:
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Stretch)
        self.buttons = QDialogButtonBox(Button.Open | leave)
        self.replay_button = self.buttons.button(Button.Open)
        self.replay_button.setText("Replay")
        self.buttons.accepted.connect(self._on_replay_clicked)
        self.buttons.rejected.connect(self.reject)
        self.tree.itemActivated.connect(self._on_tree_item_activated)

    def add_row(self, cells: Sequence[str], session_id: str, tip: str) -> QTreeWidgetItem:
        """A row for `session_id`; `tip` (plain text) is every cell's tooltip."""
        item = QTreeWidgetItem(list(cells))
        item.setData(0, ID_ROLE, session_id)
        for column in range(len(cells)):
            item.setToolTip(column, plain_tooltip(tip))
        self.tree.addTopLevelItem(item)
        return item

    def _on_tree_item_activated(self, _item: QTreeWidgetItem, _column: int) -> None:
        self._on_replay_clicked()

    def _on_replay_clicked(self) -> None:
        item = self.tree.currentItem()
        if item is None:
            return
        self.sessionChosen.emit(item.data(0, ID_ROLE))
        self.accept()
