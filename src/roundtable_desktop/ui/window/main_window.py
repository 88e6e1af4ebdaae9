"""The main window: context view in the middle, session toolbar, docks, banner, status.

It assembles the widgets, routes user intent to the SessionRunner, shows notices in the
banner, applies theme and zoom, and saves/restores the layout. Docks come in two sets
(dock_set.py): the shared ones every kind uses, built once, and the shown kind's own
(ui/kinds/), rebuilt when a session of another kind is shown (a new session, reopening
or replaying one; the bridge says so with `kindChanged`). The dock layout is saved per
kind: leaving a kind saves its layout, and building a kind's docks restores the one
saved for it (or sizes them afresh). When the live session ends, the end panel above
the view shows what it came to, with Export, Replay and New session.
It opens within the screen's available geometry (the default size, or less on a small
screen; a saved geometry too large for this screen is fitted again); dock_set.py gives
the dock columns shares of its width and lets a dock whose body needs much room scroll
it rather than hold the payload view small. Closing is two-step: the
first close event cancels and awaits in-flight work (partial replies are persisted),
disconnects MCP and stops the bundled MCP server if the window started one, saves the
layout, then closes for real and emits `closed`. Menus live in window_menus.py.
Must hold no engine logic and never block (no exec(), no statics).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QByteArray, QRect, Qt, QTimer, Signal
from PySide6.QtGui import (
    QCloseEvent,
    QGuiApplication,
    QResizeEvent,
    QShowEvent,
)
from PySide6.QtWidgets import (
    QDockWidget,
    QMainWindow,
    QSplitter,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from roundtable_desktop.domain.plural import count_of
from roundtable_desktop.engine.base import Action
from roundtable_desktop.engine.registry import UnknownKind, kind_spec
from roundtable_desktop.llm.keys import KeyStore
from roundtable_desktop.store.errors import StoreError
from roundtable_desktop.store.records import SessionInfo
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.context.context_view import ContextView
from roundtable_desktop.ui.kinds.registry import window_kind
from roundtable_desktop.ui.mcp_controller import McpController
from roundtable_desktop.ui.mcp_toolbox_controller import McpToolboxController
from roundtable_desktop.ui.settings_store import AppSettings
from roundtable_desktop.ui.theme import DEFAULT_THEME, THEMES, apply_theme, clamp_zoom, step_zoom
from roundtable_desktop.ui.window.banner import NoticeBanner
from roundtable_desktop.ui.window.dock_set import DockSpec, WindowDocks
from roundtable_desktop.ui.window.end_panel import EndPanel
from roundtable_desktop.ui.window.forecast_hint import ForecastHint
from roundtable_desktop.ui.window.menus import WindowMenus
from roundtable_desktop.ui.window.session_runner import SessionRunner
from roundtable_desktop.ui.window.session_toolbar import SessionToolBar
from roundtable_desktop.ui.window.status_bar import SessionStatusBar

log = logging.getLogger(__name__)

STATE_VERSION = 1
DEFAULT_SIZE = (1600, 960)
# Room for the window manager's frame and title bar: the window is placed before it has
# a frame, whose real size is known only once it is shown.
FRAME_ALLOWANCE = (16, 40)
# The end panel takes what its result needs; the view below keeps this many lines of
# text (its header): the last payload matters less than the result now.
VIEW_KEEP_LINES = 4
KEY_GEOMETRY, KEY_THEME, KEY_ZOOM = "window/geometry", "window/theme", "window/zoom"
PRESENTER_THEME, PRESENTER_ZOOM = "dark", 1.4
KEY_DOCKS = "window/docks/{kind}"  # QMainWindow.saveState, one per kind


class MainWindow(QMainWindow):
    closed = Signal()  # after in-flight work was cancelled and the layout saved
    docksChanged = Signal()  # another kind's docks were built (the View menu lists them)

    def __init__(
        self, *, bridge: EngineBridge, runner: SessionRunner, settings: AppSettings,
        key_store: KeyStore, mcp: McpController | None = None, parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("mainWindow")
        self.bridge, self.runner = bridge, runner
        self.mcp = mcp if mcp is not None else McpController(bridge, settings=settings)
        self.mcp.setParent(self)  # deleted with the window, which stops its child server
        self.settings, self.key_store = settings, key_store
        # The MCP servers of Settings, and the one hand-off of MCP tools to the live session.
        self.mcp_tools = McpToolboxController(bridge, settings=settings, keys=key_store,
                                              mcp=self.mcp, parent=self)
        self._closing: asyncio.Task[Any] | None = None
        self._may_close = False
        self._theme = str(settings.value(KEY_THEME, DEFAULT_THEME))
        self._theme = self._theme if self._theme in THEMES else DEFAULT_THEME
        self._zoom = clamp_zoom(_float(settings.value(KEY_ZOOM, 1.0), 1.0))
        # In presenter mode: the theme, zoom and dock layout to give back when it ends.
        self._presenter: tuple[str, float, QByteArray] | None = None
        self._compact_timer = QTimer(self)  # once the full-screen geometry has applied
        self._compact_timer.setSingleShot(True)
        self._compact_timer.setInterval(0)
        self._compact_timer.timeout.connect(self._compact_docks)

        self.banner = NoticeBanner(self)
        self.context_view = ContextView(bridge, self)
        self.end_panel = EndPanel(self)
        self.end_panel.hide()
        self.centre = QSplitter(Qt.Orientation.Vertical)
        self.centre.setObjectName("centreSplit")
        self.centre.setChildrenCollapsible(False)
        self.centre.addWidget(self.end_panel)
        self.centre.addWidget(self.context_view)
        self.centre.setStretchFactor(1, 1)
        central = QWidget(self)
        central.setObjectName("centralArea")
        column = QVBoxLayout(central)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self.banner)
        column.addWidget(self.centre, 1)
        self.setCentralWidget(central)

        self.toolbar = SessionToolBar(runner, bridge, self)
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, self.toolbar)
        self.status = SessionStatusBar(bridge, self)
        self.setStatusBar(self.status)
        self._kind = ""
        self._awaiting: str | None = None
        # Before any dock subscribes: a kind's docks are replaced before sessionChanged.
        bridge.kindChanged.connect(self._on_bridge_kind_changed)
        self._docks = WindowDocks(self, self._build_dock)
        self.docks: dict[str, QDockWidget] = self._docks.by_name  # by object name
        self._show_kind_docks(self.toolbar.session_kind())
        self.menus = WindowMenus(self)
        self.forecast_hint = ForecastHint(self)  # each action's cost, before it runs
        self.end_panel.set_export_formats(list(self.menus.export_actions.values()))

        self._sync_timer = QTimer(self)  # title, end panel, human seat: once per burst
        self._sync_timer.setSingleShot(True)
        self._sync_timer.setInterval(0)
        self._sync_timer.timeout.connect(self._sync_with_session)
        self.toolbar.actionRequested.connect(self._on_toolbar_action_requested)
        self.end_panel.exportRequested.connect(self._on_end_panel_export_requested)
        self.end_panel.replayRequested.connect(self._on_end_panel_replay_requested)
        self.end_panel.newSessionRequested.connect(self.menus.new_action.trigger)
        self.end_panel.fullSizeToggled.connect(self._on_end_panel_full_size_toggled)
        self._full_size_hid: list[QDockWidget] = []  # docks the full-size result hides
        self.toolbar.newRequested.connect(self.menus.new_action.trigger)
        bridge.notice.connect(self._on_bridge_notice)
        self.mcp_tools.notice.connect(self._on_bridge_notice)
        bridge.sessionChanged.connect(self._sync_timer.start)
        bridge.stateChanged.connect(self._sync_timer.start)
        bridge.sessionEnded.connect(self._sync_timer.start)
        runner.failed.connect(self._on_runner_failed)
        runner.clientChanged.connect(self._on_runner_client_changed)
        self._on_runner_client_changed()
        self.open_maximised = False  # set by place_on_screen and restore_layout
        self.place_on_screen()
        # A column holding a tab group (Whiteboard | MCP) shrinks to its minimum width when
        # the window is first shown, whatever resizeDocks said before: size again then.
        self._size_docks_on_show = not self.restore_layout()
        self._fit_timer = QTimer(self)  # after a zoom, once the new fonts are polished
        self._fit_timer.setSingleShot(True)
        self._fit_timer.setInterval(0)
        self._fit_timer.timeout.connect(self.fit_columns)
        self.tabifiedDockWidgetActivated.connect(self._on_tabified_dock_activated)
        self.apply_look()

    # -- placement ---------------------------------------------------------------------------
    def available_geometry(self) -> QRect:
        """The part of the window's screen that windows may use (no panels, no dock)."""
        screen = self.screen() or QGuiApplication.primaryScreen()
        return screen.availableGeometry() if screen is not None else QRect(0, 0, *DEFAULT_SIZE)

    def place_on_screen(self, available: QRect | None = None) -> None:
        """The default size, or as much of `available` as there is, centred in it. On a
        screen smaller than the default size the window should open maximised
        (`open_maximised`): a laptop's every pixel is wanted."""
        area = available if available is not None else self.available_geometry()
        self.open_maximised = area.width() < DEFAULT_SIZE[0] or area.height() < DEFAULT_SIZE[1]
        frame_w, frame_h = FRAME_ALLOWANCE
        width = max(1, min(DEFAULT_SIZE[0], area.width() - frame_w))
        height = max(1, min(DEFAULT_SIZE[1], area.height() - frame_h))
        self.resize(width, height)
        self.move(area.x() + (area.width() - width - frame_w) // 2,
                  area.y() + (area.height() - height - frame_h) // 2)

    # -- docks ------------------------------------------------------------------------------
    @property
    def kind(self) -> str:
        """The kind whose docks the window shows."""
        return self._kind

    def _build_dock(self, spec: DockSpec) -> QDockWidget | None:
        try:
            # A kind's dock takes (bridge, window, **services), not QDockWidget's arguments.
            make: Callable[..., QDockWidget] = spec.cls
            dock = make(self.bridge, self, **{name: getattr(self, name)
                                              for name in spec.services})
        except Exception as exc:  # one broken dock must not stop the window
            log.exception("building %s failed", spec.class_name)
            self.banner.show_notice("warning", f"The {spec.class_name} could not be built "
                                    f"({type(exc).__name__}).", "The other docks work.")
            return None
        self._connect_dock(dock)
        return dock

    def _show_kind_docks(self, kind: str) -> None:
        self._kind = kind
        spec = window_kind(kind)
        self._docks.show_kind(spec.docks)
        for dock in self.docks.values():  # the shared docks word texts as the kind does
            set_wording = getattr(dock, "set_wording", None)
            if set_wording is not None:
                set_wording(spec.wording)
        if self.presenter:
            self._compact_docks()  # at once: the normal layout may not fit the screen

    def size_docks(self) -> None:
        """The starting sizes of the dock columns and rows (no saved layout)."""
        self._docks.size()

    def fit_columns(self) -> None:
        """Widen a side column whose form would be cut at this zoom (never narrows)."""
        self._docks.fit_columns()

    def _connect_dock(self, dock: QDockWidget) -> None:
        candidate_signal = getattr(dock, "candidateActivated", None)
        if candidate_signal is not None:
            candidate_signal.connect(self.context_view.scroll_to_candidate)
        edited_signal = getattr(dock, "actorsEdited", None)
        if edited_signal is not None:
            edited_signal.connect(self._on_actors_edited)
        submitted_signal = getattr(dock, "submitted", None)
        if submitted_signal is not None:
            submitted_signal.connect(self._on_composer_submitted)

    def _on_bridge_kind_changed(self, kind: str) -> None:
        if kind == self._kind:
            return
        if not self.presenter:  # presenter mode's layout is its own: never saved as one
            self._save_dock_state()
        self._show_kind_docks(kind)  # in presenter mode: the docks in tabs, at once
        if not self.presenter:
            self._restore_kind_layout()
        self._fit_timer.start()  # the new docks' content at this zoom
        self.docksChanged.emit()

    # -- look --------------------------------------------------------------------------------
    @property
    def theme(self) -> str:
        return self._theme

    @property
    def zoom(self) -> float:
        return self._zoom

    def set_theme(self, theme: str) -> None:
        self._theme = theme if theme in THEMES else DEFAULT_THEME
        self.apply_look()

    def zoom_by(self, direction: int) -> None:
        """Ctrl+= / Ctrl+- / Ctrl+0: the view and the docks together."""
        self._zoom = step_zoom(self._zoom, direction)
        self.apply_look()

    def apply_look(self) -> None:
        apply_theme(self, self._theme, self._zoom)
        self.end_panel.set_look(self._theme, self._zoom)
        self.context_view.set_theme(self._theme)
        self.context_view.set_zoom(self._zoom)
        self.menus.sync_checks()
        self._fit_timer.start()  # larger text may need wider columns
        if self.presenter:
            self._compact_timer.start()  # larger tabs: the groups are made again

    @property
    def presenter(self) -> bool:
        return self._presenter is not None

    def set_presenter_mode(self, on: bool) -> None:
        """Presenter mode: full screen, the dark theme, everything at least PRESENTER_ZOOM
        (the view, the docks, the toolbar and the status line step together with Ctrl
        +/-), the docks in tabs beside the payload view so nothing is cut, and a status
        line that keeps only what to do next. Leaving gives the look and layout back."""
        if on == self.presenter:
            return
        if on:
            self._save_dock_state()  # the layout to give back, for this kind and the others
            self._presenter = (self._theme, self._zoom, self.saveState(STATE_VERSION))
            self._theme, self._zoom = PRESENTER_THEME, max(self._zoom, PRESENTER_ZOOM)
            self.showFullScreen()
        else:
            assert self._presenter is not None
            self._theme, self._zoom, _state = self._presenter
            self._presenter = None
            self.showNormal()
            for dock in self.docks.values():  # compaction hid what did not fit
                dock.show()
            self._restore_kind_layout()
        self.status.set_compact(on)
        self.apply_look()
        self._compact_timer.start()

    def _restore_kind_layout(self) -> None:
        """The shown kind's saved dock layout, or the starting one. The saved layout also
        holds the toolbars: they stay as they are now (the replay bar was saved shown,
        when replay began, and must not come back)."""
        bars = {bar: bar.isVisible() for bar in self.findChildren(
            QToolBar, options=Qt.FindChildOption.FindDirectChildrenOnly)}
        restored = self._restore_dock_state()
        for bar, visible in bars.items():
            bar.setVisible(visible)
        if not restored:
            self.size_docks()

    def _compact_docks(self) -> None:
        if not self.presenter:
            return
        self._docks.compact(window_kind(self._kind).presenter_docks)
        self._back_on_screen()

    def _back_on_screen(self) -> None:
        """Full screen is the screen: a dock layout on the way (a kind's docks placed
        before they go into tabs) may have made the window grow past it."""
        screen = self.screen()
        if self.presenter and screen is not None and self.geometry() != screen.geometry():
            self.setGeometry(screen.geometry())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        screen = self.screen()
        if self.presenter and screen is not None and (
                event.size().height() > screen.geometry().height()
                or event.size().width() > screen.geometry().width()):
            QTimer.singleShot(0, self._back_on_screen)

    # -- layout --------------------------------------------------------------------------------
    def save_layout(self) -> None:
        """The layout, theme and zoom to open with next time (presenter mode's are its
        own: the ones it replaced stay saved)."""
        if self._presenter is not None:
            theme, zoom, _state = self._presenter
        else:
            theme, zoom = self._theme, self._zoom
            self.settings.set_value(KEY_GEOMETRY, self.saveGeometry())
            self._save_dock_state()
        self.settings.set_value(KEY_THEME, theme)
        self.settings.set_value(KEY_ZOOM, zoom)
        self.settings.sync()

    def restore_layout(self) -> bool:
        geometry = self.settings.value(KEY_GEOMETRY)
        restored = False
        if isinstance(geometry, QByteArray | bytes) and geometry:
            restored = self.restoreGeometry(QByteArray(geometry))
            if restored and not self.available_geometry().contains(self.frameGeometry()):
                self.place_on_screen()  # saved on a larger screen than this one
                self.open_maximised = True
        return self._restore_dock_state() or restored

    def _save_dock_state(self) -> None:
        if self._kind:
            self.settings.set_value(KEY_DOCKS.format(kind=self._kind),
                                    self.saveState(STATE_VERSION))

    def _restore_dock_state(self) -> bool:
        """The dock layout last saved for the shown kind; False when there is none."""
        state = self.settings.value(KEY_DOCKS.format(kind=self._kind))
        if isinstance(state, QByteArray | bytes) and state:
            return self.restoreState(QByteArray(state), STATE_VERSION)
        return False

    # -- notices --------------------------------------------------------------------------------
    def show_notice(self, level: str, message: str, hint: str = "") -> None:
        self.banner.show_notice(level, message, hint)

    def offer_continue(self, info: SessionInfo) -> None:
        """A non-modal offer to continue the last session (the new one stays if ignored)."""
        self.banner.show_notice(
            "info",
            f"Continue your last session, “{info.title}” ({count_of(info.call_count, 'call')})?",
            "Or dismiss this and use the new session below.",
            action_label="Continue", action=lambda: self.runner.reopen(info.id),
        )

    # -- the session as it goes ---------------------------------------------------------------
    def _sync_with_session(self) -> None:
        """Title, end panel and the human seat's dock, after a burst of engine signals."""
        self._update_title()
        self._sync_end_panel()
        waiting = self.bridge.awaiting_human()
        if waiting and waiting != self._awaiting:
            seat = self.docks.get(window_kind(self._kind).human_seat_dock)
            if seat is not None:  # a human seat's turn: bring where they write forward
                seat.show()
                seat.raise_()
        self._awaiting = waiting

    def _sync_end_panel(self) -> None:
        session = self.bridge.session()
        if session is None or self.bridge.read_only or not session.ended:
            self.end_panel.full_button.setChecked(False)
            self.end_panel.hide()
            return
        summary = session.summary()
        spec = window_kind(session.kind)
        self.end_panel.show_result(
            spec.what_happened(summary, _kind_title(session.kind), self.call_count()),
            spec.result(summary))
        if self.end_panel.isHidden():
            self.end_panel.show()
            total = self.centre.height()
            keep = max(VIEW_KEEP_LINES * self.fontMetrics().height(),
                       self.context_view.minimumSizeHint().height())
            # What the result needs, up to all but the view's header; the rest (a short
            # result on a large screen) goes to the last request and its reply.
            wanted = max(1, min(self.end_panel.wanted_height(), total - keep))
            self.centre.setSizes([wanted, max(1, total - wanted)])

    def call_count(self) -> int:
        store, session_id = self.bridge.store(), self.bridge.session_id()
        if store is None or session_id is None:
            return 0
        try:
            return len(store.call_summaries(session_id))
        except StoreError:
            log.warning("could not count the session's calls", exc_info=True)
            return 0

    def _update_title(self) -> None:
        summary = self.bridge.summary()
        parts = [summary.title if summary is not None else "No session",
                 _kind_title(self.bridge.kind() or self._kind)]
        if self.bridge.read_only:
            parts.insert(1, "Replay")
        elif summary is not None and summary.ended:
            parts.insert(1, "Ended")
        if self.runner.offline:
            parts.append("Offline")
        self.setWindowTitle(" — ".join(parts))

    # -- slots --------------------------------------------------------------------------------
    def _on_toolbar_action_requested(self, action: Action) -> None:
        self.runner.perform(action)

    def _on_composer_submitted(self, text: str) -> None:
        self.runner.perform(Action(id="send", text=text))

    def _on_actors_edited(self) -> None:
        self.context_view.schedule_refresh()
        self.toolbar.schedule_refresh()

    def _on_end_panel_full_size_toggled(self, on: bool) -> None:
        """The result alone in the window (docks and the last request hidden), or back."""
        if on:
            self._full_size_hid = [d for d in self.docks.values() if d.isVisible()]
            for dock in self._full_size_hid:
                dock.hide()
            self.context_view.hide()
            self.end_panel.fit_text(self._theme, self._zoom)  # whole, at any zoom
        else:
            for dock in self._full_size_hid:
                dock.show()
            self._full_size_hid = []
            self.context_view.show()
            self.end_panel.set_look(self._theme, self._zoom)

    def toggle_full_result(self) -> None:
        """View › Result full size (F10): the ended session's result alone, or back."""
        if self.end_panel.isVisible():
            self.end_panel.full_button.toggle()

    def _on_end_panel_export_requested(self) -> None:
        next(iter(self.menus.export_actions.values())).trigger()  # the first format

    def _on_end_panel_replay_requested(self) -> None:
        session_id = self.bridge.session_id()
        if session_id is not None:
            self.menus.start_replay(session_id)

    def _on_bridge_notice(self, level: str, message: str, hint: str) -> None:
        self.banner.show_notice(level, message, hint)

    def _on_runner_failed(self, level: str, message: str, hint: str) -> None:
        self.banner.show_notice(level, message, hint)

    def _on_runner_client_changed(self) -> None:
        self.status.set_connection(self.runner.offline, self.runner.choice.client.endpoint)
        self.context_view.set_online(not self.runner.offline)
        self._update_title()

    def _on_tabified_dock_activated(self, _dock: QDockWidget) -> None:
        self._docks.fit_tabs()  # a tab bar the user just made by docking onto another

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._size_docks_on_show:
            self._size_docks_on_show = False
            self.size_docks()
        else:
            self._fit_timer.start()

    # -- closing --------------------------------------------------------------------------------
    def closeEvent(self, event: QCloseEvent) -> None:
        if self._may_close:
            event.accept()
            self.closed.emit()
            return
        event.ignore()
        if self._closing is None:
            self.save_layout()  # while the window still has its real geometry
            self._closing = asyncio.ensure_future(self._finish_work_then_close())

    async def _finish_work_then_close(self) -> None:
        try:
            await self.forecast_hint.shutdown()
            await self.runner.shutdown()
        except Exception:
            log.exception("shutting the session down failed")
        try:
            await self.mcp_tools.shutdown()
            await self.mcp.shutdown()
        except Exception:
            log.exception("closing MCP or stopping the bundled server failed")
        finally:
            self._may_close = True
            self.close()


def _kind_title(kind: str) -> str:
    try:
        return kind_spec(kind).title
    except UnknownKind:
        return kind.capitalize() or "No session"


def _float(value: Any, default: float) -> float:
    """`value` (whatever a settings file holds) as a float, else `default`."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return default
