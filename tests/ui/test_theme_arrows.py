"""Arrows the stylesheet draws are clear in both themes: the spin box's steps (the
toolbar's "8 steps"), a combo box's drop-down and a tab bar's scroll buttons. Each rule
names a bundled image that exists, loads, and is drawn in the theme's text colour (its
disabled colour when disabled); drawn, each arrow stands out from its button."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from PySide6.QtGui import QColor, QPixmap
from PySide6.QtWidgets import (
    QSpinBox,
    QStyle,
    QStyleOptionSpinBox,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from roundtable_desktop.ui.theme import (
    ARROWS,
    THEMES,
    apply_theme,
    arrow_image,
    colors,
    window_stylesheet,
)

pytestmark = pytest.mark.qt

ARROW_RULE = re.compile(r"([^{}]*::(?:up|down|left|right)-arrow[^{}]*)\{([^}]*)\}")


def lightness(colour: str | QColor) -> int:
    return QColor(colour).lightness()


@pytest.mark.parametrize("theme", THEMES)
def test_every_arrow_rule_names_a_bundled_image_that_loads(qapp, theme):
    sheet = window_stylesheet(theme, 1.0)
    rules = ARROW_RULE.findall(sheet)
    selectors = " ".join(selector for selector, _ in rules)

    for part in ("QSpinBox::up-arrow", "QSpinBox::down-arrow", "QComboBox::down-arrow",
                 "QTabBar QToolButton::left-arrow", "QTabBar QToolButton::right-arrow"):
        assert part in selectors
    for _, body in rules:
        found = re.search(r'image: url\("([^"]+)"\)', body)
        assert found is not None, body
        path = Path(found.group(1))
        assert path.is_file(), path
        assert not QPixmap(str(path)).isNull(), path  # the image format is there


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("direction", ARROWS)
def test_arrows_are_drawn_in_the_themes_text_colour(theme, direction):
    c = colors(theme)

    normal = arrow_image(direction, theme).read_text("utf-8")
    disabled = arrow_image(direction, theme, disabled=True).read_text("utf-8")

    assert f'fill="{c.text}"' in normal
    assert f'fill="{c.disabled_text}"' in disabled


def arrow_contrast(widget: QWidget, rect) -> int:  # type: ignore[no-untyped-def]
    """How far the lightest or darkest pixel inside `rect` (a button holding an arrow)
    is from the button's fill at its inner edge."""
    image = widget.grab().toImage()
    inner = rect.adjusted(2, 2, -2, -2)
    fill = image.pixelColor(inner.left(), inner.center().y()).lightness()
    values = [image.pixelColor(x, y).lightness()
              for x in range(inner.left(), inner.right() + 1)
              for y in range(inner.top(), inner.bottom() + 1)]
    return max(abs(v - fill) for v in values)


@pytest.mark.parametrize("theme", THEMES)
def test_the_spin_box_shows_both_step_arrows(qtbot, theme):
    window = QWidget()
    qtbot.addWidget(window)
    spin = QSpinBox()
    spin.setRange(1, 200)
    spin.setValue(8)
    spin.setSuffix(" steps")
    QVBoxLayout(window).addWidget(spin)
    apply_theme(window, theme, 1.0)
    window.show()
    qtbot.waitExposed(window)
    option = QStyleOptionSpinBox()
    spin.initStyleOption(option)

    for part in (QStyle.SubControl.SC_SpinBoxUp, QStyle.SubControl.SC_SpinBoxDown):
        rect = spin.style().subControlRect(QStyle.ComplexControl.CC_SpinBox, option, part,
                                           spin)
        assert spin.rect().contains(rect)  # inside the box's frame, not beside it
        assert rect.width() >= 10 and rect.height() >= 6
        assert arrow_contrast(spin, rect) > 100  # a clear arrow, in either theme


@pytest.mark.parametrize("theme", THEMES)
def test_tab_scroll_arrows_show_in_both_themes(qtbot, theme):
    window = QWidget()
    qtbot.addWidget(window)
    tabs = QTabWidget()
    for i in range(8):
        tabs.addTab(QWidget(), f"Whiteboard and notes {i}")
    QVBoxLayout(window).addWidget(tabs)
    window.resize(320, 200)
    apply_theme(window, theme, 1.0)
    window.show()
    qtbot.waitExposed(window)
    arrows = [b for b in tabs.tabBar().findChildren(QToolButton) if b.isVisible()]

    assert len(arrows) == 2
    for button in arrows:
        if button.isEnabled():
            assert arrow_contrast(button, button.rect()) > 100
