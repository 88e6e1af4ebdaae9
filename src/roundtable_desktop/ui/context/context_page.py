"""The hardened web page and profile behind the context view.

Settings alone do not stop remote loads (PITFALLS): the wrapper's CSP does, and this
page refuses every navigation but the one `load_document` starts (a meta refresh or a
link navigates even with CSP), opens no windows, and runs no page JavaScript. The
profile is off the record (no cache, cookies or storage on disk) and parented to the
application, because a profile collected before its pages crashes Qt; pages are
deleted first. Must not render documents (context_wrapper.py does) or know sessions.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QObject, QUrl
from PySide6.QtWebEngineCore import (
    QWebEnginePage,
    QWebEngineProfile,
    QWebEngineSettings,
)
from PySide6.QtWidgets import QApplication

log = logging.getLogger(__name__)

XHTML_MIME = "application/xhtml+xml"
# Never fetched (CSP has no file: and base-uri 'none'); it only names the page.
BASE_URL = QUrl("file:///roundtable/context-window/")
_PROFILE_PROPERTY = "roundtableContextProfile"

_OFF = (
    QWebEngineSettings.WebAttribute.JavascriptEnabled,
    QWebEngineSettings.WebAttribute.JavascriptCanOpenWindows,
    QWebEngineSettings.WebAttribute.JavascriptCanAccessClipboard,
    QWebEngineSettings.WebAttribute.LocalStorageEnabled,
    QWebEngineSettings.WebAttribute.PluginsEnabled,
    QWebEngineSettings.WebAttribute.LocalContentCanAccessRemoteUrls,
    QWebEngineSettings.WebAttribute.LocalContentCanAccessFileUrls,
    QWebEngineSettings.WebAttribute.XSSAuditingEnabled,
    QWebEngineSettings.WebAttribute.HyperlinkAuditingEnabled,
    QWebEngineSettings.WebAttribute.AutoLoadIconsForPage,
    QWebEngineSettings.WebAttribute.FullScreenSupportEnabled,
    QWebEngineSettings.WebAttribute.ScreenCaptureEnabled,
    QWebEngineSettings.WebAttribute.WebGLEnabled,
    QWebEngineSettings.WebAttribute.Accelerated2dCanvasEnabled,
    QWebEngineSettings.WebAttribute.AllowRunningInsecureContent,
    QWebEngineSettings.WebAttribute.AllowGeolocationOnInsecureOrigins,
    QWebEngineSettings.WebAttribute.PdfViewerEnabled,
    QWebEngineSettings.WebAttribute.NavigateOnDropEnabled,
    QWebEngineSettings.WebAttribute.DnsPrefetchEnabled,
)


def context_profile() -> QWebEngineProfile:
    """The one off-the-record profile of context pages, owned by the QApplication."""
    app = QApplication.instance()
    if app is None:
        raise RuntimeError("Create the QApplication before the context view.")
    existing = app.property(_PROFILE_PROPERTY)
    if isinstance(existing, QWebEngineProfile):
        return existing
    profile = QWebEngineProfile(app)  # no storage name: off the record
    profile.setHttpCacheType(QWebEngineProfile.HttpCacheType.MemoryHttpCache)
    profile.setPersistentCookiesPolicy(QWebEngineProfile.PersistentCookiesPolicy.NoPersistentCookies)
    profile.setSpellCheckEnabled(False)
    settings = profile.settings()
    for attribute in _OFF:
        settings.setAttribute(attribute, False)
    app.setProperty(_PROFILE_PROPERTY, profile)
    return profile


class ContextPage(QWebEnginePage):
    """A page that loads only what `load_document` gives it."""

    def __init__(self, profile: QWebEngineProfile, parent: QObject | None = None) -> None:
        super().__init__(profile, parent)
        settings = self.settings()
        for attribute in _OFF:
            settings.setAttribute(attribute, False)
        self._expected_loads = 0
        self.refused: list[str] = []  # refused navigation URLs, for tests and diagnostics

    def load_document(self, data: bytes) -> None:
        """Show `data` (an XHTML page); the only navigation this page accepts."""
        self._expected_loads = 1
        self.setContent(data, XHTML_MIME, BASE_URL)

    def acceptNavigationRequest(
        self, url: QUrl | str, navigation_type: QWebEnginePage.NavigationType, is_main_frame: bool
    ) -> bool:
        qurl = QUrl(url)
        if is_main_frame and self._expected_loads > 0 and qurl.scheme() == "data":
            self._expected_loads -= 1
            return True
        self.refused.append(qurl.toString()[:200])
        log.info("context view refused a navigation (%s)", navigation_type.name)
        return False

    def createWindow(  # type: ignore[override]  # PySide6 stubs forbid None, Qt's "no window"
        self, window_type: QWebEnginePage.WebWindowType
    ) -> QWebEnginePage | None:
        return None

    def javaScriptConsoleMessage(
        self, level: QWebEnginePage.JavaScriptConsoleMessageLevel, message: str, line: int,
        source: str,
    ) -> None:
        # CSP refusals land here; they are expected and must not reach the user as errors.
        log.debug("context view console: %s", message[:300])
