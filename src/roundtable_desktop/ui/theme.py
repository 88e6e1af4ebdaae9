"""Light and dark high-contrast themes and the zoom level, for the window and the view.

A theme is a set of colours; the window stylesheet and the context view's wrapper
stylesheet are both made from it, so the two always match. Zoom scales every font of
the window by the same factor (docks, toolbar, menus, status; widgets that paint text
themselves read their own font) and the context view's zoom factor with it; only
spacing (padding) tightens at a large zoom, never a font. Defaults are sized for a
presenter on a 1920x1080 screen. Disabled controls get their
own colours (dimmer than text, still above 4.5:1 contrast) and a dashed border, so they
look disabled without becoming unreadable. `inks()` gives widgets that paint their own
text (transcript, polygon, diffs) colours that read well on the palette they sit on.
Fonts: only sizes are set, never a family without fallbacks, so the platform's font
fallback can find glyphs (CJK titles) the default family lacks. Arrows the stylesheet
draws (spin-box steps, combo-box drop-downs, tab-bar scroll buttons) are the bundled
images in resources/ui/arrows/, in the theme's text colour (disabled: its disabled
colour) and sized with the zoom: once a stylesheet styles a spin box's frame, Qt no
longer draws its arrows (a stray glyph in the light theme, nothing in the dark one).
Must not hold widgets or read settings: callers pass the theme name and zoom they have.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtGui import QColor, QFont, QFontDatabase, QPalette
from PySide6.QtWidgets import QWidget

from roundtable_desktop.paths import resources_dir

THEMES = ("light", "dark")
DEFAULT_THEME = "light"
# The application font at zoom 1.0, in points: readable from the back of a room at 1080p.
BASE_POINT_SIZE = 13.0
ZOOM_STEPS = (0.7, 0.8, 0.9, 1.0, 1.1, 1.25, 1.4, 1.6, 1.8, 2.0, 2.5)
DEFAULT_ZOOM = 1.0
# Above this zoom the toolbar's padding tightens (its fonts never do): more of it fits
# before entries move into its overflow menu (presenter mode is zoom 1.4).
LARGE_ZOOM = 1.2


@dataclass(frozen=True, slots=True)
class ThemeColors:
    name: str
    background: str
    panel: str
    text: str
    muted: str
    accent: str
    accent_text: str
    border: str
    highlight: str
    code_bg: str
    error_bg: str
    error_text: str
    warning_bg: str
    warning_text: str
    info_bg: str
    info_text: str
    disabled_bg: str
    disabled_text: str
    disabled_border: str


LIGHT = ThemeColors(
    name="light", background="#ffffff", panel="#f2f3f5", text="#0d0d0d", muted="#3d3d3d",
    accent="#0b4fc4", accent_text="#ffffff", border="#7a7f87", highlight="#fff0b3",
    code_bg="#e9ecf1", error_bg="#fde3e3", error_text="#7a0d0d", warning_bg="#fff1c2",
    warning_text="#4d3800", info_bg="#e3edfd", info_text="#0a2f6b",
    disabled_bg="#e8eaed", disabled_text="#595e66", disabled_border="#9aa0a8",
)
DARK = ThemeColors(
    name="dark", background="#0a0b0e", panel="#16181d", text="#f4f4f4", muted="#cfd3d8",
    accent="#7fc4ff", accent_text="#06121f", border="#a3a9b1", highlight="#4a3b00",
    code_bg="#23262d", error_bg="#5a1010", error_text="#ffe1de", warning_bg="#4a3800",
    warning_text="#fff0b8", info_bg="#12305a", info_text="#e0ecff",
    disabled_bg="#1c1f25", disabled_text="#9ba2ac", disabled_border="#5a606a",
)


@dataclass(frozen=True, slots=True)
class Inks:
    """Colours for text and marks that widgets paint themselves, per background."""

    tool: str
    error: str
    warning: str
    system: str
    live: str
    added: str
    removed: str
    hunk: str
    speaker: str  # the current speaker's name (the vertex itself stays SPEAKER amber)
    edge: str
    outline: str


LIGHT_INKS = Inks(
    tool="#1a5fb4", error="#b3261e", warning="#8a5600", system="#5f6368", live="#5b4bb7",
    added="#2e7d32", removed="#b3261e", hunk="#5b4bb7", speaker="#8a5600", edge="#b87400",
    outline="#1d2b44",
)
DARK_INKS = Inks(
    tool="#7cb8ff", error="#ff8a80", warning="#f5b82e", system="#b0b6bf", live="#b9a8ff",
    added="#7ee787", removed="#ffa198", hunk="#d2a8ff", speaker="#f5b82e", edge="#f5b82e",
    outline="#f4f4f4",
)


def is_dark(pal: QPalette) -> bool:
    return pal.color(QPalette.ColorRole.Base).lightness() < 128


def inks(pal: QPalette) -> Inks:
    """The inks that read on `pal`'s background (the widget's own palette follows the theme)."""
    return DARK_INKS if is_dark(pal) else LIGHT_INKS


def monospace_font(base: QFont) -> QFont:
    """`base` in the platform's fixed-pitch family, with fallbacks, at base's size."""
    font = QFont(base)
    system = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont).family()
    families = [system, "DejaVu Sans Mono", "Menlo", "Consolas", "monospace"]
    font.setFamilies(list(dict.fromkeys(f for f in families if f)))
    font.setStyleHint(QFont.StyleHint.Monospace)
    font.setFixedPitch(True)
    return font


def colors(theme: str) -> ThemeColors:
    return DARK if theme == "dark" else LIGHT


def clamp_zoom(zoom: float) -> float:
    return min(max(float(zoom), ZOOM_STEPS[0]), ZOOM_STEPS[-1])


def step_zoom(zoom: float, direction: int) -> float:
    """The next zoom step up (direction > 0) or down (< 0); 0 resets."""
    if direction == 0:
        return DEFAULT_ZOOM
    if direction > 0:
        return next((z for z in ZOOM_STEPS if z > zoom + 1e-6), ZOOM_STEPS[-1])
    return next((z for z in reversed(ZOOM_STEPS) if z < zoom - 1e-6), ZOOM_STEPS[0])


def point_size(zoom: float) -> float:
    return round(BASE_POINT_SIZE * clamp_zoom(zoom), 1)



ARROWS = ("up", "down", "left", "right")


def arrow_image(direction: str, theme: str, *, disabled: bool = False) -> Path:
    """The bundled arrow pointing `direction`, in `theme`'s text (or disabled) colour."""
    name = f"{direction}-{colors(theme).name}{'-disabled' if disabled else ''}.svg"
    return resources_dir() / "ui" / "arrows" / name


def _arrow_rules(theme: str, pt: float) -> str:
    """Spin-box, combo-box and tab-scroll arrows as images, sized with the text. The
    buttons keep their default origin (the padding box): with `subcontrol-origin:
    border` Qt placed them outside the frame."""
    c = colors(theme)

    def url(direction: str, disabled: bool = False) -> str:
        path = arrow_image(direction, theme, disabled=disabled).as_posix()
        return f'url("{path}")'

    arrow = max(7, round(pt * 0.75))  # pixels
    button = max(14, round(pt * 1.6))
    scroll = max(8, round(pt * 0.95))  # a tab-bar scroll button holds its arrow alone
    return f"""
QSpinBox::up-button, QSpinBox::down-button, QDoubleSpinBox::up-button,
QDoubleSpinBox::down-button {{ width: {button}px;
    background: {c.panel}; border-left: 1px solid {c.border}; }}
QSpinBox::up-button, QDoubleSpinBox::up-button {{ subcontrol-position: top right;
    border-bottom: 1px solid {c.border}; }}
QSpinBox::down-button, QDoubleSpinBox::down-button {{ subcontrol-position: bottom right; }}
QSpinBox::up-button:hover, QSpinBox::down-button:hover, QDoubleSpinBox::up-button:hover,
QDoubleSpinBox::down-button:hover {{ background: {c.highlight}; }}
QSpinBox::up-arrow, QDoubleSpinBox::up-arrow {{ image: {url("up")};
    width: {arrow}px; height: {arrow}px; }}
QSpinBox::down-arrow, QDoubleSpinBox::down-arrow {{ image: {url("down")};
    width: {arrow}px; height: {arrow}px; }}
QSpinBox::up-arrow:disabled, QSpinBox::up-arrow:off, QDoubleSpinBox::up-arrow:disabled,
QDoubleSpinBox::up-arrow:off {{ image: {url("up", True)}; }}
QSpinBox::down-arrow:disabled, QSpinBox::down-arrow:off,
QDoubleSpinBox::down-arrow:disabled, QDoubleSpinBox::down-arrow:off {{
    image: {url("down", True)}; }}
QComboBox::drop-down {{ subcontrol-position: top right; width: {button}px;
    border-left: 1px solid {c.border}; background: {c.panel}; }}
QComboBox::down-arrow {{ image: {url("down")}; width: {arrow}px; height: {arrow}px; }}
QComboBox::down-arrow:disabled {{ image: {url("down", True)}; }}
QTabBar QToolButton::left-arrow {{ image: {url("left")}; width: {scroll}px;
    height: {scroll}px; }}
QTabBar QToolButton::right-arrow {{ image: {url("right")}; width: {scroll}px;
    height: {scroll}px; }}
QTabBar QToolButton::left-arrow:disabled {{ image: {url("left", True)}; }}
QTabBar QToolButton::right-arrow:disabled {{ image: {url("right", True)}; }}
"""


def window_stylesheet(theme: str, zoom: float) -> str:
    """The application stylesheet: only colours, spacing and sizes, never layout."""
    c = colors(theme)
    pt = point_size(zoom)
    # Every text is the same size, so zoom scales them all alike; at a large zoom only
    # the toolbar's spacing tightens.
    large = zoom > LARGE_ZOOM + 1e-6
    pad, gap = ("3px 7px", 3) if large else ("5px 10px", 5)
    scroller = round(pt * 3.6)  # both tab-bar scroll buttons together, in pixels
    return f"""
QWidget {{ font-size: {pt}pt; color: {c.text}; }}
QMainWindow, QDialog, QDockWidget > QWidget {{ background: {c.background}; }}
QToolBar {{ background: {c.panel}; border-bottom: 2px solid {c.border}; spacing: {gap}px;
           padding: 4px; }}
QToolBar QToolButton {{ font-weight: 600; padding: {pad};
                       border: 2px solid {c.border}; border-radius: 6px;
                       background: {c.background}; }}
QToolBar QToolButton:hover {{ border-color: {c.accent}; }}
QToolBar QToolButton:pressed, QToolBar QToolButton:checked {{ background: {c.accent};
                       color: {c.accent_text}; }}
QToolBar QToolButton:disabled {{ color: {c.disabled_text}; background: {c.disabled_bg};
                       border: 2px dashed {c.disabled_border}; }}
QToolBar QLabel {{ font-weight: 600; padding: 0 4px; }}
QDockWidget {{ font-weight: 600; }}
QDockWidget::title {{ background: {c.panel}; padding: 6px 8px;
                     border-bottom: 2px solid {c.border}; }}
QStatusBar {{ background: {c.panel}; border-top: 2px solid {c.border}; }}
QStatusBar QLabel {{ padding: 2px 8px; }}
QLabel#offlineBadge {{ background: {c.warning_bg}; color: {c.warning_text};
                      border: 2px solid {c.warning_text}; border-radius: 6px;
                      font-weight: 700; }}
QLabel#onlineBadge {{ background: {c.info_bg}; color: {c.info_text};
                     border: 2px solid {c.info_text}; border-radius: 6px; font-weight: 700; }}
QLabel#phaseLabel {{ font-weight: 700; }}
QFrame#noticeBanner[level="error"] {{ background: {c.error_bg}; border: 2px solid
                                      {c.error_text}; }}
QFrame#noticeBanner[level="error"] QLabel {{ color: {c.error_text}; }}
QFrame#noticeBanner[level="warning"] {{ background: {c.warning_bg}; border: 2px solid
                                        {c.warning_text}; }}
QFrame#noticeBanner[level="warning"] QLabel {{ color: {c.warning_text}; }}
QFrame#noticeBanner[level="info"] {{ background: {c.info_bg}; border: 2px solid
                                     {c.info_text}; }}
QFrame#noticeBanner[level="info"] QLabel {{ color: {c.info_text}; }}
QFrame#noticeBanner QLabel#noticeMessage {{ font-weight: 700; }}
QFrame#mcpOffer {{ background: {c.info_bg}; border: 2px solid {c.info_text};
                  border-radius: 6px; }}
QFrame#mcpOffer QLabel {{ color: {c.info_text}; font-weight: 700; }}
QLabel#mcpStatus, QLabel#mcpToolsTitle {{ font-weight: 700; }}
QLabel#mcpHint, QLabel#mcpServer {{ color: {c.muted}; font-weight: 400; }}
QFrame#noticeBanner QPushButton {{ padding: 4px 14px; font-weight: 600; }}
QComboBox, QSpinBox, QLineEdit, QPlainTextEdit, QTextEdit, QListWidget, QTreeWidget,
QTableWidget, QTableView, QTreeView, QListView {{ background: {c.background};
    border: 1px solid {c.border}; selection-background-color: {c.accent};
    selection-color: {c.accent_text}; }}
QAbstractItemView {{ alternate-background-color: {c.panel}; }}
QAbstractItemView::item:selected {{ background: {c.accent}; color: {c.accent_text}; }}
QHeaderView::section {{ background: {c.panel}; color: {c.text}; padding: 3px 6px;
    border: none; border-right: 1px solid {c.border}; border-bottom: 1px solid {c.border};
    font-weight: 600; }}
QTabBar::tab {{ background: {c.panel}; color: {c.text}; padding: 5px 14px;
    border: 1px solid {c.border}; border-bottom: none; margin-right: 2px; }}
/* One weight for every tab, selected or not: Qt sizes and elides a tab's text with the
   bar's own font, so a bolder selected tab would overflow its tab. */
QTabBar {{ font-weight: 600; }}
QTabBar::tab:selected {{ background: {c.background}; border-top: 3px solid {c.accent}; }}
QTabBar::tab:!selected {{ color: {c.muted}; }}
QTabBar::scroller {{ width: {scroller}px; }}
QTabBar QToolButton {{ background: {c.panel}; color: {c.text}; border: 1px solid {c.border};
    border-radius: 3px; }}
QTabBar QToolButton:hover {{ border-color: {c.accent}; }}
QTabBar QToolButton:disabled {{ background: {c.disabled_bg}; color: {c.disabled_text};
    border-color: {c.disabled_border}; }}
QTabWidget::pane {{ background: {c.background}; border: 1px solid {c.border}; }}
QPushButton {{ background: {c.panel}; color: {c.text}; border: 1px solid {c.border};
    border-radius: 5px; padding: 4px 12px; }}
QPushButton:hover {{ border-color: {c.accent}; }}
QPushButton:pressed {{ background: {c.accent}; color: {c.accent_text}; }}
QPushButton:disabled {{ color: {c.disabled_text}; background: {c.disabled_bg};
    border: 1px dashed {c.disabled_border}; }}
QComboBox:disabled, QSpinBox:disabled, QLineEdit:disabled, QPlainTextEdit:disabled,
QTextEdit:disabled, QListWidget:disabled, QTreeWidget:disabled {{ color: {c.disabled_text};
    background: {c.disabled_bg}; border: 1px solid {c.disabled_border}; }}
QCheckBox:disabled, QRadioButton:disabled, QGroupBox:disabled {{ color: {c.disabled_text}; }}
QCheckBox::indicator:disabled, QRadioButton::indicator:disabled {{
    background: {c.disabled_bg}; border-color: {c.disabled_border}; }}
QTabBar::tab:disabled {{ color: {c.disabled_text}; background: {c.disabled_bg}; }}
QMenuBar {{ background: {c.panel}; color: {c.text}; border-bottom: 1px solid {c.border}; }}
QMenuBar::item {{ padding: 4px 10px; background: transparent; }}
QMenu {{ background: {c.panel}; color: {c.text}; border: 1px solid {c.border}; }}
QMenu::item {{ padding: 5px 24px 5px 18px; }}
QMenu::item:disabled {{ color: {c.disabled_text}; }}
QMenu::separator {{ height: 1px; background: {c.border}; margin: 4px 8px; }}
QMenu::item:selected, QMenuBar::item:selected {{ background: {c.accent};
    color: {c.accent_text}; }}
QScrollBar:vertical {{ background: {c.panel}; width: 14px; margin: 0; }}
QScrollBar:horizontal {{ background: {c.panel}; height: 14px; margin: 0; }}
QScrollBar::handle {{ background: {c.border}; border-radius: 5px; min-height: 28px;
    min-width: 28px; margin: 2px; }}
QScrollBar::add-line, QScrollBar::sub-line {{ width: 0; height: 0; }}
QScrollBar::add-page, QScrollBar::sub-page {{ background: none; }}
QSplitter::handle {{ background: {c.border}; }}
QCheckBox::indicator, QRadioButton::indicator {{ width: 16px; height: 16px;
    border: 2px solid {c.border}; background: {c.background}; }}
QCheckBox::indicator:checked, QRadioButton::indicator:checked {{ background: {c.accent}; }}
QLabel:disabled {{ color: {c.disabled_text}; }}
QScrollArea, QScrollArea > QWidget > QWidget {{ background: {c.background}; }}
QGroupBox {{ background: {c.background}; border: 1px solid {c.border}; border-radius: 6px;
    margin-top: 1.4em; padding-top: 4px; font-weight: 600; }}
QGroupBox::title {{ subcontrol-origin: margin; left: 8px; padding: 0 4px; }}
QToolTip {{ background: {c.panel}; color: {c.text}; border: 1px solid {c.border};
           padding: 4px; }}
""" + _arrow_rules(theme, pt)


def palette(theme: str) -> QPalette:
    c = colors(theme)
    pal = QPalette()
    roles = {
        QPalette.ColorRole.Window: c.background,
        QPalette.ColorRole.WindowText: c.text,
        QPalette.ColorRole.Base: c.background,
        QPalette.ColorRole.AlternateBase: c.panel,
        QPalette.ColorRole.Text: c.text,
        QPalette.ColorRole.Button: c.panel,
        QPalette.ColorRole.ButtonText: c.text,
        QPalette.ColorRole.Highlight: c.accent,
        QPalette.ColorRole.HighlightedText: c.accent_text,
        QPalette.ColorRole.ToolTipBase: c.panel,
        QPalette.ColorRole.ToolTipText: c.text,
        QPalette.ColorRole.PlaceholderText: c.muted,
        QPalette.ColorRole.Link: c.accent,
    }
    for role, value in roles.items():
        pal.setColor(role, QColor(value))
    disabled = QPalette.ColorGroup.Disabled
    for role in (QPalette.ColorRole.WindowText, QPalette.ColorRole.Text,
                 QPalette.ColorRole.ButtonText):
        pal.setColor(disabled, role, QColor(c.disabled_text))
    for role in (QPalette.ColorRole.Base, QPalette.ColorRole.Button):
        pal.setColor(disabled, role, QColor(c.disabled_bg))
    return pal


def apply_theme(window: QWidget, theme: str, zoom: float) -> None:
    """Colours, font size and stylesheet for `window` and everything parented to it.

    Set on the window, not the application: an application-wide stylesheet re-polishes
    every widget of the process, and leaves the look behind for whoever comes next.
    """
    window.setPalette(palette(theme))
    font = QFont(window.font())
    font.setPointSizeF(point_size(zoom))
    window.setFont(font)
    window.setStyleSheet(window_stylesheet(theme, zoom))
