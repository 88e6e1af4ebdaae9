"""What an audience would see wrong in the main window, read from widget geometry.

Each function takes the main window and returns one short sentence per problem (empty
when all is well): something outside the window, a toolbar action the status line names
that is not on screen, an elided dock title, tab or status line, a result that needs
scrolling, a dialog taller than the screen. Used by `roundtable rehearse` (player.py) and
by the layout tests. Reads geometry only; must not click, type or change the session.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect
from PySide6.QtWidgets import QAbstractScrollArea, QTabBar, QWidget

from roundtable_desktop.ui.elided_label import ElidedLabel
from roundtable_desktop.ui.window.main_window import MainWindow

# A dock's title bar holds its float and close buttons beside the title.
DOCK_TITLE_BUTTONS_PX = 44
# A scroll range this small hides nothing a reader would miss (a rounding of heights).
SCROLL_SLACK_PX = 4


def rect_in(window: QWidget, widget: QWidget) -> QRect:
    """`widget`'s rectangle in `window`'s coordinates."""
    return QRect(widget.mapTo(window, QPoint(0, 0)), widget.size())


def outside(window: MainWindow) -> list[str]:
    """Every toolbar action, dock title, dock tab and status text not wholly inside the
    window (an action that moved into the toolbar's "»" menu counts as inside when the
    "»" button is)."""
    inner = window.rect()
    problems: list[str] = []
    toolbar = window.toolbar
    overflow = toolbar.overflow_button()
    more = toolbar.more_button
    moved = toolbar.moved_ids()
    for action_id in toolbar.qactions:
        button = toolbar.button(action_id)
        if button is not None and button.isVisible():
            if not inner.contains(rect_in(window, button)):
                problems.append(f"toolbar action {action_id}")
        elif action_id in moved:
            if not more.isVisible() or not inner.contains(rect_in(window, more)):
                problems.append(f"toolbar action {action_id} (in More, no More button)")
        elif overflow is None or not overflow.isVisible() or not inner.contains(
                rect_in(window, overflow)):
            problems.append(f"toolbar action {action_id} (hidden, no » menu)")
    for name, dock in window.docks.items():
        if dock.isVisible() and not dock.visibleRegion().isEmpty():  # in front
            title = rect_in(window, dock)
            title.setHeight(min(title.height(), dock.fontMetrics().height() + 12))
            if not inner.contains(title):
                problems.append(f"dock title {name}")
    for bar in window.findChildren(QTabBar):
        if bar.parent() is window and bar.isVisible():
            for index in range(bar.count()):
                tab = bar.tabRect(index)
                if not bar.rect().contains(tab) or not inner.contains(
                        tab.translated(bar.mapTo(window, QPoint(0, 0)))):
                    problems.append(f"dock tab {bar.tabText(index)}")
    status = window.status
    for label in (status.phase_label, status.turn_label, status.last_call_label, status.badge):
        if label.isVisible() and not inner.contains(rect_in(window, label)):
            problems.append(f"status {label.objectName()}")  # a hidden one keeps old geometry
    return problems


def larger_than_screen(window: MainWindow) -> str:
    """A sentence when the window grew past its screen (its docks' least sizes add up to
    more than the screen holds): its edges are then out of sight."""
    screen = window.screen().geometry() if window.screen() is not None else None
    if screen is None:
        return ""
    frame = window.frameGeometry()
    if frame.width() > screen.width() or frame.height() > screen.height():
        return (f"the window is {frame.width()}x{frame.height()} on a "
                f"{screen.width()}x{screen.height()} screen")
    return ""


def hidden_action(window: MainWindow, action_id: str) -> str:
    """Why the toolbar button of `action_id` is not in plain view ("" when it is): not
    on the toolbar, behind "»", or outside the window."""
    toolbar = window.toolbar
    spec = toolbar.spec(action_id)
    label = spec.label if spec is not None else action_id
    if action_id not in toolbar.qactions:
        return f"{label!r} is not on the toolbar"
    button = toolbar.button(action_id)
    if button is None or not button.isVisible():
        return f"{label!r} is hidden behind »"
    if not window.rect().contains(rect_in(window, button)):
        return f"{label!r} lies outside the window"
    if button.width() < button.sizeHint().width():
        return f"{label!r} is squeezed to {button.width()} px of {button.sizeHint().width()}"
    return ""


def overflowing_toolbar(window: MainWindow) -> str:
    """A sentence when the toolbar needs its "»" menu: what is behind it is out of sight,
    and opening it draws a row over the docks and the centre."""
    toolbar = window.toolbar
    overflow = toolbar.overflow_button()
    if overflow is None or not overflow.isVisible():
        return ""
    hidden = [toolbar.qactions[a].text().replace("&&", "&") for a in toolbar.qactions
              if a not in toolbar.moved_ids()
              and ((b := toolbar.button(a)) is None or not b.isVisible())]
    return f"the toolbar overflows into » ({', '.join(hidden)})" if hidden else ""


def elided_texts(window: MainWindow) -> list[str]:
    """Dock titles, tabs and status lines shown cut ("✓ Obser…", "press Ctrl+T or…")."""
    problems: list[str] = []
    for name, dock in window.docks.items():
        if not dock.isVisible() or dock.visibleRegion().isEmpty():
            continue
        room = dock.width() - DOCK_TITLE_BUTTONS_PX
        if dock.fontMetrics().horizontalAdvance(dock.windowTitle()) > room:
            problems.append(f"dock title {dock.windowTitle()!r} ({name}) is cut")
    for bar in window.findChildren(QTabBar):
        if not bar.isVisible() or bar.visibleRegion().isEmpty():
            continue
        for index in range(bar.count()):
            wanted = bar.tabSizeHint(index).width()
            got = bar.tabRect(index).width()
            scrolled = bar.usesScrollButtons() and got >= wanted  # whole, a click away
            if got < wanted or not (scrolled or bar.rect().contains(bar.tabRect(index))):
                problems.append(f"tab {bar.tabText(index)!r} is cut ({got} of {wanted} px)")
    for label in window.findChildren(ElidedLabel):
        if label.isVisible() and not label.visibleRegion().isEmpty() and \
                label.shown_text() != label.full_text():
            problems.append(f"{label.objectName() or 'a label'} reads "
                            f"{label.shown_text()!r} instead of {label.full_text()!r}")
    return problems


def result_cut(window: MainWindow) -> str:
    """A sentence when an ended session's result does not show whole: the end panel is
    hidden, or its text needs scrolling."""
    panel = window.end_panel
    if not panel.isVisible() or panel.visibleRegion().isEmpty():
        return "the result is not shown"
    for area in panel.findChildren(QAbstractScrollArea):
        if area.isVisible() and area.verticalScrollBar().maximum() > SCROLL_SLACK_PX:
            bar = area.verticalScrollBar()
            shown = bar.pageStep()
            return (f"the result needs scrolling ({shown} of {shown + bar.maximum()} px "
                    "in view)")
    return ""


def too_tall(widget: QWidget, available: QRect) -> str:
    """A sentence when a dialog (or any top-level widget) does not fit the screen."""
    height = max(widget.height(), widget.minimumSizeHint().height())
    if height > available.height():
        title = widget.windowTitle() or widget.objectName()
        return f"the dialog {title!r} is {height} px tall on a {available.height()} px screen"
    return ""
