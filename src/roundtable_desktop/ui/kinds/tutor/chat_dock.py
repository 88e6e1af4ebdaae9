"""The student's chat: the phase strip, what the phase shows, the conversation with the
trickster (its reply streaming in), the redaction notice, the choices of a static phase
as buttons, a text box for a freeform phase, and the usage of each call.

A choice button performs `send` with its option; Send (Ctrl+Return) emits
`submitted(text)` and the window performs `send` with it, as for every human seat. A
withheld reply shows only its notice here: the original is for the teacher view.
Must hold no engine logic.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from roundtable_desktop.domain.events import CallFinished, CallStarted
from roundtable_desktop.engine.base import SEND, Action
from roundtable_desktop.kinds.tutor.cartridge import FreeformPhase, StaticPhase
from roundtable_desktop.kinds.tutor.state import STUDENT, TutorState
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.docks.bridge_dock import plain_tooltip
from roundtable_desktop.ui.docks.kind_dock import action_blocked
from roundtable_desktop.ui.docks.seat_input import SeatInput
from roundtable_desktop.ui.kinds.tutor.dock_base import TutorDock
from roundtable_desktop.ui.text_label import text_label
from roundtable_desktop.ui.window.session_runner import SessionRunner

USAGE_LINES = 4  # the last calls' usage shown under the chat


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
        self.content = text_label("tutorPhaseContent")
        self.conversation = QListWidget()
        self.conversation.setObjectName("tutorConversation")
        self.conversation.setWordWrap(True)
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
        layout = QVBoxLayout(body)
        for widget in (self.strip, self.content):
            layout.addWidget(widget)
        layout.addWidget(self.conversation, 1)
        for widget in (self.stream_label, self.redaction, self.choices, self.seat, self.usage):
            layout.addWidget(widget)
        self.setWidget(body)

        bridge.callStarted.connect(self._on_bridge_call_started)
        bridge.tokenReceived.connect(self._on_bridge_token_received)
        bridge.callFinished.connect(self._on_bridge_call_finished)
        self.refresh()

    # -- reading ------------------------------------------------------------------------------
    def can_send(self) -> bool:
        """Whether the student may write now (a freeform phase, their turn)."""
        return self.editor.isEnabled() and not self.editor.isHidden()

    def lines(self) -> list[str]:
        return [self.conversation.item(i).text() for i in range(self.conversation.count())]

    # -- refresh ------------------------------------------------------------------------------
    def refresh(self) -> None:
        state = self.state()
        if state is None:
            self.strip.setText("No tutor exercise is shown.")
            for widget in (self.content, self.redaction, self.stream_label):
                widget.clear()
            self._set_choices([])
            self._update_send()
            return
        phase = state.current()
        self.strip.setText(phase_strip_text(state))
        self.content.setText(phase.content)
        self._fill_conversation(state)
        last = next((e for e in reversed(state.exchanges) if e.role != STUDENT), None)
        self.redaction.setText("The trickster's last reply was withheld by the safety check."
                               if last is not None and last.redacted else "")
        self.redaction.setVisible(bool(self.redaction.text()))
        if not self._streaming:
            self.stream_label.clear()
        self.stream_label.setVisible(bool(self.stream_label.text()))
        static = isinstance(phase, StaticPhase) and not state.ended
        self._set_choices([c.label for c in phase.choices]
                          if isinstance(phase, StaticPhase) and static else [])
        self.editor.setVisible(isinstance(phase, FreeformPhase))
        self.send_button.setVisible(isinstance(phase, FreeformPhase))
        self._update_send()

    def _fill_conversation(self, state: TutorState) -> None:
        self.conversation.clear()
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
        self.conversation.scrollToBottom()

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

