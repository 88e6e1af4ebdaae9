"""The Answers dock's pieces: one list per table (`TableAnswersList`: its heading and its
agents' answers one under another, scrolling as one) and one agent's entry in it
(`AnswerEntry`: avatar, name and what it is doing; its answer wrapped whole, its stances
per claim, any crux or flip condition it raised). A hand of 16 shows four lists, not 16
tiny scroll boxes. Plain widgets filled by the dock: must hold no engine logic.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from roundtable_desktop.kinds.debate.state import Agent

LIST_EM = 18  # a table's list is at least this many 'M's wide; more scroll sideways
AVATAR = 22


def _wrapped(name: str = "") -> QLabel:
    label = QLabel("")
    if name:
        label.setObjectName(name)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
    return label


class AnswerEntry(QFrame):
    """One agent's answer in its table's list."""

    def __init__(self, agent: Agent, parent: QWidget | None = None) -> None:
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
        self.head = QLabel(agent.name)
        self.head.setTextFormat(Qt.TextFormat.PlainText)
        self.head.setWordWrap(True)  # a long name takes two lines, never cut
        font = self.head.font()
        font.setBold(True)
        self.head.setFont(font)
        self.state_label = QLabel("")  # answering…, answered, a failure
        self.text = _wrapped()
        self.stances = _wrapped()
        self.extras = _wrapped()  # new cruxes and flip triggers, under the answer
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(avatar)
        row.addWidget(self.head, 1)
        row.addWidget(self.state_label)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 3, 4, 3)
        layout.setSpacing(2)
        layout.addLayout(row)
        for part in (self.text, self.stances, self.extras):
            layout.addWidget(part)

    def shown(self) -> str:
        return self.text.text()

    def set_text(self, text: str) -> None:
        if text != self.text.text():
            self.text.setText(text)


class TableAnswersList(QFrame):
    """One table's heading and its agents' entries, one under another, scrolling as one."""

    def __init__(self, heading: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.heading = QLabel(heading)
        font = self.heading.font()
        font.setBold(True)
        self.heading.setFont(font)
        self.entries = QWidget()
        self.entries_layout = QVBoxLayout(self.entries)
        self.entries_layout.setContentsMargins(0, 0, 0, 0)
        self.entries_layout.setSpacing(4)
        self.entries_layout.addStretch(1)
        self.scroll_area = QScrollArea()
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll_area.setWidget(self.entries)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.heading)
        layout.addWidget(self.scroll_area, 1)
        self.setMinimumWidth(self.fontMetrics().horizontalAdvance("M") * LIST_EM)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    def add(self, entry: AnswerEntry) -> None:
        self.entries_layout.insertWidget(self.entries_layout.count() - 1, entry)


def table_heading(table: int) -> str:
    return "Final table" if table == 0 else f"Table {table}"
