"""The Cards dock's card detail: the selected card's name, handle and suite and one
sentence for each of the six dimensions, in a scroll area that shares the dock's height.

Also the dock's plain text label (word-wrapped, selectable by mouse), used for the
detail, the hand's count and the deal's reason.
Shows a card and nothing else: must hold no hand, no deck state and no engine logic.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QLabel, QScrollArea, QSizePolicy, QWidget

from roundtable_desktop.kinds.debate.deck import DIMENSIONS, Contract
from roundtable_desktop.ui.text_label import text_label

NO_CARD = "Select a card to see its persona."


class DebateCardDetailView(QScrollArea):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("debateCardDetailArea")
        self.label = card_label("debateCardDetail")
        self.label.setTextFormat(Qt.TextFormat.RichText)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setWidget(self.label)

    def show_card(self, card: Contract | None) -> None:
        self.label.setText(NO_CARD if card is None else card_detail_html(card))


def card_detail_html(card: Contract) -> str:
    rows = "".join(f"<tr><td><b>{label}</b>&nbsp;</td><td>{html.escape(card.one_line(f))}"
                   f"</td></tr>" for f, label in DIMENSIONS)
    return (f"<b>{html.escape(card.name)}</b> {html.escape(card.handle)} · "
            f"<i>{html.escape(card.suite)}</i>"
            f"{' · locked' if card.locked else ''}<table>{rows}</table>")


def card_label(name: str, *, bold: bool = False) -> QLabel:
    """A label of the cards' words (markup allowed: the detail is a table), as tall as
    its text."""
    return text_label(name, bold=bold, plain=False,
                      policy=(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum))
