"""The window's menus and what their entries do. File: New session, Open recent, Export,
Settings, Quit; View: dock toggles, theme, zoom, presenter mode; Session: the
toolbar's actions (the same QAction objects, so their shortcuts always work; listed
again whenever the toolbar rebuilds them for another kind), the shown kind's own entries
(WindowKind.menu_entries: their shortcuts work while the kind is shown), then Replay
(Ctrl+Shift+R) and Back to the live session.

File dialogs and the settings dialog are opened with `.open()` (never `exec()`), and
their results arrive through signals. Must hold no engine logic: it calls the runner,
the store's export and the window.
"""

from __future__ import annotations

import logging
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QStandardPaths
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QDialog, QFileDialog, QMenu, QWidget

from roundtable_desktop.domain.plural import count_of
from roundtable_desktop.engine.registry import kind_names
from roundtable_desktop.engine.session_export import export_session
from roundtable_desktop.store.database import StoreError
from roundtable_desktop.store.export import ExportFormat
from roundtable_desktop.store.records import CallRecord
from roundtable_desktop.ui.dialogs.ask_first import AskFirstBox, open_question
from roundtable_desktop.ui.dialogs.compare_dialog import CompareDialog
from roundtable_desktop.ui.dialogs.session_list_dialog import SessionListDialog
from roundtable_desktop.ui.dialogs.settings_dialog import SettingsDialog
from roundtable_desktop.ui.kinds.registry import window_kind
from roundtable_desktop.ui.kinds.spec import AskFirst, MenuEntry
from roundtable_desktop.ui.theme import THEMES
from roundtable_desktop.ui.window.help_menu import HelpMenu
from roundtable_desktop.ui.window.new_session_dialog import NewSessionDialog
from roundtable_desktop.ui.window.replay_bar import ReplayBar

if TYPE_CHECKING:
    from roundtable_desktop.ui.window.main_window import MainWindow

log = logging.getLogger(__name__)

EXPORT_FORMATS: tuple[tuple[ExportFormat, str, str], ...] = (
    ("html", "HTML", "HTML page (*.html)"),
    ("md", "Markdown", "Markdown (*.md)"),
    ("json", "JSON", "JSON (*.json)"),
    ("replay", "an interactive page", "HTML page (*.html)"))
RECENT_LIMIT = 12


class WindowMenus(QObject):
    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self._dialogs: list[QWidget] = []  # non-modal dialogs kept alive while open
        self.replay_widget: ReplayBar | None = None
        self.compare_dialog: CompareDialog | None = None  # the last Compare… opened
        self._kind_actions: dict[str, list[QAction]] = {}  # kind -> its menu entries
        bar = window.menuBar()
        self.file_menu = bar.addMenu("&File")
        self.view_menu = bar.addMenu("&View")
        self.session_menu = bar.addMenu("&Session")
        self._build_file_menu()
        self._build_view_menu()
        self._build_session_menu()
        self.help = HelpMenu(window, self._keep_open)
        window.bridge.sessionChanged.connect(self.sync_checks)

    # -- File ---------------------------------------------------------------------------------
    def _build_file_menu(self) -> None:
        menu = self.file_menu
        self.new_action = self._add(menu, "&New session", "Ctrl+N", self._on_new_triggered)
        self.recent_menu = menu.addMenu("Open &recent")
        self.recent_menu.setObjectName("recentMenu")
        self.recent_menu.aboutToShow.connect(self.fill_recent_menu)
        menu.addSeparator()
        export_menu = menu.addMenu("&Export")
        self.export_actions: dict[str, QAction] = {}
        for fmt, label, _ in EXPORT_FORMATS:
            self.export_actions[fmt] = self._add(export_menu, f"Export as {label}…", "",
                                                 lambda _=False, f=fmt: self.export(f))
        menu.addSeparator()
        self.settings_action = self._add(menu, "&Settings…", "Ctrl+,", self.open_settings)
        menu.addSeparator()
        self.quit_action = self._add(menu, "&Quit", "Ctrl+Q", self.window.close)

    def _on_new_triggered(self) -> None:
        """New session… asks which kind and scenario, saying what becomes of the live one."""
        toolbar = self.window.toolbar
        # The seed box shows when the offline model answers, starting at Settings' seed.
        seed = self.window.settings.model_settings().offline_seed \
            if self.window.runner.offline else None
        dialog = NewSessionDialog(toolbar.session_kind(), toolbar.scenario(),
                                  self._leaving_note(), self.window, seed=seed)
        dialog.accepted.connect(self._on_new_session_dialog_accepted)
        self._keep_open(dialog)

    def _on_new_session_dialog_accepted(self) -> None:
        dialog = self.sender()
        if isinstance(dialog, NewSessionDialog):
            kind, scenario = dialog.chosen()
            self.window.runner.start_new(kind, scenario, seed=dialog.chosen_seed())

    def _leaving_note(self) -> str:
        """What becomes of the live session: it stays saved; a running Auto stops."""
        bridge, runner = self.window.bridge, self.window.runner
        session = bridge.session()
        if session is None or bridge.read_only:
            return ""
        calls = self.window.call_count()
        if not calls:
            return ""
        what = f"The current session ({count_of(calls, 'call')}) stays saved: reopen it " \
               "from File › Open recent or replay it."
        if runner.busy:
            what = "It is still working: starting a new session stops it. " + what
        return what

    def fill_recent_menu(self) -> None:
        self.recent_menu.clear()
        try:
            sessions = self.window.runner.store.list_sessions(limit=RECENT_LIMIT)
        except StoreError as exc:
            self.window.show_notice("error", str(exc), "Check the data folder.")
            return
        current = self.window.bridge.session_id()
        kinds = set(kind_names())  # a session of a kind this version lacks cannot reopen
        shown = 0
        for info in sessions:
            if info.id == current or info.kind not in kinds:
                continue
            when = datetime.fromtimestamp(info.updated_at).strftime("%d %b %H:%M")
            label = f"{info.title} — {when} — {count_of(info.call_count, 'call')} ({info.status})"
            action = self.recent_menu.addAction(label.replace("&", "&&"))
            action.triggered.connect(lambda _=False, sid=info.id: self.open_recent(sid))
            shown += 1
        if not shown:
            self.recent_menu.addAction("No other sessions yet").setEnabled(False)

    def open_recent(self, session_id: str) -> AskFirstBox | None:
        """Open a stored session in place of the live one; while the live one is still
        working (Auto, a call) ask first: its run stops, what it did stays saved. Returns
        the question when one is asked."""
        runner = self.window.runner

        def reopen() -> None:
            runner.reopen(session_id)

        if not runner.busy:
            reopen()
            return None
        return open_question(self.window, AskFirst(
            text="Open another session?", yes="Stop and open it",
            detail="The session on screen is still working (Auto or a call): it stops "
                   "here, and what it has done stays saved."), reopen)

    def export(self, fmt: ExportFormat) -> None:
        session_id = self.window.bridge.session_id()
        if session_id is None:
            self.window.show_notice("warning", "There is no session to export.", "")
            return
        label, pattern = next((lab, pat) for f, lab, pat in EXPORT_FORMATS if f == fmt)
        dialog = QFileDialog(self.window, f"Export session as {label}")
        dialog.setObjectName(f"exportDialog_{fmt}")
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setNameFilter(pattern)
        suffix = "html" if fmt == "replay" else fmt  # the replay page is an HTML file
        dialog.setDefaultSuffix(suffix)
        dialog.setDirectory(str(documents_folder()))
        dialog.selectFile(f"{self.window.bridge.kind() or 'session'}-{session_id[:8]}.{suffix}")
        dialog.fileSelected.connect(
            lambda path, f=fmt, sid=session_id: self.write_export(Path(path), f, sid))
        self._keep_open(dialog)

    def write_export(self, path: Path, fmt: ExportFormat, session_id: str) -> None:
        store = self.window.bridge.store() or self.window.runner.store
        try:
            text = export_session(store, session_id, fmt)
            path.write_text(text, encoding="utf-8")
        except (OSError, StoreError) as exc:
            self.window.show_notice("error", f"Could not export to {path}: {exc}",
                                    "Choose a folder you can write to.")
            return
        self.window.status.showMessage(f"Exported to {path}", 8000)

    def open_settings(self) -> None:
        dialog = SettingsDialog(self.window.settings, self.window.key_store, self.window)
        dialog.accepted.connect(self.window.runner.rebuild_client)
        dialog.accepted.connect(self.window.mcp_tools.reload)
        mcp_dock = self.window.docks.get("mcpDock")
        if mcp_dock is not None and hasattr(mcp_dock, "reload_url"):
            dialog.accepted.connect(mcp_dock.reload_url)
        dialog.saved.connect(lambda message: self.window.show_notice("info", message, "")
                             if message else None)
        self._keep_open(dialog)

    def _keep_open(self, dialog: Any) -> None:
        self._dialogs.append(dialog)
        # A bound slot, not a lambda holding the dialog: the lambda would keep the last
        # reference to the wrapper and release it inside ~QObject, which crashes PySide.
        dialog.finished.connect(self._on_dialog_finished)
        dialog.open()

    def _on_dialog_finished(self, result: int = 0) -> None:
        dialog = self.sender()
        if isinstance(dialog, QWidget):
            self._forget(dialog)

    def _forget(self, dialog: QWidget) -> None:
        if dialog in self._dialogs:
            self._dialogs.remove(dialog)
        dialog.deleteLater()

    def open_dialogs(self) -> list[QWidget]:
        """The non-modal dialogs this window keeps alive (tests read it)."""
        return list(self._dialogs)

    # -- Replay -----------------------------------------------------------------------------
    def _on_replay_triggered(self) -> None:
        dialog = SessionListDialog(self.window.runner.store, self.window)
        dialog.sessionChosen.connect(self.start_replay)
        self._keep_open(dialog)

    def start_replay(self, session_id: str) -> None:
        """Step through a stored session read-only; the live session keeps running."""
        widget = self._replay_widget()
        try:
            widget.open_session(self.window.runner.store, session_id)
        except StoreError as exc:
            self.window.show_notice("error", str(exc), "Choose another session.")
            return
        widget.show()
        self.sync_checks()

    def _replay_widget(self) -> ReplayBar:
        """The replay bar, built on first use under the session toolbar."""
        if self.replay_widget is not None:
            return self.replay_widget
        widget = ReplayBar(self.window.bridge, self.window)
        self.window.addToolBarBreak()
        self.window.addToolBar(widget)
        widget.callShown.connect(self._on_replay_call_shown)
        widget.closed.connect(self._on_replay_closed)
        widget.branchRequested.connect(self._on_replay_branch_requested)
        widget.compareRequested.connect(self._on_replay_compare_requested)
        self.replay_widget = widget
        return widget

    def _on_replay_call_shown(self, call: CallRecord | None, kind: str) -> None:
        """The step's whole request as it was sent, its reply under it."""
        view = self.window.context_view
        if call is None:
            view.show_document("")
            return
        what = f"{call.label}, " if call.label else ""
        view.show_call(call, f"Replay — {what}as it was sent", kind=kind)

    def _on_replay_branch_requested(self, session_id: str, step: int) -> None:
        self.branch_from(session_id, step)

    def branch_from(self, session_id: str, step: int) -> AskFirstBox | None:
        """Leave replay for a new live branch of the replayed session after `step`; while
        the live session is still working, ask first (as Open recent does)."""
        runner = self.window.runner

        def branch() -> None:
            if self.replay_widget is not None:
                self.replay_widget.leave()
            runner.branch(session_id, step)

        if not runner.busy:
            branch()
            return None
        return open_question(self.window, AskFirst(
            text="Branch from this step?", yes="Stop and branch",
            detail="The session on screen is still working (Auto or a call): it stops "
                   "here, and what it has done stays saved."), branch)

    def _on_replay_compare_requested(self, session_id: str, step: int) -> None:
        """Compare…: two branches of the replayed step, side by side (the replay stays)."""
        choice = self.window.runner.choice
        self.compare_dialog = CompareDialog(self.window.runner.store, session_id, step,
                                            choice.client, provider=choice.provider,
                                            parallel=choice.parallel, parent=self.window)
        self._keep_open(self.compare_dialog)

    def _on_live_triggered(self) -> None:
        if self.replay_widget is not None:
            self.replay_widget.leave()  # emits closed, which comes back to _on_replay_closed
        else:
            self._on_replay_closed()

    def _on_replay_closed(self) -> None:
        if self.replay_widget is not None:
            self.replay_widget.hide()
        self.window.runner.return_to_live()
        self.sync_checks()

    # -- View -------------------------------------------------------------------------------
    def _build_view_menu(self) -> None:
        menu = self.view_menu
        docks_menu = menu.addMenu("&Docks")
        for dock in self.window.docks.values():
            docks_menu.addAction(dock.toggleViewAction())
        docks_menu.addAction(self.window.toolbar.toggleViewAction())
        menu.addSeparator()
        self.theme_group = QActionGroup(self)
        self.theme_actions: dict[str, QAction] = {}
        for theme in THEMES:
            action = self._add(menu, f"{theme.capitalize()} high-contrast theme", "",
                               lambda _=False, t=theme: self.window.set_theme(t))
            action.setCheckable(True)
            self.theme_group.addAction(action)
            self.theme_actions[theme] = action
        menu.addSeparator()
        self.zoom_in_action = self._add(menu, "Zoom &in", "Ctrl+=",
                                        lambda: self.window.zoom_by(1))
        self.zoom_in_action.setShortcuts([QKeySequence("Ctrl+="), QKeySequence("Ctrl++")])
        self.zoom_out_action = self._add(menu, "Zoom &out", "Ctrl+-",
                                         lambda: self.window.zoom_by(-1))
        self.zoom_reset_action = self._add(menu, "&Reset zoom", "Ctrl+0",
                                           lambda: self.window.zoom_by(0))
        menu.addSeparator()
        self.presenter_action = self._add(menu, "&Presenter mode (full screen)", "F11",
                                          self._on_presenter_toggled)
        self.presenter_action.setCheckable(True)
        self.full_result_action = self._add(menu, "Result &full size", "F10",
                                            self.window.toggle_full_result)

    def _on_presenter_toggled(self, checked: bool) -> None:
        self.window.set_presenter_mode(checked)

    # -- Session ----------------------------------------------------------------------------
    def _build_session_menu(self) -> None:
        self.replay_action = QAction("Re&play a session…", self.window)
        self.replay_action.setObjectName("replayAction")
        self.replay_action.setShortcut(QKeySequence("Ctrl+Shift+R"))
        self.replay_action.triggered.connect(self._on_replay_triggered)
        self.live_action = QAction("Back to the &live session", self.window)
        self.live_action.setObjectName("liveAction")
        self.live_action.triggered.connect(self._on_live_triggered)
        self.fill_session_menu()
        self.window.toolbar.actionsRebuilt.connect(self.fill_session_menu)
        self.window.docksChanged.connect(self.fill_session_menu)

    def fill_session_menu(self) -> None:
        """The toolbar's actions as they are now, the kind's own entries, then replay."""
        menu = self.session_menu
        menu.clear()  # the actions belong to the toolbar and the window: none is deleted
        for qaction in self.window.toolbar.qactions.values():
            menu.addAction(qaction)
        if not menu.isEmpty():
            menu.addSeparator()
        own = self.kind_actions()
        for qaction in own:
            menu.addAction(qaction)
        if own:
            menu.addSeparator()
        menu.addAction(self.replay_action)
        menu.addAction(self.live_action)

    def kind_actions(self) -> list[QAction]:
        """The shown kind's own menu entries as actions (built once per kind)."""
        kind = self.window.kind
        if kind not in self._kind_actions:
            self._kind_actions[kind] = [self._entry_action(e)
                                        for e in window_kind(kind).menu_entries]
        return self._kind_actions[kind]

    def _entry_action(self, entry: MenuEntry) -> QAction:
        action = QAction(entry.text, self.window)
        action.setObjectName(entry.object_name)
        if entry.shortcut:
            action.setShortcut(QKeySequence(entry.shortcut))
        action.triggered.connect(lambda _=False, e=entry: self._run_entry(e))
        return action

    def _run_entry(self, entry: MenuEntry) -> None:
        opened = entry.run(self.window)
        if isinstance(opened, QDialog):
            self._keep_open(opened)

    # -- helpers ------------------------------------------------------------------------------
    def sync_checks(self) -> None:
        """Make checkable entries match the window (theme, presenter, replay)."""
        for theme, action in self.theme_actions.items():
            action.setChecked(theme == self.window.theme)
        self.presenter_action.setChecked(self.window.presenter)
        self.live_action.setEnabled(self.window.bridge.read_only)

    def _add(self, menu: QMenu, text: str, shortcut: str, slot: Any) -> QAction:
        action = QAction(text, self.window)
        if shortcut:
            action.setShortcut(QKeySequence(shortcut))
        action.triggered.connect(slot)
        menu.addAction(action)
        return action


def documents_folder() -> Path:
    """Where an export starts: the user's documents folder, else home (never the folder
    the app happened to be started from)."""
    found = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    folder = Path(found) if found else Path.home()
    return folder if folder.is_dir() else Path.home()
