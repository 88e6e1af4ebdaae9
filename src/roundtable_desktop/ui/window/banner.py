"""A non-modal banner above the context view: what happened and what the user can do.

Notices stack: the newest is shown with a count of the others; Dismiss reveals the one
before. A notice repeated while shown only bumps a counter, so an error storm is one
line, never a pile of dialogs. A notice may carry one action button (e.g. Continue the
last session). Must not block, and must never show a traceback.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

MAX_NOTICES = 20
LEVEL_WORDS = {"error": "Error", "warning": "Warning", "info": "Note"}


@dataclass
class BannerNotice:
    level: str
    message: str
    hint: str = ""
    action_label: str = ""
    action: Callable[[], object] | None = None
    repeats: int = 1


class NoticeBanner(QFrame):
    dismissed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("noticeBanner")
        self.setProperty("level", "info")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self._notices: list[BannerNotice] = []
        self.message_label = QLabel(self)
        self.message_label.setObjectName("noticeMessage")
        self.message_label.setWordWrap(True)
        self.hint_label = QLabel(self)
        self.hint_label.setObjectName("noticeHint")
        self.hint_label.setWordWrap(True)
        self.more_label = QLabel(self)
        self.more_label.setObjectName("noticeMore")
        self.action_button = QPushButton(self)
        self.action_button.setObjectName("noticeAction")
        self.action_button.clicked.connect(self._on_action_button_clicked)
        self.dismiss_button = QPushButton("Dismiss", self)
        self.dismiss_button.setObjectName("noticeDismiss")
        self.dismiss_button.setToolTip("Hide this message (the window stays usable either way)")
        self.dismiss_button.clicked.connect(self.dismiss)
        texts = QVBoxLayout()
        texts.setSpacing(2)
        texts.addWidget(self.message_label)
        texts.addWidget(self.hint_label)
        row = QHBoxLayout(self)
        row.setContentsMargins(12, 8, 12, 8)
        row.addLayout(texts, 1)
        row.addWidget(self.more_label)
        row.addWidget(self.action_button)
        row.addWidget(self.dismiss_button)
        self.hide()

    # -- API ------------------------------------------------------------------------------
    def show_notice(
        self, level: str, message: str, hint: str = "", *,
        action_label: str = "", action: Callable[[], object] | None = None,
    ) -> None:
        level = level if level in LEVEL_WORDS else "info"
        top = self._notices[-1] if self._notices else None
        if top is not None and (top.level, top.message, top.hint) == (level, message, hint):
            top.repeats += 1
        else:
            self._notices.append(BannerNotice(level, message, hint, action_label, action))
            del self._notices[:-MAX_NOTICES]
        self._render()

    def current(self) -> BannerNotice | None:
        return self._notices[-1] if self._notices else None

    def notices(self) -> list[BannerNotice]:
        return list(self._notices)

    def dismiss(self) -> None:
        if self._notices:
            self._notices.pop()
        self._render()
        self.dismissed.emit()

    def clear(self) -> None:
        self._notices.clear()
        self._render()

    # -- internals ------------------------------------------------------------------------
    def _render(self) -> None:
        notice = self.current()
        if notice is None:
            self.hide()
            return
        self.setProperty("level", notice.level)
        self.style().unpolish(self)
        self.style().polish(self)
        for child in (self.message_label, self.hint_label, self.more_label):
            child.style().unpolish(child)
            child.style().polish(child)
        repeats = f" (×{notice.repeats})" if notice.repeats > 1 else ""
        self.message_label.setText(f"{LEVEL_WORDS[notice.level]}: {notice.message}{repeats}")
        self.hint_label.setText(notice.hint)
        self.hint_label.setVisible(bool(notice.hint))
        others = len(self._notices) - 1
        self.more_label.setText(f"{others} more" if others else "")
        self.more_label.setVisible(others > 0)
        self.action_button.setText(notice.action_label)
        self.action_button.setVisible(bool(notice.action_label and notice.action))
        self.dismiss_button.setText("Next" if others else "Dismiss")
        self.show()

    def _on_action_button_clicked(self) -> None:
        notice = self.current()
        if notice is None or notice.action is None:
            return
        action = notice.action
        self.dismiss()
        action()
