"""The tutor's answer key behind a cover: what only the teacher may see (the patterns the
exercise hides, the checklist before the debrief reveals it) shows only when the teacher
asks for it, under a banner saying whose it is.

`AnswerKeyView` holds the content and shows one of three pages: covered (a sentence and
a "Show the answer key" button: the only way in), shown (the banner "Teacher view —
answer key (not for the room)", a Hide button, the content) and public (the content
alone: the debrief has told the room). The docks cover it again whenever another
exercise is shown (`exercise_key`), and a dock starts covered, so neither a saved dock
layout nor a new exercise ever brings the key back on its own.
Must hold no engine logic and never read the exercise itself.
"""

from __future__ import annotations

from enum import StrEnum

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QPushButton,
    QSizePolicy,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from roundtable_desktop.kinds.tutor.state import TutorState
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.text_label import text_label
from roundtable_desktop.ui.theme import colors, is_dark

BANNER = "Teacher view — answer key (not for the room)"
SHOW_TEXT = "Show the answer key"


class KeyState(StrEnum):
    COVERED = "covered"
    SHOWN = "shown"  # the teacher asked: under the banner
    PUBLIC = "public"  # the debrief has revealed it to the room


def exercise_key(bridge: EngineBridge, state: TutorState | None) -> tuple[str, int] | None:
    """Which exercise is shown: the session and its attempt (a retry is a new one)."""
    if state is None:
        return None
    return (bridge.session_id() or "", state.attempt)


class AnswerKeyView(QStackedWidget):
    """`content` behind a cover; `changed(state)` fires when what is shown changes."""

    changed = Signal(str)

    def __init__(self, content: QWidget, covered_text: str, name: str,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(name)
        self._state = KeyState.COVERED

        cover = QWidget()
        cover.setObjectName(f"{name}Cover")
        self.cover_label = text_label(f"{name}CoverText")
        self.cover_label.setText(covered_text)
        self.show_button = QPushButton(SHOW_TEXT)
        self.show_button.setObjectName(f"{name}ShowButton")
        self.show_button.setToolTip("Only the teacher should see it: the room would see the "
                                    "answers the exercise asks for.")
        self.show_button.clicked.connect(self.show_key)
        column = QVBoxLayout(cover)
        column.addWidget(self.cover_label)
        row = QHBoxLayout()
        row.addWidget(self.show_button)
        row.addStretch(1)
        column.addLayout(row)
        column.addStretch(1)

        shown = QWidget()
        self.banner = QFrame()
        self.banner.setObjectName(f"{name}Banner")
        self.banner_label = text_label(f"{name}BannerText", bold=True)
        self.banner_label.setText(BANNER)
        self.hide_button = QPushButton("Hide")
        self.hide_button.setObjectName(f"{name}HideButton")
        self.hide_button.clicked.connect(self.cover)
        strip = QHBoxLayout(self.banner)
        strip.setContentsMargins(6, 4, 6, 4)
        strip.addWidget(self.banner_label, 1)
        strip.addWidget(self.hide_button, 0, Qt.AlignmentFlag.AlignTop)
        page = QVBoxLayout(shown)
        page.setContentsMargins(0, 0, 0, 0)
        page.addWidget(self.banner)
        page.addWidget(content, 1)
        self._content_page = shown

        self.addWidget(cover)
        self.addWidget(shown)
        self._show_page(0)

    # -- reading ------------------------------------------------------------------------------
    @property
    def state(self) -> KeyState:
        return self._state

    def key_visible(self) -> bool:
        """Whether the answer key is on screen (shown or public) rather than covered."""
        return self._state != KeyState.COVERED

    # -- what is shown ------------------------------------------------------------------------
    def show_key(self) -> None:
        """The teacher's explicit action: the key, under its banner."""
        if self._state == KeyState.COVERED:
            self._set(KeyState.SHOWN)

    def cover(self) -> None:
        self._set(KeyState.COVERED)

    def make_public(self, public: bool) -> None:
        """The debrief has told the room (True): no cover, no banner. False covers a key
        that was public (another exercise); a key the teacher showed stays shown."""
        if public:
            self._set(KeyState.PUBLIC)
        elif self._state == KeyState.PUBLIC:
            self._set(KeyState.COVERED)

    def set_colours(self, palette: QPalette) -> None:
        """The banner in the theme's warning colours (styled here, per widget)."""
        c = colors("dark" if is_dark(palette) else "light")
        self.banner.setStyleSheet(
            f"QFrame#{self.banner.objectName()} {{ background: {c.warning_bg};"
            f" border: 2px solid {c.warning_text}; border-radius: 4px; }}"
            f" QLabel {{ color: {c.warning_text}; }}")

    def _show_page(self, index: int) -> None:
        """Show one page, sized by it alone: a stack asks for its largest page's size, so
        the page not shown is told to ask for nothing (the cover stays small)."""
        preferred, ignored = QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Ignored
        for i in range(self.count()):
            page = self.widget(i)
            if page is not None:
                page.setSizePolicy(QSizePolicy(preferred, preferred) if i == index
                                   else QSizePolicy(ignored, ignored))
        self.setCurrentIndex(index)
        self.updateGeometry()

    def _set(self, state: KeyState) -> None:
        if state == self._state:
            return
        self._state = state
        self._show_page(0 if state == KeyState.COVERED else 1)
        self.banner.setVisible(state == KeyState.SHOWN)
        self.changed.emit(str(state))
