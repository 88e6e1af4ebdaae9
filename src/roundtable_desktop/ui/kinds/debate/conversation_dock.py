"""The classical debate's Conversation dock: the transcript as it streams, the current
plans, and the sidebar of citations and tool results.

Transcript (left): one block per turn (speaker, urgency, intent, the sentences said),
each sentence appearing as the engine reads it off the speech stream (StateChanged
`sentence`); an interruption is marked where it cut in (⟂ interrupted by …) and on the
interrupter's turn (⚡ cuts in on …); a silent turn is one quiet line. Plans (a tab on
the right): each agent's latest plan (speak / interrupt / listen) with its urgency as a
bar and its intent, most urgent first, the speaker on top, an interrupter waiting for
the floor marked. Sidebar (the other tab): what the speakers cited (and tool results),
never inline in the speech. A blitz debate shows a line saying its answers are in the
Answers dock. When the conversation begins the dock comes forward and, docked, takes at
least a third of the window's height. The text comes from models and corpora: escaped
(debate_conversation_text.py). Must hold no engine logic.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QListWidget,
    QMainWindow,
    QProgressBar,
    QSizePolicy,
    QSplitter,
    QTabWidget,
    QTextBrowser,
    QTreeWidget,
    QTreeWidgetItem,
    QWidget,
)

from roundtable_desktop.domain.events import StateChanged
from roundtable_desktop.kinds.debate.classical.state import ClassicalState
from roundtable_desktop.kinds.debate.state import DebateState
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.docks.bridge_dock import plain_tooltip
from roundtable_desktop.ui.kinds.debate.conversation_text import (
    ConversationInks,
    PlanRow,
    conversation_html,
    conversation_lines,
    plan_rows,
    sidebar_line,
)
from roundtable_desktop.ui.kinds.debate.dock_base import DebateDock
from roundtable_desktop.ui.layouts import DOCK_MARGINS, column_of
from roundtable_desktop.ui.theme import inks
from roundtable_desktop.ui.window.session_runner import SessionRunner

PLAN_COLUMNS = ("Agent", "Plan", "Urgency", "Intent")
URGENCY = PLAN_COLUMNS.index("Urgency")
ROOM_SHARE = 0.36  # of the window's height, once the conversation begins


class DebateConversationDock(DebateDock):
    def __init__(self, bridge: EngineBridge, parent: QWidget | None = None, *,
                 runner: SessionRunner | None = None) -> None:
        super().__init__("Conversation", "debateConversationDock", bridge, parent,
                         runner=runner)
        self.heading = QLabel()
        self.heading.setObjectName("debateConversationHeading")
        self.heading.setWordWrap(True)
        self.transcript = QTextBrowser()
        self.transcript.setObjectName("debateConversation")
        self.transcript.setOpenLinks(False)
        self.transcript.setOpenExternalLinks(False)
        self.plans = QTreeWidget()
        self.plans.setObjectName("debatePlans")
        self.plans.setHeaderLabels(list(PLAN_COLUMNS))
        self.plans.setRootIsDecorated(False)
        self.plans.setWordWrap(False)
        self.plans.setTextElideMode(Qt.TextElideMode.ElideRight)
        header = self.plans.header()
        header.setStretchLastSection(True)
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(URGENCY, QHeaderView.ResizeMode.Fixed)
        self.sidebar = QListWidget()
        self.sidebar.setObjectName("debateSidebar")
        self.sidebar.setWordWrap(True)
        # Plans and sidebar share one tab column: a laptop's bottom dock is short.
        self.side = QTabWidget()
        self.side.setObjectName("debateConversationSide")
        self.side.addTab(self.plans, "Plans")
        self.side.addTab(self.sidebar, "Sidebar")
        self.side.setTabToolTip(0, "Each agent's latest plan: who wants the floor, how "
                                "urgently, and why.")
        self.side.setTabToolTip(1, "What the speakers cited and the tools' results, beside "
                                "the conversation, not in it.")
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setObjectName("debateConversationSplit")
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(self.transcript)
        self.splitter.addWidget(self.side)
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 1)
        self.setWidget(column_of(self.heading, (self.splitter, 1), margins=DOCK_MARGINS))
        self._html = ""
        self.refresh()

    # -- reading (tests) ------------------------------------------------------------------
    def lines(self) -> list[str]:
        state = self.state()
        return conversation_lines(state) if state is not None else []

    def transcript_text(self) -> str:
        return self.transcript.toPlainText()

    def plan_texts(self) -> list[tuple[str, str, str]]:
        """(name, plan, urgency) per row, as shown."""
        return [(i.text(0), i.text(1), i.text(2)) for i in
                (self.plans.topLevelItem(n) for n in range(self.plans.topLevelItemCount()))
                if i is not None]

    def sidebar_lines(self) -> list[str]:
        return [self.sidebar.item(i).text() for i in range(self.sidebar.count())]

    # -- refresh --------------------------------------------------------------------------
    def refresh(self) -> None:
        state = self.state()
        if state is None:
            self.heading.setText("No debate is shown.")
            self._show_html("")
            self.plans.clear()
            self.sidebar.clear()
            return
        if state.mode != "classical":
            self.heading.setText("This debate is in blitz mode: its round answers are in "
                                 "the Answers dock. Choose Classical beside Deal for a "
                                 "conversation.")
            self._show_html("")
            self.plans.clear()
            self.sidebar.clear()
            return
        c = state.classical or ClassicalState()
        self.heading.setText(self._heading(state, c))
        self._show_html(conversation_html(state, self._inks()))
        self._fill_plans(plan_rows(state))
        self._fill_sidebar(state, c)

    def _heading(self, state: DebateState, c: ClassicalState) -> str:
        cut = len(c.interruptions())
        silent = len(c.silent_turns())
        parts = [f"Classical · turn {len(c.turns)} of at most {c.max_turns}",
                 f"{cut} interruption{'s' if cut != 1 else ''}",
                 f"{silent} silent turn{'s' if silent != 1 else ''}"]
        if c.live is not None and c.live.speaker:
            parts.insert(1, f"{state.agent(c.live.speaker).name} is speaking")
        elif c.next_speaker is not None:
            parts.insert(1, f"{state.agent(c.next_speaker.agent).name} has the floor next")
        return " · ".join(parts)

    def _show_html(self, text: str) -> None:
        if text == self._html:
            return
        bar = self.transcript.verticalScrollBar()
        at_end = bar.value() >= bar.maximum() - 4
        self._html = text
        self.transcript.setHtml(text)
        if at_end:  # follow the stream unless the user scrolled back to read
            bar.setValue(bar.maximum())

    def _fill_plans(self, rows: list[PlanRow]) -> None:
        header = self.plans.header()  # its font follows the theme's zoom
        header.resizeSection(URGENCY, header.fontMetrics().horizontalAdvance("Urgency") + 28)
        self.plans.clear()
        for row in rows:
            action = f"{row.action} (next)" if row.waiting else row.action
            item = QTreeWidgetItem([row.name, action, f"{row.urgency:.2f}", row.intent])
            item.setToolTip(3, plain_tooltip(row.intent))
            if row.action in ("speaking", "interrupt") or row.waiting:
                font = item.font(0)
                font.setBold(True)
                item.setFont(0, font)
            self.plans.addTopLevelItem(item)
            bar = QProgressBar()
            bar.setRange(0, 100)
            bar.setValue(round(row.urgency * 100))
            bar.setFormat(f"{row.urgency:.2f}")
            bar.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
            self.plans.setItemWidget(item, URGENCY, bar)

    def _fill_sidebar(self, state: DebateState, c: ClassicalState) -> None:
        lines = [sidebar_line(state, e) for e in reversed(c.sidebar)]  # newest on top
        if not lines:
            lines = ["Nothing cited yet: citations and tool results appear here, not in "
                     "the speech."]
        if lines != self.sidebar_lines():
            self.sidebar.clear()
            self.sidebar.addItems(lines)
        self.side.setTabText(1, f"Sidebar ({len(c.sidebar)})")

    def _inks(self) -> ConversationInks:
        pal = self.theme_palette()
        ink = inks(pal)
        return ConversationInks(text=pal.color(QPalette.ColorRole.Text).name(),
                                quiet=ink.system, cut=ink.error, speaker=ink.speaker)

    # -- events ---------------------------------------------------------------------------
    def on_event(self, event: object) -> None:
        super().on_event(event)
        if isinstance(event, StateChanged) and event.part == "phase" and event.detail == "turn":
            self.raise_()  # the conversation begins: it leads the bottom tabs
            self._make_room()

    def _make_room(self) -> None:
        """A docked Conversation gets at least ROOM_SHARE of the window's height."""
        window = self.parentWidget()
        if not isinstance(window, QMainWindow) or self.isFloating():
            return
        wanted = int(window.height() * ROOM_SHARE)
        if self.height() < wanted:
            window.resizeDocks([self], [wanted], Qt.Orientation.Vertical)

    def _on_theme_changed(self) -> None:
        self._html = ""
        self.refresh()

