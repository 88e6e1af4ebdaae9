"""Exports a stored session as JSON (full fidelity), Markdown or a self-contained HTML page.

JSON holds the session record, the kind's summary, calls, events and checkpoints and
reads back with `SessionExport.model_validate_json` (`format` is "<kind>-session").
Markdown and HTML show the kind's result first, then the transcript, then every call with
its exact payload and response. The summary comes from the kind (protocols/
session_export.py); this module knows no kind. All text is untrusted:
HTML is built with lxml (text assigned as text, never parsed as markup) under a CSP
that allows no script and no remote load; Markdown escapes prose and fences payloads
with a fence longer than any backtick run inside them.
Must not read files or the network, and must not import Qt.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

import lxml.html
from lxml.html import builder as E
from pydantic import BaseModel, Field

from roundtable_desktop.domain.events import Event
from roundtable_desktop.domain.plural import count_of
from roundtable_desktop.domain.secrets import scrub_bytes
from roundtable_desktop.domain.summary import SessionSummary
from roundtable_desktop.domain.text import label_text, xml_text
from roundtable_desktop.store.branches import BranchOrigin
from roundtable_desktop.store.database import SessionStore
from roundtable_desktop.store.records import CallRecord, Checkpoint, SessionRecord

ExportFormat = Literal["html", "md", "json", "replay"]  # replay: engine/replay_export.py

# The builder's element maker, for HTML5 tags the builder has no constant for.
_H = E.E

CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"

_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>#|])")

_CSS = """
body { font: 16px/1.5 system-ui, sans-serif; max-width: 60rem; margin: 2rem auto;
       padding: 0 1rem; color: #1b1b1b; background: #fdfdfc; }
h1 { margin-bottom: .25rem; }
section#result { font-size: 1.15em; border-left: 4px solid #2e7d32; padding: .25rem 1rem;
                 margin: 1.5rem 0; background: #f4f9f4; }
section#result ol li { margin: .4rem 0; }
section#result .tag { display: block; margin-left: 0; }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: .1rem 1rem; }
dl.meta dt { font-weight: 600; }
dl.meta dd { margin: 0; }
ol.transcript { padding-left: 1.5rem; }
ol.transcript li { margin: .5rem 0; }
.who { font-weight: 700; }
.tag { color: #555; font-size: .85em; margin-left: .5rem; }
.text { white-space: pre-wrap; overflow-wrap: anywhere; }
li.kind-tool .text, li.kind-system .text { color: #444; }
li.kind-refusal .text { color: #8a1c1c; }
article.call { border: 1px solid #ccc; border-radius: 6px; padding: .5rem 1rem;
               margin: 1rem 0; background: #fff; }
article.call h3 { margin: .25rem 0; }
.status-failed h3, .status-interrupted h3, .status-partial h3 { color: #8a1c1c; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #f3f3f1;
      padding: .5rem; border-radius: 4px; font-size: .9em; }
details { margin: .35rem 0; }
summary { cursor: pointer; font-weight: 600; }
footer { margin-top: 2rem; color: #666; font-size: .85em; }
"""


FORMAT_VERSION = 2
_LEFT_OUT = "Left out: damaged in the session store"


class SessionExport(BaseModel):
    """Everything stored about one session; the JSON export is this model."""

    format: str = "session"  # "<kind>-session"
    format_version: int = FORMAT_VERSION
    session: SessionRecord
    summary: SessionSummary | None = None
    calls: list[CallRecord]
    events: list[Event]
    checkpoints: list[Checkpoint]
    # What was damaged in the store and left out (never what it held).
    warnings: list[str] = Field(default_factory=list)
    # A branch: where it left from, and the calls it inherited (call id -> the session
    # that made it), listed first in `calls` and marked read-only.
    branch: BranchOrigin | None = None
    inherited_from: dict[str, str] = Field(default_factory=dict)


def collect_export(store: SessionStore, session_id: str, *,
                   history: bool = True) -> SessionExport:
    """Everything readable about the session; damaged rows are left out, each named in
    `warnings` (the store keeps them too, for the caller to show). Without `history`
    the events and checkpoints are left out (the readable formats do not show them, and
    a long session's states are most of what it stores)."""
    with store.noting_warnings() as warnings:
        data = SessionExport(
            session=store.get_session(session_id, damaged_ok=True),
            calls=store.calls(session_id),
            events=store.events(session_id) if history else [],
            checkpoints=store.checkpoints(session_id) if history else [],
        )
    data.warnings = list(dict.fromkeys(warnings))
    return data


def scrubbed_export(data: SessionExport) -> SessionExport:
    """`data` with every known secret redacted from every text in it (in disguise too):
    a store may hold text written before a key was known. The same object when it holds
    none."""
    encoded = data.model_dump_json().encode("utf-8")
    cleaned = scrub_bytes(encoded)
    return data if cleaned is encoded else SessionExport.model_validate_json(cleaned)


def render_export(data: SessionExport, fmt: ExportFormat) -> str:
    if fmt == "json":
        return render_json(data)
    if fmt == "md":
        return render_markdown(data)
    if fmt == "html":
        return render_html(data)
    raise ValueError(f"Unknown export format {fmt!r}; choose html, md or json.")


def render_json(data: SessionExport) -> str:
    return data.model_dump_json(indent=2)


# -- what the readable formats show --------------------------------------------------
@dataclass(frozen=True)
class _Line:
    speaker: str
    kind: str
    turn: int
    text: str
    channel: str = ""  # where the line was said, in kinds with channels; shown when set


@dataclass(frozen=True)
class _Pick:
    title: str
    detail: str
    by: list[str]


def _clean(text: Any) -> str:
    """Text lxml accepts and any file encoding survives (domain/text.py): XML-illegal
    characters removed, lone surrogates replaced by U+FFFD."""
    return xml_text(str(text))


def _label(text: Any) -> str:
    """A short label (title, name): also without bidi controls that could reorder it."""
    return label_text(str(text)).strip()


def _when(ts: float | None) -> str:
    if ts is None:
        return "-"
    return datetime.fromtimestamp(ts, tz=UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _names(summary: SessionSummary | None) -> dict[str, str]:
    if summary is None:
        return {}
    return {p.id: _label(p.name) for p in summary.participants}


def _speaker(actor_id: Any, names: dict[str, str]) -> str:
    if actor_id is None:
        return "System"
    return names.get(str(actor_id), _label(actor_id))


def _transcript(summary: SessionSummary | None) -> list[_Line]:
    if summary is None:
        return []
    return [
        _Line(speaker=_label(e.speaker), kind=_label(e.kind or "spoken"), turn=e.turn,
              text=_clean(e.text), channel=_label(e.channel))
        for e in summary.transcript
    ]


def _result(summary: SessionSummary | None) -> tuple[str, str, list[_Pick], str]:
    """(heading, text, items, what to say when there are none)."""
    if summary is None:
        return "Result", "", [], "This version cannot read this session's result."
    result = summary.result
    picks = [
        _Pick(title=_label(item.title), detail=_label(item.detail),
              by=[_label(b) for b in item.by])
        for item in result.items
    ]
    heading = _label(result.heading) + (" (final)" if result.final else "")
    return heading, _clean(result.text), picks, _label(result.empty_text)


def _call_facts(call: CallRecord, inherited: str | None = None) -> list[tuple[str, str]]:
    tokens = f"{call.prompt_tokens or 0} prompt + {call.completion_tokens or 0} completion"
    if call.usage_estimated:
        tokens += " (estimated)"
    latency = "-" if call.latency_ms is None else f"{call.latency_ms:.0f} ms"
    if call.first_token_ms is not None:
        latency += f" (first token {call.first_token_ms:.0f} ms)"
    facts = [("Inherited", f"from session {inherited[:8]}, read-only")] if inherited else []
    facts += [
        ("Status", call.status.value),
        ("Model", _label(call.model)),
        ("Endpoint", _label(call.endpoint)),
        ("Tokens", tokens),
        ("Latency", latency),
        ("Started", _when(call.started_at)),
    ]
    if call.cost_usd is not None:
        facts.append(("Cost", f"${call.cost_usd:.6f}"))
    if call.finish_reason:
        facts.append(("Finish reason", _label(call.finish_reason)))
    if call.error:
        facts.append(("Error", _clean(call.error)))
    return facts


def _messages(call: CallRecord) -> list[tuple[str, str]]:
    """(role, content) of each message of the request, exactly as sent."""
    found: list[tuple[str, str]] = []
    for message in call.messages():
        content = message.get("content", "")
        text = content if isinstance(content, str) else json.dumps(content, indent=2)
        found.append((_label(message.get("role", "?")), _clean(text)))
    return found


def _branch_facts(data: SessionExport) -> list[tuple[str, str]]:
    origin = data.branch
    if origin is None:
        return []
    facts = [("Branch of", f"session {origin.parent_id[:8]} at step {origin.step}")]
    return facts + ([("Changed", _label("; ".join(origin.changes)))] if origin.changes else [])


def _session_facts(session: SessionRecord) -> list[tuple[str, str]]:
    return [
        ("Kind", _label(session.kind)),
        ("Scenario", _label(session.scenario)),
        ("Status", session.status),
        ("Started", _when(session.created_at)),
        ("Last activity", _when(session.updated_at)),
        ("Session id", session.id),
    ]


# -- Markdown ----------------------------------------------------------------------
def _md(text: str) -> str:
    return _MD_SPECIAL.sub(r"\\\1", text)


def _md_block(text: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text}\n{fence}"


def _md_item(text: str) -> str:
    """Escaped prose whose extra lines stay inside the list item."""
    return _md(text).replace("\n", "\n  ")


def render_markdown(data: SessionExport) -> str:
    session = data.session
    names = _names(data.summary)
    out = [f"# {_md(_label(session.title)) or 'Untitled session'}", ""]
    out += [f"- {key}: {_md(value)}" for key, value in _session_facts(session)
            + _branch_facts(data)]
    if data.warnings:
        out += ["", f"**{_LEFT_OUT}**", ""]
        out += [f"- {_md(_clean(warning))}" for warning in data.warnings]

    heading, text, picks, empty = _result(data.summary)
    out += ["", f"## {_md(heading)}", ""]
    if text:
        out += [_md(text), ""]
    for n, pick in enumerate(picks, 1):
        detail = f" — {_md(pick.detail)}" if pick.detail else ""
        by = f", by {_md(', '.join(pick.by))}" if pick.by else ""
        out.append(f"{n}. **{_md(pick.title)}**{detail}{by}")
    if not picks and not text:
        out.append(_md(empty))

    out += ["", "## Transcript", ""]
    lines = _transcript(data.summary)
    for line in lines:
        tag = (f"{line.channel}, " if line.channel else "") + f"turn {line.turn}" + (
            "" if line.kind == "spoken" else f", {line.kind}")
        out.append(f"- **{_md(line.speaker)}** ({_md(tag)}): {_md_item(line.text)}")
    if not lines:
        out.append("No transcript was recorded.")

    out += ["", f"## Calls ({len(data.calls)})"]
    for call in data.calls:
        speaker = _speaker(call.actor_id, names)
        out += ["", f"### Call {call.seq}: {_md(speaker)} · {_md(_label(call.model))}", ""]
        out += [f"- {key}: {_md(value)}" for key, value in
                _call_facts(call, data.inherited_from.get(call.id))]
        for n, (role, content) in enumerate(_messages(call), 1):
            out += ["", f"**Message {n} ({_md(role)}), as sent:**", "", _md_block(content)]
        out += ["", "**Response:**", "", _md_block(_clean(call.response_text))]
    out += ["", "---", "", "Exported from roundtable. The JSON export holds every event.", ""]
    return "\n".join(out)


# -- HTML --------------------------------------------------------------------------
def _css_token(text: str) -> str:
    return re.sub(r"[^a-z0-9-]", "", text.lower())


def _facts_list(facts: list[tuple[str, str]]) -> Any:
    items: list[Any] = []
    for key, value in facts:
        items += [E.DT(key), E.DD(value)]
    return E.DL(E.CLASS("meta"), *items)


def _html_transcript(lines: list[_Line]) -> Any:
    if not lines:
        return E.P("No transcript was recorded.")
    items = []
    for line in lines:
        tag = (f"{line.channel} · " if line.channel else "") + f"turn {line.turn}" + (
            "" if line.kind == "spoken" else f" · {line.kind}")
        items.append(
            E.LI(
                E.CLASS(f"line kind-{_css_token(line.kind)}"),
                E.SPAN(E.CLASS("who"), line.speaker),
                E.SPAN(E.CLASS("tag"), tag),
                E.DIV(E.CLASS("text"), line.text),
            )
        )
    return E.OL(E.CLASS("transcript"), *items)


def _html_result(summary: SessionSummary | None) -> Any:
    heading, text, picks, empty = _result(summary)
    parts: list[Any] = [E.H2(heading)]
    if text:
        parts.append(E.P(E.CLASS("text"), text))
    items = []
    for pick in picks:
        tag = " · ".join(part for part in (pick.detail, f"by {', '.join(pick.by)}"
                                           if pick.by else "") if part)
        items.append(E.LI(E.STRONG(pick.title), E.SPAN(E.CLASS("tag"), tag)))
    if items:
        parts.append(E.OL(*items))
    elif not text:
        parts.append(E.P(empty))
    return _H.section(*parts, id="result")


def _html_call(call: CallRecord, names: dict[str, str], inherited: str | None = None) -> Any:
    speaker = _speaker(call.actor_id, names)
    mark = " (inherited)" if inherited else ""
    parts: list[Any] = [
        E.H3(f"Call {call.seq}{mark}: {speaker} · {_label(call.model)}"),
        _facts_list(_call_facts(call, inherited)),
    ]
    # Every payload starts collapsed: a page of calls must not push the next one (or, in
    # a long session, the end of the page) thousands of pixels away.
    for i, (role, content) in enumerate(_messages(call)):
        parts.append(E.DETAILS(
            E.SUMMARY(f"Message {i + 1} ({role}), as sent · {count_of(len(content), 'character')}"),
            E.PRE(content),
        ))
    parts += [E.H4("Response"), E.PRE(_clean(call.response_text) or "(no text)")]
    return _H.article(E.CLASS(f"call status-{_css_token(call.status.value)}"), *parts)


def _html_left_out(warnings: list[str]) -> list[Any]:
    if not warnings:
        return []
    return [E.P(E.STRONG(_LEFT_OUT)), E.UL(*[E.LI(_clean(w)) for w in warnings])]


def render_html(data: SessionExport) -> str:
    session = data.session
    names = _names(data.summary)
    title = _label(session.title) or "Untitled session"
    head = E.HEAD(
        E.META({"http-equiv": "Content-Security-Policy", "content": CSP}),
        E.META(charset="utf-8"),
        E.META(name="referrer", content="no-referrer"),
        E.META(name="viewport", content="width=device-width, initial-scale=1"),
        E.TITLE(f"{title} — roundtable session"),
        E.STYLE(_CSS),
    )
    body = E.BODY(
        _H.header(E.H1(title), _facts_list(_session_facts(session) + _branch_facts(data)),
                  *_html_left_out(data.warnings)),
        _html_result(data.summary),
        _H.section(
            E.H2("Transcript"), _html_transcript(_transcript(data.summary)), id="transcript"
        ),
        _H.section(
            E.H2(f"Calls ({len(data.calls)})"),
            *[_html_call(call, names, data.inherited_from.get(call.id)) for call in data.calls],
            id="calls",
        ),
        _H.footer("Exported from roundtable. The JSON export holds every event."),
    )
    page = E.HTML(head, body, lang="en")
    return lxml.html.tostring(
        page, doctype="<!DOCTYPE html>", encoding="unicode", pretty_print=True
    )
