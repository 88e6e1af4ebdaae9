"""The Transcript dock: what was said, with each model reply streamed in live, for every kind.

Lines come from the kind-neutral `summary().transcript` of every kind; they are appended
incrementally (a
full re-render happens only when the transcript diverged, the theme changed or another
session is shown). Tool calls and refusals have their own colour and prefix (⚙ ran,
✗ refused). Each call in flight streams into an entry of its own, keyed by its call_id,
so several streams (a round of agents answering at once) never mix their text; each
entry is finalized by its CallFinished. Tokens are buffered and flushed at most every
FLUSH_MS, one insert per live call per flush, at a cursor that other inserts never move,
so a fast stream never re-renders the view or stalls the loop. Untrusted text is
inserted as plain text. Colours follow the theme: a palette change re-renders with the
inks for the new background. The shown kind may word its lines for people
(`set_wording`, from its window spec: the roundtable puts titles beside video ids);
a streamed reply stays the model's text as it came. Must hold no engine logic and
never name a kind.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from PySide6.QtCore import QTimer
from PySide6.QtGui import QColor, QFont, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QPlainTextEdit, QWidget

from roundtable_desktop.domain.calls import CallStatus
from roundtable_desktop.domain.events import CallFinished, CallStarted
from roundtable_desktop.domain.transcript import TranscriptKind
from roundtable_desktop.engine.base import SessionProtocol
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.docks.bridge_dock import BridgeDock
from roundtable_desktop.ui.theme import LIGHT_INKS, Inks, inks, monospace_font

FLUSH_MS = 40
# On the light theme; the dark theme's inks are lighter (theme.DARK_INKS).
TOOL_COLOUR = LIGHT_INKS.tool
REFUSAL_COLOUR = LIGHT_INKS.error
PREFIX = {
    TranscriptKind.SPOKEN.value: "» ",
    TranscriptKind.TOOL.value: "⚙ ",
    TranscriptKind.REFUSAL.value: "✗ ",
    TranscriptKind.SYSTEM.value: "· ",
}
# A kind's wording of its texts for people: given the session, text -> words shown.
Wording = Callable[[SessionProtocol], Callable[[str], str]]


@dataclass(frozen=True, slots=True)
class Line:
    """One transcript line as the dock shows it, whichever kind it came from."""

    name: str
    kind: str
    text: str
    channel: str = ""


@dataclass(eq=False)
class _Reply:
    """A streamed reply shown between transcript lines (kept for re-renders). While its
    call is live, `cursor` sits at the end of its text and `pending` holds tokens not yet
    written."""

    call_id: str
    header: str
    text: str = ""
    status: str = ""
    shown: bool = False
    cursor: QTextCursor | None = None
    pending: list[str] = field(default_factory=list)


class TranscriptDock(BridgeDock):
    def __init__(self, bridge: EngineBridge, parent: QWidget | None = None) -> None:
        # (session id, read-only) last shown: replay steps of one session keep the lines
        self._shown_session: tuple[str | None, bool] | None = None
        super().__init__("Transcript", "transcriptDock", bridge, parent)
        self.view = QPlainTextEdit()
        self.view.setObjectName("transcriptView")
        self.view.setReadOnly(True)
        self.view.setUndoRedoEnabled(False)
        self.view.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.setWidget(self.view)

        self._wording: Wording | None = None
        self._rendered = 0  # transcript lines shown
        self._last: Line | None = None
        self._replies: dict[int, list[_Reply]] = {}  # by transcript length at call start
        self._live: dict[str, _Reply] = {}  # by call_id, in the order the calls started
        self._flush_timer = QTimer(self)
        self._flush_timer.setSingleShot(True)
        self._flush_timer.setInterval(FLUSH_MS)
        self._flush_timer.timeout.connect(self.flush_tokens)
        self._inks = inks(self.theme_palette())
        self._formats = _formats(self.view.font(), self._inks)

        bridge.stateChanged.connect(self._on_bridge_state_changed)
        bridge.sessionEnded.connect(self._on_bridge_session_ended)
        bridge.toolRan.connect(self._on_bridge_tool_ran)
        bridge.callStarted.connect(self._on_bridge_call_started)
        bridge.tokenReceived.connect(self._on_bridge_token_received)
        bridge.callFinished.connect(self._on_bridge_call_finished)
        self.refresh()

    def text(self) -> str:
        return self.view.toPlainText()

    def set_wording(self, wording: Wording | None) -> None:
        """Show the lines in the shown kind's words (its window spec's `wording`; None:
        as they are); what the session holds and sends is never changed."""
        if wording is self._wording:
            return
        self._wording = wording
        self._render_all(self._lines())

    def live_calls(self) -> list[str]:
        """The call_ids streaming into the dock now, in the order they started."""
        return list(self._live)

    def _on_theme_changed(self) -> None:
        new = inks(self.theme_palette())
        if new != self._inks:  # the theme changed: draw everything in the new inks
            self._inks = new
            self._formats = _formats(self.view.font(), new)
            self._render_all(self._lines())

    # -- transcript lines ----------------------------------------------------------------
    def _lines(self) -> list[Line] | None:
        """The session's transcript as lines (None with no session)."""
        session, summary = self.bridge.session(), self.bridge.summary()
        if session is None or summary is None:
            return None
        words = self._wording(session) if self._wording is not None else _as_is
        return [Line(name=entry.speaker, kind=entry.kind, text=words(entry.text),
                     channel=entry.channel) for entry in summary.transcript]

    def refresh(self) -> None:
        """Show the transcript: append new lines, or re-render if it diverged."""
        lines = self._lines()
        shown = lines or []
        if (
            lines is not None
            and self._rendered <= len(shown)
            and (self._rendered == 0 or shown[self._rendered - 1] == self._last)
            and self.view.document().characterCount() > 1
        ):
            self._append_lines(shown[self._rendered:])
            return
        self._render_all(lines)

    def _on_bridge_session_changed(self) -> None:
        shown = (self.bridge.session_id(), self.bridge.read_only)
        if shown[1] and shown == self._shown_session:
            # Another replay step of the same session: refresh appends the lines a step
            # forward adds, or renders again when the step went back.
            super()._on_bridge_session_changed()
            return
        self._shown_session = shown
        self._flush_timer.stop()
        self._live.clear()
        self._replies.clear()
        self._rendered = 0
        self._last = None
        self.view.clear()
        super()._on_bridge_session_changed()

    def _render_all(self, lines: list[Line] | None) -> None:
        self.flush_tokens()
        self.view.clear()
        self._rendered = 0
        self._last = None
        for replies in self._replies.values():
            for reply in replies:
                reply.shown, reply.cursor = False, None
        if lines is None:
            self._insert_block("No session.", "system")
            return
        self._append_lines(lines)
        for index in sorted(i for i in self._replies if i >= len(lines)):
            self._insert_replies_before(index)  # also those of lines no longer there

    def _append_lines(self, lines: list[Line]) -> None:
        if not lines:
            return
        follow = self._at_bottom()
        for line in lines:
            self._insert_replies_before(self._rendered)
            self._insert_line(line)
            self._rendered += 1
            self._last = line
        if follow:
            self._scroll_to_bottom()

    def _insert_line(self, line: Line) -> None:
        cursor = self._new_block()
        kind = line.kind if line.kind in PREFIX else TranscriptKind.SYSTEM.value
        cursor.insertText(PREFIX[kind], self._formats[kind])
        if line.channel:
            cursor.insertText(f"[{line.channel}] ", self._formats["system"])
        if line.name and (kind != TranscriptKind.SYSTEM.value or line.kind != kind):
            cursor.insertText(f"{line.name}: ", self._formats[f"{kind}_name"])
        cursor.insertText(line.text, self._formats[kind])

    # -- streamed replies -----------------------------------------------------------------
    def _on_bridge_call_started(self, event: CallStarted) -> None:
        self.flush_tokens()
        # Lines from the tools that ran just before this call go above the reply.
        self._refresh_timer.stop()
        self.refresh()
        reply = _Reply(call_id=event.call_id, header=self._header(event))
        self._replies.setdefault(self._rendered, []).append(reply)
        self._live[event.call_id] = reply
        follow = self._at_bottom()
        self._insert_reply(reply)
        if follow:
            self._scroll_to_bottom()

    def _header(self, event: CallStarted) -> str:
        name = ""
        if event.actor_id:
            summary = self.bridge.summary()
            name = summary.name_of(event.actor_id) if summary is not None else event.actor_id
        name = name or event.label or "The model"
        if event.purpose == "reply":
            return f"▸ {name} is replying ({event.model}):"
        return f"▸ {name} — {event.purpose} ({event.model}):"

    def _on_bridge_token_received(self, call_id: str, text: str, count: int) -> None:
        reply = self._live.get(call_id)
        if reply is None:
            return
        reply.pending.append(text)
        if not self._flush_timer.isActive():
            self._flush_timer.start()

    def flush_tokens(self) -> None:
        """Write buffered tokens into their live replies: one insert per call per flush."""
        self._flush_timer.stop()
        follow = None
        for reply in self._live.values():
            if not reply.pending or reply.cursor is None:
                continue
            chunk = "".join(reply.pending)
            reply.pending.clear()
            follow = self._at_bottom() if follow is None else follow
            self._write_at(reply, chunk, "live")
            reply.text += chunk
        if follow:
            self._scroll_to_bottom()

    def _on_bridge_call_finished(self, event: CallFinished) -> None:
        reply = self._live.get(event.call_id)
        if reply is None:
            return
        self.flush_tokens()
        outcome = event.outcome
        if outcome.text != reply.text and outcome.text.startswith(reply.text):
            self._write_at(reply, outcome.text[len(reply.text):], "live")
        reply.text = outcome.text
        if outcome.status != CallStatus.OK:
            why = f": {outcome.error}" if outcome.error else ""
            reply.status = f"[{outcome.status.value}{why}]"
            self._write_at(reply, f"  {reply.status}", "refusal")
        reply.cursor = None
        del self._live[event.call_id]

    def _write_at(self, reply: _Reply, text: str, fmt: str) -> None:
        """Insert at the end of `reply` and move its cursor past the text: its cursor
        keeps its place when others insert there (the next entry's header at the end)."""
        if reply.cursor is None or not text:
            return
        cursor = QTextCursor(reply.cursor)
        # Qt keeps the position on an insert there but moves the anchor: drop the
        # selection that makes, or the text would replace the entries after this one.
        cursor.clearSelection()
        cursor.setKeepPositionOnInsert(False)  # this copy moves past what it writes
        cursor.insertText(text, self._formats[fmt])
        reply.cursor.setPosition(cursor.position())

    def _insert_reply(self, reply: _Reply) -> None:
        reply.shown = True
        self._insert_block(reply.header, "live_header")
        cursor = self._new_block()
        cursor.insertText(reply.text, self._formats["live"])
        if reply.status:
            cursor.insertText(f"  {reply.status}", self._formats["refusal"])
        if reply.call_id in self._live:
            cursor.setKeepPositionOnInsert(True)
            reply.cursor = cursor

    def _insert_replies_before(self, index: int) -> None:
        """Replies that streamed when the transcript had `index` lines, not yet shown."""
        for reply in self._replies.get(index, []):
            if not reply.shown:
                self._insert_reply(reply)

    # -- plumbing -----------------------------------------------------------------------
    def _on_bridge_state_changed(self, _part: str) -> None:
        self.schedule_refresh()  # lines only append: a refresh with nothing new is cheap

    def _on_bridge_session_ended(self, _reason: str) -> None:
        self.schedule_refresh()

    def _on_bridge_tool_ran(self, event: object) -> None:
        self.schedule_refresh()

    def _new_block(self) -> QTextCursor:
        cursor = QTextCursor(self.view.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        if self.view.document().characterCount() > 1:
            cursor.insertBlock()
        return cursor

    def _insert_block(self, text: str, fmt: str) -> None:
        self._new_block().insertText(text, self._formats[fmt])

    def _at_bottom(self) -> bool:
        bar = self.view.verticalScrollBar()
        return bar.value() >= bar.maximum() - 4

    def _scroll_to_bottom(self) -> None:
        bar = self.view.verticalScrollBar()
        bar.setValue(bar.maximum())


def _as_is(text: str) -> str:
    return text


def _formats(base: QFont, ink: Inks) -> dict[str, QTextCharFormat]:
    mono_families = monospace_font(base).families()

    def fmt(colour: str | None = None, *, bold: bool = False, italic: bool = False,
            mono: bool = False) -> QTextCharFormat:
        f = QTextCharFormat()
        if colour:
            f.setForeground(QColor(colour))
        if bold:
            f.setFontWeight(QFont.Weight.Bold)
        f.setFontItalic(italic)
        if mono:
            f.setFontFamilies(mono_families)
            f.setFontStyleHint(QFont.StyleHint.Monospace)
            f.setFontFixedPitch(True)
        return f

    return {
        "spoken": fmt(),
        "spoken_name": fmt(bold=True),
        "tool": fmt(ink.tool),
        "tool_name": fmt(ink.tool, bold=True),
        "refusal": fmt(ink.error),
        "refusal_name": fmt(ink.error, bold=True),
        "system": fmt(ink.system, italic=True),
        "system_name": fmt(ink.system, italic=True),
        "live_header": fmt(ink.live, bold=True),
        "live": fmt(ink.live, mono=True),
    }
