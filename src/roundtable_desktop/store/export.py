"""Exports a stored session as JSON (full fidelity), Markdown or a self-contained HTML page.

JSON holds the session record, calls, events and checkpoints and reads back with
`SessionExport.model_validate_json`. Markdown and HTML show the transcript, the final
suggestions and every call with its exact payload and response. All text is untrusted:
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
from pydantic import BaseModel

from roundtable_desktop.domain.events import Event
from roundtable_desktop.store.database import SessionStore
from roundtable_desktop.store.records import CallRecord, Checkpoint, SessionRecord

ExportFormat = Literal["html", "md", "json"]

# The builder's element maker, for HTML5 tags the builder has no constant for.
_H = E.E

CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"

_XML_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>#|])")

_CSS = """
body { font: 16px/1.5 system-ui, sans-serif; max-width: 60rem; margin: 2rem auto;
       padding: 0 1rem; color: #1b1b1b; background: #fdfdfc; }
h1 { margin-bottom: .25rem; }
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
summary { cursor: pointer; font-weight: 600; }
footer { margin-top: 2rem; color: #666; font-size: .85em; }
"""


class SessionExport(BaseModel):
    """Everything stored about one session; the JSON export is this model."""

    format: Literal["roundtable-session"] = "roundtable-session"
    format_version: int = 1
    session: SessionRecord
    calls: list[CallRecord]
    events: list[Event]
    checkpoints: list[Checkpoint]


def collect_export(store: SessionStore, session_id: str) -> SessionExport:
    return SessionExport(
        session=store.get_session(session_id),
        calls=store.calls(session_id),
        events=store.events(session_id),
        checkpoints=store.checkpoints(session_id),
    )


def export_session(store: SessionStore, session_id: str, fmt: ExportFormat) -> str:
    data = collect_export(store, session_id)
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


@dataclass(frozen=True)
class _Pick:
    title: str
    channel: str
    id: str
    proposed_by: list[str]


def _clean(text: Any) -> str:
    """Text lxml accepts and any file encoding survives: XML-illegal characters removed."""
    return _SURROGATE.sub("\ufffd", _XML_ILLEGAL.sub("", str(text)))


def _label(text: Any) -> str:
    """A short label (title, name): also without bidi controls that could reorder it."""
    return _BIDI.sub("", _clean(text)).strip()


def _when(ts: float | None) -> str:
    if ts is None:
        return "-"
    return datetime.fromtimestamp(ts, tz=UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _kind_state(state: dict[str, Any]) -> dict[str, Any]:
    """A protocol's state dict keeps its kind's model under one key (roundtable: "meeting")."""
    inner = state.get("meeting")
    return inner if isinstance(inner, dict) else state


def _actor_names(state: dict[str, Any]) -> dict[str, str]:
    names: dict[str, str] = {}
    actors = state.get("actors")
    for actor in actors if isinstance(actors, list) else []:
        if isinstance(actor, dict) and actor.get("id") is not None:
            names[str(actor["id"])] = _label(actor.get("name") or actor["id"])
    return names


def _speaker(actor_id: Any, names: dict[str, str]) -> str:
    if actor_id is None:
        return "System"
    return names.get(str(actor_id), _label(actor_id))


def _transcript(state: dict[str, Any], names: dict[str, str]) -> list[_Line]:
    lines = state.get("transcript")
    found: list[_Line] = []
    for line in lines if isinstance(lines, list) else []:
        if not isinstance(line, dict):
            continue
        turn = line.get("turn")
        found.append(
            _Line(
                speaker=_speaker(line.get("actor_id"), names),
                kind=_label(line.get("kind") or "spoken"),
                turn=turn if isinstance(turn, int) else 0,
                text=_clean(line.get("text", "")),
            )
        )
    return found


def _suggestions(state: dict[str, Any], names: dict[str, str]) -> list[_Pick]:
    items = state.get("suggestions")
    found: list[_Pick] = []
    for item in items if isinstance(items, list) else []:
        candidate = item.get("candidate") if isinstance(item, dict) else None
        if not isinstance(candidate, dict):
            continue
        proposers = item.get("proposed_by")
        found.append(
            _Pick(
                title=_label(candidate.get("title", "")),
                channel=_label(candidate.get("channel", "")),
                id=_label(candidate.get("id", "")),
                proposed_by=[
                    _speaker(p, names) for p in (proposers if isinstance(proposers, list) else [])
                ],
            )
        )
    return found


def _call_facts(call: CallRecord) -> list[tuple[str, str]]:
    tokens = f"{call.prompt_tokens or 0} prompt + {call.completion_tokens or 0} completion"
    if call.usage_estimated:
        tokens += " (estimated)"
    latency = "-" if call.latency_ms is None else f"{call.latency_ms:.0f} ms"
    if call.first_token_ms is not None:
        latency += f" (first token {call.first_token_ms:.0f} ms)"
    facts = [
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
    state = _kind_state(session.state)
    names = _actor_names(state)
    out = [f"# {_md(_label(session.title)) or 'Untitled session'}", ""]
    out += [f"- {key}: {_md(value)}" for key, value in _session_facts(session)]

    out += ["", "## Transcript", ""]
    lines = _transcript(state, names)
    for line in lines:
        tag = f"turn {line.turn}" + ("" if line.kind == "spoken" else f", {line.kind}")
        out.append(f"- **{_md(line.speaker)}** ({_md(tag)}): {_md_item(line.text)}")
    if not lines:
        out.append("No transcript was recorded.")

    out += ["", "## Final suggestions", ""]
    picks = _suggestions(state, names)
    for n, pick in enumerate(picks, 1):
        by = ", ".join(pick.proposed_by) or "nobody"
        channel = f" — {_md(pick.channel)}" if pick.channel else ""
        out.append(f"{n}. **{_md(pick.title)}**{channel} ({_md(pick.id)}), proposed by {_md(by)}")
    if not picks:
        out.append("No suggestions.")

    out += ["", f"## Calls ({len(data.calls)})"]
    for call in data.calls:
        speaker = _speaker(call.actor_id, names)
        out += ["", f"### Call {call.seq}: {_md(speaker)} · {_md(_label(call.model))}", ""]
        out += [f"- {key}: {_md(value)}" for key, value in _call_facts(call)]
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
        tag = f"turn {line.turn}" + ("" if line.kind == "spoken" else f" · {line.kind}")
        items.append(
            E.LI(
                E.CLASS(f"line kind-{_css_token(line.kind)}"),
                E.SPAN(E.CLASS("who"), line.speaker),
                E.SPAN(E.CLASS("tag"), tag),
                E.DIV(E.CLASS("text"), line.text),
            )
        )
    return E.OL(E.CLASS("transcript"), *items)


def _html_suggestions(picks: list[_Pick]) -> Any:
    if not picks:
        return E.P("No suggestions.")
    items = []
    for pick in picks:
        detail = " — ".join(part for part in (pick.channel, pick.id) if part)
        by = ", ".join(pick.proposed_by) or "nobody"
        items.append(
            E.LI(E.STRONG(pick.title), E.SPAN(E.CLASS("tag"), f"{detail} · proposed by {by}"))
        )
    return E.OL(*items)


def _html_call(call: CallRecord, names: dict[str, str]) -> Any:
    speaker = _speaker(call.actor_id, names)
    parts: list[Any] = [
        E.H3(f"Call {call.seq}: {speaker} · {_label(call.model)}"),
        _facts_list(_call_facts(call)),
    ]
    messages = _messages(call)
    last_user = max((i for i, (role, _) in enumerate(messages) if role == "user"), default=-1)
    for i, (role, content) in enumerate(messages):
        details = E.DETAILS(
            E.SUMMARY(f"Message {i + 1} ({role}), as sent · {len(content)} characters"),
            E.PRE(content),
        )
        if i == last_user:
            details.set("open", "open")
        parts.append(details)
    parts += [E.H4("Response"), E.PRE(_clean(call.response_text) or "(no text)")]
    return _H.article(E.CLASS(f"call status-{_css_token(call.status.value)}"), *parts)


def render_html(data: SessionExport) -> str:
    session = data.session
    state = _kind_state(session.state)
    names = _actor_names(state)
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
        _H.header(E.H1(title), _facts_list(_session_facts(session))),
        _H.section(
            E.H2("Transcript"), _html_transcript(_transcript(state, names)), id="transcript"
        ),
        _H.section(
            E.H2("Final suggestions"),
            _html_suggestions(_suggestions(state, names)),
            id="suggestions",
        ),
        _H.section(
            E.H2(f"Calls ({len(data.calls)})"),
            *[_html_call(call, names) for call in data.calls],
            id="calls",
        ),
        _H.footer("Exported from roundtable. The JSON export holds every event."),
    )
    page = E.HTML(head, body, lang="en")
    return lxml.html.tostring(
        page, doctype="<!DOCTYPE html>", encoding="unicode", pretty_print=True
    )
