"""The Cards dock's card lists: the grid widget, its items for a deck, their size, and
the hand's list and its items.

The grid shows each card's avatar beside three lines (name, handle, suite), cards flowing
in rows; a locked card is greyed and can never be selected. The hand's list items show
the same avatar on one line. Items carry the card's id under CARD_ID.
Plain widget builders and lookups: must hold no hand, no deck state and no engine logic.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QIcon, QPixmap
from PySide6.QtWidgets import QListView, QListWidget, QListWidgetItem

from roundtable_desktop.kinds.debate.deck import Contract, Deck
from roundtable_desktop.ui.docks.bridge_dock import plain_tooltip

AVATAR = 40
CARD_ID = Qt.ItemDataRole.UserRole


def new_card_grid() -> QListWidget:
    grid = QListWidget()
    grid.setObjectName("debateCardGrid")
    # Avatar beside its three lines, cards flowing in rows (a grid that reads at 1366).
    grid.setViewMode(QListView.ViewMode.ListMode)
    grid.setFlow(QListView.Flow.LeftToRight)
    grid.setResizeMode(QListView.ResizeMode.Adjust)
    grid.setMovement(QListView.Movement.Static)
    grid.setWrapping(True)
    grid.setWordWrap(False)  # name, handle, suite: one line each, elided
    grid.setTextElideMode(Qt.TextElideMode.ElideRight)
    grid.setUniformItemSizes(True)
    grid.setIconSize(QSize(AVATAR, AVATAR))
    grid.setSpacing(4)
    return grid


def fill_card_grid(grid: QListWidget, deck: Deck) -> None:
    """One item per card of the deck; locked cards greyed and never selected."""
    for card in deck.cards:
        item = QListWidgetItem(f"{card.name}\n{card.handle}\n{card.suite}")
        item.setData(CARD_ID, card.id)
        item.setIcon(QIcon(card_avatar(deck, card)))
        if card.locked:
            item.setFlags(Qt.ItemFlag.NoItemFlags)  # greyed, never selected
            item.setText(f"{card.name}\n{card.handle}\nlocked")
            item.setToolTip(plain_tooltip(f"{card.name} is locked: not dealt."))
        else:
            item.setToolTip(plain_tooltip(f"{card.name} {card.handle} · {card.suite}"))
        grid.addItem(item)


def fit_card_grid(grid: QListWidget, deck: Deck) -> None:
    """Size the grid's cells to the deck's longest line in the grid's own font."""
    metrics = grid.fontMetrics()  # the grid's own font (the theme sizes it)
    longest = max((metrics.horizontalAdvance(t) for c in deck.cards
                   for t in (c.name, c.handle, c.suite)), default=0)
    text = min(longest + 8, metrics.horizontalAdvance("M") * 8)
    width = AVATAR + text + 18
    height = max(AVATAR, metrics.lineSpacing() * 3) + 14
    grid.setGridSize(QSize(width, height))


def first_selectable_row(grid: QListWidget) -> int | None:
    return next((i for i in range(grid.count())
                 if grid.item(i).flags() & Qt.ItemFlag.ItemIsSelectable), None)


def find_card_item(grid: QListWidget, card_id: str) -> QListWidgetItem | None:
    for i in range(grid.count()):
        item = grid.item(i)
        if item.data(CARD_ID) == card_id:
            return item
    return None


def new_hand_list() -> QListWidget:
    hand = QListWidget()
    hand.setObjectName("debateHandList")
    hand.setIconSize(QSize(24, 24))
    hand.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    hand.setTextElideMode(Qt.TextElideMode.ElideRight)
    return hand


def hand_item(deck: Deck, card: Contract) -> QListWidgetItem:
    """The hand list's one-line item of a card."""
    item = QListWidgetItem(QIcon(card_avatar(deck, card)),
                           f"{card.name} {card.handle} · {card.suite}")
    item.setData(CARD_ID, card.id)
    return item


def in_deck(deck: Deck, card_id: str) -> bool:
    return any(c.id == card_id for c in deck.cards)


def card_avatar(deck: Deck, card: Contract) -> QPixmap:
    pixmap = QPixmap(str(deck.avatar_path(card)))
    return pixmap if not pixmap.isNull() else QPixmap(AVATAR, AVATAR)
