"""Print a running session to the terminal: turn headers, streamed text, tool results.

Must not drive the session; it only listens to events.
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
from roundtable_desktop.domain.summary import SessionSummary
from roundtable_desktop.domain.tools import ToolStatus
from roundtable_desktop.protocols.kinds import KindSpec


class MeetingPrinter:
    def __init__(self, *, quiet: bool = False, out: TextIO | None = None) -> None:
        self.quiet = quiet
        self.out = out or sys.stdout
        self.names: dict[str, str] = {}
        self._turns = 0

    def line(self, text: str) -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def __call__(self, event: Event) -> None:
        if isinstance(event, Notice):
            hint = f" ({event.hint})" if event.hint else ""
            print(f"! {event.message}{hint}", file=sys.stderr, flush=True)
            return
        if self.quiet:
            return
        if isinstance(event, CallStarted):
            who = self.names.get(event.actor_id or "", event.actor_id or "?")
            self.line(f"\n── {who} · {event.model} ──")
        elif isinstance(event, TokenReceived):
            self.out.write(event.text)
            self.out.flush()
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
    out = out or sys.stdout
    result = summary.result
    out.write(f"\n{result.heading}" + (" (final)" if result.final else "") + ":\n")
    if result.text:
        out.write(f"  {result.text}\n")
    if not result.items and not result.text:
        out.write(f"  ({result.empty_text})\n")
    for i, item in enumerate(result.items, 1):
        detail = f" — {item.detail}" if item.detail else ""
        by = f"  by {', '.join(item.by)}" if item.by else ""
        out.write(f"  {i}. {item.title}{detail}{by}\n")
    out.write(f"\nSession {session_id[:8]} saved. Export it with: "
              f"roundtable export {session_id[:8]} --format html --out {summary.kind}.html\n")
    out.flush()


def print_kinds(kinds: list[KindSpec], planned: tuple[str, ...],
                out: TextIO | None = None) -> None:
    out = out or sys.stdout
    for spec in kinds:
        out.write(f"{spec.name:<12} {spec.title}\n")
        out.write(f"{'':<12} {spec.description}\n")
        for scenario in spec.scenarios():
            out.write(f"{'':<12}   scenario {scenario.name}: {scenario.title}\n")
    for name in planned:
        out.write(f"{name:<12} (not built yet)\n")
    out.flush()
