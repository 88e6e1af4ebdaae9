"""The debate's Cards dock: the card browser, a card's detail, and the hand builder.

Browser: a deck chooser and a grid of the deck's cards (avatar, name, handle, suite);
locked cards are greyed and cannot be selected. Detail: the selected card's name,
handle and suite and one sentence for each of the six dimensions, with "Add to hand".
Hand: 3-8 cards, the topic, and Deal (Ctrl+Return), which performs
Action(id="deal", cards=[ids], text=topic) on the shown debate when it is of this deck
and not under way yet; otherwise it starts a new debate of this deck and deals there.
A hand that cannot be dealt is refused here with the engine's own reason.
Keyboard: arrows move in the grid, Enter adds the card, Delete removes the hand's
selected card, Ctrl+Return deals. Must hold no engine logic.
"""

from __future__ import annotations

import html

from PySide6.QtCore import QEvent, QObject, QSize, Qt
from PySide6.QtGui import QIcon, QKeyEvent, QPixmap, QResizeEvent
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from roundtable_desktop.protocols.base import Action
from roundtable_desktop.protocols.debate_deck import (
    DIMENSIONS,
    MAX_HAND,
    MIN_HAND,
    Contract,
    Deck,
    DeckError,
    HandError,
    deck_names,
    load_deck,
    validate_hand,
)
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.docks.bridge_dock import plain_tooltip
from roundtable_desktop.ui.docks.debate_dock_base import DebateDock
from roundtable_desktop.ui.elided_label import ElidedLabel
from roundtable_desktop.ui.session_runner import SessionRunner

AVATAR = 40
CARD_ID = Qt.ItemDataRole.UserRole


class DebateCardsDock(DebateDock):
    def __init__(self, bridge: EngineBridge, parent: QWidget | None = None, *,
                 runner: SessionRunner | None = None) -> None:
        super().__init__("Cards", "debateCardsDock", bridge, parent, runner=runner)
        self._deck: Deck | None = None
        self._hand: list[str] = []
        self._pending_deal: tuple[str, list[str], str] | None = None

        self.deck_combo = QComboBox()
        self.deck_combo.setObjectName("debateDeckCombo")
        self.deck_note = ElidedLabel("")  # one line; the whole description in its tooltip
        self.deck_note.setObjectName("debateDeckNote")
        self.grid = QListWidget()
        self.grid.setObjectName("debateCardGrid")
        # Avatar beside its three lines, cards flowing in rows (a grid that reads at 1366).
        self.grid.setViewMode(QListView.ViewMode.ListMode)
        self.grid.setFlow(QListView.Flow.LeftToRight)
        self.grid.setResizeMode(QListView.ResizeMode.Adjust)
        self.grid.setMovement(QListView.Movement.Static)
        self.grid.setWrapping(True)
        self.grid.setWordWrap(False)  # name, handle, suite: one line each, elided
        self.grid.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.grid.setUniformItemSizes(True)
        self.grid.setIconSize(QSize(AVATAR, AVATAR))
        self.grid.setSpacing(4)
        self.detail = _label("debateCardDetail")
        self.detail.setTextFormat(Qt.TextFormat.RichText)
        self.add_button = QPushButton("Add to hand")
        self.add_button.setToolTip("Enter in the grid")
        self.add_button.setObjectName("debateAddToHand")
        self.hand_label = _label("debateHandLabel", bold=True)
        self.hand_list = QListWidget()
        self.hand_list.setObjectName("debateHandList")
        self.hand_list.setIconSize(QSize(24, 24))
        self.hand_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.hand_list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.remove_button = QPushButton("Remove")
        self.remove_button.setToolTip("Delete in the hand")
        self.remove_button.setObjectName("debateRemoveFromHand")
        self.topic = QLineEdit()
        self.topic.setObjectName("debateTopic")
        self.topic.setPlaceholderText("The debate's topic, as a question")
        self.deal_button = QPushButton("Deal  (Ctrl+Return)")
        self.deal_button.setObjectName("debateDeal")
        self.reason = _label("debateDealReason")

        hand_row = QHBoxLayout()
        hand_row.addWidget(self.hand_label, 1)
        hand_row.addWidget(self.add_button)
        hand_row.addWidget(self.remove_button)
        topic_row = QHBoxLayout()
        topic_label = QLabel("&Topic")
        topic_label.setBuddy(self.topic)
        topic_label.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Preferred)
        topic_row.addWidget(topic_label)
        topic_row.addWidget(self.topic, 1)
        deal_row = QHBoxLayout()
        deal_row.addWidget(self.reason, 1)
        deal_row.addWidget(self.deal_button)
        # Grid, detail and hand share the height in a splitter, so a laptop's dock shows
        # all three (each scrolls inside) and the topic and Deal stay in sight below.
        detail_area = QScrollArea()
        detail_area.setObjectName("debateCardDetailArea")
        detail_area.setWidgetResizable(True)
        detail_area.setFrameShape(QFrame.Shape.NoFrame)
        detail_area.setWidget(self.detail)
        hand_box = QWidget()
        hand_layout = QVBoxLayout(hand_box)
        hand_layout.setContentsMargins(0, 0, 0, 0)
        hand_layout.addLayout(hand_row)
        hand_layout.addWidget(self.hand_list, 1)
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.setObjectName("debateCardsSplitter")
        self.splitter.setChildrenCollapsible(False)
        for widget, stretch in ((self.grid, 3), (detail_area, 3), (hand_box, 2)):
            widget.setMinimumHeight(self.fontMetrics().lineSpacing() * 3)
            self.splitter.addWidget(widget)
            self.splitter.setStretchFactor(self.splitter.count() - 1, stretch)
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.addWidget(self.deck_combo)
        layout.addWidget(self.deck_note)
        layout.addWidget(self.splitter, 1)
        layout.addLayout(topic_row)
        layout.addLayout(deal_row)
        self.setWidget(body)

        self.deck_combo.addItems(deck_names())
        self.deck_combo.currentTextChanged.connect(self._on_deck_combo_changed)
        self.grid.currentItemChanged.connect(self._on_grid_current_changed)
        self.grid.itemActivated.connect(self._on_grid_item_activated)
        self.add_button.clicked.connect(self._on_add_clicked)
        self.remove_button.clicked.connect(self._on_remove_clicked)
        self.deal_button.clicked.connect(self.deal)
        self.topic.returnPressed.connect(self.deal)
        # Ctrl+Return in the dock deals (the toolbar's Ctrl+Return is the session's step).
        for widget in (self.grid, self.hand_list, self.topic, self.deal_button,
                       self.add_button, self.deck_combo):
            widget.installEventFilter(self)
        if runner is not None:
            runner.sessionStarted.connect(self._on_runner_session_started)
        self._load(self.deck_combo.currentText())
        self.refresh()
        self._sized = False

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if not self._sized and self.splitter.height() > 0:
            self._sized = True  # grid, detail and hand start at 3:3:2; the user may drag
            self.splitter.setSizes([3000, 3000, 2000])

    # -- reading (tests and the window) --------------------------------------------------
    def deck(self) -> Deck | None:
        return self._deck

    def hand(self) -> list[str]:
        return list(self._hand)

    def card_item(self, card_id: str) -> QListWidgetItem | None:
        for i in range(self.grid.count()):
            item = self.grid.item(i)
            if item.data(CARD_ID) == card_id:
                return item
        return None

    def selectable(self, card_id: str) -> bool:
        item = self.card_item(card_id)
        return item is not None and bool(item.flags() & Qt.ItemFlag.ItemIsSelectable)

    def reason_text(self) -> str:
        return self.reason.text()

    # -- the deck and the grid -------------------------------------------------------------
    def show_deck(self, name: str) -> None:
        self.deck_combo.setCurrentText(name)

    def _on_deck_combo_changed(self, name: str) -> None:
        self._load(name)

    def _load(self, name: str) -> None:
        self.grid.clear()
        self._deck = None
        if not name:
            self.deck_note.set_full_text("No debate deck is installed.")
            return
        try:
            deck = load_deck(name)
        except DeckError as exc:
            self.deck_note.set_full_text(exc.message)
            return
        self._deck = deck
        self.deck_note.set_full_text(deck.description)
        self._hand = [cid for cid in self._hand if _in_deck(deck, cid)]
        for card in deck.cards:
            item = QListWidgetItem(f"{card.name}\n{card.handle}\n{card.suite}")
            item.setData(CARD_ID, card.id)
            item.setIcon(QIcon(_avatar(deck, card)))
            if card.locked:
                item.setFlags(Qt.ItemFlag.NoItemFlags)  # greyed, never selected
                item.setText(f"{card.name}\n{card.handle}\nlocked")
                item.setToolTip(plain_tooltip(f"{card.name} is locked: not dealt."))
            else:
                item.setToolTip(plain_tooltip(f"{card.name} {card.handle} · {card.suite}"))
            self.grid.addItem(item)
        self._fit_grid()
        first = next((i for i in range(self.grid.count())
                      if self.grid.item(i).flags() & Qt.ItemFlag.ItemIsSelectable), None)
        if first is not None:
            self.grid.setCurrentRow(first)
        if not self.topic.text().strip():
            self.topic.setText(deck.demo_topic or deck.topic_hint)
            self.topic.setCursorPosition(0)
        self._show_hand()

    def _fit_grid(self) -> None:
        if self._deck is None:
            return
        metrics = self.grid.fontMetrics()  # the grid's own font (the theme sizes it)
        longest = max((metrics.horizontalAdvance(t) for c in self._deck.cards
                       for t in (c.name, c.handle, c.suite)), default=0) if self._deck else 0
        text = min(longest + 8, metrics.horizontalAdvance("M") * 8)
        width = AVATAR + text + 18
        height = max(AVATAR, metrics.lineSpacing() * 3) + 14
        self.grid.setGridSize(QSize(width, height))

    def _on_theme_changed(self) -> None:
        self._fit_grid()  # a zoom or theme change sizes the grid's text anew

    def _on_grid_current_changed(self, current: QListWidgetItem | None, _prev: object) -> None:
        self._show_detail(current.data(CARD_ID) if current is not None else None)

    def _show_detail(self, card_id: str | None) -> None:
        deck = self._deck
        if deck is None or card_id is None:
            self.detail.setText("Select a card to see its persona.")
            self.add_button.setEnabled(False)
            return
        card = deck.card(card_id)
        rows = "".join(f"<tr><td><b>{label}</b>&nbsp;</td><td>{html.escape(card.one_line(f))}"
                       f"</td></tr>" for f, label in DIMENSIONS)
        self.detail.setText(
            f"<b>{html.escape(card.name)}</b> {html.escape(card.handle)} · "
            f"<i>{html.escape(card.suite)}</i>"
            f"{' · locked' if card.locked else ''}<table>{rows}</table>")
        self.add_button.setEnabled(not card.locked and card.id not in self._hand)

    # -- the hand ----------------------------------------------------------------------------
    def add(self, card_id: str) -> bool:
        """Add a card to the hand; False (with the reason shown) when it cannot be."""
        deck = self._deck
        if deck is None or not _in_deck(deck, card_id):
            return False
        card = deck.card(card_id)
        if card.locked:
            self.reason.setText(f"{card.name} is locked and cannot be dealt.")
            return False
        if card_id in self._hand:
            self.reason.setText(f"{card.name} is already in the hand.")
            return False
        if len(self._hand) >= MAX_HAND:
            self.reason.setText(f"A hand holds at most {MAX_HAND} cards.")
            return False
        self._hand.append(card_id)
        self.reason.clear()
        self._show_hand()
        return True

    def remove(self, card_id: str) -> None:
        if card_id in self._hand:
            self._hand.remove(card_id)
            self._show_hand()

    def set_hand(self, ids: list[str]) -> None:
        self._hand = []
        for cid in ids:
            self.add(cid)
        self._show_hand()

    def _show_hand(self) -> None:
        deck = self._deck
        self.hand_list.clear()
        for cid in self._hand:
            if deck is None:
                break
            card = deck.card(cid)
            item = QListWidgetItem(QIcon(_avatar(deck, card)),
                                   f"{card.name} {card.handle} · {card.suite}")
            item.setData(CARD_ID, cid)
            self.hand_list.addItem(item)
        count = len(self._hand)
        self.hand_label.setText(f"Hand: {count} of {MIN_HAND}-{MAX_HAND} cards")
        self.remove_button.setEnabled(bool(self._hand))
        current = self.grid.currentItem()
        self._show_detail(current.data(CARD_ID) if current is not None else None)

    def _on_add_clicked(self) -> None:
        item = self.grid.currentItem()
        if item is not None:
            self.add(item.data(CARD_ID))

    def _on_grid_item_activated(self, item: QListWidgetItem) -> None:
        self.add(item.data(CARD_ID))

    def _on_remove_clicked(self) -> None:
        item = self.hand_list.currentItem() or (
            self.hand_list.item(self.hand_list.count() - 1) if self._hand else None)
        if item is not None:
            self.remove(item.data(CARD_ID))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress) \
                and isinstance(event, QKeyEvent) and _is_deal_key(event):
            if kind == QEvent.Type.ShortcutOverride:
                event.accept()  # ours, not the window's: it comes back as a key press
            else:
                self.deal()
            return True
        if kind == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            key = event.key()
            if watched is self.grid and key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) \
                    and not event.modifiers() & Qt.KeyboardModifier.ControlModifier:
                self._on_add_clicked()
                return True
            if watched is self.hand_list and key in (Qt.Key.Key_Delete,
                                                     Qt.Key.Key_Backspace):
                self._on_remove_clicked()
                return True
        return super().eventFilter(watched, event)

    # -- dealing ------------------------------------------------------------------------------
    def deal(self) -> bool:
        """Deal the hand on the topic; False with the reason shown when refused."""
        deck = self._deck
        if deck is None:
            self.reason.setText("Choose a deck first.")
            return False
        if self.bridge.read_only:
            self.reason.setText("Replay is read-only: leave it to deal a hand.")
            return False
        if self.running():
            self.reason.setText("A step is running: wait for it or press Stop.")
            return False
        topic = self.topic.text().strip()
        try:
            validate_hand(deck, self._hand, topic)
        except HandError as exc:
            self.reason.setText(exc.message)
            return False
        state = self.debate()
        session = self.live_session()
        spec = next((s for s in session.actions() if s.id == "deal"), None) \
            if session is not None else None
        if state is not None and state.deck == deck.name and spec is not None and spec.enabled:
            self.reason.setText(f"Dealt {len(self._hand)} cards.")
            self.perform(Action(id="deal", cards=list(self._hand), text=topic))
            return True
        if self.runner is None:
            self.reason.setText("No session runner: cannot start a debate.")
            return False
        # Another deck, or a debate already under way: a new debate, dealt once shown.
        self._pending_deal = (deck.name, list(self._hand), topic)
        self.reason.setText("Starting a new debate with this hand…")
        self.runner.start_new("debate", deck.name)
        return True

    def _on_runner_session_started(self, _session_id: str) -> None:
        pending, self._pending_deal = self._pending_deal, None
        state = self.debate()
        if pending is None or state is None or state.deck != pending[0]:
            return
        _, cards, topic = pending
        self.reason.setText(f"Dealt {len(cards)} cards.")
        self.perform(Action(id="deal", cards=cards, text=topic))

    # -- refresh ------------------------------------------------------------------------------
    def refresh(self) -> None:
        state = self.debate()
        if state is not None and not self._hand and self._deck is not None \
                and state.deck == self._deck.name:
            self.set_hand([a.id for a in state.agents])  # the hand the debate holds
            self.topic.setText(state.topic)
            self.topic.setCursorPosition(0)
        self.deal_button.setEnabled(not self.bridge.read_only)  # busy: deal() says why
        under_way = state is not None and bool(state.claims)
        self.deal_button.setToolTip(plain_tooltip(
            "Starts a new debate with this hand." if under_way
            else "Deals this hand to the debate shown."))


def _label(name: str, *, bold: bool = False) -> QLabel:
    label = QLabel()
    label.setObjectName(name)
    label.setWordWrap(True)
    label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    if bold:
        font = label.font()
        font.setBold(True)
        label.setFont(font)
    return label


def _is_deal_key(event: QKeyEvent) -> bool:
    return event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and bool(
        event.modifiers() & Qt.KeyboardModifier.ControlModifier)


def _in_deck(deck: Deck, card_id: str) -> bool:
    return any(c.id == card_id for c in deck.cards)


def _avatar(deck: Deck, card: Contract) -> QPixmap:
    pixmap = QPixmap(str(deck.avatar_path(card)))
    return pixmap if not pixmap.isNull() else QPixmap(AVATAR, AVATAR)
