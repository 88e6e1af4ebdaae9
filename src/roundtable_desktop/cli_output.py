"""Print a running session to the terminal: turn headers, streamed text, tool results.

Everything printed goes through `emit_text`: text from the model, a server, a source or
the store is made inert first (`shown`: no escape sequences, controls or bidi controls,
no known secret), and a character the terminal's encoding lacks is replaced rather than
raising. Must not drive the session; it only listens to events.
"""

from __future__ import annotations

import sys
from typing import TextIO

from roundtable_desktop.domain.events import (
    CallFinished,
    CallStarted,
    Event,
    Notice,
    SessionEnded,
    TokenReceived,
    ToolRan,
)
from roundtable_desktop.domain.secrets import scrub
from roundtable_desktop.domain.summary import SessionSummary
from roundtable_desktop.domain.text import terminal_text
from roundtable_desktop.domain.tools import ToolStatus
from roundtable_desktop.protocols.kinds import KindSpec


def shown(text: str) -> str:
    """`text` as a terminal may show it: controls and escape sequences stripped first (so
    they cannot split a key), then every known secret redacted."""
    return scrub(terminal_text(text))


def emit_text(out: TextIO, text: str) -> None:
    """Write `shown(text)` to `out` and flush; characters the stream cannot encode (a
    terminal that is not UTF-8) become "?" instead of raising."""
    text = shown(text)
    try:
        out.write(text)
    except UnicodeEncodeError:
        encoding = getattr(out, "encoding", None) or "ascii"
        out.write(text.encode(encoding, errors="replace").decode(encoding, errors="replace"))
    out.flush()


class MeetingPrinter:
    def __init__(self, *, quiet: bool = False, out: TextIO | None = None,
                 err: TextIO | None = None) -> None:
        self.quiet = quiet
        self.out = out or sys.stdout
        self.err = err
        self.names: dict[str, str] = {}
        self._turns = 0

    def line(self, text: str) -> None:
        emit_text(self.out, text + "\n")

    def error_line(self, text: str) -> None:
        emit_text(self.err or sys.stderr, text + "\n")

    def __call__(self, event: Event) -> None:
        if isinstance(event, Notice):
            hint = f" ({event.hint})" if event.hint else ""
            self.error_line(f"! {event.message}{hint}")
            return
        if self.quiet:
            return
        if isinstance(event, CallStarted):
            who = self.names.get(event.actor_id or "", event.actor_id or "?")
            self.line(f"\n── {who} · {event.model} ──")
        elif isinstance(event, TokenReceived):
            emit_text(self.out, event.text)
        elif isinstance(event, CallFinished):
            o = event.outcome
            self.line(f"\n   [{o.status.value}, {o.usage.completion_tokens} tokens, "
                      f"{o.latency_ms:.0f} ms]")
        elif isinstance(event, ToolRan):
            r = event.result
            mark = "✓" if r.status == ToolStatus.OK else "✗"
            msg = f" — {r.message}" if r.message else ""
            self.line(f"   {mark} {r.call.render()}{msg}")
        elif isinstance(event, SessionEnded):
            self.line(f"\n■ {event.reason}")


def print_result(summary: SessionSummary, session_id: str, out: TextIO | None = None) -> None:
    """The session's result as its kind names it, then how to export it."""
    result = summary.result
    lines = [f"\n{result.heading}" + (" (final)" if result.final else "") + ":"]
    if result.text:
        lines.append(f"  {result.text}")
    if not result.items and not result.text:
        lines.append(f"  ({result.empty_text})")
    for i, item in enumerate(result.items, 1):
        detail = f" — {item.detail}" if item.detail else ""
        by = f"  by {', '.join(item.by)}" if item.by else ""
        lines.append(f"  {i}. {item.title}{detail}{by}")
    lines.append(f"\nSession {session_id[:8]} saved. Export it with: "
                 f"roundtable export {session_id[:8]} --format html --out {summary.kind}.html")
    emit_text(out or sys.stdout, "\n".join(lines) + "\n")


def print_kinds(kinds: list[KindSpec], planned: tuple[str, ...],
                out: TextIO | None = None) -> None:
    lines: list[str] = []
    for spec in kinds:
        lines.append(f"{spec.name:<12} {spec.title}")
        lines.append(f"{'':<12} {spec.description}")
        for scenario in spec.scenarios():
            lines.append(f"{'':<12}   scenario {scenario.name}: {scenario.title}")
    for name in planned:
        lines.append(f"{name:<12} (not built yet)")
    emit_text(out or sys.stdout, "".join(f"{line}\n" for line in lines))
