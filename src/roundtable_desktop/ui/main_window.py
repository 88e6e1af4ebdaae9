"""The main window: context view in the middle, session toolbar, docks, banner, status.

It assembles the widgets, routes user intent to the SessionRunner, shows notices in the
banner, applies theme and zoom, and saves/restores the layout. It opens within the
screen's available geometry (the default size, or less on a small screen; a saved
geometry too large for this screen is fitted again), gives the dock columns shares of
its width rather than fixed widths, and lets a dock whose body needs much room scroll
it rather than hold the payload view small. Closing is two-step: the
first close event cancels and awaits in-flight work (partial replies are persisted),
disconnects MCP and stops the bundled MCP server if the window started one, saves the
layout, then closes for real and emits `closed`. Menus live in
window_menus.py. Must hold no engine logic and never block (no exec(), no statics).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from PySide6.QtCore import QByteArray, QRect, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QGuiApplication, QShowEvent
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QDockWidget,
    QFrame,
    QMainWindow,
    QScrollArea,
    QTabBar,
    QVBoxLayout,
    QWidget,
)

from roundtable_desktop.domain.plural import count_of
from roundtable_desktop.llm.keys import KeyStore
from roundtable_desktop.protocols.base import Action
from roundtable_desktop.store.records import SessionInfo
from roundtable_desktop.ui.banner import NoticeBanner
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.context_view import ContextView
from roundtable_desktop.ui.dock_set import DOCKS, load_class
from roundtable_desktop.ui.mcp_controller import McpController
from roundtable_desktop.ui.session_runner import SessionRunner
from roundtable_desktop.ui.session_toolbar import SessionToolBar
from roundtable_desktop.ui.settings_store import AppSettings
from roundtable_desktop.ui.status_bar import SessionStatusBar
from roundtable_desktop.ui.theme import DEFAULT_THEME, THEMES, apply_theme, clamp_zoom, step_zoom
from roundtable_desktop.ui.window_menus import WindowMenus

log = logging.getLogger(__name__)

STATE_VERSION = 1
DEFAULT_SIZE = (1600, 960)
# Room for the window manager's frame and title bar: the window is placed before it has
# a frame, whose real size is known only once it is shown.
FRAME_ALLOWANCE = (16, 40)
# The dock columns and the bottom row as shares of the window, within these pixel bounds.
LEFT_SHARE, LEFT_WIDTH = 0.24, (300, 440)
RIGHT_SHARE, RIGHT_WIDTH = 0.30, (340, 580)
BOTTOM_SHARE, BOTTOM_HEIGHT = 0.28, (170, 270)
# A dock body that needs more than this (a form) scrolls inside its dock instead of
# holding its whole row or column open on a small screen.
DOCK_BODY_MIN = (360, 180)
# A side column widens to what its dock's content needs at this zoom, up to this share;
# the payload view in the middle keeps at least CENTRE_SHARE (the right column gives way).
COLUMN_MAX_SHARE = 0.36
CENTRE_SHARE = 0.42
KEY_GEOMETRY, KEY_STATE = "window/geometry", "window/state"
KEY_THEME, KEY_ZOOM = "window/theme", "window/zoom"


class MainWindow(QMainWindow):
    closed = Signal()  # after in-flight work was cancelled and the layout saved

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
        self._closing: asyncio.Task[Any] | None = None
        self._may_close = False
        self._theme = str(settings.value(KEY_THEME, DEFAULT_THEME))
        self._theme = self._theme if self._theme in THEMES else DEFAULT_THEME
        self._zoom = clamp_zoom(_float(settings.value(KEY_ZOOM, 1.0), 1.0))

        self.banner = NoticeBanner(self)
        self.context_view = ContextView(bridge, self)
        central = QWidget(self)
        central.setObjectName("centralArea")
        column = QVBoxLayout(central)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self.banner)
        column.addWidget(self.context_view, 1)
        self.setCentralWidget(central)

        self.toolbar = SessionToolBar(runner, bridge, self)
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, self.toolbar)
        self.status = SessionStatusBar(bridge, self)
        self.setStatusBar(self.status)
        self.docks: dict[str, QDockWidget] = {}
        self._build_docks()
        self.menus = WindowMenus(self)

        self.toolbar.actionRequested.connect(self._on_toolbar_action_requested)
        bridge.notice.connect(self._on_bridge_notice)
        bridge.sessionChanged.connect(self._update_title)
        bridge.stateChanged.connect(self._on_bridge_state_changed)
        runner.failed.connect(self._on_runner_failed)
        runner.clientChanged.connect(self._on_runner_client_changed)
        self._on_runner_client_changed()
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
        """The default size, or as much of `available` as there is, centred in it."""
        area = available if available is not None else self.available_geometry()
        frame_w, frame_h = FRAME_ALLOWANCE
        width = max(1, min(DEFAULT_SIZE[0], area.width() - frame_w))
        height = max(1, min(DEFAULT_SIZE[1], area.height() - frame_h))
        self.resize(width, height)
        self.move(area.x() + (area.width() - width - frame_w) // 2,
                  area.y() + (area.height() - height - frame_h) // 2)

    # -- docks ------------------------------------------------------------------------------
    def _build_docks(self) -> None:
        self.setDockNestingEnabled(True)
        self.setCorner(Qt.Corner.BottomLeftCorner, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.setCorner(Qt.Corner.BottomRightCorner, Qt.DockWidgetArea.RightDockWidgetArea)
        by_class: dict[str, QDockWidget] = {}
        for spec in DOCKS:
            cls, problem = load_class(spec.module, spec.class_name)
            if problem:
                self.banner.show_notice("warning", problem, "The other docks work as usual.")
            if cls is None:
                continue
            try:
                dock = cls(self.bridge, self, **{name: getattr(self, name)
                                                 for name in spec.services})
            except Exception as exc:  # one broken dock must not stop the window
                log.exception("building %s failed", spec.class_name)
                self.banner.show_notice("warning", f"The {spec.class_name} could not be built "
                                        f"({type(exc).__name__}).", "The other docks work.")
                continue
            _scroll_if_large(dock)
            if spec.tab_with and spec.tab_with in by_class:
                self.tabifyDockWidget(by_class[spec.tab_with], dock)
            else:
                self.addDockWidget(spec.area, dock)
            by_class[spec.class_name] = dock
            self.docks[dock.objectName() or spec.class_name] = dock
            self._connect_dock(dock)
        for front in ("TranscriptDock", "WhiteboardDock"):  # in front of the docks tabbed on
            if front in by_class:
                by_class[front].raise_()
        self._by_class = by_class
        self.size_docks()

    def size_docks(self) -> None:
        """The starting sizes of the dock columns and rows (no saved layout)."""
        by_class = self._by_class
        limit = int(self.width() * COLUMN_MAX_SHARE)
        columns = [(by_class[n], _share(self.width(), share, bounds))
                   for n, share, bounds in (("ActorsDock", LEFT_SHARE, LEFT_WIDTH),
                                            ("CandidatesDock", RIGHT_SHARE, RIGHT_WIDTH))
                   if n in by_class]
        widths = [max(w, min(_content_width(d), limit)) for d, w in columns]
        if len(widths) == 2:
            room = int(self.width() * (1 - CENTRE_SHARE)) - widths[0]
            widths[1] = max(min(widths[1], room), RIGHT_WIDTH[0] * 4 // 5)
        if columns:  # both at once: widening one alone takes the room from the other
            self.resizeDocks([d for d, _ in columns], widths, Qt.Orientation.Horizontal)
        # The actor editor and the candidate lists get the larger share of their column.
        for upper, lower, split in (("ActorsDock", "PolygonDock", [62, 38]),
                                    ("CandidatesDock", "WhiteboardDock", [62, 38])):
            if upper in by_class and lower in by_class:
                self.resizeDocks([by_class[upper], by_class[lower]], split,
                                 Qt.Orientation.Vertical)
        bottom = [d for n, d in by_class.items() if n in ("TranscriptDock",)]
        if bottom:
            self.resizeDocks(bottom, [_share(self.height(), BOTTOM_SHARE, BOTTOM_HEIGHT)],
                             Qt.Orientation.Vertical)
        self.fit_dock_tabs()

    def fit_columns(self) -> None:
        """Widen a side column whose dock's content needs more width at this zoom than it
        has (its form would be cut), up to COLUMN_MAX_SHARE of the window; never narrows."""
        self.fit_dock_tabs()
        limit = int(self.width() * COLUMN_MAX_SHARE)
        docks = [d for n, d in self._by_class.items() if n in ("ActorsDock", "CandidatesDock")
                 and not d.isFloating() and d.isVisible()]
        widths = [max(d.width(), min(_content_width(d), limit)) for d in docks]
        if any(w > d.width() for d, w in zip(docks, widths, strict=True)):
            # Both columns at once: widening one alone takes the room from the other.
            self.resizeDocks(docks, widths, Qt.Orientation.Horizontal)

    def fit_dock_tabs(self) -> None:
        """Docks sharing a place show every tab, titles elided, never scrolled out of
        sight (the tab bars are the window's own, made as docks are tabified)."""
        for bar in self.findChildren(QTabBar, options=Qt.FindChildOption.FindDirectChildrenOnly):
            bar.setElideMode(Qt.TextElideMode.ElideRight)
            bar.setUsesScrollButtons(False)

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
        self.context_view.set_theme(self._theme)
        self.context_view.set_zoom(self._zoom)
        self.menus.sync_checks()
        self._fit_timer.start()  # larger text may need wider columns

    def set_presenter_mode(self, on: bool) -> None:
        if on:
            self.showFullScreen()
        else:
            self.showNormal()
        self.menus.sync_checks()

    # -- layout --------------------------------------------------------------------------------
    def save_layout(self) -> None:
        self.settings.set_value(KEY_GEOMETRY, self.saveGeometry())
        self.settings.set_value(KEY_STATE, self.saveState(STATE_VERSION))
        self.settings.set_value(KEY_THEME, self._theme)
        self.settings.set_value(KEY_ZOOM, self._zoom)
        self.settings.sync()

    def restore_layout(self) -> bool:
        geometry = self.settings.value(KEY_GEOMETRY)
        state = self.settings.value(KEY_STATE)
        restored = False
        if isinstance(geometry, QByteArray | bytes) and geometry:
            restored = self.restoreGeometry(QByteArray(geometry))
            if restored and not self.available_geometry().contains(self.frameGeometry()):
                self.place_on_screen()  # saved on a larger screen than this one
        if isinstance(state, QByteArray | bytes) and state:
            restored = self.restoreState(QByteArray(state), STATE_VERSION) or restored
        return restored

    # -- notices --------------------------------------------------------------------------------
    def show_notice(self, level: str, message: str, hint: str = "") -> None:
        self.banner.show_notice(level, message, hint)

    def offer_continue(self, info: SessionInfo) -> None:
        """A non-modal offer to continue the last session (the new one stays if ignored)."""
        self.banner.show_notice(
            "info",
            f"Continue your last session, “{info.title}” ({count_of(info.call_count, 'call')})?",
            "Or dismiss this and use the new meeting below.",
            action_label="Continue", action=lambda: self.runner.reopen(info.id),
        )

    # -- slots --------------------------------------------------------------------------------
    def _on_toolbar_action_requested(self, action: Action) -> None:
        self.runner.perform(action)

    def _on_composer_submitted(self, text: str) -> None:
        self.runner.perform(Action(id="send", text=text))

    def _on_actors_edited(self) -> None:
        self.context_view.schedule_refresh()
        self.toolbar.schedule_refresh()

    def _on_bridge_notice(self, level: str, message: str, hint: str) -> None:
        self.banner.show_notice(level, message, hint)

    def _on_runner_failed(self, level: str, message: str, hint: str) -> None:
        self.banner.show_notice(level, message, hint)

    def _on_runner_client_changed(self) -> None:
        self.status.set_connection(self.runner.offline, self.runner.choice.client.endpoint)
        self.context_view.set_online(not self.runner.offline)
        self._update_title()

    def _on_bridge_state_changed(self, part: str) -> None:
        if part in ("ended", "turn"):
            self._update_title()
        state = self.bridge.state()
        composer = self.docks.get("composerDock")
        if part == "turn" and state is not None and state.actor.human and composer is not None:
            composer.show()
            composer.raise_()  # a human seat's turn: bring the composer forward

    def _update_title(self) -> None:
        state = self.bridge.state()
        parts = [state.title if state is not None else "No session", "Roundtable"]
        if self.bridge.read_only:
            parts.insert(1, "Replay")
        elif state is not None and state.ended:
            parts.insert(1, "Ended")
        if self.runner.offline:
            parts.append("Offline")
        self.setWindowTitle(" — ".join(parts))

    def _on_tabified_dock_activated(self, _dock: QDockWidget) -> None:
        self.fit_dock_tabs()  # a tab bar the user just made by docking onto another

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
            await self.runner.shutdown()
        except Exception:
            log.exception("shutting the session down failed")
        try:
            await self.mcp.shutdown()
        except Exception:
            log.exception("closing MCP or stopping the bundled server failed")
        finally:
            self._may_close = True
            self.close()


def _scroll_if_large(dock: QDockWidget) -> None:
    """Put a dock's body in a scroll area when its minimum size is more than a laptop's
    window can give one dock (DOCK_BODY_MIN), so it never squeezes the payload view."""
    body = dock.widget()
    if body is None or isinstance(body, QAbstractScrollArea):
        return
    least = body.minimumSizeHint()
    if least.width() <= DOCK_BODY_MIN[0] and least.height() <= DOCK_BODY_MIN[1]:
        return
    area = QScrollArea()
    area.setObjectName(f"{dock.objectName()}Scroll")
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidgetResizable(True)
    area.setWidget(body)
    dock.setWidget(area)


def _content_width(dock: QDockWidget) -> int:
    """The width a dock needs to show its content uncut (a scrolled form: its inside)."""
    body = dock.widget()
    if body is None:
        return 0
    if isinstance(body, QScrollArea) and body.widget() is not None:
        bar = body.verticalScrollBar().sizeHint().width()
        need = body.widget().minimumSizeHint().width() + bar + 2 * body.frameWidth()
    else:
        need = body.minimumSizeHint().width()
    return need + dock.width() - body.width()  # the dock's own frame around its body


def _share(total: int, share: float, bounds: tuple[int, int]) -> int:
    return int(min(max(total * share, bounds[0]), bounds[1]))


def _float(value: object, default: float) -> float:
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return default
