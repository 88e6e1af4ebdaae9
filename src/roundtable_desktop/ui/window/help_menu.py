"""The Help menu: Keyboard shortcuts (F1, from the menus as they are now) and Rehearse on
this screen… (`roundtable rehearse` at the window's size, in a child process, its lines
shown as they come). Must not perform session actions.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QProcess
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from roundtable_desktop.ui.dialogs.shortcuts_dialog import ShortcutsDialog, shortcut_rows
from roundtable_desktop.ui.screen_fit import fit_to_screen

if TYPE_CHECKING:
    from roundtable_desktop.ui.window.main_window import MainWindow


def rehearse_command(width: int, height: int) -> list[str]:
    """How to run `roundtable rehearse` at this size: the bundle's executable, or this
    interpreter with the package."""
    base = [sys.executable] if getattr(sys, "frozen", False) else \
        [sys.executable, "-m", "roundtable_desktop"]
    return [*base, "rehearse", "--size", f"{width}x{height}"]


class HelpMenu(QObject):
    def __init__(self, window: MainWindow, keep_open: Callable[[QWidget], None]) -> None:
        super().__init__(window)
        self.window = window
        self._keep_open = keep_open
        menu = window.menuBar().addMenu("&Help")
        self.menu = menu
        self.shortcuts_action = QAction("&Keyboard shortcuts", window)
        self.shortcuts_action.setObjectName("shortcutsAction")
        self.shortcuts_action.setShortcut(QKeySequence("F1"))
        self.shortcuts_action.triggered.connect(self.show_shortcuts)
        menu.addAction(self.shortcuts_action)
        self.rehearse_action = QAction("&Rehearse on this screen…", window)
        self.rehearse_action.setObjectName("rehearseAction")
        self.rehearse_action.triggered.connect(self.rehearse)
        menu.addAction(self.rehearse_action)

    def show_shortcuts(self) -> ShortcutsDialog:
        kind = self.window.kind
        dialog = ShortcutsDialog(shortcut_rows(self.window.menuBar()),
                                 kind.capitalize() if kind else "", self.window)
        self._keep_open(dialog)
        return dialog

    def rehearse(self) -> QDialog:
        """Every kind played offscreen at this window's size, in a child process (the
        live session is untouched); its lines appear as they come."""
        dialog = QDialog(self.window)
        dialog.setObjectName("rehearseDialog")
        dialog.setWindowTitle("Rehearsal")
        output = QPlainTextEdit(dialog)
        output.setObjectName("rehearseOutput")
        output.setReadOnly(True)
        output.setPlainText("Playing every kind offline, offscreen, at this window's size…")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, dialog)
        buttons.rejected.connect(dialog.reject)
        column = QVBoxLayout(dialog)
        column.addWidget(output)
        column.addWidget(buttons)
        fit_to_screen(dialog, 900, 480)
        process = QProcess(dialog)
        process.setProcessChannelMode(QProcess.ProcessChannelMode.MergedChannels)
        env = process.processEnvironment()
        env.insert("QT_QPA_PLATFORM", "offscreen")
        process.setProcessEnvironment(env)
        process.readyRead.connect(
            lambda: output.appendPlainText(bytes(process.readAll().data())
                                           .decode("utf-8", "replace").rstrip()))
        dialog.finished.connect(process.kill)
        command = rehearse_command(self.window.width(), self.window.height())
        process.start(command[0], command[1:])
        self._keep_open(dialog)
        return dialog
