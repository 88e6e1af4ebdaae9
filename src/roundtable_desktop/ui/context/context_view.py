"""The central widget: the whole request, exactly as it is (or was) sent, one tab per payload.

Live, it shows a tab for each payload the session would send next
(`pending_payloads()`, each its `document`: every message with its role, the system
prompt's layers marked, roundtable's context window as itself) and, while calls stream,
a tab for each call in flight: the pending payload that became it, else the sent body
rendered by context/request_document.py. A round of several agents shows one tab per
agent. Under the payload, the tab's call streams its reply (reply_pane.py: plain text,
never markup; written at most every FLUSH_MS).
Which tabs exist is payload_tabs.py's business; while an action runs the tabs follow its
calls, and once it is over they follow the session's next payloads. When nothing is
pending and no finished call is shown (a human seat writes; a session just opened), the
view shows the last step's requests with their replies ("Last request — …"), from the
store: between calls the centre is never empty; before the first call it says that
nothing has been sent yet. Once the session has ended nothing is "next": the view shows
its last step's requests, each with its reply ("Last request — … (the session has
ended)"), from the store when the live tabs no longer hold them. In replay the window
hands the view the stored call through `show_call` (one tab: its whole request as sent,
its reply under it); the live tabs are kept aside and come back whole (replies, the tab
shown, scroll positions) when the live session is shown again.

One web view (payload_web_view.py) serves every tab: each QWebEngineView is a renderer
process of its own (measured here: about 25-30 MB PSS and 110 MB RSS more per view),
while switching a view's document costs 30-60 ms; the view reloads only when the shown
document changes, and each tab's scroll position is kept. Must not change the payload or
hold engine logic; it reads the session only through the bridge's handle.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError
from PySide6.QtCore import QPointF, Qt, QTimer, Signal
from PySide6.QtWebEngineCore import QWebEnginePage, QWebEngineProfile
from PySide6.QtWidgets import QSplitter, QTabBar, QVBoxLayout, QWidget

from roundtable_desktop.context.payload import CONTEXT_ID
from roundtable_desktop.context.request_document import render_request
from roundtable_desktop.domain.calls import ChatRequest
from roundtable_desktop.domain.events import (
    ActionFinished,
    ActionStarted,
    CallFinished,
    CallStarted,
)
from roundtable_desktop.engine.base import PendingPayload
from roundtable_desktop.store.errors import StoreError
from roundtable_desktop.store.records import CallRecord
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.context.context_page import ContextPage
from roundtable_desktop.ui.context.payload_tabs import PayloadTab, PayloadTabs, TabState
from roundtable_desktop.ui.context.payload_web_view import (
    APPLICATION_WORLD,
    VIEW_ZOOM_BASE,
    PayloadWebView,
)
from roundtable_desktop.ui.context.reply_pane import ReplyPane
from roundtable_desktop.ui.context.stored_calls import last_batch, outcome_of, request_document

__all__ = ["APPLICATION_WORLD", "VIEW_ZOOM_BASE", "ContextView"]

FLUSH_MS = 40  # a streaming reply is written at most this often, one insert per flush
REPLY_SHARE = 0.25  # of the view's height, for the reply under the payload
# The payload keeps at least this height (CSS pixels at zoom 1; the view zooms them), so
# its caption ("Next payload — …", "Last request — …") shows however the centre is split
# (the end panel above, the reply below).
PAYLOAD_MIN_PX = 64
NOTHING_SENT = ("Nothing has been sent yet: each request shows here as it is sent, "
                "exactly as the model receives it.")
NO_SESSION = "No session is open: start one with New session (Ctrl+N)."
_SAFE_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_LABEL = re.compile(r'\sdata-label="([^"]*)"')


def _label_of(document: str) -> str:
    """The label a request document carries on its root (replay names its tab by it)."""
    found = _LABEL.search(document.split(">", 1)[0])
    return html.unescape(found.group(1)) if found else ""


class ContextView(QWidget):
    """Tabs of payload documents over one web view; `documentShown` fires when the shown
    document has loaded."""

    documentShown = Signal()

    def __init__(
        self, bridge: EngineBridge, parent: QWidget | None = None, *,
        profile: QWebEngineProfile | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("contextView")
        self._bridge = bridge
        self.tab_bar = QTabBar()
        self.tab_bar.setObjectName("payloadTabs")
        self.tab_bar.setDocumentMode(True)
        self.tab_bar.setExpanding(False)
        # Whole titles, never cut: more tabs than fit scroll, the shown one in view.
        self.tab_bar.setElideMode(Qt.TextElideMode.ElideNone)
        self.tab_bar.setUsesScrollButtons(True)
        self.tab_bar.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self.web = PayloadWebView(self, profile=profile)
        self.web.setMinimumHeight(PAYLOAD_MIN_PX)
        self.reply = ReplyPane()
        self.split = QSplitter(Qt.Orientation.Vertical)
        self.split.setObjectName("payloadSplit")
        self.split.setChildrenCollapsible(False)
        self.split.addWidget(self.web)
        self.split.addWidget(self.reply)
        self.split.setStretchFactor(0, 1)
        self.reply.hide()
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self.tab_bar)
        column.addWidget(self.split, 1)
        self.tab_bar.hide()

        self._tabs = PayloadTabs()
        self._current: str | None = None  # the key of the tab shown
        self._current_actor: str | None = None  # its actor, kept when the tab goes
        self._scrolls: dict[str, QPointF] = {}
        self._acting = 0  # actions running (ActionStarted not yet finished)
        self._pending: list[PendingPayload] = []
        self._reply_sized = False
        # The live tabs while replay shows stored calls: (session id, tabs, current tab,
        # its actor, scroll positions).
        self._live_kept: tuple[str, list[PayloadTab], str | None, str | None,
                               dict[str, QPointF]] | None = None
        self._shown_read_only = False
        self._live_session_id: str | None = None  # the live session the tabs belong to
        self._refresh_timer = QTimer(self)
        self._refresh_timer.setSingleShot(True)
        self._refresh_timer.setInterval(0)
        self._refresh_timer.timeout.connect(self.refresh)
        self._flush_timer = QTimer(self)
        self._flush_timer.setSingleShot(True)
        self._flush_timer.setInterval(FLUSH_MS)
        self._flush_timer.timeout.connect(self.flush_reply)
        self.web.documentShown.connect(self.documentShown)
        self.tab_bar.currentChanged.connect(self._on_tab_bar_current_changed)
        bridge.sessionChanged.connect(self._on_bridge_session_changed)
        bridge.stateChanged.connect(self._on_bridge_state_changed)
        bridge.eventReceived.connect(self._on_bridge_event_received)
        bridge.callStarted.connect(self._on_bridge_call_started)
        bridge.tokenReceived.connect(self._on_bridge_token_received)
        bridge.callFinished.connect(self._on_bridge_call_finished)
        bridge.sessionEnded.connect(self._on_bridge_state_changed)

    # -- what is shown ----------------------------------------------------------------
    def document(self) -> str | None:
        """The payload document on screen (None before the first one)."""
        return self.web.document()

    def caption(self) -> str:
        """The wrapper's caption over the document ("Next payload — …", "Sending now — …")."""
        return self.web.caption()

    @property
    def truncated(self) -> bool:
        return self.web.truncated

    @property
    def loaded(self) -> bool:
        """True once the shown document has finished loading."""
        return self.web.loaded

    def context_page(self) -> ContextPage:
        return self.web.context_page()

    def page(self) -> QWebEnginePage:
        return self.web.page()

    def zoomFactor(self) -> float:  # the web view's name, for callers of either
        return self.web.zoomFactor()

    def tabs(self) -> list[PayloadTab]:
        """The tabs, in the order shown."""
        return list(self._tabs.tabs)

    def tab_titles(self) -> list[str]:
        return [self.tab_bar.tabText(i) for i in range(self.tab_bar.count())]

    def current_tab(self) -> PayloadTab | None:
        index = self._tabs.index_of(self._current)
        return self._tabs.tabs[index] if index >= 0 else None

    def select_tab(self, index: int) -> None:
        self.tab_bar.setCurrentIndex(index)

    def reply_shown(self) -> str:
        """The reply under the shown payload, as the pane holds it ("" when hidden)."""
        return self.reply.text() if self.reply.isVisibleTo(self) else ""

    def show_document(self, document: str, caption: str = "", *, force: bool = False) -> None:
        """Show `document` alone, in one tab."""
        if document.strip():
            self._tabs.show_only(document, caption, _label_of(document) or "Payload")
        else:
            self._tabs.clear()
        self._sync(force=force)

    def show_call(self, call: CallRecord, caption: str = "", *, kind: str = "") -> None:
        """Show a stored call of a session of `kind` alone, in one tab: its whole request as
        it was sent, and its reply under it (replay)."""
        document = request_document(call, kind)
        if not document.strip():
            self.show_document("")
            return
        self._tabs.show_only(document, caption, call.label or _label_of(document) or "Payload",
                             call_id=call.id, outcome=outcome_of(call))
        self._sync()

    def refresh(self) -> None:
        """Tabs for what the live session would send next (or the calls in flight)."""
        if self._bridge.read_only:
            return
        handle = self._bridge.handle
        if handle is None:
            self._tabs.clear()
        elif self._acting and self._tabs.tabs:
            return  # mid-action the state is half-way: the tabs follow the calls
        elif handle.session.ended:
            self._pending = []
            self._tabs.ended(self._last_step_tabs)
        else:
            self._pending = handle.session.payloads_as_sent()
            self._tabs.follow(self._pending)
            self._tabs.between(self._last_step_tabs)  # only when nothing else is shown
        self._sync()

    def schedule_refresh(self) -> None:
        self._refresh_timer.start()

    def _last_step_tabs(self) -> list[PayloadTab]:
        """The stored calls of the ended session's last step, each as a tab."""
        store, session_id = self._bridge.store(), self._bridge.session_id()
        if store is None or session_id is None:
            return []
        try:
            # The list without request bodies; only the last step's calls are read whole.
            calls = [store.call(c.id) for c in last_batch(store.call_summaries(session_id))]
        except StoreError:
            return []
        kind = self._bridge.kind()
        return [self._tabs.last_call_tab(call.id, call.label, call.actor_id,
                                         request_document(call, kind), outcome_of(call))
                for call in calls]

    # -- presentation -------------------------------------------------------------------
    def set_theme(self, theme: str) -> None:
        self.web.set_theme(theme)

    def set_online(self, online: bool) -> None:
        """Online allows YouTube thumbnails (strictly matched) through the CSP."""
        self.web.set_online(online)

    def set_zoom(self, zoom: float) -> None:
        self.web.set_zoom(zoom)
        self.web.setMinimumHeight(round(PAYLOAD_MIN_PX * self.web.zoomFactor()))

    def scroll_to_candidate(self, candidate_id: str) -> None:
        """Bring `#cand-<id>` into view and outline it (wrapper style, not the payload)."""
        if _SAFE_ID.match(candidate_id):
            self.web.focus_element(f"cand-{candidate_id}")

    def read_context_element(self, callback: Callable[[str | None], None]) -> None:
        """Hand `callback` the outerHTML of the displayed context element (or None)."""
        self.web.read_element(CONTEXT_ID, callback)

    def read_request_element(self, callback: Callable[[str | None], None]) -> None:
        """Hand `callback` the outerHTML of the displayed whole request (or None)."""
        self.web.read_request(callback)

    # -- tabs on screen -------------------------------------------------------------------
    def _sync(self, *, force: bool = False) -> None:
        """Make the tab bar match the tabs, keep the shown tab if it is still there, and
        show the current tab's document and reply."""
        tabs = self._tabs.tabs
        index = self._tabs.index_of(self._current)
        if index < 0 and tabs:
            index = self._fallback_index()
        self.tab_bar.blockSignals(True)
        while self.tab_bar.count() > len(tabs):
            self.tab_bar.removeTab(self.tab_bar.count() - 1)
        while self.tab_bar.count() < len(tabs):
            self.tab_bar.addTab("")
        for i, tab in enumerate(tabs):
            if self.tab_bar.tabText(i) != tab.title:
                self.tab_bar.setTabText(i, tab.title)
            self.tab_bar.setTabToolTip(i, tab.caption)
        if index >= 0:
            self.tab_bar.setCurrentIndex(index)
        self.tab_bar.blockSignals(False)
        self.tab_bar.setVisible(bool(tabs))
        self._show(tabs[index] if index >= 0 else None, force=force)

    def _fallback_index(self) -> int:
        """The tab to show when the shown one is gone: the same actor's, else a call
        streaming now, else the first."""
        tabs = self._tabs.tabs
        gone = self._current_actor
        for i, tab in enumerate(tabs):
            if gone is not None and tab.actor_id == gone:
                return i
        for i, tab in enumerate(tabs):
            if tab.state == TabState.SENDING:
                return i
        return 0

    def _show(self, tab: PayloadTab | None, *, force: bool = False) -> None:
        if tab is None:
            self._current, self._current_actor = None, None
            self.web.show_document("", self._empty_sentence(), force=force)
            self._show_reply(None)
            return
        scroll = None
        if tab.key != self._current:
            if self._current is not None:
                self._scrolls[self._current] = self.web.scroll_position()
            scroll = self._scrolls.get(tab.key, QPointF(0, 0))
            live = {t.key for t in self._tabs.tabs}
            self._scrolls = {k: v for k, v in self._scrolls.items() if k in live}
        self._current, self._current_actor = tab.key, tab.actor_id
        self.web.show_document(tab.document, tab.caption, force=force, scroll=scroll)
        self._show_reply(tab)

    def _show_reply(self, tab: PayloadTab | None) -> None:
        """The pane under the payload: the tab's call's reply, hidden before it is sent."""
        if tab is None or tab.call_id is None:
            self._flush_timer.stop()
            self.reply.clear_tab()
            self.reply.hide()
            return
        if not self.reply.isVisibleTo(self):
            self.reply.show()
            self._size_reply()
        self.reply.show_tab(tab)

    def _size_reply(self) -> None:
        """Give the reply its share of the height the first time it shows."""
        if self._reply_sized:
            return
        total = sum(self.split.sizes()) or self.split.height()
        if total > 0:
            self._reply_sized = True
            reply = max(int(total * REPLY_SHARE), self.reply.minimumSizeHint().height())
            self.split.setSizes([total - reply, reply])

    def flush_reply(self) -> None:
        """Write what the shown tab's call streamed since the last flush: one insert."""
        self._flush_timer.stop()
        tab = self.current_tab()
        if tab is not None and tab.key == self.reply.key:
            self._show_reply(tab)

    def _empty_sentence(self) -> str:
        """Why there is no tab: no session, or nothing sent yet (a live session with no
        tab has no stored call either: see `refresh`); "" for the wrapper's own."""
        if self._bridge.read_only:
            return ""
        return NO_SESSION if self._bridge.handle is None else NOTHING_SENT

    # -- engine events ------------------------------------------------------------------------
    def _on_tab_bar_current_changed(self, index: int) -> None:
        if 0 <= index < len(self._tabs.tabs):
            self._show(self._tabs.tabs[index])

    def _on_bridge_session_changed(self) -> None:
        read_only, session_id = self._bridge.read_only, self._bridge.session_id()
        entering_replay = read_only and not self._shown_read_only
        leaving_replay = self._shown_read_only and not read_only
        self._shown_read_only = read_only
        if entering_replay and self._live_session_id:
            self._keep_live_tabs(self._live_session_id)
        self._acting = 0
        self._pending = []
        self._tabs.clear()
        self._scrolls.clear()
        self._current, self._current_actor = None, None
        self.web.focus_element(None)
        if not read_only:
            self._live_session_id = session_id
        if leaving_replay:
            self._bring_back_live_tabs(session_id)
        self.schedule_refresh()

    def _keep_live_tabs(self, session_id: str) -> None:
        """Replay begins: keep the live tabs (replies, the tab shown, where each was
        scrolled) for when the live session is shown again."""
        scrolls = dict(self._scrolls)
        if self._current is not None:
            scrolls[self._current] = self.web.scroll_position()
        tabs = [t for t in self._tabs.tabs if t.state != TabState.SENDING]
        self._live_kept = (session_id, tabs, self._current, self._current_actor, scrolls)

    def _bring_back_live_tabs(self, session_id: str | None) -> None:
        kept, self._live_kept = self._live_kept, None
        if kept is None or kept[0] != session_id:
            return
        _, tabs, current, actor, scrolls = kept
        self._tabs.tabs = tabs
        self._scrolls = scrolls
        self._current, self._current_actor = current, actor
        self._sync()

    def _on_bridge_state_changed(self, _part: str = "") -> None:
        self.schedule_refresh()

    def _on_bridge_event_received(self, event: object) -> None:
        if isinstance(event, ActionStarted):
            if not self._acting or event.within is not None:
                self._tabs.new_batch()  # a step from idle, or one Auto takes
            self._acting += 1
        elif isinstance(event, ActionFinished):
            self._acting = max(0, self._acting - 1)
            self.schedule_refresh()

    def _on_bridge_call_started(self, event: CallStarted) -> None:
        if self._bridge.read_only:
            return
        messages = event.request.get("messages")
        current = self.current_tab()
        tab, is_new = self._tabs.call_started(
            event.call_id, event.label, event.actor_id,
            messages if isinstance(messages, list) else [],
            lambda: self._document_sent(event))
        if is_new and (current is None or current.state != TabState.SENDING
                       or self._tabs.index_of(current.key) < 0):
            self._current = tab.key  # follow the live call unless watching another stream
        self._sync()

    def _on_bridge_token_received(self, call_id: str, text: str, count: int) -> None:
        tab = self._tabs.token(call_id, text, count)
        if tab is not None and tab.key == self._current and not self._flush_timer.isActive():
            self._flush_timer.start()

    def _on_bridge_call_finished(self, event: CallFinished) -> None:
        tab = self._tabs.call_finished(event.call_id, event.outcome)
        if tab is not None:
            self._sync()
        self.schedule_refresh()

    def _document_sent(self, event: CallStarted) -> str:
        """The document of the request `event` sends: the pending one when it carries
        exactly these messages (it embeds the context window), else the body rendered."""
        found = _sending(self._pending, event.request)
        handle = self._bridge.handle
        if found is None and handle is not None:  # the state moved since the last refresh
            found = _sending(handle.session.payloads_as_sent(), event.request)
        if found is not None and found.document:
            return found.document
        fields = {**event.request, "purpose": event.purpose, "kind": event.kind}
        try:
            request = ChatRequest.model_validate(fields)
        except ValidationError:
            return ""
        return render_request(request, event.layers, label=event.label)


def _sending(payloads: list[PendingPayload], body: dict[str, Any]) -> PendingPayload | None:
    """The payload whose messages are exactly those `body` (a request as sent) carries."""
    messages = body.get("messages")
    return next((p for p in payloads
                 if messages == [m.to_body() for m in p.request.messages]), None)
