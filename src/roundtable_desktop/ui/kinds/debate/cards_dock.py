"""The debate's Cards dock: the deck, the hand being built and the dealing.

A deck chooser and its description (whole, wrapped), the grid of its cards
(cards_grid.py; locked cards greyed), the selected card's detail (cards_detail.py), the
hand (cards_hand.py: 3-8 cards from any decks, "deck/id" for another deck's card), the
topic, the schedule (cards_schedule.py: rounds per table, merge cycles, the event cap),
the mode (Blitz or Classical) and Deal (Alt+D), arranged by cards_layout.py. Deal
performs Action(id="deal", params={"cards": [...]}, text=topic) on the shown debate when
it has this deck, mode and schedule and is not under way; otherwise it starts a new
debate with them and deals there, asking first when the shown one is under way
(new_deal.py). A hand that cannot be dealt is refused with the engine's own reason.
New card… (Ctrl+Shift+K) opens the card builder; a built card is shown selected and
may join the hand. Keys: arrows in the grid, Enter adds, Delete removes
(cards_keys.py), Alt+D deals; Ctrl+Return stays the toolbar's next step.
Must hold no engine logic.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QComboBox,
    QLineEdit,
    QListWidgetItem,
    QPushButton,
    QWidget,
)

from roundtable_desktop.engine.base import Action
from roundtable_desktop.kinds.debate.deck import (
    MAX_HAND,
    MIN_HAND,
    Deck,
    DeckError,
    HandError,
    deck_names,
    load_deck,
)
from roundtable_desktop.kinds.debate.hand import resolve_hand
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.docks.bridge_dock import plain_tooltip
from roundtable_desktop.ui.kinds.debate.card_builder_dialog import DebateCardBuilderDialog
from roundtable_desktop.ui.kinds.debate.cards_builder import DebateCardsBuilderHolder
from roundtable_desktop.ui.kinds.debate.cards_detail import DebateCardDetailView, card_label
from roundtable_desktop.ui.kinds.debate.cards_grid import (
    CARD_ID,
    fill_card_grid,
    find_card_item,
    first_selectable_row,
    fit_card_grid,
    hand_item,
    in_deck,
    new_card_grid,
    new_hand_list,
)
from roundtable_desktop.ui.kinds.debate.cards_hand import DebateHand, deck_named
from roundtable_desktop.ui.kinds.debate.cards_keys import DebateCardsKeyFilter
from roundtable_desktop.ui.kinds.debate.cards_layout import (
    cards_body,
    cards_splitter,
    hand_box,
    row_of,
    topic_row,
)
from roundtable_desktop.ui.kinds.debate.cards_schedule import DebateScheduleView
from roundtable_desktop.ui.kinds.debate.dock_base import DebateDock
from roundtable_desktop.ui.kinds.debate.new_deal import (
    NewDebateDeal,
    calls_shown,
    under_way_words,
)
from roundtable_desktop.ui.text_label import WrappedLabel
from roundtable_desktop.ui.window.session_runner import SessionRunner

MODES = (("blitz", "Blitz"), ("classical", "Classical"))


class DebateCardsDock(DebateDock):
    def __init__(self, bridge: EngineBridge, parent: QWidget | None = None, *,
                 runner: SessionRunner | None = None) -> None:
        super().__init__("Cards", "debateCardsDock", bridge, parent, runner=runner)
        self._filled_for: str | None = None  # the session whose hand is shown
        self._deck: Deck | None = None
        self._hand = DebateHand()  # its cards, each of its deck (a hand mixes decks)

        self.deck_combo = QComboBox()
        self.deck_combo.setObjectName("debateDeckCombo")
        self.new_card_button = QPushButton("New card…")
        self.new_card_button.setObjectName("debateNewCard")
        self.new_card_button.setToolTip(plain_tooltip(
            "Make a card from a feed, a folder of notes or pasted excerpts (Ctrl+Shift+K)."))
        self._builder = DebateCardsBuilderHolder(self, bridge, runner)
        self.deck_note = WrappedLabel("")  # the deck's topic whole: it wraps, never cut
        self.deck_note.setObjectName("debateDeckNote")
        self.grid = new_card_grid()
        self.detail_view = DebateCardDetailView()
        self.detail = self.detail_view.label
        self.add_button = QPushButton("Add to hand")
        self.add_button.setToolTip("Enter in the grid")
        self.add_button.setObjectName("debateAddToHand")
        self.hand_label = card_label("debateHandLabel", bold=True)
        self.hand_list = new_hand_list()
        self.remove_button = QPushButton("Remove")
        self.remove_button.setToolTip("Delete in the hand")
        self.remove_button.setObjectName("debateRemoveFromHand")
        self.topic = QLineEdit()
        self.topic.setObjectName("debateTopic")
        self.topic.setPlaceholderText("The debate's topic, as a question")
        # Its own key: Ctrl+Return is the session's next step (the toolbar's), so a
        # presenter pressing what the status line names never re-deals.
        self.deal_button = QPushButton("&Deal  (Alt+D)")
        self.deal_button.setObjectName("debateDeal")
        self.reason = card_label("debateDealReason")
        self.new_deal = NewDebateDeal(self, runner, self.state, self.perform,
                                      self.reason.setText)
        self.question = self.new_deal.question
        self.mode_combo = QComboBox()
        self.mode_combo.setObjectName("debateMode")
        for mode, label in MODES:
            self.mode_combo.addItem(label, mode)
        self.schedule = DebateScheduleView()
        self.mode_combo.currentIndexChanged.connect(self._on_mode_combo_changed)
        self.mode_combo.setToolTip(plain_tooltip(
            "Blitz: parallel table rounds and merges. Classical: one speaker at a time, "
            "sentence by sentence; the others plan and may interrupt."))

        self.splitter = cards_splitter(
            self.grid, self.detail_view,
            hand_box(self.hand_label, self.add_button, self.remove_button, self.hand_list),
            self.fontMetrics().lineSpacing())
        body = cards_body(
            row_of((self.deck_combo, 1), (self.new_card_button, 0)), self.deck_note,
            self.splitter, topic_row(self.topic), self.schedule,
            row_of((self.reason, 1), (self.mode_combo, 0), (self.deal_button, 0)))
        self.setWidget(body)

        self.deck_combo.addItems(deck_names())
        self.deck_combo.currentTextChanged.connect(self._on_deck_combo_changed)
        self.grid.currentItemChanged.connect(self._on_grid_current_changed)
        self.grid.itemActivated.connect(self._on_grid_item_activated)
        self.add_button.clicked.connect(self._on_add_clicked)
        self.remove_button.clicked.connect(self._on_remove_clicked)
        self.deal_button.clicked.connect(self.deal)
        self.new_card_button.clicked.connect(self.open_card_builder)
        self._builder.cardBuilt.connect(self._on_builder_card_built)
        self._builder.addToHand.connect(self._on_builder_add_to_hand)
        self.topic.returnPressed.connect(self.deal)
        self.keys = DebateCardsKeyFilter(self, grid=self.grid, hand_list=self.hand_list,
                                         add=self._on_add_clicked,
                                         remove=self._on_remove_clicked)
        self.keys.watch(self.grid, self.hand_list)
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
        return list(self._hand.ids)

    def card_item(self, card_id: str) -> QListWidgetItem | None:
        return find_card_item(self.grid, card_id)

    def selectable(self, card_id: str) -> bool:
        item = self.card_item(card_id)
        return item is not None and bool(item.flags() & Qt.ItemFlag.ItemIsSelectable)

    def reason_text(self) -> str:
        return self.reason.text()

    def mode(self) -> str:
        return str(self.mode_combo.currentData())

    def set_mode(self, mode: str) -> None:
        index = self.mode_combo.findData(mode)
        if index >= 0:
            self.mode_combo.setCurrentIndex(index)

    def _on_mode_combo_changed(self, _index: int) -> None:
        self.schedule.set_mode(self.mode())

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
        fill_card_grid(self.grid, deck)
        self._fit_grid()
        first = first_selectable_row(self.grid)
        if first is not None:
            self.grid.setCurrentRow(first)
        if not self.topic.text().strip():
            self.topic.setText(deck.demo_topic or deck.topic_hint)
            self.topic.setCursorPosition(0)
        self._show_hand()

    def _fit_grid(self) -> None:
        if self._deck is not None:
            fit_card_grid(self.grid, self._deck)

    def _on_theme_changed(self) -> None:
        self._fit_grid()  # a zoom or theme change sizes the grid's text anew

    def _on_grid_current_changed(self, current: QListWidgetItem | None, _prev: object) -> None:
        self._show_detail(current.data(CARD_ID) if current is not None else None)

    def _show_detail(self, card_id: str | None) -> None:
        deck = self._deck
        card = deck.card(card_id) if deck is not None and card_id is not None else None
        self.detail_view.show_card(card)
        self.add_button.setEnabled(card is not None and not card.locked
                                   and card.id not in self._hand)

    # -- new cards ---------------------------------------------------------------------------
    @property
    def builder(self) -> DebateCardBuilderDialog | None:
        """The open card builder, if any."""
        return self._builder.dialog

    def open_card_builder(self) -> DebateCardBuilderDialog:
        """The card builder (one at a time: an open one is brought forward)."""
        deck = self._deck.name if self._deck is not None else ""
        return self._builder.open(self.window(), deck)

    def _on_builder_card_built(self, deck: str, card_id: str) -> None:
        self.deck_combo.blockSignals(True)
        self.deck_combo.clear()
        self.deck_combo.addItems(deck_names())
        self.deck_combo.setCurrentText(deck)
        self.deck_combo.blockSignals(False)
        self._load(deck)
        item = self.card_item(card_id)
        if item is not None:
            self.grid.setCurrentItem(item)
            self.grid.scrollToItem(item)

    def _on_builder_add_to_hand(self, deck: str, card_id: str) -> None:
        if self.add_card(deck, card_id):
            card = deck_named(deck, self._deck)
            name = card.card(card_id).name if card is not None else card_id
            self.reason.setText(f"{name} joined the hand.")

    # -- the hand ----------------------------------------------------------------------------
    def add_card(self, deck_name: str, card_id: str) -> bool:
        """Add a card of any deck to the hand; False (with the reason shown) when it
        cannot be."""
        deck = deck_named(deck_name, self._deck)
        if deck is None:
            self.reason.setText(f"There is no deck {deck_name!r}.")
            return False
        return self._add(deck, card_id)

    def add(self, card_id: str) -> bool:
        """Add a card of the deck shown to the hand; False (with the reason shown) when
        it cannot be."""
        return self._deck is not None and self._add(self._deck, card_id)

    def _add(self, deck: Deck, card_id: str) -> bool:
        if not in_deck(deck, card_id):
            return False
        refusal = self._hand.refusal(deck, card_id)
        if refusal:
            self.reason.setText(refusal)
            return False
        self._hand.add(deck, card_id)
        self.reason.clear()
        self._show_hand()
        return True

    def remove(self, card_id: str) -> None:
        if card_id in self._hand:
            self._hand.remove(card_id)
            self._show_hand()

    def set_hand(self, ids: list[str]) -> None:
        """The hand: these cards of the deck shown."""
        self._hand.clear()
        for cid in ids:
            self.add(cid)
        self._show_hand()

    def hand_refs(self) -> list[str]:
        """The hand as the deal names it: ids of its first card's deck, "deck/id" else."""
        return self._hand.refs()

    def _show_hand(self) -> None:
        self.hand_list.clear()
        for cid in self._hand.ids:
            deck = deck_named(self._hand.deck_of(cid), self._deck)
            if deck is not None and in_deck(deck, cid):
                self.hand_list.addItem(hand_item(deck, deck.card(cid)))
        count = len(self._hand)
        self.hand_label.setText(f"Hand: {count} of {MIN_HAND}-{MAX_HAND} cards")
        self.remove_button.setEnabled(bool(self._hand))
        self.schedule.follow_hand(count)
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

    # -- dealing ------------------------------------------------------------------------------
    def deal(self) -> bool:
        """Deal the hand on the topic; False with the reason shown when refused."""
        if self.bridge.read_only:
            self.reason.setText("Replay is read-only: leave it to deal a hand.")
            return False
        if self.running():
            self.reason.setText("A step is running: wait for it or press Stop.")
            return False
        topic = self.topic.text().strip()
        refs = self.hand_refs()
        deck = deck_named(self._hand.home(), self._deck) if self._hand else self._deck
        if deck is None:
            self.reason.setText("Choose a deck first.")
            return False
        try:
            resolve_hand(deck, refs, topic)
        except HandError as exc:
            self.reason.setText(exc.message)
            return False
        state = self.state()
        session = self.live_session()
        spec = next((s for s in session.actions() if s.id == "deal"), None) \
            if session is not None else None
        if state is not None and state.deck == deck.name and state.mode == self.mode() \
                and self.schedule.matches(state) and spec is not None and spec.enabled:
            self.reason.setText(f"Dealt {len(self._hand)} cards.")
            self.perform(Action(id="deal", params={"cards": refs}, text=topic))
            return True
        if self.runner is None:
            self.reason.setText("No session runner: cannot start a debate.")
            return False
        # Another deck, mode or schedule, or a debate under way: a new debate, dealt once
        # shown; one under way is not thrown away without asking.
        self.new_deal.deal(deck.name, refs, topic, self.mode(),
                           under_way_words(state, calls_shown(self.bridge)),
                           self.schedule.options() if self.mode() == "blitz" else {})
        return True

    # -- refresh ------------------------------------------------------------------------------
    def refresh(self) -> None:
        state = self.state()
        shown = self.bridge.session_id()
        # The hand the debate holds, once per debate shown: a hand the user emptied to
        # build another is not filled again behind their back.
        if state is not None and shown != self._filled_for and self._deck is not None:
            self._filled_for = shown
            self._hand.clear()
            for agent in state.agents:
                self.add_card(agent.deck or state.deck, agent.id)
            self._show_hand()
            self.set_mode(state.mode)
            self.schedule.show_state(state)
            self.topic.setText(state.topic)
            self.topic.setCursorPosition(0)
        self.deal_button.setEnabled(not self.bridge.read_only)  # busy: deal() says why
        under_way = state is not None and bool(state.claims)
        self.deal_button.setToolTip(plain_tooltip(
            "Starts a new debate with this hand (Alt+D); asks first while one is under way."
            if under_way else "Deals this hand to the debate shown (Alt+D)."))

