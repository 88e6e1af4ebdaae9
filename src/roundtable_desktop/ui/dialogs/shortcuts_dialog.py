"""Help › Keyboard shortcuts (F1): every shortcut the window has now, read from its menus.

The rows are generated from the menu bar's actions (the Session menu lists the shown
kind's toolbar actions, so the kind's own keys are there), so the table cannot drift
from what the keys do. A kind action's label loses its aside in brackets ("Infer" for
"Infer (Marguerite Osei)"): the table says what a key does, not who it is for now.
`markdown_table` writes the same rows for the README. Must not trigger any action.
"""

from __future__ import annotations

import re

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QMenu,
    QMenuBar,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from roundtable_desktop.ui.screen_fit import fit_to_screen

_ASIDE = re.compile(r"\s*\([^()]*\)")


def _words(text: str) -> str:
    plain = text.replace("&&", "\0").replace("&", "").replace("\0", "&")
    return " ".join(_ASIDE.sub("", plain).replace("…", "").split())


def _keys(action: QAction) -> str:
    return ", ".join(s.toString(QKeySequence.SequenceFormat.NativeText)
                     for s in action.shortcuts() if not s.isEmpty())


def shortcut_rows(bar: QMenuBar) -> list[tuple[str, str, str]]:
    """(menu, keys, what it does) for every menu entry with a shortcut, in menu order;
    an entry listed twice (a toolbar action in two menus) once."""
    rows: list[tuple[str, str, str]] = []
    seen: set[tuple[str, str]] = set()

    def walk(menu: QMenu, title: str) -> None:
        for action in menu.actions():
            sub = action.menu()
            if isinstance(sub, QMenu):
                walk(sub, title)
            elif keys := _keys(action):
                what = _words(action.text())
                if (keys, what) not in seen:
                    seen.add((keys, what))
                    rows.append((title, keys, what))

    for top in bar.actions():
        menu = top.menu()
        if isinstance(menu, QMenu):
            walk(menu, _words(top.text()))
    return rows


def markdown_table(rows: list[tuple[str, str, str]]) -> str:
    lines = ["| menu | keys | what it does |", "| --- | --- | --- |"]
    lines += [f"| {menu} | {keys} | {what} |" for menu, keys, what in rows]
    return "\n".join(lines)


class ShortcutsDialog(QDialog):
    def __init__(self, rows: list[tuple[str, str, str]], kind_title: str,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("shortcutsDialog")
        self.setWindowTitle(f"Keyboard shortcuts — {kind_title}" if kind_title
                            else "Keyboard shortcuts")
        self.table = QTableWidget(len(rows), 3, self)
        self.table.setObjectName("shortcutsTable")
        self.table.setHorizontalHeaderLabels(["Menu", "Keys", "What it does"])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        for row, cells in enumerate(rows):
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
                self.table.setItem(row, column, item)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        column = QVBoxLayout(self)
        column.addWidget(self.table)
        column.addWidget(buttons)
        fit_to_screen(self, 720, 640)
