"""The Candidates dock: the candidate list and the committed suggestions, side by side.

Each row shows title, channel and duration (suggestions also who proposed them; ranked
candidates their rank). The title is the column that stretches: it keeps at least
TITLE_SHARE of the width, the other columns shrink (elided) before it does, the
candidates' Channel column drops out while the list is too narrow for it (suggestions
never show it: who proposed them matters more), and every cell's tooltip holds the full
title, channel and duration. Selecting a row emits `candidateActivated(id)` so the
window can scroll the context view to that candidate. Titles are untrusted text and are
only ever set as plain item text.
Must hold no engine logic and never change the state.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from roundtable_desktop.kinds.roundtable.catalog import Candidate
from roundtable_desktop.kinds.roundtable.meeting import MeetingState
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.docks.bridge_dock import plain_tooltip
from roundtable_desktop.ui.kinds.roundtable.dock_base import RoundtableDock

_ID_ROLE = Qt.ItemDataRole.UserRole
# How the heading names the source that answered (kinds/roundtable/sources/).
SOURCE_TITLES = {"youtube": "YouTube", "mock": "the mock catalog", "mcp": "MCP"}
_PARTS = frozenset({"candidates", "ranked", "suggestions", "actors", "ended"})
TITLE = "Title"
TITLE_SHARE = 0.45  # of the list's width, whatever the other columns would like
_ELASTIC = frozenset({"Channel", "Proposed by"})  # shrink (elided) when space is short
_ELASTIC_MIN_CHARS = 6
_DROP_BELOW = 0.6  # a droppable column cut to less than this share of its text is hidden


class CandidatesDock(RoundtableDock):
    candidateActivated = Signal(str)

    def __init__(self, bridge: EngineBridge, parent: QWidget | None = None) -> None:
        super().__init__("Candidates", "candidatesDock", bridge, parent)
        self.candidates_label = QLabel("Candidates")
        self.candidate_tree = CandidateTreeView(
            ["Rank", "Title", "Channel", "Duration"], "candidateTree",
            droppable=frozenset({"Channel"}),
        )
        self.suggestions_label = QLabel("Suggestions")
        # Who proposed it matters more here than the channel (the candidate list and
        # every tooltip show the channel): the title gets that width.
        self.suggestion_tree = CandidateTreeView(
            ["#", "Title", "Channel", "Duration", "Proposed by"], "suggestionTree",
            hidden=frozenset({"Channel"}),
        )
        for label in (self.candidates_label, self.suggestions_label):
            label.setTextFormat(Qt.TextFormat.PlainText)
            label.setWordWrap(True)  # a long query must not widen the dock
            font = label.font()
            font.setBold(True)
            label.setFont(font)
        for tree in (self.candidate_tree, self.suggestion_tree):
            tree.itemSelectionChanged.connect(self._on_tree_selection_changed)

        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(_titled(self.candidates_label, self.candidate_tree))
        splitter.addWidget(_titled(self.suggestions_label, self.suggestion_tree))
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        self.setWidget(splitter)

        bridge.stateChanged.connect(self._on_bridge_state_changed)
        self.refresh()

    # -- reading --------------------------------------------------------------------------
    def candidate_ids(self) -> list[str]:
        return _ids(self.candidate_tree)

    def suggestion_ids(self) -> list[str]:
        return _ids(self.suggestion_tree)

    # -- refresh --------------------------------------------------------------------------
    def refresh(self) -> None:
        state = self.state()
        self._fill_candidates(state)
        self._fill_suggestions(state)

    def _fill_candidates(self, state: MeetingState | None) -> None:
        tree = self.candidate_tree
        selected = _selected_id(tree)
        tree.blockSignals(True)
        tree.clear()
        candidates = state.candidates if state else []
        ranks = {cid: i + 1 for i, cid in enumerate(state.ranked)} if state else {}
        for c in candidates:
            rank = ranks.get(c.id)
            item = _item([f"#{rank}" if rank else "", *_columns(c)], c)
            tree.addTopLevelItem(item)
            if c.id == selected:
                item.setSelected(True)
        tree.blockSignals(False)
        tree.fit_columns()
        self.candidates_label.setText(candidates_heading(state, len(candidates)))
        self.candidates_label.setToolTip(plain_tooltip(state.candidate_notice)
                                         if state and state.candidate_notice else "")

    def _fill_suggestions(self, state: MeetingState | None) -> None:
        tree = self.suggestion_tree
        selected = _selected_id(tree)
        tree.blockSignals(True)
        tree.clear()
        suggestions = state.suggestions if state else []
        for n, s in enumerate(suggestions, start=1):
            names = [_name(state, a) for a in s.proposed_by] if state else []
            item = _item([str(n), *_columns(s.candidate), ", ".join(names)], s.candidate)
            tree.addTopLevelItem(item)
            if s.candidate.id == selected:
                item.setSelected(True)
        tree.blockSignals(False)
        tree.fit_columns()
        final = " (final)" if state and state.final_ids else ""
        self.suggestions_label.setText(f"Suggestions ({len(suggestions)}){final}")

    # -- slots ----------------------------------------------------------------------------
    def _on_bridge_state_changed(self, part: str) -> None:
        if part in _PARTS:
            self.schedule_refresh()

    def _on_tree_selection_changed(self) -> None:
        tree = self.sender()
        if not isinstance(tree, QTreeWidget):
            return
        cid = _selected_id(tree)
        if cid:
            other = self.suggestion_tree if tree is self.candidate_tree else self.candidate_tree
            other.blockSignals(True)
            other.clearSelection()
            other.blockSignals(False)
            self.candidateActivated.emit(cid)


class CandidateTreeView(QTreeWidget):
    """A list of candidates whose Title column gets the width the others can spare.

    `hidden` columns are never shown; `droppable` ones are hidden while the list is too
    narrow to show them usefully (the tooltip still has them) and come back when it
    widens.
    """

    def __init__(self, headers: list[str], name: str, *, hidden: frozenset[str] = frozenset(),
                 droppable: frozenset[str] = frozenset()) -> None:
        super().__init__()
        self.setObjectName(name)
        self.setHeaderLabels(headers)
        self.setRootIsDecorated(False)
        self.setUniformRowHeights(True)
        self.setAlternatingRowColors(True)
        self.setSelectionMode(QTreeWidget.SelectionMode.SingleSelection)
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.title_column = headers.index(TITLE)
        self._hidden = {headers.index(h) for h in hidden}
        self._droppable = {headers.index(h) for h in droppable}
        self._fitting = False
        header = self.header()
        header.setStretchLastSection(False)
        header.setMinimumSectionSize(24)
        for col in range(len(headers)):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.Interactive)
            self.setColumnHidden(col, col in self._hidden)
        header.setSectionResizeMode(self.title_column, QHeaderView.ResizeMode.Stretch)

    def fit_columns(self) -> None:
        """Size the other columns to their contents, shrinking the elastic ones (channel,
        proposer) so the title keeps at least TITLE_SHARE of the width; drop a droppable
        column that would keep less than _DROP_BELOW of its text."""
        width = self.viewport().width()
        if width <= 0 or self._fitting:
            return
        self._fitting = True
        try:
            header = self.header()
            wants = {
                col: max(self.sizeHintForColumn(col), header.sectionSizeHint(col))
                for col in range(self.columnCount())
                if col != self.title_column and col not in self._hidden
            }
            widths = self._plan(width, wants, list(wants))
            dropped = {c for c in self._droppable if widths[c] < wants[c] * _DROP_BELOW}
            if dropped:
                widths = self._plan(width, wants, [c for c in wants if c not in dropped])
            for col in self._droppable:
                if self.isColumnHidden(col) != (col in dropped):
                    self.setColumnHidden(col, col in dropped)
            for col, col_width in widths.items():
                header.resizeSection(col, col_width)
        finally:
            self._fitting = False

    def _plan(self, width: int, wants: dict[int, int], columns: list[int]) -> dict[int, int]:
        elastic = [c for c in columns if self.headerItem().text(c) in _ELASTIC]
        fixed = sum(wants[c] for c in columns if c not in elastic)
        room = width - int(width * TITLE_SHARE) - fixed
        elastic_want = sum(wants[c] for c in elastic)
        widths = {c: wants[c] for c in columns}
        if elastic and elastic_want > room:
            least = self.fontMetrics().averageCharWidth() * _ELASTIC_MIN_CHARS
            for c in elastic:
                widths[c] = max(least, room * wants[c] // max(elastic_want, 1))
        return widths

    def shown_headers(self) -> list[str]:
        return [self.headerItem().text(c) for c in range(self.columnCount())
                if not self.isColumnHidden(c)]

    def title_width(self) -> int:
        return self.header().sectionSize(self.title_column)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.fit_columns()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self.fit_columns()  # zoom changes every column's text width


def candidates_heading(state: MeetingState | None, count: int) -> str:
    """"Candidates (12) from YouTube for “query”": which source answered the last fetch,
    and on a second line why it was not the one asked ("YouTube failed: ...": the mock
    catalog answered)."""
    if state is None:
        return f"Candidates ({count})"
    name = state.candidate_source
    source = f" from {SOURCE_TITLES.get(name, name)}" if name else ""
    query = f" for “{state.candidate_query}”" if state.candidate_query else ""
    # The notice's first clause ("YouTube failed: the quota ... is used up"); the rest
    # ("showing mock results", what to do) is the label's tooltip.
    why = state.candidate_notice.split(";", 1)[0].strip().rstrip(".")
    notice = f"\n{why}." if why else ""
    return f"Candidates ({count}){source}{query}{notice}"


def _titled(label: QLabel, tree: CandidateTreeView) -> QWidget:
    box = QWidget()
    layout = QVBoxLayout(box)
    layout.setContentsMargins(4, 4, 4, 4)
    layout.addWidget(label)
    layout.addWidget(tree)
    return box


def _columns(c: Candidate) -> list[str]:
    return [c.title, c.channel, c.duration]


def _item(texts: list[str], c: Candidate) -> QTreeWidgetItem:
    item = QTreeWidgetItem(texts)
    item.setData(0, _ID_ROLE, c.id)
    tip = plain_tooltip(f"{c.title}\n{c.channel} · {c.duration} · {c.published}\nid: {c.id}")
    for col in range(len(texts)):
        item.setToolTip(col, tip)
    return item


def _selected_id(tree: QTreeWidget) -> str | None:
    items = tree.selectedItems()
    return items[0].data(0, _ID_ROLE) if items else None


def _ids(tree: QTreeWidget) -> list[str]:
    return [item.data(0, _ID_ROLE) for i in range(tree.topLevelItemCount())
            if (item := tree.topLevelItem(i)) is not None]


def _name(state: MeetingState | None, actor_id: str) -> str:
    actor = state.actor_by_id(actor_id) if state else None
    return actor.name if actor else actor_id
