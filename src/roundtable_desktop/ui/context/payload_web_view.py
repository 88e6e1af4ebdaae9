"""The one web view of the central view: shows a payload document exactly as it is sent.

The document sits unchanged inside a wrapper page (context_wrapper.py) on a hardened
page (context_page.py): no script, no navigation, nothing remote. It reloads only when
the document changes; a new caption alone is written into the loaded page. Scroll
position (kept per document by the caller, or across reloads of the same actor's
payload), zoom and the focused candidate survive reloads.
Must not change the payload, know sessions or tabs (context_view.py does).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtWebEngineCore import QWebEngineProfile, QWebEngineScript
from PySide6.QtWebEngineWidgets import QWebEngineView
from PySide6.QtWidgets import QWidget

from roundtable_desktop.context.request_document import REQUEST_ID
from roundtable_desktop.ui.context.context_page import ContextPage, context_profile
from roundtable_desktop.ui.context.context_wrapper import build_wrapper_page
from roundtable_desktop.ui.context.thumbnails import thumbnail_rules
from roundtable_desktop.ui.theme import DEFAULT_THEME

APPLICATION_WORLD = QWebEngineScript.ScriptWorldId.ApplicationWorld
_SAFE_ELEMENT_ID = re.compile(r"^[A-Za-z0-9_-]{1,96}$")
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


class PayloadWebView(QWebEngineView):
    """Shows one payload document; `documentShown` fires when it has loaded."""

    documentShown = Signal()

    def __init__(self, parent: QWidget | None = None, *,
                 profile: QWebEngineProfile | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("payloadWebView")
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
        self._scroll = QPointF(0, 0)
        self._loaded = False
        self.loads = 0  # documents loaded so far (a measure of reloads, for tests)
        self._page.loadFinished.connect(self._on_page_load_finished)

    # -- what is shown ----------------------------------------------------------------
    def document(self) -> str | None:
        return self._document

    def caption(self) -> str:
        return self._caption

    @property
    def truncated(self) -> bool:
        return self._truncated

    @property
    def loaded(self) -> bool:
        return self._loaded

    def context_page(self) -> ContextPage:
        return self._page

    def scroll_position(self) -> QPointF:
        """Where the page is scrolled now (kept by the view for a tab it leaves)."""
        return self._page.scrollPosition() if self._loaded else QPointF(self._scroll)

    def show_document(self, document: str, caption: str = "", *, force: bool = False,
                      scroll: QPointF | None = None) -> None:
        """Load `document` unless it is already on screen (then only the caption changes).
        `scroll` is where to put the new page (None: keep the scroll for the same kind
        of document, start at the top for another actor or turn)."""
        if not force and document == self._document:
            if caption != self._caption and self._loaded and self._caption and caption:
                # The caption is wrapper text: retitle in place, no reload and repaint.
                self._caption = caption
                self._page.runJavaScript(_SET_CAPTION % json.dumps(caption), APPLICATION_WORLD)
            elif caption != self._caption:
                self.show_document(document, caption, force=True, scroll=scroll)
            return
        if scroll is not None:
            self._scroll = QPointF(scroll)
        else:
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
        self.loads += 1
        self._page.load_document(page.data)

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

    def focus_element(self, element_id: str | None) -> None:
        """Outline `#element_id` (wrapper style, not the payload) and bring it into view;
        kept across reloads until another is focused (None: none)."""
        if element_id is not None and not _SAFE_ELEMENT_ID.match(element_id):
            return
        self._focus_id = element_id
        self._apply_focus()

    def read_element(self, element_id: str, callback: Callable[[str | None], None]) -> None:
        """Hand `callback` the outerHTML of the element with this id (or None)."""
        self._page.runJavaScript(_READ_BY_ID % json.dumps(element_id), APPLICATION_WORLD,
                                 callback)

    def read_request(self, callback: Callable[[str | None], None]) -> None:
        self.read_element(REQUEST_ID, callback)

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
