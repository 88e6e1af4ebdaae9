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

    def add_row(self, cells: Sequence[str], session_id: str, tip: str, *,
                under: str | None = None) -> QTreeWidgetItem:
        """A row for `session_id`; `tip` (plain text) is every cell's tooltip. A branch
        names its parent (`under`): it sits under the parent's row when that is listed."""
        item = QTreeWidgetItem(list(cells))
        item.setData(0, ID_ROLE, session_id)
        for column in range(len(cells)):
            item.setToolTip(column, plain_tooltip(tip))
        parent = next((i for i in self.all_items() if i.data(0, ID_ROLE) == under), None) \
            if under else None
        if parent is not None:
            parent.addChild(item)
            parent.setExpanded(True)
        else:
            self.tree.addTopLevelItem(item)
        return item

    def all_items(self) -> list[QTreeWidgetItem]:
        """Every row, top to bottom, branches right under their parent."""
        found: list[QTreeWidgetItem] = []

        def add(item: QTreeWidgetItem | None) -> None:
            if item is None:
                return
            found.append(item)
            for index in range(item.childCount()):
                add(item.child(index))

        for index in range(self.tree.topLevelItemCount()):
            add(self.tree.topLevelItem(index))
        return found

    def _on_tree_item_activated(self, _item: QTreeWidgetItem, _column: int) -> None:
        self._on_replay_clicked()

    def _on_replay_clicked(self) -> None:
        item = self.tree.currentItem()
        if item is None:
            return
        self.sessionChosen.emit(item.data(0, ID_ROLE))
        self.accept()
