"""The Calls dock: one row per model call, and the call inspector on double-click / Enter.

Rows come from the session store (`store.call_summaries(session_id)`, without their
request bodies, when a session is shown, then
one `store.call(id)` per CallStarted / CallFinished), so the table shows what was
recorded, not what the UI guessed. Each row says what the call was for (its purpose:
reply, observer, planner, repair, ...); a combo above the table shows all calls or the
calls of one purpose. Opening a row shows CallDetailDialog (non-modal) with the previous
call of the same actor and purpose for the diff.
Must hold no engine logic and never write to the store.
"""

from __future__ import annotations

import time
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from roundtable_desktop.domain.calls import CallStatus
from roundtable_desktop.domain.events import CallFinished, CallStarted
from roundtable_desktop.store.errors import StoreError
from roundtable_desktop.store.records import CallRecord
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.dialogs.call_detail_dialog import CallDetailDialog
from roundtable_desktop.ui.docks.bridge_dock import StoredCallsDock
from roundtable_desktop.ui.text_label import buddy_label
from roundtable_desktop.ui.theme import LIGHT_INKS, Inks, inks

COLUMNS = ("Time", "Actor", "Purpose", "Model", "Prompt", "Completion", "Latency", "Cost",
           "Status")
STATUS_COLUMN = COLUMNS.index("Status")
_NUMBER_COLUMNS = range(COLUMNS.index("Prompt"), COLUMNS.index("Cost") + 1)
ALL_PURPOSES = "All purposes"
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
        if role == Qt.ItemDataRole.TextAlignmentRole and col in _NUMBER_COLUMNS:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ForegroundRole and col == STATUS_COLUMN:
            ink = _STATUS_INKS.get(call.status)
            return QColor(getattr(self.ink, ink)) if ink else None
        if role == Qt.ItemDataRole.ToolTipRole:
            return call.error or call.label or None
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
        """The call before this one by the same actor for the same purpose: a planner
        call compares with the last planner call, not with the reply in between."""
        call = self.records[row]
        for earlier in reversed(self.records[:row]):
            if earlier.actor_id == call.actor_id and earlier.purpose == call.purpose:
                return earlier
        return None

    def purposes(self) -> list[str]:
        """Every purpose in the table, in the order it first appears."""
        return list(dict.fromkeys(call.purpose for call in self.records))


class PurposeFilter(QSortFilterProxyModel):
    """Rows of one purpose, or all rows when the purpose is None."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._purpose: str | None = None

    @property
    def purpose(self) -> str | None:
        return self._purpose

    def set_purpose(self, purpose: str | None) -> None:
        if purpose == self._purpose:
            return
        if not hasattr(self, "endFilterChange"):  # Qt < 6.10
            self._purpose = purpose
            self.invalidateRowsFilter()
            return
        self.beginFilterChange()
        self._purpose = purpose
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, source_row: int, source_parent: Index) -> bool:
        if self._purpose is None:
            return True
        model = self.sourceModel()
        assert isinstance(model, CallsTableModel)
        return model.records[source_row].purpose == self._purpose


RESIZE_PRECISION = 100  # rows a column's width is measured on


class CallsDock(StoredCallsDock):
    def __init__(self, bridge: EngineBridge, parent: QWidget | None = None) -> None:
        super().__init__("Calls", "callsDock", bridge, parent)
        self.model = CallsTableModel(self)
        self.filter = PurposeFilter(self)
        self.filter.setSourceModel(self.model)
        self.purpose_combo = QComboBox()
        self.purpose_combo.setObjectName("callsPurposeFilter")
        self.purpose_combo.setToolTip("Show the calls of one purpose only.")
        self.purpose_combo.addItem(ALL_PURPOSES)
        self.purpose_combo.currentIndexChanged.connect(self._on_purpose_combo_changed)
        self.table = QTableView()
        self.table.setObjectName("callsTable")
        self.table.setModel(self.filter)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        # Columns fit the rows near the top and the bottom, not all of a long session's
        # (measuring a thousand rows took a second on every scroll to the end).
        header.setResizeContentsPrecision(RESIZE_PRECISION)
        header.setStretchLastSection(True)
        self.table.setToolTip("Double-click or press Enter to inspect a call.")
        # activated fires on double-click and on Enter/Return.
        self.table.activated.connect(self._on_table_activated)
        bar = QHBoxLayout()
        bar.setContentsMargins(4, 2, 4, 2)
        bar.addWidget(buddy_label("&Purpose:", self.purpose_combo))
        bar.addWidget(self.purpose_combo)
        bar.addStretch(1)
        box = QWidget()
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(bar)
        layout.addWidget(self.table, 1)
        self.setWidget(box)
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
        records = self.stored_call_summaries()  # the inspector reads the whole call
        self.model.reset(records)
        self._update_purposes()
        if records:
            self.table.scrollToBottom()

    def _update_names(self) -> None:
        summary = self.bridge.summary()
        self.model.names = {p.id: p.name for p in summary.participants} if summary else {}

    def _reload_one(self, call_id: str) -> None:
        store = self.bridge.store()
        if store is None:
            return
        try:
            record = store.call(call_id)
        except StoreError:
            return
        follow = self.table.verticalScrollBar().value() >= self.table.verticalScrollBar().maximum()
        # The row needs no request body (the inspector reads the call): the list stays small.
        self.model.upsert(record.model_copy(update={"request": {}, "layers": []}))
        self._update_purposes()
        if follow:
            self.table.scrollToBottom()

    # -- the purpose filter ---------------------------------------------------------------
    def show_purpose(self, purpose: str | None) -> None:
        """Show only the calls made for `purpose` (None: every call)."""
        index = self.purpose_combo.findText(purpose) if purpose else 0
        self.purpose_combo.setCurrentIndex(max(index, 0))

    def _update_purposes(self) -> None:
        """Offer every purpose seen so far; the chosen one stays chosen."""
        seen = self.model.purposes()
        offered = [self.purpose_combo.itemText(i) for i in range(1, self.purpose_combo.count())]
        if seen == offered:
            return
        chosen = self.filter.purpose
        self.purpose_combo.blockSignals(True)
        self.purpose_combo.clear()
        self.purpose_combo.addItems([ALL_PURPOSES, *seen])
        if chosen is not None and chosen not in seen:
            self.purpose_combo.addItem(chosen)  # a new session may not have made one yet
        self.purpose_combo.setCurrentIndex(max(self.purpose_combo.findText(chosen or ""), 0))
        self.purpose_combo.blockSignals(False)

    def _on_purpose_combo_changed(self, index: int) -> None:
        self.filter.set_purpose(self.purpose_combo.itemText(index) if index > 0 else None)

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
        self.open_call(self.filter.mapToSource(index).row())

    def _on_bridge_call_started(self, event: CallStarted) -> None:
        self._reload_one(event.call_id)

    def _on_bridge_call_finished(self, event: CallFinished) -> None:
        self._reload_one(event.call_id)

    def _on_bridge_state_changed(self, part: str) -> None:
        if part == "actors":
            self._update_names()
            self.model.layoutChanged.emit()


def _cell(call: CallRecord, col: int, names: dict[str, str]) -> str:
    name = COLUMNS[col]
    if name == "Time":
        return time.strftime("%H:%M:%S", time.localtime(call.started_at))
    if name == "Actor":
        return names.get(call.actor_id or "", call.actor_id or "—")
    if name == "Purpose":
        return call.purpose
    if name == "Model":
        return call.model
    if name == "Prompt":
        return _tokens(call.prompt_tokens, call.usage_estimated)
    if name == "Completion":
        return _tokens(call.completion_tokens, call.usage_estimated)
    if name == "Latency":
        return f"{call.latency_ms / 1000:.2f} s" if call.latency_ms is not None else "—"
    if name == "Cost":
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
