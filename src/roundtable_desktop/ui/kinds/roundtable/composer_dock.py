"""The Composer dock: a human seat writes its reply here, as CALL: lines.

Enabled only when the session offers the "send" action (the current actor is a human
seat and their turn is ready); otherwise it is disabled and says why, in the session's
own words. Buttons insert valid canonical calls with real ids: the candidates ticked in
the list (in the order they were ticked), the top-N count, pass, and quoted note text
(JSON-escaped). Send (Ctrl+Return) emits `submitted(text)`; the window performs it.
The toolbar's send action comes here too (`send_from_toolbar`): it sends what is
written, or, with nothing written yet, puts the cursor in the editor.
Must hold no engine logic: it neither parses nor runs tools.
"""

from __future__ import annotations

import json
from typing import cast

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut, QTextCursor
from PySide6.QtWidgets import (
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from roundtable_desktop.domain.events import ActionFinished, ActionStarted
from roundtable_desktop.kinds.roundtable.actors import Role
from roundtable_desktop.kinds.roundtable.tools import id_literal
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.docks.bridge_dock import plain_tooltip
from roundtable_desktop.ui.docks.seat_input import SeatInput
from roundtable_desktop.ui.kinds.roundtable.dock_base import RoundtableDock
from roundtable_desktop.ui.layouts import column_of

SEND_ACTION = "send"
_ID_ROLE = Qt.ItemDataRole.UserRole


class ComposerDock(RoundtableDock):
    submitted = Signal(str)

    def __init__(self, bridge: EngineBridge, parent: QWidget | None = None) -> None:
        super().__init__("Human seat", "composerDock", bridge, parent)
        self._ticked: list[str] = []
        self._candidate_ids: list[str] = []

        self.status_label = QLabel()
        self.status_label.setObjectName("composerStatus")
        self.status_label.setWordWrap(True)
        self.status_label.setTextFormat(Qt.TextFormat.PlainText)
        bold = self.status_label.font()
        bold.setBold(True)
        self.status_label.setFont(bold)

        self.candidate_list = QListWidget()
        self.candidate_list.setObjectName("composerCandidates")
        self.candidate_list.itemChanged.connect(self._on_candidate_list_item_changed)

        self.seat = SeatInput("composer", blocked=self._send_reason,
                              empty_hint="Write at least one CALL: line first.")
        self.seat.submitted.connect(self.submitted)
        self.editor = cast(QPlainTextEdit, self.seat.editor)
        self.send_button = self.seat.send_button
        self.editor.setPlaceholderText(
            'One call per line, e.g.\nCALL: addTranscript("I would start with the RAG talk.")'
            "\nCALL: passTurn()"
        )

        self.rank_button = QPushButton("Rank ticked")
        self.top_spin = QSpinBox()
        self.top_spin.setRange(1, 20)
        self.top_spin.setValue(3)
        self.top_spin.setPrefix("top ")
        self.commit_button = QPushButton("Commit")
        self.pass_button = QPushButton("Pass")
        self.finalize_button = QPushButton("Finalize ticked")
        self.note_text = QLineEdit()
        self.note_text.setPlaceholderText("Text for a note, the whiteboard or the transcript")
        self.note_button = QPushButton("Note")
        self.whiteboard_button = QPushButton("Whiteboard")
        self.say_button = QPushButton("Say")
        self.clear_button = QPushButton("Clear")

        self.rank_button.clicked.connect(self._on_rank_clicked)
        self.commit_button.clicked.connect(self._on_commit_clicked)
        self.pass_button.clicked.connect(self._on_pass_clicked)
        self.finalize_button.clicked.connect(self._on_finalize_clicked)
        self.note_button.clicked.connect(lambda: self._insert_text_call("addActorNote"))
        self.whiteboard_button.clicked.connect(lambda: self._insert_text_call("addWhiteboard"))
        self.say_button.clicked.connect(lambda: self._insert_text_call("addTranscript"))
        self.clear_button.clicked.connect(self.editor.clear)

        # Two columns, not four: at presenter zoom a wide row would set the window's
        # minimum width beyond a 1920 px screen.
        tools = QGridLayout()
        tools.addWidget(self.rank_button, 0, 0)
        commit_row = QHBoxLayout()
        commit_row.addWidget(self.top_spin)
        commit_row.addWidget(self.commit_button)
        tools.addLayout(commit_row, 0, 1)
        tools.addWidget(self.pass_button, 1, 0)
        tools.addWidget(self.finalize_button, 1, 1)
        tools.addWidget(self.note_text, 2, 0, 1, 2)
        note_row = QHBoxLayout()
        for button in (self.note_button, self.whiteboard_button, self.say_button):
            note_row.addWidget(button)
        tools.addLayout(note_row, 3, 0, 1, 2)

        self.seat.row.insertStretch(0, 1)
        self.seat.row.insertWidget(1, self.clear_button)

        tick_label = QLabel("Tick candidates to rank or finalize:")
        tick_label.setWordWrap(True)
        left = column_of(tick_label, self.candidate_list)
        right = column_of(tools, (self.seat, 1))
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setStretchFactor(0, 2)
        splitter.setStretchFactor(1, 3)

        body = QWidget()
        layout = QVBoxLayout(body)
        layout.addWidget(self.status_label)
        layout.addWidget(splitter, 1)
        self.setWidget(body)

        shortcut = QShortcut(QKeySequence("Ctrl+Return"), body)
        shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        shortcut.activated.connect(self.seat.send)
        enter = QShortcut(QKeySequence("Ctrl+Enter"), body)
        enter.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        enter.activated.connect(self.seat.send)
        # Shortcuts fire only in the active window; the editor also catches the key itself.

        bridge.stateChanged.connect(self._on_bridge_state_changed)
        bridge.phaseChanged.connect(self._on_bridge_phase_changed)
        bridge.eventReceived.connect(self._on_bridge_event_received)
        self.refresh()

    # -- reading --------------------------------------------------------------------------
    def can_send(self) -> bool:
        """Whether the composer is open for writing (as last refreshed)."""
        return self.editor.isEnabled()

    def reason(self) -> str:
        return self.status_label.text()

    def text(self) -> str:
        return self.seat.written()

    def tick(self, candidate_id: str) -> None:
        for row in range(self.candidate_list.count()):
            item = self.candidate_list.item(row)
            if item.data(_ID_ROLE) == candidate_id:
                item.setCheckState(Qt.CheckState.Checked)

    # -- refresh --------------------------------------------------------------------------
    def refresh(self) -> None:
        state = self.state()
        candidates = state.candidates if state else []
        ids = [c.id for c in candidates]
        if ids != self._candidate_ids:
            self._candidate_ids = ids
            self._ticked = [i for i in self._ticked if i in ids]
            self.candidate_list.blockSignals(True)
            self.candidate_list.clear()
            for c in candidates:
                item = QListWidgetItem(f"{c.title}  [{c.id}]")
                item.setData(_ID_ROLE, c.id)
                item.setToolTip(plain_tooltip(f"{c.title}\n{c.channel} · {c.duration}"))
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                checked = c.id in self._ticked
                item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
                self.candidate_list.addItem(item)
            self.candidate_list.blockSignals(False)
        self._update_enabled()

    def _send_reason(self) -> str:
        if self.bridge.read_only:
            return "Replay is read-only."
        session = self.live_session()
        if session is None:
            return "No session is running."
        spec = next((a for a in session.actions() if a.id == SEND_ACTION), None)
        if spec is None:
            return "This kind of session has no human seat to write for."
        if not spec.enabled:
            state = self.state()
            if state is not None and not state.actor.human and not state.ended:
                return (f"It is {state.actor.name}'s turn, a model seat. To write their reply "
                        "yourself, tick Human seat for them in the Actors dock.")
            return spec.reason or "No human seat is waiting for a reply."
        return ""

    def _update_enabled(self) -> None:
        why = self.seat.update_send()
        state = self.state()
        if why:
            self.status_label.setText(why)
        elif state is not None:
            self.status_label.setText(
                f"{state.actor.name} is a human seat: write the reply, then Send."
            )
        enabled = not why
        for widget in (self.candidate_list, self.top_spin, self.note_text):
            widget.setEnabled(enabled)
        for button in (self.commit_button, self.pass_button, self.note_button,
                       self.whiteboard_button, self.say_button, self.clear_button):
            _enable(button, enabled, why)
        admin = bool(state and state.actor.role == Role.ADMINISTRATOR)
        untick = "Tick one or more candidates in the list first."
        _enable(self.finalize_button, enabled and admin and bool(self._ticked),
                why or ("Only the administrator may finalize." if not admin else untick))
        _enable(self.rank_button, enabled and bool(self._ticked), why or untick)

    # -- inserting calls ------------------------------------------------------------------
    def insert_call(self, call: str, *, cursor_back: int = 0) -> None:
        """Put `CALL: <call>` on its own line at the cursor."""
        cursor = self.editor.textCursor()
        if cursor.block().text().strip():
            cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock)
            cursor.insertText("\n")
        cursor.insertText(f"CALL: {call}")
        if cursor_back:
            cursor.movePosition(QTextCursor.MoveOperation.Left, n=cursor_back)
        self.editor.setTextCursor(cursor)
        self.editor.setFocus()

    def _on_rank_clicked(self) -> None:
        if self._ticked:
            self.insert_call(f"rankCandidates({', '.join(id_literal(i) for i in self._ticked)})")

    def _on_commit_clicked(self) -> None:
        self.insert_call(f"updateSuggestions({self.top_spin.value()})")

    def _on_pass_clicked(self) -> None:
        self.insert_call("passTurn()")

    def _on_finalize_clicked(self) -> None:
        if self._ticked:
            self.insert_call(f"finalizeMeeting({', '.join(id_literal(i) for i in self._ticked)})")

    def _insert_text_call(self, tool: str) -> None:
        text = self.note_text.text().strip()
        if text:
            self.insert_call(f"{tool}({json.dumps(text, ensure_ascii=False)})")
            self.note_text.clear()
        else:  # an empty pair of quotes with the cursor inside, ready to type
            self.insert_call(f'{tool}("")', cursor_back=2)

    def send_from_toolbar(self) -> None:
        """The toolbar's send action: send what is written, else start writing."""
        self.seat.send_from_toolbar()

    # -- slots ----------------------------------------------------------------------------
    def _on_candidate_list_item_changed(self, item: QListWidgetItem) -> None:
        cid = item.data(_ID_ROLE)
        if item.checkState() == Qt.CheckState.Checked and cid not in self._ticked:
            self._ticked.append(cid)
        elif item.checkState() != Qt.CheckState.Checked and cid in self._ticked:
            self._ticked.remove(cid)
        self._update_enabled()

    def _on_bridge_state_changed(self, part: str) -> None:
        self.schedule_refresh()

    def _on_bridge_phase_changed(self, phase: str, actor_id: str, detail: str) -> None:
        self.schedule_refresh()

    def _on_bridge_event_received(self, event: object) -> None:
        # Actions start and finish without a state change (e.g. a failed call).
        if isinstance(event, ActionStarted | ActionFinished):
            self.schedule_refresh()


def _enable(button: QPushButton, enabled: bool, why_not: str) -> None:
    """Enable `button`, or disable it with the reason as its tooltip."""
    button.setEnabled(enabled)
    button.setToolTip("" if enabled else why_not)
