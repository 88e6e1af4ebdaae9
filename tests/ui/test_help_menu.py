"""Help: Keyboard shortcuts lists every shortcut of the kind shown, from the window's own
menus (so it cannot drift), the README has the same rows, and Rehearse runs
`roundtable rehearse` at the window's size. Export starts in the documents folder."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from PySide6.QtWidgets import QFileDialog

from roundtable_desktop.engine.registry import kind_names
from roundtable_desktop.ui.dialogs.shortcuts_dialog import ShortcutsDialog, shortcut_rows
from roundtable_desktop.ui.window.help_menu import rehearse_command
from roundtable_desktop.ui.window.menus import documents_folder
from tests.fakes.window_harness import WAIT_MS, running_qasync_loop, wait_idle, window_maker

pytestmark = pytest.mark.qt



@pytest.fixture
def make_window(qtbot, qapp):
    with running_qasync_loop(qapp), window_maker(qtbot) as make:
        yield make


README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("kind", kind_names())
def test_f1_lists_every_shortcut_of_the_kind_shown_and_the_readme_has_them(
    qtbot, make_window, kind
):
    window = make_window(start=False)
    window.runner.start_new(kind)
    qtbot.waitUntil(lambda: window.bridge.kind() == kind, timeout=WAIT_MS)
    wait_idle(qtbot, window)

    window.menus.help.shortcuts_action.trigger()

    qtbot.waitUntil(lambda: window.findChild(ShortcutsDialog) is not None, timeout=WAIT_MS)
    dialog = window.findChild(ShortcutsDialog)
    shown = {dialog.table.item(r, 1).text() for r in range(dialog.table.rowCount())}
    for qaction in window.toolbar.qactions.values():
        if not qaction.shortcut().isEmpty():
            assert qaction.shortcut().toString() in shown, qaction.text()
    for menu, keys, what in shortcut_rows(window.menuBar()):
        where = f"Session ({kind})" if menu == "Session" else menu
        assert f"| {where} | {keys} | {what} |" in README, (where, keys, what)
    dialog.reject()


def test_rehearse_runs_the_rehearsal_at_the_window_size():
    command = rehearse_command(1366, 768)

    assert command[:3] == [sys.executable, "-m", "roundtable_desktop"]
    assert command[3:] == ["rehearse", "--size", "1366x768"]


def test_an_export_starts_in_the_documents_folder(qtbot, make_window, tmp_path, monkeypatch):
    documents = tmp_path / "home" / "Documents"
    documents.mkdir(parents=True, exist_ok=True)
    window = make_window()

    window.menus.export("md")

    qtbot.waitUntil(lambda: window.findChild(QFileDialog) is not None, timeout=WAIT_MS)
    dialog = window.findChild(QFileDialog)
    assert Path(dialog.directory().absolutePath()) == documents_folder()
    assert documents_folder() == documents
    dialog.reject()
