"""The themes: disabled controls look disabled yet stay readable, self-painted text reads
on its background, and fonts keep the platform's family (and its fallbacks)."""

from __future__ import annotations

import re

import pytest
from PySide6.QtGui import QFont, QPalette
from PySide6.QtWidgets import QPushButton, QTabWidget, QToolButton, QVBoxLayout, QWidget

from roundtable_desktop.ui.theme import (
    DARK_INKS,
    LIGHT_INKS,
    THEMES,
    apply_theme,
    colors,
    inks,
    monospace_font,
    palette,
    window_stylesheet,
)

pytestmark = pytest.mark.qt


def _luminance(hex_colour: str) -> float:
    channels = [int(hex_colour.lstrip("#")[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def _contrast(a: str, b: str) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _rule(sheet: str, selector: str) -> str:
    match = re.search(re.escape(selector) + r"[^{]*\{([^}]*)\}", sheet)
    return match.group(1) if match else ""


@pytest.mark.parametrize("theme", THEMES)
def test_disabled_buttons_have_their_own_style_in_both_themes(theme):
    c = colors(theme)
    sheet = window_stylesheet(theme, 1.0)

    for selector in ("QPushButton:disabled", "QToolBar QToolButton:disabled"):
        rule = _rule(sheet, selector)
        assert c.disabled_text in rule and c.disabled_bg in rule and "dashed" in rule


@pytest.mark.parametrize("theme", THEMES)
def test_disabled_text_is_dimmer_than_text_but_still_readable(theme):
    c = colors(theme)

    disabled = _contrast(c.disabled_text, c.disabled_bg)

    assert disabled >= 4.5
    assert disabled < _contrast(c.text, c.background) / 2


@pytest.mark.parametrize("theme", THEMES)
def test_the_palette_gives_disabled_widgets_the_disabled_colours(theme):
    pal = palette(theme)
    disabled = QPalette.ColorGroup.Disabled

    assert pal.color(disabled, QPalette.ColorRole.ButtonText).name() == colors(theme).disabled_text
    assert pal.color(disabled, QPalette.ColorRole.Button).name() == colors(theme).disabled_bg


@pytest.mark.parametrize("theme", THEMES)
def test_a_disabled_button_is_drawn_in_the_disabled_colours(qtbot, theme):
    window = QWidget()
    qtbot.addWidget(window)
    layout = QVBoxLayout(window)
    enabled, disabled = QPushButton("Run tools"), QPushButton("Stop")
    disabled.setEnabled(False)
    layout.addWidget(enabled)
    layout.addWidget(disabled)
    apply_theme(window, theme, 1.0)
    window.show()
    qtbot.waitExposed(window)

    def fill(button: QPushButton) -> str:  # inside the border, above the text
        return button.grab().toImage().pixelColor(button.width() // 2, 3).name()

    assert fill(disabled) == colors(theme).disabled_bg
    assert fill(enabled) == colors(theme).panel


@pytest.mark.parametrize(("theme", "expected"), [("light", LIGHT_INKS), ("dark", DARK_INKS)])
def test_inks_read_on_the_theme_background(theme, expected):
    ink = inks(palette(theme))

    assert ink == expected
    for name in ("tool", "error", "warning", "system", "live", "added", "removed", "speaker"):
        assert _contrast(getattr(ink, name), colors(theme).background) >= 4.5, name


def test_the_theme_sets_font_sizes_never_a_family(qtbot):
    window = QWidget()
    qtbot.addWidget(window)
    family = window.font().family()

    apply_theme(window, "dark", 1.4)

    assert window.font().family() == family
    assert "font-family" not in window_stylesheet("dark", 1.4)


def test_the_monospace_font_falls_back_to_the_platforms_fixed_font():
    font = monospace_font(QFont())

    assert len(font.families()) >= 3
    assert "monospace" in font.families()
    assert font.styleHint() == QFont.StyleHint.Monospace


def test_the_dark_sheet_styles_the_tab_bar_scroll_buttons():
    c = colors("dark")
    sheet = window_stylesheet("dark", 1.0)

    rule = _rule(sheet, "QTabBar QToolButton ")
    assert c.panel in rule and c.text in rule and c.border in rule
    assert "width" in _rule(sheet, "QTabBar::scroller")


def test_dark_tab_scroll_arrows_are_drawn_on_a_dark_button(qtbot):
    """The arrows of a tab bar too narrow for its tabs: not blank white boxes."""
    window = QWidget()
    qtbot.addWidget(window)
    tabs = QTabWidget()
    for i in range(8):
        tabs.addTab(QWidget(), f"Whiteboard and notes {i}")
    QVBoxLayout(window).addWidget(tabs)
    window.resize(320, 200)
    apply_theme(window, "dark", 1.0)
    window.show()
    qtbot.waitExposed(window)
    arrows = [b for b in tabs.tabBar().findChildren(QToolButton) if b.isVisible()]

    assert len(arrows) == 2
    for button in arrows:
        image = button.grab().toImage()
        fill = image.pixelColor(3, image.height() // 2)
        arrow = [image.pixelColor(x, y).lightness()  # inside the border: only the arrow
                 for x in range(4, image.width() - 4) for y in range(4, image.height() - 4)]
        assert fill.lightness() < 80  # a dark button, not a white box
        assert max(arrow) - fill.lightness() > 40  # with an arrow that shows on it
        if button.isEnabled():
            assert max(arrow) > 140  # in the light text colour


@pytest.mark.parametrize("zoom", [0.8, 1.1, 1.25, 1.4, 2.0])
def test_every_font_size_in_the_sheet_scales_with_the_zoom_alone(zoom):
    base = [float(s) for s in re.findall(r"font-size: ([\d.]+)pt", window_stylesheet("dark", 1.0))]
    zoomed = [float(s) for s in re.findall(r"font-size: ([\d.]+)pt",
                                           window_stylesheet("dark", zoom))]

    assert len(zoomed) == len(base)
    assert all(abs(z - b * zoom) <= 0.1 for b, z in zip(base, zoomed, strict=True))
