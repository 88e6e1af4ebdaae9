"""The central widget: the whole request, exactly as it is (or was) sent.

Live, it shows the next payload (`pending_payloads()[0].document`: every message with its
role, the system prompt's layers marked, roundtable's context window as itself) and,
while a call streams, that call's request: the pending document when its messages are
the ones sent, else the sent body rendered by context/request_document.py. In replay
the window hands it the stored payload through `show_document`. The document sits
unchanged inside a wrapper page (context_wrapper.py) on a hardened page
(context_page.py). Scroll position, zoom and the focused candidate survive reloads.
Must not change the payload or hold engine logic; it reads the session only through
the bridge's handle.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from pydantic import ValidationError
from PySide6.QtCore import QPointF, Qt, QTimer, Signal
from PySide6.QtWebEngineCore import QWebEngineProfile, QWebEngineScript
from PySide6.QtWebEngineWidgets import QWebEngineView
from PySide6.QtWidgets import QWidget

from roundtable_desktop.context.request_document import REQUEST_ID, render_request
from roundtable_desktop.domain.calls import ChatRequest
from roundtable_desktop.domain.events import CallFinished, CallStarted
from roundtable_desktop.protocols.base import PendingPayload
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.context_page import ContextPage, context_profile
from roundtable_desktop.ui.context_wrapper import build_wrapper_page
from roundtable_desktop.ui.theme import DEFAULT_THEME
from roundtable_desktop.ui.thumbnails import thumbnail_rules

APPLICATION_WORLD = QWebEngineScript.ScriptWorldId.ApplicationWorld
_SAFE_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
# Zoom 1.0 of the window is this view zoom: the payload is the thing the room reads.
VIEW_ZOOM_BASE = 1.0

_READ_BY_ID = (
    "(function (id) { var e = document.getElementById(id);"
    " return e ? e.outerHTML : null; })(%s)"
)
_FOCUS = (
    "(function (id) { var e = document.getElementById(id); if (!e) { return false; }"
    " e.scrollIntoView({block: 'center'});"
    " document.getElementById('rt-focus').textContent = '[id=\"' + id + '\"] {"
    " outline: 4px solid var(--accent); outline-offset: 3px;"
    " background: var(--highlight) !important; }'; return true; })(%s)"
)

_SET_CAPTION = (
    "(function (text) { var e = document.getElementById('rt-caption-text');"
    " if (e) { e.textContent = text; } return e !== null; })(%s)"
)


def _sends(payload: PendingPayload, body: dict) -> bool:
    """True when `body` (a request as sent) carries exactly `payload`'s messages."""
    return body.get("messages") == [m.to_body() for m in payload.request.messages]


class ContextView(QWebEngineView):
    """Shows one payload document; `documentShown` fires when it has loaded."""

    documentShown = Signal()

    def __init__(
        self, bridge: EngineBridge, parent: QWidget | None = None, *,
        profile: QWebEngineProfile | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("contextView")
        self._bridge = bridge
        self._page = ContextPage(profile or context_profile(), self)
        self.setPage(self._page)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.NoContextMenu)  # no Reload/Back
        self.setAcceptDrops(False)
        self._document: str | None = None
        self._caption = ""
        self._truncated = False
        self._theme = DEFAULT_THEME
        self._online = False
        self._zoom = 1.0
        self._focus_id: str | None = None
        self._inflight: str | None = None  # the document of the call streaming now
        self._pending: list[PendingPayload] = []  # what the last refresh found
        self._inflight_caption = ""
        self._scroll = QPointF(0, 0)
        self._loaded = False
        self._refresh_timer = QTimer(self)
        self._refresh_timer.setSingleShot(True)
        self._refresh_timer.setInterval(0)
        self._refresh_timer.timeout.connect(self.refresh)
        self._page.loadFinished.connect(self._on_page_load_finished)
        bridge.sessionChanged.connect(self._on_bridge_session_changed)
        bridge.stateChanged.connect(self._on_bridge_state_changed)
        bridge.callStarted.connect(self._on_bridge_call_started)
        bridge.callFinished.connect(self._on_bridge_call_finished)
        bridge.sessionEnded.connect(self._on_bridge_state_changed)

    # -- what is shown ----------------------------------------------------------------
    def document(self) -> str | None:
        """The payload document on screen (None before the first one)."""
        return self._document

    def caption(self) -> str:
        """The wrapper's caption over the document ("Next payload — …", "Sending now — …")."""
        return self._caption

    @property
    def truncated(self) -> bool:
        return self._truncated

    @property
    def loaded(self) -> bool:
        """True once the current document has finished loading."""
        return self._loaded

    def context_page(self) -> ContextPage:
        return self._page

    def show_document(self, document: str, caption: str = "", *, force: bool = False) -> None:
        """Load `document` unless it is already on screen (then only the caption changes)."""
        if not force and document == self._document:
            if caption != self._caption and self._loaded and self._caption and caption:
                # The caption is wrapper text: retitle in place, no reload and repaint.
                self._caption = caption
                self._page.runJavaScript(_SET_CAPTION % json.dumps(caption), APPLICATION_WORLD)
            elif caption != self._caption:
                self.show_document(document, caption, force=True)
            return
        if self._loaded:
            self._scroll = self._page.scrollPosition()
        if self._document is not None and document.split(">", 1)[0] != (
                self._document.split(">", 1)[0]):
            self._scroll = QPointF(0, 0)  # another actor or turn: start at the top
        self._document, self._caption = document, caption
        rules = thumbnail_rules(document, online=self._online)
        page = build_wrapper_page(document, theme=self._theme, caption=caption,
                                  thumbnail_css=rules.css, image_origins=rules.origins)
        self._truncated = page.truncated
        self._loaded = False
        self._page.load_document(page.data)

    def refresh(self) -> None:
        """Show what the live session would send next (or the call in flight)."""
        if self._bridge.read_only:
            return
        handle = self._bridge.handle
        if handle is None:
            self.show_document("", "")
            return
        if self._inflight is not None:
            self.show_document(self._inflight, self._inflight_caption)
            return
        payloads = self._pending = handle.session.pending_payloads()
        if not payloads:
            self.show_document("", "")
            return
        first = payloads[0]
        self.show_document(first.document, f"Next payload — {first.label}")

    def schedule_refresh(self) -> None:
        self._refresh_timer.start()

    # -- presentation -------------------------------------------------------------------
    def set_theme(self, theme: str) -> None:
        if theme != self._theme:
            self._theme = theme
            self._reload()

    def set_online(self, online: bool) -> None:
        """Online allows YouTube thumbnails (strictly matched) through the CSP."""
        if online != self._online:
            self._online = online
            self._reload()

    def set_zoom(self, zoom: float) -> None:
        self._zoom = zoom
        self.setZoomFactor(VIEW_ZOOM_BASE * zoom)

    def scroll_to_candidate(self, candidate_id: str) -> None:
        """Bring `#cand-<id>` into view and outline it (wrapper style, not the payload)."""
        if not _SAFE_ID.match(candidate_id):
            return
        self._focus_id = f"cand-{candidate_id}"
        self._apply_focus()

    def read_context_element(self, callback: Callable[[str | None], None]) -> None:
        """Hand `callback` the outerHTML of the displayed context element (or None)."""
        self._page.runJavaScript(_READ_BY_ID % json.dumps("context-window"),
                                 APPLICATION_WORLD, callback)

    def read_request_element(self, callback: Callable[[str | None], None]) -> None:
        """Hand `callback` the outerHTML of the displayed whole request (or None)."""
        self._page.runJavaScript(_READ_BY_ID % json.dumps(REQUEST_ID), APPLICATION_WORLD,
                                 callback)

    # -- internals ------------------------------------------------------------------------
    def _reload(self) -> None:
        if self._document is not None:
            self.show_document(self._document, self._caption, force=True)

    def _apply_focus(self) -> None:
        if self._focus_id and self._loaded:
            self._page.runJavaScript(_FOCUS % json.dumps(self._focus_id), APPLICATION_WORLD)

    def _on_page_load_finished(self, ok: bool) -> None:
        if not ok:  # a refused navigation also ends in loadFinished(False): keep the page
            return
        self._loaded = True
        self.setZoomFactor(VIEW_ZOOM_BASE * self._zoom)
        if self._scroll.y() > 0 or self._scroll.x() > 0:
            self._page.runJavaScript(
                f"window.scrollTo({self._scroll.x():.0f}, {self._scroll.y():.0f})",
                APPLICATION_WORLD,
            )
        self._apply_focus()
        self.documentShown.emit()

    def _on_bridge_session_changed(self) -> None:
        self._inflight = None
        self._pending = []
        self._focus_id = None
        self._scroll = QPointF(0, 0)
        self.schedule_refresh()

    def _on_bridge_state_changed(self, _part: str = "") -> None:
        self.schedule_refresh()

    def _on_bridge_call_started(self, event: CallStarted) -> None:
        if self._bridge.read_only:
            return
        document = self._document_sent(event)
        if document:
            who = event.label or event.actor_id or ""
            self._inflight = document
            self._inflight_caption = f"Sending now — {who}" if who else "Sending now"
            self.schedule_refresh()

    def _document_sent(self, event: CallStarted) -> str:
        """The document of the request `event` sends: the pending one when it carries
        exactly these messages (it embeds the context window), else the body rendered."""
        found = next((p for p in self._pending if _sends(p, event.request)), None)
        handle = self._bridge.handle
        if found is None and handle is not None:  # the state moved since the last refresh
            fresh = handle.session.pending_payloads()
            found = next((p for p in fresh if _sends(p, event.request)), None)
        if found is not None and found.document:
            return found.document
        fields = {**event.request, "purpose": event.purpose, "kind": event.kind}
        try:
            request = ChatRequest.model_validate(fields)
        except ValidationError:
            return ""
        return render_request(request, event.layers, label=event.label)

    def _on_bridge_call_finished(self, _event: CallFinished) -> None:
        self._inflight = None
        self.schedule_refresh()
