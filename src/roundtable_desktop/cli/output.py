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
    StateChanged,
    TokenReceived,
    ToolRan,
)
from roundtable_desktop.domain.secrets import scrub
from roundtable_desktop.domain.summary import SessionSummary
from roundtable_desktop.domain.text import terminal_text
from roundtable_desktop.domain.tools import ToolStatus
from roundtable_desktop.engine.registry import KindSpec

# A StateChanged of this part carries one plain sentence about what just happened, for a
# reader (any kind may emit it; debate's classical mode says who spoke, cut in, or kept
# silent).
NARRATION = "narration"


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
    """Prints calls as they stream. Calls that run at once (several agents answering
    together) do not interleave: one streams live, the others are held and printed
    whole, in the order they finish, once nothing streams live."""

    def __init__(self, *, quiet: bool = False, out: TextIO | None = None,
                 err: TextIO | None = None) -> None:
        self.quiet = quiet
        self.out = out or sys.stdout
        self.err = err
        self.names: dict[str, str] = {}
        self._turns = 0
        self._live: str | None = None  # the call streaming to the terminal now
        self._held: dict[str, list[str]] = {}  # other calls' text so far, in start order
        self._done: list[str] = []  # held calls that have finished, in that order

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
            self._write(event.call_id, f"\n── {who} · {event.model} ──\n", start=True)
        elif isinstance(event, TokenReceived):
            self._write(event.call_id, event.text)
        elif isinstance(event, CallFinished):
            o = event.outcome
            self._write(event.call_id, f"\n   [{o.status.value}, {o.usage.completion_tokens} "
                                       f"tokens, {o.latency_ms:.0f} ms]\n")
            self._finish(event.call_id)
        elif isinstance(event, ToolRan):
            r = event.result
            mark = "✓" if r.status == ToolStatus.OK else "✗"
            msg = f" — {r.message}" if r.message else ""
            self.line(f"   {mark} {r.call.render()}{msg}")
        elif isinstance(event, StateChanged) and event.part == NARRATION and event.detail:
            self.line(f"\n• {event.detail}")  # a kind's one-sentence account of a step
        elif isinstance(event, SessionEnded):
            self.line(f"\n■ {event.reason}")

    def _write(self, call_id: str, text: str, *, start: bool = False) -> None:
        if start and self._live is None:
            self._live = call_id
        if call_id == self._live:
            emit_text(self.out, text)
        elif start or call_id in self._held:
            self._held.setdefault(call_id, []).append(text)
        else:
            emit_text(self.out, text)  # a call that started before this printer listened

    def _finish(self, call_id: str) -> None:
        if call_id != self._live:
            if call_id in self._held:
                self._done.append(call_id)
            return
        self._live = None
        for held in self._done:  # the finished ones whole, in the order they finished
            emit_text(self.out, "".join(self._held.pop(held)))
        self._done.clear()
        if self._held:  # then the first still streaming goes live, the rest wait
            self._live = next(iter(self._held))
            emit_text(self.out, "".join(self._held.pop(self._live)))


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


def print_kinds(kinds: list[KindSpec], out: TextIO | None = None) -> None:
    lines: list[str] = []
    for spec in kinds:
        lines.append(f"{spec.name:<12} {spec.title}")
        lines.append(f"{'':<12} {spec.description}")
        for scenario in spec.scenarios():
            lines.append(f"{'':<12}   scenario {scenario.name}: {scenario.title}")
    emit_text(out or sys.stdout, "".join(f"{line}\n" for line in lines))
