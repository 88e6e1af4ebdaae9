"""The Cards dock's hold on the card builder dialog: one at a time (an open one is brought
forward), its `cardBuilt(deck, card_id)` and `addToHand(deck, card_id)` passed on, and
the dialog deleted once closed (after its build has ended, when it was cancelled as it
closed).
Opens and keeps the dialog only: must not read decks, touch the hand or hold engine logic.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.kinds.debate.card_builder_dialog import DebateCardBuilderDialog
from roundtable_desktop.ui.window.session_runner import SessionRunner


class DebateCardsBuilderHolder(QObject):
    cardBuilt = Signal(str, str)  # deck name, card id
    addToHand = Signal(str, str)  # deck name, card id

    def __init__(self, parent: QObject, bridge: EngineBridge,
                 runner: SessionRunner | None) -> None:
        super().__init__(parent)
        self._bridge, self._runner = bridge, runner
        self.dialog: DebateCardBuilderDialog | None = None

    def open(self, window: QWidget, deck: str) -> DebateCardBuilderDialog:
        """The card builder over the window, for that deck (or the open one, raised)."""
        if self.dialog is not None and self.dialog.isVisible():
            self.dialog.raise_()
            self.dialog.activateWindow()
            return self.dialog
        dialog = DebateCardBuilderDialog(self._runner, self._bridge, window, deck=deck)
        dialog.cardBuilt.connect(self.cardBuilt)
        dialog.addToHand.connect(self.addToHand)
        dialog.finished.connect(self._on_dialog_finished)
        self.dialog = dialog
        dialog.open()
        return dialog

    def _on_dialog_finished(self, _result: int) -> None:
        dialog, self.dialog = self.dialog, None
        if dialog is None:
            return
        if dialog.building:  # cancelled as it closed: deleted once the build has ended
            dialog.buildEnded.connect(dialog.deleteLater)
        else:
            dialog.deleteLater()
