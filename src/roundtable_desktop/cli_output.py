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
from roundtable_desktop.domain.meeting import MeetingState
from roundtable_desktop.domain.tools import ToolStatus


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


def print_suggestions(state: MeetingState, session_id: str, out: TextIO | None = None) -> None:
    out = out or sys.stdout
    out.write("\nSuggestions" + (" (final)" if state.final_ids else "") + ":\n")
    if not state.suggestions:
        out.write("  (none committed)\n")
    for i, sug in enumerate(state.suggestions, 1):
        c = sug.candidate
        by = ", ".join(a.name for a in state.actors if a.id in sug.proposed_by)
        out.write(f"  {i}. {c.title} — {c.channel} ({c.duration}) [{c.id}]  by {by}\n")
    out.write(f"\nSession {session_id[:8]} saved. Export it with: "
              f"roundtable export {session_id[:8]} --format html --out meeting.html\n")
    out.flush()
