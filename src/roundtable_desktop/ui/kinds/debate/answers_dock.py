"""The debate's Answers dock: a round's answers, one list per table side by side (a hand
of 16 at four tables shows four lists), streaming as they are written.

Lists follow the seating (answers_table.py); each agent has one entry, in its table's
list. A call's tokens go to the entry of its `actor_id` (CallStarted names the agent and
the call_id the tokens carry); the entry shows the `response` being written
(debate_next_step.response_so_far), never the JSON around it. Once the round is recorded
each entry shows the agent's answer whole, its stances per claim and any crux or flip
condition it raised; between rounds the last round stays. Several calls stream at once,
each only into its own entry. Must hold no engine logic.
"""

from __future__ import annotations

from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QScrollArea, QWidget

from roundtable_desktop.domain.events import CallFinished, CallStarted
from roundtable_desktop.kinds.debate.state import AgentTurn, DebateState
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.kinds.debate.answers_table import (
    AnswerEntry,
    TableAnswersList,
    table_heading,
)
from roundtable_desktop.ui.kinds.debate.dock_base import DebateDock
from roundtable_desktop.ui.kinds.debate.next_step import response_so_far
from roundtable_desktop.ui.layouts import DOCK_MARGINS, column_of
from roundtable_desktop.ui.window.session_runner import SessionRunner

STREAMED = frozenset({"answer"})  # a stance call per claim: shown once all are in


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
        self.columns: dict[str, AnswerEntry] = {}  # agent id -> its entry
        self.lists: list[TableAnswersList] = []
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
        for table_list in self.lists:
            self.row_layout.removeWidget(table_list)
            table_list.deleteLater()
        self.columns, self.lists = {}, []
        if state is None:
            return
        tables = list(dict.fromkeys(table for _, table in seating))
        for table in tables:
            agents = [a for a, t in seating if t == table]
            table_list = TableAnswersList(table_heading(table))
            for agent in agents:
                entry = AnswerEntry(state.agent(agent))
                table_list.add(entry)
                self.columns[agent] = entry
            self.row_layout.addWidget(table_list)
            self.lists.append(table_list)

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
            column.set_text(response_so_far(raw))

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

