"""The interactive replay page: one self-contained HTML file that steps through a session.

`render_replay_page` lays out the page around the data engine/replay_export.py collects:
a bar with the title, a step slider and ←/→ buttons (the arrow keys too), the request as
the context view shows it, the response and the call's facts, the state after the step as
panels, and the kind's result (written here as static HTML, escaped). The data is
embedded as JSON in a `<script type="application/json">` block, with every "<" escaped so
no text can close it; the page's own script (store/replay_script.py) is the only one the
Content Security Policy allows (by its SHA-256), and nothing may be loaded: no remote
script, style, font or image.
Must not read files or the network, and must not import Qt.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
from typing import Any

from roundtable_desktop.store.replay_script import SCRIPT, STYLE


def script_csp() -> str:
    digest = base64.b64encode(hashlib.sha256(SCRIPT.encode("utf-8")).digest()).decode()
    return ("default-src 'none'; script-src 'sha256-" + digest + "'; style-src 'unsafe-inline'; "
            "img-src data:; base-uri 'none'; form-action 'none'")


def embedded_json(data: dict[str, Any]) -> str:
    """The data as JSON that cannot end its script block: every "<" written as an escape."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")


def _result_html(result: dict[str, Any] | None) -> str:
    if result is None:
        return "<p>This version cannot read this session's result.</p>"
    parts = [f"<h2>{html.escape(result['heading'])}</h2>"]
    if result["text"]:
        parts.append(f'<p class="rt-text-block">{html.escape(result["text"])}</p>')
    items = []
    for item in result["items"]:
        tag = " · ".join(p for p in (item["detail"], "by " + ", ".join(item["by"])
                                     if item["by"] else "") if p)
        items.append(f"<li><strong>{html.escape(item['title'])}</strong>"
                     f'<span class="rt-tag">{html.escape(tag)}</span></li>')
    if items:
        parts.append("<ol>" + "".join(items) + "</ol>")
    elif not result["text"]:
        parts.append(f"<p>{html.escape(result['empty'])}</p>")
    return "".join(parts)


def render_replay_page(data: dict[str, Any], context_css: str) -> str:
    """The page: `data` as engine/replay_export.py builds it, `context_css` the context
    view's stylesheet (the app's own rendering of a request)."""
    title = html.escape(data["title"] or "Untitled session")
    facts = "".join(f"<dt>{html.escape(k)}</dt><dd>{html.escape(v)}</dd>"
                    for k, v in data["facts"])
    warnings = "".join(f"<li>{html.escape(w)}</li>" for w in data["warnings"])
    left_out = (f"<h2>Left out: damaged in the session store</h2><ul>{warnings}</ul>"
                if warnings else "")
    css = re.sub(r"/\*.*?\*/", "", context_css, flags=re.S).replace("<", " ") + STYLE
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head>"
        f'<meta http-equiv="Content-Security-Policy" content="{script_csp()}">'
        '<meta charset="utf-8"><meta name="referrer" content="no-referrer">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{title} — roundtable replay</title><style>{css}</style></head>"
        '<body class="rt-replay">'
        f'<header id="rt-bar"><h1>{title}</h1>'
        '<button id="rt-prev" type="button" title="Previous step (←)">←</button>'
        '<input id="rt-step" type="range" min="0" max="0" value="0" step="1" '
        'aria-label="Step">'
        '<button id="rt-next" type="button" title="Next step (→)">→</button>'
        '<p id="rt-where">This page needs JavaScript to step through the session.</p>'
        "</header>"
        '<main id="rt-main"><section id="rt-request-view" aria-label="Request as sent">'
        "</section>"
        '<aside id="rt-side"><h2>Response</h2><pre id="rt-response"></pre>'
        '<dl id="rt-call-facts" class="rt-facts"></dl>'
        '<h2>State after this step</h2><div id="rt-panels"></div>'
        f'<section id="rt-result">{_result_html(data["result"])}</section>'
        f'<h2>Session</h2><dl class="rt-facts">{facts}</dl>{left_out}'
        "</aside></main>"
        f'<script type="application/json" id="rt-data">{embedded_json(data)}</script>'
        f"<script>{SCRIPT}</script>"
        "</body></html>\n"
    )
