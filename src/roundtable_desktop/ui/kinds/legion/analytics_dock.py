"""The legion's analytics: per minion, the messages it posted and the turns it stayed
silent, its model calls, their tokens, cost and mean latency, and a total row.

Messages and silent turns come from the legion state; calls, tokens, cost and latency
from the store's call records of the shown session (actor = the minion's id), the same
records the Calls dock lists, so a replay shows them too. Must hold no engine logic and
never write to the store.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from roundtable_desktop.domain.calls import CallStatus
from roundtable_desktop.domain.events import CallFinished
from roundtable_desktop.kinds.legion.state import LegionState
from roundtable_desktop.store.errors import StoreError
from roundtable_desktop.store.records import CallRecord
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.kinds.legion.dock_base import LegionDock
from roundtable_desktop.ui.window.session_runner import SessionRunner

COLUMNS = ("Minion", "Messages", "Silent", "Calls", "Tokens in", "Tokens out", "Cost",
           "Mean latency")
TOTAL = "All minions"


@dataclass(frozen=True, slots=True)
class MinionFigures:
    name: str
    messages: int
    silent: int
    calls: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None  # None: no call had a known price
    mean_latency_ms: float | None

    def cells(self) -> list[str]:
        cost = "—" if self.cost_usd is None else f"${self.cost_usd:,.4f}"
        latency = "—" if self.mean_latency_ms is None else f"{self.mean_latency_ms:,.0f} ms"
        return [self.name, str(self.messages), str(self.silent), str(self.calls),
                f"{self.prompt_tokens:,}", f"{self.completion_tokens:,}", cost, latency]


def minion_figures(state: LegionState, calls: list[CallRecord]) -> list[MinionFigures]:
    """One row per minion, then the total."""
    rows = [_figures(m.name, state, [c for c in calls if c.actor_id == m.id])
            for m in state.minions]
    ids = {m.id for m in state.minions}
    rows.append(_figures(TOTAL, state, [c for c in calls if c.actor_id in ids]))
    return rows


def _figures(name: str, state: LegionState, calls: list[CallRecord]) -> MinionFigures:
    every = name == TOTAL
    finished = [c for c in calls if c.status != CallStatus.PENDING and c.latency_ms is not None]
    costs = [c.cost_usd for c in calls if c.cost_usd is not None]
    return MinionFigures(
        name=name,
        messages=sum(1 for m in state.messages
                     if m.role == "minion" and (every or m.speaker == name)),
        silent=sum(1 for d in state.diaries
                   if d.outcome == "silent" and (every or d.minion == name)),
        calls=len(calls),
        prompt_tokens=sum(c.prompt_tokens or 0 for c in calls),
        completion_tokens=sum(c.completion_tokens or 0 for c in calls),
        cost_usd=sum(costs) if costs else None,
        mean_latency_ms=(sum(c.latency_ms or 0.0 for c in finished) / len(finished)
                         if finished else None),
    )


class LegionAnalyticsDock(LegionDock):
    def __init__(self, bridge: EngineBridge, parent: QWidget | None = None, *,
                 runner: SessionRunner | None = None) -> None:
        super().__init__("Legion analytics", "legionAnalyticsDock", bridge, parent,
                         runner=runner)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("legionAnalyticsTable")
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.table.setMinimumSize(200, 90)
        self.setWidget(self.table)
        self._calls_read: list[CallRecord] | None = None  # read again when calls change
        bridge.callStarted.connect(self._on_bridge_call_started)
        bridge.callFinished.connect(self._on_bridge_call_finished)
        self.rows: list[MinionFigures] = []
        self.refresh()

    def refresh(self) -> None:
        state = self.state()
        if state is None:
            self.rows = []
        else:
            self.rows = minion_figures(state, self._calls())
        self.table.setRowCount(len(self.rows))
        for row, figures in enumerate(self.rows):
            for column, text in enumerate(figures.cells()):
                item = QTableWidgetItem(text)
                if column:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                          | Qt.AlignmentFlag.AlignVCenter)
                if figures.name == TOTAL:
                    font = item.font()
                    font.setBold(True)
                    item.setFont(font)
                self.table.setItem(row, column, item)

    def _calls(self) -> list[CallRecord]:
        """The shown session's call records, read from the store once per session and
        call (not on every state change)."""
        if self._calls_read is not None:
            return self._calls_read
        store, session_id = self.bridge.store(), self.bridge.session_id()
        if store is None or session_id is None:
            return []
        try:
            self._calls_read = store.calls(session_id)
        except StoreError:
            return []
        return self._calls_read

    def _on_bridge_session_changed(self) -> None:
        self._calls_read = None
        super()._on_bridge_session_changed()

    def _on_bridge_call_started(self, _event: object) -> None:
        self._calls_read = None

    def _on_bridge_call_finished(self, _event: CallFinished) -> None:
        self._calls_read = None
        self.schedule_refresh()
