"""The debate's Answers dock: a round's answers side by side, one column per agent of
the tables, streaming as they are written.

Columns follow the seating (table by table). A call's tokens go to the column of its
`actor_id` (CallStarted names the agent and the call_id the tokens carry); the column
shows the `response` being written (debate_next_step.response_so_far), never the JSON
around it. Once the round is recorded each column shows the agent's answer, its stances
per claim and any crux or flip condition it raised; between rounds the last round stays.
Several calls stream at once, each only into its own column. Must hold no engine logic.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from roundtable_desktop.domain.events import CallFinished, CallStarted
from roundtable_desktop.kinds.debate.state import Agent, AgentTurn, DebateState
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.kinds.debate.dock_base import DebateDock
from roundtable_desktop.ui.kinds.debate.next_step import response_so_far
from roundtable_desktop.ui.layouts import DOCK_MARGINS, column_of
from roundtable_desktop.ui.window.session_runner import SessionRunner

STREAMED = frozenset({"answer"})  # a stance call per claim: shown once all are in
COLUMN_EM = 17  # a column is at least this many 'M's wide; more scroll sideways
AVATAR = 22


class AnswerColumn(QFrame):
    """One agent's column: avatar, name and table, what it says, its stances."""

    def __init__(self, agent: Agent, table: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.agent_id = agent.id
        self.setObjectName(f"debateAnswer_{agent.id}")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        avatar = QLabel()
        pixmap = QPixmap(agent.avatar)
        if not pixmap.isNull():
            avatar.setPixmap(pixmap.scaled(AVATAR, AVATAR,
                                           Qt.AspectRatioMode.KeepAspectRatio,
                                           Qt.TransformationMode.SmoothTransformation))
        self.head = QLabel(f"<b>{_esc(agent.name)}</b>")
        self.head.setTextFormat(Qt.TextFormat.RichText)
        self.head.setToolTip("the final table" if table == 0 else f"table {table}")
        self.state_label = QLabel("")  # answering…, answered, a failure
        self.extras = QLabel("")  # new cruxes and flip triggers, under the answer
        self.extras.setWordWrap(True)
        self.extras.setMaximumHeight(self.fontMetrics().lineSpacing() * 3)
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setFrameShape(QFrame.Shape.NoFrame)
        self.stances = QLabel("")
        self.stances.setWordWrap(True)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(avatar)
        row.addWidget(self.head, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 3, 4, 3)
        layout.setSpacing(2)
        layout.addLayout(row)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.state_label)
        layout.addWidget(self.stances)
        layout.addWidget(self.extras)
        self.setMinimumWidth(self.fontMetrics().horizontalAdvance("M") * COLUMN_EM)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    def shown(self) -> str:
        return self.text.toPlainText()

    def set_text(self, text: str, *, follow: bool = False) -> None:
        """Show `text`; `follow`: keep its end in sight (it is being written)."""
        if text != self.text.toPlainText():
            self.text.setPlainText(text)
            bar = self.text.verticalScrollBar()
            bar.setValue(bar.maximum() if follow else 0)


class DebateAnswersDock(DebateDock):
    def __init__(self, bridge: EngineBridge, parent: QWidget | None = None, *,
                 runner: SessionRunner | None = None) -> None:
        super().__init__("Answers", "debateAnswersDock", bridge, parent, runner=runner)
        self.heading = QLabel()
        self.heading.setObjectName("debateAnswersHeading")
        self.heading.setWordWrap(True)
        self.row = QWidget()
        self.row_layout = QHBoxLayout(self.row)
        self.row_layout.setContentsMargins(0, 0, 0, 0)
        self.scroll_area = QScrollArea()
        self.scroll_area.setObjectName("debateAnswersScroll")
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll_area.setWidget(self.row)
        self.setWidget(column_of(self.heading, (self.scroll_area, 1), margins=DOCK_MARGINS))
        self.columns: dict[str, AnswerColumn] = {}
        self._seating: list[tuple[str, int]] = []
        self._calls: dict[str, str] = {}  # call_id -> agent id, streaming now
        self._streamed: dict[str, str] = {}  # agent id -> raw text of its call
        self._purpose: dict[str, str] = {}  # agent id -> what it is streaming
        self._raised = False
        bridge.callStarted.connect(self._on_bridge_call_started)
        bridge.tokenReceived.connect(self._on_bridge_token_received)
        bridge.callFinished.connect(self._on_bridge_call_finished)
        self.refresh()

    # -- reading (tests) -----------------------------------------------------------------
    def column_ids(self) -> list[str]:
        return list(self.columns)

    def column_text(self, agent: str) -> str:
        column = self.columns.get(agent)
        return column.shown() if column is not None else ""

    def streaming(self) -> set[str]:
        return set(self._calls.values())

    # -- refresh --------------------------------------------------------------------------
    def refresh(self) -> None:
        state = self.state()
        if state is None:
            self._set_columns(None, [])
            self.heading.setText("No debate is shown.")
            return
        seating = [(a, t.id) for t in state.tables for a in t.agents]
        first: dict[str, int] = {}  # each agent once, at its first table
        for agent, table in seating:
            first.setdefault(agent, table)
        seating = list(first.items())
        if not seating:
            seating = [(a.id, 1) for a in state.agents]
        self._set_columns(state, seating)
        last = state.rounds[-1] if state.rounds else None
        turns = {t.agent: t for t in last.turns} if last is not None else {}
        for agent, column in self.columns.items():
            if agent in self._streamed:
                continue  # streaming now: its tokens fill it
            turn = turns.get(agent)
            if turn is not None:
                column.set_text(turn.response or f"(no answer: {turn.failed})")
                column.state_label.setText("failed" if turn.failed else "")
                column.extras.setText(_extras(turn))
                column.extras.setToolTip(_extras(turn))
                column.stances.setText(_positions(turn))
            elif last is None:
                column.set_text(_initial(state, agent))
                column.state_label.setText("initial" if column.shown() else "waiting")
                column.stances.clear()
                column.extras.clear()
        self.heading.setText(self._heading(state))

    def _heading(self, state: DebateState) -> str:
        if self._streamed:
            playing = len(state.rounds) + 1
            what = "final table" if state.phase == "final" else f"round {playing}"
            if state.phase == "stances":
                what = "initial stances"
            return f"Streaming {what}: {len(self._streamed)} answering at once"
        last = state.rounds[-1] if state.rounds else None
        if last is None:
            return f"{state.topic} — no round played yet"
        if last.final:
            return f"Final table (round {last.index}): {len(last.turns)} representatives"
        tables = len(last.tables)
        return (f"Round {last.index}: {len(last.turns)} answers at {tables} "
                f"table{'s' if tables != 1 else ''}")

    def _set_columns(self, state: DebateState | None, seating: list[tuple[str, int]]) -> None:
        if seating == self._seating and state is not None:
            return
        self._seating = seating
        for column in self.columns.values():
            self.row_layout.removeWidget(column)
            column.deleteLater()
        self.columns = {}
        if state is None:
            return
        for agent, table in seating:
            column = AnswerColumn(state.agent(agent), table)
            self.row_layout.addWidget(column)
            self.columns[agent] = column

    # -- streaming ------------------------------------------------------------------------
    def _on_bridge_call_started(self, event: CallStarted) -> None:
        agent = event.actor_id
        if not agent or self.state() is None:
            return
        if event.purpose not in STREAMED and not (event.purpose == "repair"
                                                  and agent in self._purpose):
            return
        if event.purpose != "repair":
            self._purpose[agent] = event.purpose
            self._streamed[agent] = ""
        if not self._raised:  # the first answers of this session: bring the room forward
            self._raised = True
            self.raise_()
        self._calls[event.call_id] = agent
        column = self.columns.get(agent)
        if column is not None:
            column.state_label.setText("answering…" if event.purpose == "answer"
                                       else "repairing its reply…")
            column.stances.clear()
            column.extras.clear()
            if event.purpose != "repair":
                column.set_text("")
        state = self.state()
        if state is not None:
            self.heading.setText(self._heading(state))

    def _on_bridge_token_received(self, call_id: str, text: str, _count: int) -> None:
        agent = self._calls.get(call_id)
        if agent is None:
            return
        self._streamed[agent] = self._streamed.get(agent, "") + text
        column = self.columns.get(agent)
        if column is not None:
            raw = self._streamed[agent]
            column.set_text(response_so_far(raw), follow=True)

    def _on_bridge_call_finished(self, event: CallFinished) -> None:
        agent = self._calls.pop(event.call_id, None)
        if agent is None:
            return
        column = self.columns.get(agent)
        if column is not None:
            column.state_label.setText("answered" if event.outcome.status == "ok"
                                       else f"call {event.outcome.status}")
        if agent not in self._calls.values():
            self._streamed.pop(agent, None)
            self._purpose.pop(agent, None)
        if not self._calls:
            self.schedule_refresh()

    def _on_bridge_session_changed(self) -> None:
        self._calls.clear()
        self._streamed.clear()
        self._purpose.clear()
        self._seating = []
        self._raised = bool(getattr(self.state(), "rounds", None))
        super()._on_bridge_session_changed()


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _positions(turn: AgentTurn) -> str:
    return " · ".join(f"{p.claim} {_side(p.stance)} {p.confidence:.2f}" for p in turn.stances)


def _extras(turn: AgentTurn) -> str:
    parts = []
    if turn.new_cruxes:
        parts.append("new crux: " + "; ".join(c.text for c in turn.new_cruxes))
    if turn.flip_triggers:
        parts.append("flip: " + "; ".join(turn.flip_triggers))
    if turn.failed:
        parts.append(turn.failed)
    return " · ".join(parts)


def _initial(state: DebateState, agent: str) -> str:
    return "\n".join(f"{s.claim} {_side(s.stance)} {s.confidence:.2f}: {s.reason or s.failed}"
                     for s in state.stances if s.agent == agent and s.round == 0)


def _side(stance: str) -> str:
    return {"pro": "for", "con": "against"}.get(stance, stance)

