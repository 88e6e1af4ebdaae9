"""The base of every dock: a closable QDockWidget bound to the EngineBridge.

It fixes the object name (the window saves the layout by it), refreshes on
`sessionChanged`, makes an editor's change through `edit_session` (the session's
`edit`: the one way a dock changes a session's state), and coalesces bursts of engine
signals into one refresh per pass of the event loop (running tools emits several
`stateChanged` in a row). Docks that paint their own colours read `theme_palette()` and
redraw in `_on_theme_changed()`. A dock of a kind the window no longer shows is
`retire()`d before it is deleted, so it stops following the bridge at once (the session
it would read next is of another kind).
Must hold no engine logic and never reach into protocol internals.
"""

from __future__ import annotations

import contextlib
import html
from typing import TypeVar

from PySide6.QtCore import QEvent, Qt, QTimer
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QDockWidget, QWidget

from roundtable_desktop.engine.base import ActionUnavailable, Edit, Edited, SessionProtocol
from roundtable_desktop.store.errors import StoreError
from roundtable_desktop.store.records import CallRecord
from roundtable_desktop.ui.bridge import EngineBridge

S = TypeVar("S")


def shown_state(bridge: EngineBridge, kind: type[S]) -> S | None:
    """The state of the session shown (live or replayed) when it is a `kind`, else None."""
    state = getattr(bridge.session(), "state", None)
    return state if isinstance(state, kind) else None


class BridgeDock(QDockWidget):
    """Subclasses build their widgets, then implement `refresh()`."""

    def __init__(
        self, title: str, object_name: str, bridge: EngineBridge, parent: QWidget | None = None
    ) -> None:
        super().__init__(title, parent)
        self.setObjectName(object_name)
        self.setFeatures(
            QDockWidget.DockWidgetFeature.DockWidgetClosable
            | QDockWidget.DockWidgetFeature.DockWidgetMovable
            | QDockWidget.DockWidgetFeature.DockWidgetFloatable
        )
        self.setAllowedAreas(Qt.DockWidgetArea.AllDockWidgetAreas)
        self.bridge = bridge
        self._retired = False
        self._refresh_timer = QTimer(self)
        self._refresh_timer.setSingleShot(True)
        self._refresh_timer.setInterval(0)
        self._refresh_timer.timeout.connect(self.refresh)
        self._theme_timer = QTimer(self)
        self._theme_timer.setSingleShot(True)
        self._theme_timer.setInterval(0)
        self._theme_timer.timeout.connect(self._on_theme_changed)
        bridge.sessionChanged.connect(self._on_bridge_session_changed)

    # -- what subclasses read ---------------------------------------------------------
    def live_session(self) -> SessionProtocol | None:
        """The running session, or None in replay or with no session."""
        if self.bridge.read_only or self.bridge.handle is None:
            return None
        return self.bridge.handle.session

    def edit_session(self, edit: Edit) -> Edited:
        """Make `edit` on the live session (announced and checkpointed by the engine).
        Raises a Refusal saying why it was not made: replay, no session, or the
        session's own reason; nothing changed then."""
        session = self.live_session()
        if session is None:
            raise ActionUnavailable("Replay is read-only." if self.bridge.read_only
                                    else "No session is running.")
        return session.edit(edit)

    # -- theme --------------------------------------------------------------------------
    def theme_palette(self) -> QPalette:
        """The theme's colours: the palette of the window this dock belongs to.

        Not the dock's own palette: the window's stylesheet rewrites the palettes of the
        widgets it styles from the application's default (a light Base in the dark
        theme). A floating dock's parent is still the window.
        """
        top: QWidget = self
        while (parent := top.parentWidget()) is not None:
            top = parent
        return top.palette()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.StyleChange):
            self._theme_timer.start()  # a theme change is a burst of these: redraw once

    def _on_theme_changed(self) -> None:
        """Docks that paint their own colours redraw here."""

    # -- refresh ------------------------------------------------------------------------
    def schedule_refresh(self) -> None:
        if not self._retired and not self._refresh_timer.isActive():
            self._refresh_timer.start()

    def retire(self) -> None:
        """Stop following the bridge: the window is about to delete this dock."""
        self._retired = True
        self._refresh_timer.stop()
        self._theme_timer.stop()
        with contextlib.suppress(RuntimeError, TypeError):  # already disconnected
            self.bridge.sessionChanged.disconnect(self._on_bridge_session_changed)

    @property
    def retired(self) -> bool:
        return self._retired

    def refresh(self) -> None:
        raise NotImplementedError

    def _on_bridge_session_changed(self) -> None:
        self._refresh_timer.stop()
        self.refresh()


class StoredCallsDock(BridgeDock):
    """A dock that lists the shown session's stored calls (Calls, Metrics): it reads
    their summaries only, and a replay step of the session it lists already reloads
    nothing (a thousand calls are read once, not on every step)."""

    _shown: tuple[int, str, int] | None = None  # (store, session, calls) listed

    def stored_call_summaries(self) -> list[CallRecord]:
        """The shown session's calls without their request bodies (none when there is
        no session or the store cannot be read), remembered as what this dock lists."""
        store, session_id = self.bridge.store(), self.bridge.session_id()
        self._shown = None
        if store is None or not session_id:
            return []
        try:
            records = store.call_summaries(session_id)
        except StoreError:
            return []
        self._shown = (id(store), session_id, len(records))
        return records

    def _on_bridge_session_changed(self) -> None:
        if not self._shows_calls_already():  # a replay step of the same session
            super()._on_bridge_session_changed()

    def _shows_calls_already(self) -> bool:
        store, session_id = self.bridge.store(), self.bridge.session_id()
        if store is None or not session_id or not self.bridge.read_only:
            return False
        try:
            return self._shown == (id(store), session_id, store.call_count(session_id))
        except StoreError:
            return False


def plain_tooltip(text: str) -> str:
    """A tooltip that shows untrusted text as text (Qt guesses rich text otherwise)."""
    return f"<p style='white-space:pre-wrap'>{html.escape(text)}</p>"
