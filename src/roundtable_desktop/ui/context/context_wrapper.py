"""Build the XHTML page the context view loads around the payload document.

The document (the whole request, context/request_document.py: each message as sent,
roundtable's `<main id="context-window">` among them) is embedded unchanged; the wrapper
adds what is not sent: a CSP meta as the first element of <head>, the themed stylesheet
(roles, layer bars), thumbnail rules and a caption. QtWebEngine caps `setContent` at 2 MiB of
*percent-encoded* data: URL (about 1 MB of typical XHTML), so a page over the budget is
replaced by a visible banner plus the payload's text, cut to fit: never a blank view.
Must not alter the payload text, parse it as anything but data, or load anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from xml.sax.saxutils import escape

from roundtable_desktop.paths import resources_dir
from roundtable_desktop.ui.theme import ThemeColors, colors

# Chromium's url::kMaxURLChars is 2 MiB; leave room for the "data:<mime>," prefix.
URL_LIMIT = 2 * 1024 * 1024
PAGE_BUDGET = URL_LIMIT - 64 * 1024
BASE_CSP = ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
            "form-action 'none'; base-uri 'none'")
_UNRESERVED = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
_ENCODED = bytes(b for b in range(256) if b not in _UNRESERVED)


@dataclass(frozen=True, slots=True)
class WrapperPage:
    data: bytes
    truncated: bool
    csp: str


def encoded_size(data: bytes) -> int:
    """Length of `data` once percent-encoded, as QtWebEngine's setContent measures it."""
    unreserved = len(data.translate(None, _ENCODED))
    return unreserved + 3 * (len(data) - unreserved)


def csp_for(origins: tuple[str, ...] = ()) -> str:
    if not origins:
        return BASE_CSP
    extra = " ".join(o for o in origins if o.startswith("https://") and " " not in o)
    return BASE_CSP.replace("img-src data:", f"img-src data: {extra}")


@lru_cache(maxsize=1)
def base_stylesheet() -> str:
    try:
        css = (resources_dir() / "ui" / "context_view.css").read_text("utf-8")
    except OSError:
        css = "body { font: 19px sans-serif; }"
    return _inline_safe(css)


def _inline_safe(css: str) -> str:
    # Inlined into XHTML without CDATA: these would end or corrupt the style element.
    return css.replace("<", " ").replace("&", " ").replace("]]>", " ")


def _variables(c: ThemeColors) -> str:
    pairs = {
        "bg": c.background, "panel": c.panel, "text": c.text, "muted": c.muted,
        "accent": c.accent, "accent-text": c.accent_text, "border": c.border,
        "highlight": c.highlight, "code-bg": c.code_bg, "error-bg": c.error_bg,
        "error-text": c.error_text, "info-bg": c.info_bg, "info-text": c.info_text,
        "warning-bg": c.warning_bg, "warning-text": c.warning_text,
    }
    body = " ".join(f"--{k}: {v};" for k, v in pairs.items())
    return f":root {{ {body} color-scheme: {'dark' if c.name == 'dark' else 'light'}; }}"


def _page(head_css: str, csp: str, body: str) -> bytes:
    text = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<html xmlns="http://www.w3.org/1999/xhtml"><head>'
        f'<meta http-equiv="Content-Security-Policy" content="{escape(csp, {chr(34): "&quot;"})}"/>'
        '<meta charset="UTF-8"/><title>Context window</title>'
        f'<style id="rt-style">{head_css}</style><style id="rt-focus"></style>'
        f"</head><body>{body}</body></html>"
    )
    return text.encode("utf-8")


def _caption(caption: str, document: str) -> str:
    if not caption:
        return ""
    size = len(document.encode("utf-8"))
    return (f'<header class="rt-caption"><span id="rt-caption-text">{escape(caption)}</span>'
            f'<span class="rt-size">{size:,} bytes — shown is sent</span></header>')


def build_wrapper_page(
    document: str,
    *,
    theme: str = "light",
    caption: str = "",
    thumbnail_css: str = "",
    image_origins: tuple[str, ...] = (),
    budget: int = PAGE_BUDGET,
) -> WrapperPage:
    """The page for `document`; truncated visibly (and flagged) when over `budget`."""
    csp = csp_for(image_origins)
    css = "\n".join([_variables(colors(theme)), base_stylesheet(), _inline_safe(thumbnail_css)])
    if not document.strip():
        # The caption says why there is nothing (the view's words); the id lets a new
        # sentence be written in place, as a caption is.
        why = escape(caption) if caption else "No payload to show: nothing would be sent now."
        body = f'<p class="rt-empty" id="rt-caption-text">{why}</p>'
        return WrapperPage(_page(css, csp, body), truncated=False, csp=csp)
    data = _page(css, csp, _caption(caption, document) + document)
    if encoded_size(data) <= budget:
        return WrapperPage(data, truncated=False, csp=csp)
    return WrapperPage(_truncated_page(document, css, csp, budget), truncated=True, csp=csp)


def _truncated_page(document: str, css: str, csp: str, budget: int) -> bytes:
    total = len(document.encode("utf-8"))

    def page_for(chars: int) -> bytes:
        shown = document[:chars]
        banner = (
            '<div class="rt-truncated" id="rt-truncated">This payload is too large for the '
            f"view ({total:,} bytes). Below are its first {len(shown.encode('utf-8')):,} bytes "
            "as plain text; the full payload is sent unchanged and is in the Calls dock and "
            "in exports.</div>"
        )
        return _page(css, csp, banner + f'<pre class="rt-raw">{escape(shown)}</pre>')

    low, high = 0, len(document)
    best = page_for(0)
    while low <= high:  # the longest prefix whose page fits the budget
        mid = (low + high) // 2
        candidate = page_for(mid)
        if encoded_size(candidate) <= budget:
            best, low = candidate, mid + 1
        else:
            high = mid - 1
    return best
