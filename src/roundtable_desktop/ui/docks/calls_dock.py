"""The Calls dock: one row per model call, and the call inspector on double-click / Enter.

Rows come from the session store (`store.calls(session_id)` when a session is shown, then
one `store.call(id)` per CallStarted / CallFinished), so the table shows what was
recorded, not what the UI guessed. Opening a row shows CallDetailDialog (non-modal) with
the same actor's previous call for the diff.
Must hold no engine logic and never write to the store.
"""

from __future__ import annotations

import time
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView, QWidget

from roundtable_desktop.domain.calls import CallStatus
from roundtable_desktop.domain.events import CallFinished, CallStarted
from roundtable_desktop.store.errors import StoreError
from roundtable_desktop.store.records import CallRecord
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.dialogs.call_detail_dialog import CallDetailDialog
from roundtable_desktop.ui.docks.bridge_dock import BridgeDock
from roundtable_desktop.ui.theme import LIGHT_INKS, Inks, inks

COLUMNS = ("Time", "Actor", "Model", "Prompt", "Completion", "Latency", "Cost", "Status")
_STATUS_INKS = {  # which ink of the theme's Inks each status is written in
    CallStatus.FAILED: "error",
    CallStatus.INTERRUPTED: "error",
    CallStatus.PARTIAL: "warning",
    CallStatus.CANCELLED: "warning",
    CallStatus.PENDING: "live",
}
Index = QModelIndex | QPersistentModelIndex


class CallsTableModel(QAbstractTableModel):
    """Call records as table rows; names resolve actor ids for display."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.records: list[CallRecord] = []
        self.names: dict[str, str] = {}
        self.ink: Inks = LIGHT_INKS  # the dock sets the inks of its palette

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.records)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return COLUMNS[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        call = self.records[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return _cell(call, col, self.names)
        if role == Qt.ItemDataRole.TextAlignmentRole and 3 <= col <= 6:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ForegroundRole and col == 7:
            ink = _STATUS_INKS.get(call.status)
            return QColor(getattr(self.ink, ink)) if ink else None
        if role == Qt.ItemDataRole.ToolTipRole and call.error:
            return call.error
        return None

    def reset(self, records: list[CallRecord]) -> None:
        self.beginResetModel()
        self.records = list(records)
        self.endResetModel()

    def upsert(self, record: CallRecord) -> int:
        for row, existing in enumerate(self.records):
            if existing.id == record.id:
                self.records[row] = record
                self.dataChanged.emit(self.index(row, 0), self.index(row, len(COLUMNS) - 1))
                return row
        row = len(self.records)
        self.beginInsertRows(QModelIndex(), row, row)
        self.records.append(record)
        self.endInsertRows()
        return row

    def previous_of(self, row: int) -> CallRecord | None:
        """The same actor's call before this one."""
        call = self.records[row]
        for earlier in reversed(self.records[:row]):
            if earlier.actor_id == call.actor_id:
                return earlier
        return None


class CallsDock(BridgeDock):
    def __init__(self, bridge: EngineBridge, parent: QWidget | None = None) -> None:
        super().__init__("Calls", "callsDock", bridge, parent)
        self.model = CallsTableModel(self)
        self.table = QTableView()
        self.table.setObjectName("callsTable")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.table.setToolTip("Double-click or press Enter to inspect a call.")
        # activated fires on double-click and on Enter/Return.
        self.table.activated.connect(self._on_table_activated)
        self.setWidget(self.table)
        self._dialogs: list[CallDetailDialog] = []
        self.model.ink = inks(self.theme_palette())

        bridge.callStarted.connect(self._on_bridge_call_started)
        bridge.callFinished.connect(self._on_bridge_call_finished)
        bridge.stateChanged.connect(self._on_bridge_state_changed)
        self.refresh()

    def _on_theme_changed(self) -> None:
        ink = inks(self.theme_palette())
        if ink != self.model.ink:  # status colours follow the theme
            self.model.ink = ink
            if self.model.records:
                self.model.dataChanged.emit(self.model.index(0, 0), self.model.index(
                    len(self.model.records) - 1, len(COLUMNS) - 1))

    # -- refresh --------------------------------------------------------------------------
    def refresh(self) -> None:
        """Reload every call of the shown session from the store."""
        self._update_names()
        store, session_id = self.bridge.store(), self.bridge.session_id()
        records: list[CallRecord] = []
        if store is not None and session_id:
            try:
                records = store.calls(session_id)
            except StoreError:
                records = []
        self.model.reset(records)
        if records:
            self.table.scrollToBottom()

    def _update_names(self) -> None:
        state = self.state()
        self.model.names = {a.id: a.name for a in state.actors} if state else {}

    def _reload_one(self, call_id: str) -> None:
        store = self.bridge.store()
        if store is None:
            return
        try:
            record = store.call(call_id)
        except StoreError:
            return
        follow = self.table.verticalScrollBar().value() >= self.table.verticalScrollBar().maximum()
        self.model.upsert(record)
        if follow:
            self.table.scrollToBottom()

    # -- opening a call -------------------------------------------------------------------
    def open_call(self, row: int) -> CallDetailDialog | None:
        """Open the inspector for a row, non-modal; returns the dialog."""
        if not 0 <= row < len(self.model.records):
            return None
        call = self.model.records[row]
        previous = self.model.previous_of(row)
        store = self.bridge.store()
        if store is not None:  # the row may be stale while a call streams
            try:
                call = store.call(call.id)
                previous = store.call(previous.id) if previous else None
            except StoreError:
                pass
        name = self.model.names.get(call.actor_id or "", call.actor_id)
        dialog = CallDetailDialog(call, previous, self, actor_name=name)
        # A bound slot, not a lambda holding the dialog: a lambda would keep the last
        # reference to the wrapper and release it inside ~QObject, which crashes PySide.
        dialog.finished.connect(self._on_dialog_finished)
        self._dialogs.append(dialog)
        dialog.show()
        return dialog

    def _on_dialog_finished(self, result: int) -> None:
        dialog = self.sender()
        if isinstance(dialog, CallDetailDialog):
            if dialog in self._dialogs:
                self._dialogs.remove(dialog)
            dialog.deleteLater()

    # -- slots ----------------------------------------------------------------------------
    def _on_table_activated(self, index: QModelIndex) -> None:
        self.open_call(index.row())

    def _on_bridge_call_started(self, event: CallStarted) -> None:
        self._reload_one(event.call_id)

    def _on_bridge_call_finished(self, event: CallFinished) -> None:
        self._reload_one(event.call_id)

    def _on_bridge_state_changed(self, part: str) -> None:
        if part == "actors":
            self._update_names()
            self.model.layoutChanged.emit()


def _cell(call: CallRecord, col: int, names: dict[str, str]) -> str:
    if col == 0:
        return time.strftime("%H:%M:%S", time.localtime(call.started_at))
    if col == 1:
        return names.get(call.actor_id or "", call.actor_id or "—")
    if col == 2:
        return call.model
    if col == 3:
        return _tokens(call.prompt_tokens, call.usage_estimated)
    if col == 4:
        return _tokens(call.completion_tokens, call.usage_estimated)
    if col == 5:
        return f"{call.latency_ms / 1000:.2f} s" if call.latency_ms is not None else "—"
    if col == 6:
        return _cost(call.cost_usd)
    if call.status == CallStatus.PENDING:
        return "streaming…"
    return call.status.value


def _tokens(value: int | None, estimated: bool | None) -> str:
    if value is None:
        return "—"
    return f"~{value:,}" if estimated else f"{value:,}"


def _cost(value: float | None) -> str:
    if value is None:
        return "—"
    if value == 0:
        return "$0"
    return f"${value:.4f}" if value >= 0.0001 else f"${value:.2e}"
