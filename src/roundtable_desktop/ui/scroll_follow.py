"""A text view that follows its newest line unless the reader scrolled back.

`ScrollFollower(view)` keeps `view` at its end while `following`; the reader's own
scrolling (the bar's actionTriggered: wheel, keys, dragging) turns following off when it
leaves the end and on again when it comes back. `replace(set_content)` sets new content
keeping the reader's place when they are reading back. Kept as a flag rather than read
off the bar at each change: a view behind another tab lays its text out, and moves its
bar, only later (once shown), and a QTextBrowser scrolls itself after `setHtml`. Must
hold no engine logic.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QAbstractScrollArea

AT_END_PX = 4  # this close to the end counts as at the end


class ScrollFollower(QObject):
    def __init__(self, view: QAbstractScrollArea) -> None:
        super().__init__(view)
        self._bar = view.verticalScrollBar()
        self.following = True
        self._bar.actionTriggered.connect(self._on_bar_action_triggered)
        self._bar.valueChanged.connect(self._keep_following)
        self._bar.rangeChanged.connect(self._keep_following)

    def replace(self, set_content: Callable[[], None]) -> None:
        """Run `set_content`, then stay where the reader was, or at the end."""
        previous = self._bar.value()
        set_content()
        if not self.following:
            self._bar.setValue(previous)
        self._keep_following()

    def reset(self) -> None:
        """Follow again (another session is shown)."""
        self.following = True
        self._keep_following()

    def _on_bar_action_triggered(self, _action: int) -> None:
        # The slider position is already the one the action moves to.
        self.following = self._bar.sliderPosition() >= self._bar.maximum() - AT_END_PX

    def _keep_following(self, *_args: int) -> None:
        if self.following and self._bar.value() != self._bar.maximum():
            self._bar.setValue(self._bar.maximum())
