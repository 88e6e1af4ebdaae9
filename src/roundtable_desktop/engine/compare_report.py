"""A stored comparison read back and written as one self-contained HTML report: per step
the two requests diffed (settings, layers, messages), both responses, tokens, latency and
cost per side, a plain sentence where the sides did not step alike, and each side's
result at the end.

`read_comparison` gathers it from the store (the calls by id, each side's summary);
`render_comparison_html` writes the page (lxml: every stored text is escaped, no script,
nothing remote, the same CSP as a session export). Every known secret is redacted from
the written page. Must not write to the store, import Qt or name a kind.
"""

from __future__ import annotations

from typing import Any

import lxml.html
from lxml.html import builder as E
from pydantic import BaseModel, Field

from roundtable_desktop.domain.plural import count_of
from roundtable_desktop.domain.secrets import scrub
from roundtable_desktop.domain.summary import SessionSummary
from roundtable_desktop.domain.text import label_text, xml_text
from roundtable_desktop.engine.registry import summarize_stored
from roundtable_desktop.engine.request_diff import PartDiff, RequestDiff, diff_requests, diff_texts
from roundtable_desktop.llm.keys import remember_known_keys
from roundtable_desktop.store.branches import ComparisonRecord
from roundtable_desktop.store.database import SessionStore
from roundtable_desktop.store.export import CSP
from roundtable_desktop.store.records import CallRecord, SessionRecord

_H = E.E


class ReportStep(BaseModel):
    number: int  # the step along the parent's history
    left: list[CallRecord] = Field(default_factory=list)
    right: list[CallRecord] = Field(default_factory=list)
    left_note: str = ""
    right_note: str = ""
    requests: list[RequestDiff] = Field(default_factory=list)  # the i-th call of each side
    responses: list[PartDiff] = Field(default_factory=list)


class ComparisonReport(BaseModel):
    comparison: ComparisonRecord
    parent_title: str
    left: SessionRecord
    right: SessionRecord
    left_summary: SessionSummary | None = None
    right_summary: SessionSummary | None = None
    steps: list[ReportStep] = Field(default_factory=list)


def read_comparison(store: SessionStore, comparison_id: str) -> ComparisonReport:
    record = store.comparison(comparison_id)
    left = store.get_session(record.left_id, damaged_ok=True)
    right = store.get_session(record.right_id, damaged_ok=True)
    calls = {c.id: c for sid in (record.left_id, record.right_id) for c in store.calls(sid)}
    steps = []
    for i, done in enumerate(record.steps):
        lcalls = [calls[c] for c in done.left_calls if c in calls]
        rcalls = [calls[c] for c in done.right_calls if c in calls]
        pairs = list(zip(lcalls, rcalls, strict=False))
        steps.append(ReportStep(
            number=record.step + i + 1, left=lcalls, right=rcalls,
            left_note=done.left_note or _unmatched(lcalls, rcalls),
            right_note=done.right_note or _unmatched(rcalls, lcalls),
            requests=[diff_requests(a, b) for a, b in pairs],
            responses=[diff_texts(a.response_text, b.response_text, f"response {n + 1}")
                       for n, (a, b) in enumerate(pairs)]))
    return ComparisonReport(
        comparison=record, parent_title=store.get_session(record.parent_id,
                                                          damaged_ok=True).title,
        left=left, right=right, left_summary=summarize_stored(left.kind, left.state),
        right_summary=summarize_stored(right.kind, right.state), steps=steps)


def _unmatched(mine: list[CallRecord], other: list[CallRecord]) -> str:
    if len(mine) > len(other):
        extra = count_of(len(mine) - len(other), "call")
        return f"This side made {extra} the other did not: they no longer align call by call."
    return ""


def side_figures(calls: list[CallRecord]) -> str:
    """Tokens, latency and cost of a side's calls in a step, in one line."""
    prompt = sum(c.prompt_tokens or 0 for c in calls)
    completion = sum(c.completion_tokens or 0 for c in calls)
    latency = sum(c.latency_ms or 0 for c in calls)
    costs = [c.cost_usd for c in calls if c.cost_usd is not None]
    cost = f" · ${sum(costs):.6f}" if costs else ""
    return (f"{count_of(len(calls), 'call')} · {prompt} prompt + {completion} completion tokens · "
            f"{latency:.0f} ms{cost}")


def _clean(text: Any) -> str:
    return xml_text(str(text))


def _diff_block(diff: PartDiff) -> Any:
    head = f"{diff.part}: {diff.state}"
    if diff.state == "same":
        return E.LI(head)
    body = "\n".join(diff.lines) + (f"\n… {diff.more} more changed lines" if diff.more else "")
    return E.LI(E.DETAILS(E.SUMMARY(_clean(head)), E.PRE(_clean(body))))


def _side(name: str, session: SessionRecord, calls: list[CallRecord], note: str) -> Any:
    parts: list[Any] = [E.H4(f"{name} · {_clean(label_text(session.title))}"),
                        E.P(side_figures(calls))]
    if note:
        parts.append(E.P(E.STRONG(_clean(note)), E.CLASS("note")))
    for call in calls:
        parts.append(E.P(f"{_clean(call.label or call.purpose)} · {_clean(call.model)} · "
                         f"{call.status.value}"))
        parts.append(E.PRE(_clean(call.response_text) or "(no text)"))
    return _H.div(E.CLASS("side"), *parts)


def _result(name: str, summary: SessionSummary | None) -> Any:
    if summary is None:
        return _H.div(E.CLASS("side"), E.H4(name), E.P("This version cannot read its result."))
    result = summary.result
    items = [E.LI(_clean(f"{item.title}: {item.detail}".rstrip(": ")))
             for item in result.items]
    return _H.div(E.CLASS("side"), E.H4(f"{name}: {_clean(result.heading)}"),
                  E.P(_clean(result.text or (result.empty_text if not items else ""))),
                  E.UL(*items))


_CSS = """
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 80rem; }
.pair { display: grid; grid-template-columns: 1fr 1fr; gap: 1rem; }
.side { border: 1px solid #ccc; border-radius: 6px; padding: .5rem 1rem; }
.note { color: #8a1c1c; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #f3f3f1; padding: .5rem; }
"""


def render_comparison_html(report: ComparisonReport) -> str:
    remember_known_keys()
    record = report.comparison
    title = f"Compare at step {record.step} of {label_text(report.parent_title)}"
    steps: list[Any] = []
    for step in report.steps:
        diffs: list[Any] = []
        for n, (request, response) in enumerate(zip(step.requests, step.responses,
                                                    strict=True)):
            diffs += [E.H4(f"Request {n + 1}: {_clean(request.sentence())}"),
                      E.UL(*[_diff_block(d) for d in
                             (*request.settings, *request.layers, *request.messages)]),
                      E.UL(_diff_block(response))]
        steps.append(_H.section(
            E.H2(f"Step {step.number}"), *diffs,
            _H.div(E.CLASS("pair"), _side("Left", report.left, step.left, step.left_note),
                   _side("Right", report.right, step.right, step.right_note))))
    head = E.HEAD(E.META({"http-equiv": "Content-Security-Policy", "content": CSP}),
                  E.META(charset="utf-8"), E.TITLE(_clean(title)), E.STYLE(_CSS))
    body = E.BODY(
        E.H1(_clean(title)),
        E.P(f"Left: session {report.left.id[:8]} · right: session {report.right.id[:8]}; "
            f"both branched from session {record.parent_id[:8]} at step {record.step}."),
        *steps,
        _H.section(E.H2("Result"), _H.div(E.CLASS("pair"),
                                          _result("Left", report.left_summary),
                                          _result("Right", report.right_summary))))
    page = E.HTML(head, body, lang="en")
    return scrub(lxml.html.tostring(page, doctype="<!DOCTYPE html>", encoding="unicode",
                                    pretty_print=True))
