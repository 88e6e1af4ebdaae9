"""The end panel: what a finished session came to, and what to do next.

Shown above the context view when the live session has ended: one sentence on what
happened (the kind, how far it went, how many calls), the result large and readable
(its heading, then each item's title, detail and who it is by, then any text; the
items scroll when there are more than fit), and on the heading's row three buttons:
Export… (the window's export, with the other formats on its arrow), Replay (this
session) and New session. The result's text is untrusted (model output,
catalog titles): it is only ever set as plain text. Sizes are multiples of the window's
font at its zoom, so zoom scales the panel like every other text; colours follow the
theme. Must hold no engine logic: the window fills it and wires its buttons.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QResizeEvent
from PySide6.QtWidgets import (
    QBoxLayout,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from roundtable_desktop.domain.summary import ResultItem, ResultSection
from roundtable_desktop.ui.text_label import text_label
from roundtable_desktop.ui.theme import ZOOM_STEPS, colors, point_size, step_zoom

# Sizes as multiples of the window's text size: the result reads from across a room.
HEADLINE_SCALE = 1.1
HEADING_SCALE = 1.6
TITLE_SCALE = 1.35
NUMBER_SCALE = 1.35
ITEM_WIDTH_CHARS = 34  # a column of items is at least this many characters wide
MAX_COLUMNS = 4


class _ItemsArea(QScrollArea):
    """A scroll area that asks for the height of what it holds (the panel's splitter
    gives it that, up to a share of the window, and it scrolls beyond)."""

    def sizeHint(self) -> QSize:
        inner = self.widget()
        if inner is None:
            return super().sizeHint()
        width = max(self.viewport().width(), 200)
        height = inner.heightForWidth(width) if inner.hasHeightForWidth() else -1
        height = height if height > 0 else inner.sizeHint().height()
        return QSize(super().sizeHint().width(), height + 2 * self.frameWidth())

    def minimumSizeHint(self) -> QSize:
        return QSize(120, 40)


class EndPanel(QFrame):
    exportRequested = Signal()
    replayRequested = Signal()
    newSessionRequested = Signal()
    fullSizeToggled = Signal(bool)  # the result alone in the window, or back
    fitted = Signal()  # fit_text has found the size at which the result reads whole

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("endPanel")
        self.headline = _plain("endHeadline")
        self.heading = _plain("endHeading")
        self.body = QWidget()
        self.body.setObjectName("endItems")
        self.items_layout = QGridLayout(self.body)
        self.items_layout.setContentsMargins(0, 0, 8, 0)
        self.items_layout.setHorizontalSpacing(28)
        self.items_layout.setVerticalSpacing(8)
        self._items: list[QWidget] = []  # the result's items, then its text, in order
        self._columns = 1
        self.items_area = _ItemsArea()
        self.items_area.setObjectName("endItemsArea")
        self.items_area.setFrameShape(QFrame.Shape.NoFrame)
        self.items_area.setWidgetResizable(True)
        self.items_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.items_area.setWidget(self.body)

        self.export_button = QToolButton()
        self.export_button.setObjectName("endExport")
        self.export_button.setText("Export…")
        self.export_button.setToolTip("Save this session as a file (the arrow: other formats)")
        self.export_button.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)
        self.export_button.clicked.connect(self.exportRequested)
        self.export_menu = QMenu(self.export_button)
        self.replay_button = QPushButton("Replay")
        self.replay_button.setObjectName("endReplay")
        self.replay_button.setToolTip("Step through this session call by call (read-only)")
        self.replay_button.clicked.connect(self.replayRequested)
        self.new_button = QPushButton("New session")
        self.new_button.setObjectName("endNewSession")
        self.new_button.setToolTip("Start a new session (Ctrl+N)")
        self.new_button.clicked.connect(self.newSessionRequested)
        self.full_button = QPushButton("Full size")
        self.full_button.setObjectName("endFullSize")
        self.full_button.setCheckable(True)
        self.full_button.setToolTip("The result alone in the whole window, for the room "
                                    "(F10; again to go back)")
        self.full_button.toggled.connect(self.fullSizeToggled)
        # The buttons share the heading's row when it is wide enough for both (on a laptop
        # every line counts for the result); below the heading otherwise.
        buttons = QHBoxLayout()
        buttons.setSpacing(10)
        for button in (self.export_button, self.replay_button, self.new_button,
                       self.full_button):
            buttons.addWidget(button, 0, Qt.AlignmentFlag.AlignVCenter)
        buttons.addStretch(1)
        self.heading.setWordWrap(False)
        self.heading.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self._top = QBoxLayout(QBoxLayout.Direction.LeftToRight)
        self._top.setSpacing(10)
        self._top.addWidget(self.heading, 1)
        self._top.addLayout(buttons)
        self._buttons = buttons

        column = QVBoxLayout(self)
        self._column = column  # self.layout(), typed
        column.setContentsMargins(16, 8, 16, 8)
        column.setSpacing(6)
        column.addWidget(self.headline)
        column.addLayout(self._top)
        column.addWidget(self.items_area, 1)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self._titles: list[str] = []
        self.fitting = False  # fit_text is still making the text smaller
        self._fit = ("light", 1.0)
        self._fit_timer = QTimer(self)
        self._fit_timer.setSingleShot(True)
        self._fit_timer.setInterval(30)
        self._fit_timer.timeout.connect(self._fit_step)
        self.set_look("light", 1.0)

    # -- reading (tests and the window) ----------------------------------------------------
    def headline_text(self) -> str:
        return self.headline.text()

    def heading_text(self) -> str:
        return self.heading.text()

    def item_titles(self) -> list[str]:
        return list(self._titles)

    def item_labels(self) -> list[QLabel]:
        """Every label of the result's items, titles first in each item."""
        return self.body.findChildren(QLabel)

    def wanted_height(self) -> int:
        """The height that shows the whole result without scrolling."""
        self._column.activate()
        return self.sizeHint().height()

    def buttons_beside_heading(self) -> bool:
        return self._top.direction() == QBoxLayout.Direction.LeftToRight

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._arrange_top()
        self._arrange_items()

    def fit_text(self, theme: str, zoom: float) -> None:
        """At full size: from `zoom`, a step smaller each pass while the result still
        needs scrolling, down to the smallest zoom step, so it reads whole at any zoom
        the window has; `fitted` when done. `set_look` gives the window's size back."""
        self._fit = (theme, zoom)
        self.fitting = True
        self.set_look(theme, zoom)
        self._fit_timer.start()

    def _fit_step(self) -> None:
        theme, zoom = self._fit
        if self.needs_scrolling() and zoom > ZOOM_STEPS[0] + 1e-6:
            zoom = step_zoom(zoom, -1)
            self._fit = (theme, zoom)
            self.set_look(theme, zoom)
            self._fit_timer.start()  # the new sizes are laid out on the next pass
            return
        self.fitting = False
        self.fitted.emit()

    def needs_scrolling(self) -> bool:
        """The result is taller than the room it is shown in."""
        bar = self.items_area.verticalScrollBar()
        return self.items_area.isVisible() and bar.maximum() > 0

    def _arrange_items(self) -> None:
        """Items in as many columns as the width holds at this zoom (each at least
        ITEM_WIDTH_CHARS wide, at most MAX_COLUMNS), in reading order across; the text
        spans them."""
        em = self.fontMetrics().averageCharWidth() or 8
        room = self.items_area.viewport().width()
        columns = max(1, min(MAX_COLUMNS, room // (ITEM_WIDTH_CHARS * em)))
        if columns == self._columns and self.items_layout.count() == len(self._items):
            return
        self._columns = columns
        while self.items_layout.count():
            self.items_layout.takeAt(0)
        items = [w for w in self._items if w.objectName() == "endItem"]
        for index, widget in enumerate(items):
            self.items_layout.addWidget(widget, index // columns, index % columns,
                                        Qt.AlignmentFlag.AlignTop)  # rows read level
        row = (len(items) + columns - 1) // columns
        for widget in self._items[len(items):]:  # the text, or the empty note
            self.items_layout.addWidget(widget, row, 0, 1, columns)
            row += 1
        for column in range(MAX_COLUMNS):
            self.items_layout.setColumnStretch(column, 1 if column < columns else 0)
        self.items_layout.setRowStretch(row, 1)

    def _arrange_top(self) -> None:
        """Buttons beside the heading when both fit whole, else below it."""
        margins = self._column.contentsMargins()
        room = self.width() - margins.left() - margins.right()
        self.heading.ensurePolished()  # its size comes from the stylesheet
        heading = self.heading.fontMetrics().horizontalAdvance(self.heading.text()) + 8
        need = heading + self._top.spacing() + self._buttons.sizeHint().width()
        direction = (QBoxLayout.Direction.LeftToRight if need <= room
                     else QBoxLayout.Direction.TopToBottom)
        if direction != self._top.direction():
            self._top.setDirection(direction)

    # -- filling -------------------------------------------------------------------------------
    def set_export_formats(self, actions: list[QAction]) -> None:
        """The export actions the arrow offers (the window's own, with their dialogs)."""
        self.export_menu.clear()
        for action in actions:
            self.export_menu.addAction(action)
        menu = self.export_menu if actions else None  # None: Qt's "no menu"
        self.export_button.setMenu(menu)  # type: ignore[arg-type]  # PySide6 stubs forbid None

    def show_result(self, sentence: str, result: ResultSection) -> None:
        self.headline.setText(sentence)
        self.heading.setText(result.heading)
        while self.items_layout.count():
            self.items_layout.takeAt(0)
        for widget in self._items:
            widget.deleteLater()
        self._titles = [item.title for item in result.items]
        self._items = [_item_widget(number, item)
                       for number, item in enumerate(result.items, start=1)]
        if result.text:
            text = _plain("endText")
            text.setText(result.text)
            self._items.append(text)
        if not result.items and not result.text:
            empty = _plain("endEmpty")
            empty.setText(result.empty_text)
            self._items.append(empty)
        self._columns = 0  # lay them out afresh
        self._arrange_items()
        self.items_area.updateGeometry()
        self._arrange_top()

    def set_look(self, theme: str, zoom: float) -> None:
        """Sizes from the window's text size at `zoom`; colours from the theme. Set on the
        panel itself: a widget's own stylesheet wins over the window's `QWidget` size."""
        c = colors(theme)
        pt = point_size(zoom)
        self.setStyleSheet(f"""
QFrame#endPanel {{ background: {c.panel}; border-top: 4px solid {c.accent};
                   border-bottom: 2px solid {c.border}; }}
QScrollArea#endItemsArea, QWidget#endItems {{ background: {c.panel}; }}
QLabel {{ background: transparent; font-size: {pt:.1f}pt; }}
QLabel#endHeadline {{ font-size: {pt * HEADLINE_SCALE:.1f}pt; font-weight: 600; }}
QLabel#endHeading {{ font-size: {pt * HEADING_SCALE:.1f}pt; font-weight: 700;
                     color: {c.accent}; }}
QLabel#endNumber {{ font-size: {pt * NUMBER_SCALE:.1f}pt; font-weight: 700;
                    color: {c.muted}; }}
QLabel#endItemTitle {{ font-size: {pt * TITLE_SCALE:.1f}pt; font-weight: 700; }}
QLabel#endItemDetail, QLabel#endEmpty {{ color: {c.muted}; }}
QPushButton, QToolButton {{ font-weight: 600; padding: 5px 16px; }}
QToolButton {{ background: {c.background}; border: 1px solid {c.border};
               border-radius: 5px; padding-right: 26px; }}
QToolButton:hover {{ border-color: {c.accent}; }}
""")
        self._arrange_top()  # the heading's width changed with its size


def _plain(name: str) -> QLabel:
    """Untrusted text that wraps to the panel's width (it never sets the width)."""
    return text_label(name, policy=(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred))


def _item_widget(number: int, item: ResultItem) -> QWidget:
    """One result item: its number, its title large, then its detail and who it is by."""
    widget = QWidget()
    widget.setObjectName("endItem")
    grid = QGridLayout(widget)
    grid.setContentsMargins(0, 0, 0, 0)
    grid.setHorizontalSpacing(12)
    grid.setVerticalSpacing(2)
    marker = QLabel(f"{number}")
    marker.setObjectName("endNumber")
    marker.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
    title = _plain("endItemTitle")
    title.setText(item.title)
    grid.addWidget(marker, 0, 0)
    grid.addWidget(title, 0, 1)
    lines = [line for line in (item.detail, f"by {', '.join(item.by)}" if item.by else "")
             if line]
    if lines:
        detail = _plain("endItemDetail")
        detail.setText(" — ".join(lines))
        grid.addWidget(detail, 1, 1)
    grid.setColumnStretch(1, 1)
    return widget
