"""The Transcript dock: the meeting transcript, with each model reply streamed in live.

Transcript lines come from the state and are appended incrementally (a full re-render
happens only when a different session is shown). Tool calls and refusals have their own
colour and prefix (⚙ ran, ✗ refused). A streamed reply is written into its own block
as tokens arrive: tokens are buffered and flushed at most every FLUSH_MS, each flush one
insert at a kept cursor, so a fast stream never re-renders the view or stalls the loop.
Untrusted text is inserted as plain text. Colours follow the theme: a palette change
re-renders with the inks for the new background. Must hold no engine logic.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QTimer
from PySide6.QtGui import QColor, QFont, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QPlainTextEdit, QWidget

from roundtable_desktop.domain.calls import CallStatus
from roundtable_desktop.domain.events import CallFinished, CallStarted
from roundtable_desktop.domain.meeting import MeetingState, TranscriptKind, TranscriptLine
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.docks.bridge_dock import BridgeDock
from roundtable_desktop.ui.theme import LIGHT_INKS, Inks, inks, monospace_font

FLUSH_MS = 40
# On the light theme; the dark theme's inks are lighter (theme.DARK_INKS).
TOOL_COLOUR = LIGHT_INKS.tool
REFUSAL_COLOUR = LIGHT_INKS.error
SYSTEM_COLOUR = LIGHT_INKS.system
LIVE_COLOUR = LIGHT_INKS.live
PREFIX = {
    TranscriptKind.SPOKEN: "» ",
    TranscriptKind.TOOL: "⚙ ",
    TranscriptKind.REFUSAL: "✗ ",
    TranscriptKind.SYSTEM: "· ",
}


@dataclass
class _Reply:
    """A streamed reply shown between transcript lines (kept for re-renders)."""

    header: str
    text: str
    status: str = ""
    shown: bool = False


class TranscriptDock(BridgeDock):
    def __init__(self, bridge: EngineBridge, parent: QWidget | None = None) -> None:
        super().__init__("Transcript", "transcriptDock", bridge, parent)
        self.view = QPlainTextEdit()
        self.view.setObjectName("transcriptView")
        self.view.setReadOnly(True)
        self.view.setUndoRedoEnabled(False)
        self.view.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.setWidget(self.view)

        self._rendered = 0  # transcript lines shown
        self._last_key: tuple[str | None, str, str] | None = None
        self._replies: dict[int, list[_Reply]] = {}  # by transcript length at call start
        self._live_call: str | None = None
        self._live_reply: _Reply | None = None
        self._live_cursor: QTextCursor | None = None
        self._restyle_pending = False
        self._pending: list[str] = []
        self._flush_timer = QTimer(self)
        self._flush_timer.setSingleShot(True)
        self._flush_timer.setInterval(FLUSH_MS)
        self._flush_timer.timeout.connect(self.flush_tokens)
        self._inks = inks(self.theme_palette())
        self._formats = _formats(self.view.font(), self._inks)

        bridge.stateChanged.connect(self._on_bridge_state_changed)
        bridge.toolRan.connect(self._on_bridge_tool_ran)
        bridge.callStarted.connect(self._on_bridge_call_started)
        bridge.tokenReceived.connect(self._on_bridge_token_received)
        bridge.callFinished.connect(self._on_bridge_call_finished)
        self.refresh()

    def text(self) -> str:
        return self.view.toPlainText()

    def _on_theme_changed(self) -> None:
        new = inks(self.theme_palette())
        if new != self._inks:  # the theme changed: draw everything in the new inks
            self._inks = new
            self._formats = _formats(self.view.font(), new)
            # A streaming reply keeps its cursor; it is redrawn when the call finishes.
            self._restyle_pending = self._live_call is not None
            if not self._restyle_pending:
                self._render_all(self.state())

    # -- transcript lines ----------------------------------------------------------------
    def refresh(self) -> None:
        """Show the state's transcript: append new lines, or re-render if it diverged."""
        state = self.state()
        lines = state.transcript if state else []
        if (
            self._rendered <= len(lines)
            and (self._rendered == 0 or _key(lines[self._rendered - 1]) == self._last_key)
            and self.view.document().characterCount() > 1
        ):
            self._append_lines(state, lines[self._rendered:])
            return
        self._render_all(state)

    def _on_bridge_session_changed(self) -> None:
        self._end_live()
        self._replies.clear()
        self._rendered = 0
        self._last_key = None
        self.view.clear()
        super()._on_bridge_session_changed()

    def _render_all(self, state: MeetingState | None) -> None:
        self._end_live()
        self.view.clear()
        self._rendered = 0
        self._last_key = None
        for replies in self._replies.values():
            for reply in replies:
                reply.shown = False
        if state is None:
            self._insert_block("No session.", "system")
            return
        self._append_lines(state, state.transcript)
        self._insert_replies_before(len(state.transcript))

    def _append_lines(self, state: MeetingState | None, lines: list[TranscriptLine]) -> None:
        if state is None or not lines:
            return
        follow = self._at_bottom()
        for line in lines:
            self._insert_replies_before(self._rendered)
            self._insert_line(state, line)
            self._rendered += 1
            self._last_key = _key(line)
        if follow:
            self._scroll_to_bottom()

    def _insert_line(self, state: MeetingState, line: TranscriptLine) -> None:
        actor = state.actor_by_id(line.actor_id) if line.actor_id else None
        name = actor.name if actor else (line.actor_id or "")
        cursor = self._new_block()
        kind = line.kind if line.kind in PREFIX else TranscriptKind.SYSTEM
        cursor.insertText(PREFIX[kind], self._formats[kind.value])
        if name and kind != TranscriptKind.SYSTEM:
            cursor.insertText(f"{name}: ", self._formats[f"{kind.value}_name"])
        cursor.insertText(line.text, self._formats[kind.value])

    # -- streamed replies -----------------------------------------------------------------
    def _on_bridge_call_started(self, event: CallStarted) -> None:
        self.flush_tokens()
        self._end_live()
        # Lines from the tools that ran just before this call go above the reply.
        self._refresh_timer.stop()
        self.refresh()
        state = self.state()
        actor = state.actor_by_id(event.actor_id) if state and event.actor_id else None
        name = actor.name if actor else (event.actor_id or "The model")
        reply = _Reply(header=f"▸ {name} is replying ({event.model}):", text="")
        self._replies.setdefault(self._rendered, []).append(reply)
        follow = self._at_bottom()
        self._live_call, self._live_reply = event.call_id, reply
        reply.shown = True
        self._insert_block(reply.header, "live_header")
        self._live_cursor = self._new_block()
        self._live_cursor.setCharFormat(self._formats["live"])
        if follow:
            self._scroll_to_bottom()

    def _on_bridge_token_received(self, call_id: str, text: str, count: int) -> None:
        if call_id != self._live_call:
            return
        self._pending.append(text)
        if not self._flush_timer.isActive():
            self._flush_timer.start()

    def flush_tokens(self) -> None:
        """Write buffered tokens into the live reply: one insert per flush."""
        self._flush_timer.stop()
        if not self._pending or self._live_cursor is None or self._live_reply is None:
            self._pending.clear()
            return
        chunk = "".join(self._pending)
        self._pending.clear()
        follow = self._at_bottom()
        self._live_cursor.insertText(chunk, self._formats["live"])
        self._live_reply.text += chunk
        if follow:
            self._scroll_to_bottom()

    def _on_bridge_call_finished(self, event: CallFinished) -> None:
        if event.call_id != self._live_call:
            return
        self.flush_tokens()
        outcome = event.outcome
        if self._live_reply is not None:
            self._live_reply.text = outcome.text
            if outcome.status != CallStatus.OK:
                why = f": {outcome.error}" if outcome.error else ""
                self._live_reply.status = f"[{outcome.status.value}{why}]"
                if self._live_cursor is not None:
                    self._live_cursor.insertText(
                        f"  {self._live_reply.status}", self._formats["refusal"]
                    )
        self._end_live()
        if self._restyle_pending:
            self._restyle_pending = False
            self._render_all(self.state())

    def _end_live(self) -> None:
        self._flush_timer.stop()
        self._pending.clear()
        self._live_call = None
        self._live_reply = None
        self._live_cursor = None

    def _insert_replies_before(self, index: int) -> None:
        """Replies that streamed when the transcript had `index` lines, not yet shown."""
        for reply in self._replies.get(index, []):
            if reply.shown:
                continue
            reply.shown = True
            self._insert_block(reply.header, "live_header")
            cursor = self._new_block()
            cursor.insertText(reply.text, self._formats["live"])
            if reply.status:
                cursor.insertText(f"  {reply.status}", self._formats["refusal"])

    # -- plumbing -----------------------------------------------------------------------
    def _on_bridge_state_changed(self, part: str) -> None:
        if part in {"transcript", "turn", "ended", "actors"}:
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


def _key(line: TranscriptLine) -> tuple[str | None, str, str]:
    return (line.actor_id, line.kind.value, line.text)


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
