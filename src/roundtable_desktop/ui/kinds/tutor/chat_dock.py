"""The student's chat: the phase strip, the conversation (what the phase shows, on top,
then the choices made, the exchanges with the trickster and the debrief; the reply
streaming in under it), the redaction notice, the choices of a static phase as buttons,
a text box for a freeform phase, and the usage of each call.

A choice button performs `send` with its option; Send (Ctrl+Return) emits
`submitted(text)` and the window performs `send` with it, as for every human seat. A
withheld reply shows only its notice here: the original is for the teacher view.
The dock asks for the height its phase, its choices and its text box need at its width
(up to what the docks stacked with it can give without the window growing past the
screen, and at most MAX_HEIGHT_SHARE of the window), so what the student clicks or
writes in is never below a fold, even in presenter mode's shared tab groups: the docks
stacked with it give way. To that end an empty conversation and, in a static phase, the
text box's row are left out, the phase's text scrolls with the conversation (the dock
asks for all of it up to CONVERSATION_LINES[1] lines, and keeps at least
CONVERSATION_LINES[0] in view), and the calls' usage shows only in a roomy dock.
Must hold no engine logic.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, Qt, Signal
from PySide6.QtGui import QFontMetrics, QResizeEvent
from PySide6.QtWidgets import (
    QDockWidget,
    QLayout,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from roundtable_desktop.domain.events import CallFinished, CallStarted
from roundtable_desktop.engine.base import SEND, Action
from roundtable_desktop.kinds.tutor.cartridge import FreeformPhase, StaticPhase
from roundtable_desktop.kinds.tutor.safety import withheld_sentence
from roundtable_desktop.kinds.tutor.state import STUDENT, TutorState
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.docks.bridge_dock import plain_tooltip
from roundtable_desktop.ui.docks.kind_dock import action_blocked
from roundtable_desktop.ui.docks.seat_input import SeatInput
from roundtable_desktop.ui.kinds.tutor.dock_base import TutorDock
from roundtable_desktop.ui.text_label import text_label
from roundtable_desktop.ui.window.session_runner import SessionRunner

USAGE_LINES = 4  # the last calls' usage shown under the chat
MAX_HEIGHT_SHARE = 0.55  # of the window: the most the dock's least height may take
ROOMY_LINES = 30  # at least this many lines high, the dock shows the calls' usage too
CONVERSATION_LINES = (3, 9)  # the conversation's least lines, and the most asked for


def _past_screen(window: QWidget) -> int:
    """How many pixels the window is taller than its screen lets it be (0 when it fits)."""
    screen = window.screen()
    limit = (screen.geometry() if window.isFullScreen() else screen.availableGeometry()).height()
    return max(0, window.frameGeometry().height() - limit)


class _ChatColumn(QVBoxLayout):
    """The dock body's layout. It says its height is not asked for by width: a scroll
    area around the body (a short dock) would size it by what its wrapped lines would
    like, pushing the choices and the text box below the fold; so the body takes the
    dock's height, down to its least (`_least_height`)."""

    def hasHeightForWidth(self) -> bool:
        return False


def _least_height(layout: QLayout, width: int) -> int:
    """The least height of a column of widgets at `width`: wrapped text at its lines,
    every other widget at its minimum."""
    margins = layout.contentsMargins()
    inner = max(1, width - margins.left() - margins.right())
    items = [layout.itemAt(i) for i in range(layout.count())]
    shown = [w for item in items
             if item is not None and (w := item.widget()) is not None and not w.isHidden()]
    heights = [w.heightForWidth(inner) if w.hasHeightForWidth() else
               max(w.minimumHeight(), w.minimumSizeHint().height()) for w in shown]
    return (sum(heights) + layout.spacing() * max(0, len(shown) - 1)
            + margins.top() + margins.bottom())


def phase_strip_text(state: TutorState) -> str:
    """E.g. "Phase 2 of 4 · Chat with the sender · 1 of 2–6 exchanges"."""
    ids = [p.id for p in state.cartridge.phases]
    phase = state.current()
    head = f"Phase {ids.index(phase.id) + 1} of {len(ids)} · {phase.title}"
    if isinstance(phase, FreeformPhase):
        return (f"{head} · {state.exchange_count()} of {phase.min_exchanges}–"
                f"{phase.max_exchanges} exchanges")
    if isinstance(phase, StaticPhase):
        return f"{head} · pick a choice"
    return f"{head} · {'debrief written' if state.debrief is not None else 'debrief next'}"


class TutorChatDock(TutorDock):
    submitted = Signal(str)  # the student's line: the window performs `send`

    def __init__(self, bridge: EngineBridge, parent: QWidget | None = None, *,
                 runner: SessionRunner | None = None) -> None:
        super().__init__("Student chat", "tutorChatDock", bridge, parent, runner=runner)
        self._streaming: set[str] = set()
        self._usage: list[str] = []
        self.strip = text_label("tutorPhaseStrip", bold=True)
        self.conversation = QListWidget()
        self.conversation.setObjectName("tutorConversation")
        self.conversation.setWordWrap(True)
        self.conversation.setVerticalScrollMode(QListWidget.ScrollMode.ScrollPerPixel)
        self.stream_label = text_label("tutorStreaming")
        self.redaction = text_label("tutorRedaction", bold=True)
        self.choices = QWidget()
        self.choices.setObjectName("tutorChoices")
        self._choice_layout = QVBoxLayout(self.choices)
        self._choice_layout.setContentsMargins(0, 0, 0, 0)
        self.choice_buttons: list[QPushButton] = []
        self.seat = SeatInput("tutor", blocked=self._send_reason)
        self.seat.submitted.connect(self.submitted)
        self.editor, self.send_button = self.seat.editor, self.seat.send_button
        self.editor.setPlaceholderText("Write to the trickster, then Send (Ctrl+Return)")
        self.editor.setMaximumHeight(110)
        self.status = text_label("tutorStatus")
        self.seat.row.insertWidget(0, self.status, 1)
        self.usage = text_label("tutorUsage")

        body = QWidget()
        layout = _ChatColumn(body)
        layout.addWidget(self.strip)
        layout.addWidget(self.conversation, 1)
        for widget in (self.stream_label, self.redaction, self.choices, self.seat, self.usage):
            layout.addWidget(widget)
        self.setWidget(body)
        self._body = body

        bridge.callStarted.connect(self._on_bridge_call_started)
        bridge.tokenReceived.connect(self._on_bridge_token_received)
        bridge.callFinished.connect(self._on_bridge_call_finished)
        self.refresh()

    # -- reading ------------------------------------------------------------------------------
    def can_send(self) -> bool:
        """Whether the student may write now (a freeform phase, their turn)."""
        return self.editor.isEnabled() and not self.editor.isHidden()

    def lines(self) -> list[str]:
        """The conversation's lines, the phase's text first."""
        return [self.conversation.item(i).text() for i in range(self.conversation.count())]

    # -- refresh ------------------------------------------------------------------------------
    def refresh(self) -> None:
        state = self.state()
        if state is None:
            self.strip.setText("No tutor exercise is shown.")
            self.conversation.clear()
            for widget in (self.redaction, self.stream_label):
                widget.clear()
            self._set_choices([])
            self._update_send()
            return
        phase = state.current()
        self.strip.setText(phase_strip_text(state))
        self._fill_conversation(state, phase.content)
        last = next((e for e in reversed(state.exchanges) if e.role != STUDENT), None)
        # The sentence the CLI prints too (the session's warning notice).
        self.redaction.setText(withheld_sentence(last.reason)
                               if last is not None and last.redacted else "")
        self.redaction.setVisible(bool(self.redaction.text()))
        if not self._streaming:
            self.stream_label.clear()
        self.stream_label.setVisible(bool(self.stream_label.text()))
        static = isinstance(phase, StaticPhase) and not state.ended
        self._set_choices([c.label for c in phase.choices]
                          if isinstance(phase, StaticPhase) and static else [])
        freeform = isinstance(phase, FreeformPhase)
        self.editor.setVisible(freeform)
        self.send_button.setVisible(freeform)
        self.seat.setVisible(freeform or state.ended)  # a static phase: its buttons say it
        self._update_send()
        self.fit_height()

    # -- height ---------------------------------------------------------------------------------
    def fit_height(self) -> None:
        """At least the height the body needs at the dock's width, within what the
        docks stacked with it can give (and MAX_HEIGHT_SHARE of the window): the body
        scrolls only past that."""
        layout = self._body.layout()
        window = self.window()
        if layout is None or window is None or window is self or self.isFloating():
            return
        holder = self.widget()
        width = holder.viewport().width() if isinstance(holder, QScrollArea) else \
            holder.width()
        lines = self.conversation.fontMetrics().lineSpacing()
        frame = 2 * self.conversation.frameWidth()
        least_list = CONVERSATION_LINES[0] * lines + frame
        self.conversation.setMinimumHeight(least_list)
        wanted = min(self._conversation_height(width) + frame,
                     CONVERSATION_LINES[1] * lines + frame)
        self.usage.setVisible(bool(self.usage.text()) and
                              self.height() >= ROOMY_LINES * self.fontMetrics().lineSpacing())
        need = _least_height(layout, max(1, width)) + max(0, wanted - least_list)
        chrome = self.height() - holder.height() if holder.height() else 2 * lines
        room = self.height() + self._slack_below_and_above(window) - _past_screen(window)
        least = min(need + chrome + 2, room, int(window.height() * MAX_HEIGHT_SHARE))
        if least != self.minimumHeight():
            self.setMinimumHeight(max(0, least))

    def _conversation_height(self, width: int) -> int:
        """The height of the conversation's lines, wrapped at about the list's width."""
        room = max(1, width - 2 * self.conversation.frameWidth()
                   - self.conversation.verticalScrollBar().sizeHint().width() - 8)
        total = 0
        for i in range(self.conversation.count()):
            item = self.conversation.item(i)
            metrics = QFontMetrics(item.font().resolve(self.conversation.font()))
            total += metrics.boundingRect(QRect(0, 0, room, 1_000_000),
                                          int(Qt.TextFlag.TextWordWrap), item.text()).height()
        return total + 4 * self.conversation.count()  # the items' own padding

    def _slack_below_and_above(self, window: QWidget) -> int:
        """How much the docks stacked in this dock's column could shrink: the height this
        dock may take without pushing the window past its size."""
        mine = self.geometry()
        slack = 0
        for dock in window.findChildren(QDockWidget):
            if dock is self or not dock.isVisible() or dock.isFloating():
                continue
            other = dock.geometry()
            if other.right() < mine.left() or other.left() > mine.right() \
                    or other.intersects(mine):
                continue  # another column, or tabbed with this dock
            # A wrapped line's minimum is guessed low: keep a line more for each dock.
            least = max(dock.minimumHeight(), dock.minimumSizeHint().height()) \
                + dock.fontMetrics().lineSpacing()
            slack += max(0, dock.height() - least)
        return slack

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if event.size() != event.oldSize():  # wrapped lines re-flow; room changes
            self.fit_height()

    def _on_theme_changed(self) -> None:
        self.fit_height()  # a zoom changes every line's height

    def _fill_conversation(self, state: TutorState, content: str) -> None:
        self.conversation.clear()
        if content:
            item = QListWidgetItem(content)
            item.setToolTip(plain_tooltip("What this phase shows the student."))
            font = item.font()
            font.setItalic(True)
            item.setFont(font)
            self.conversation.addItem(item)
        for choice in state.choices:
            self.conversation.addItem(f"Student chose: {choice.label}")
        for e in state.exchanges:
            who = "Student" if e.role == STUDENT else "Trickster"
            item = QListWidgetItem(f"{who}: {e.text}")
            if e.redacted:
                item.setToolTip(plain_tooltip("Withheld by the safety check."))
                font = item.font()
                font.setItalic(True)
                item.setFont(font)
            self.conversation.addItem(item)
        if state.debrief is not None:
            self.conversation.addItem(f"Debrief: {state.debrief}")
        if self.conversation.count() > (1 if content else 0):
            self.conversation.scrollToBottom()  # the latest line
        else:
            self.conversation.scrollToTop()  # the phase's text, from its start

    def _set_choices(self, labels: list[str]) -> None:
        if [b.text() for b in self.choice_buttons] == [f"{i}. {label}" for i, label in
                                                      enumerate(labels, 1)]:
            return
        for button in self.choice_buttons:
            button.deleteLater()
        self.choice_buttons = []
        for index, label in enumerate(labels):
            button = QPushButton(f"{index + 1}. {label}")
            button.setObjectName(f"tutorChoice{index + 1}")
            button.clicked.connect(lambda _=False, i=index: self._on_choice_clicked(i))
            self._choice_layout.addWidget(button)
            self.choice_buttons.append(button)
        self.choices.setVisible(bool(labels))

    def _send_reason(self) -> str:
        session = self.live_kind_session()
        if session is None:
            return self.blocked()
        return action_blocked(session.actions(), SEND, "The student cannot write now.")

    def _update_send(self) -> None:
        why = self.seat.update_send()
        self.status.setText(why or "Your turn.")
        for button in self.choice_buttons:
            button.setEnabled(not why)

    # -- sending ------------------------------------------------------------------------------
    def send_from_toolbar(self) -> None:
        """The toolbar's send: the first choice in a static phase, else send what is
        written, else start writing."""
        if self.choice_buttons and not self.choices.isHidden():
            self.choice_buttons[0].setFocus()
        else:
            self.seat.send_from_toolbar()

    def _on_choice_clicked(self, index: int) -> None:
        if not self._send_reason():
            self.perform(Action(id=SEND, option=index))

    # -- streaming and usage --------------------------------------------------------------------
    def _on_bridge_call_started(self, event: CallStarted) -> None:
        if self.state() is not None and event.purpose == "reply":
            self._streaming.add(event.call_id)
            self.stream_label.setText("Trickster: ")
            self.stream_label.show()

    def _on_bridge_token_received(self, call_id: str, text: str, count: int) -> None:
        if call_id in self._streaming:
            self.stream_label.setText(self.stream_label.text() + text)

    def _on_bridge_call_finished(self, event: CallFinished) -> None:
        self._streaming.discard(event.call_id)
        if self.state() is None:
            return
        o = event.outcome
        self._usage = [*self._usage, f"{event.purpose}: {o.usage.prompt_tokens:,} prompt + "
                                     f"{o.usage.completion_tokens:,} completion tokens · "
                                     f"{o.latency_ms:.0f} ms · {o.status.value}"][-USAGE_LINES:]
        self.usage.setText("\n".join(self._usage))
        self.schedule_refresh()

