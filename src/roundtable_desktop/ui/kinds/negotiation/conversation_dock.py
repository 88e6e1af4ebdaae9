"""The conversation dock, titled "Dialogue": what the two sides said to each other, and
nothing else. (The short title keeps its tab beside Beliefs and Sequencer in presenter
mode's tab groups at 1366x768, where "Conversation" pushed three shared docks out.)

One block per line sent, in order: the speaker (in its side's ink, ✎ for a human seat),
the turn and the line's act, then the words. The observer's, planner's and adjudicator's
JSON stay in the Calls dock, the inspector and the shared Transcript; a draft waiting in
confirm mode is not said yet, so it is not here. When the talk begins (the first line
sent in a session) the dock comes forward in its tab group. The lines come from models
and people: escaped before they reach the read-only view, which opens no links. Must
hold no engine logic and never change the state.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QTextBrowser, QWidget

from roundtable_desktop.domain.events import StateChanged
from roundtable_desktop.kinds.negotiation.state import NegotiationState
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.kinds.negotiation.beliefs_plot import side_inks
from roundtable_desktop.ui.kinds.negotiation.dock_base import NegotiationDock
from roundtable_desktop.ui.scroll_follow import ScrollFollower
from roundtable_desktop.ui.theme import inks
from roundtable_desktop.ui.window.session_runner import SessionRunner

# State parts that add a spoken line or change how one reads (a seat taken by a person).
SPOKEN_PARTS = frozenset({"message", "seat", "adjudication"})


@dataclass(frozen=True, slots=True)
class Spoken:
    """One line sent, as the dock shows it."""

    side: str
    name: str
    text: str
    turn: int
    act: str
    human: bool


def spoken_lines(state: NegotiationState) -> list[Spoken]:
    """Every line the sides sent, in order (the opening lines first)."""
    names = {side: seat.name for side, seat in state.sides.items()}
    return [Spoken(side=e.who, name=names.get(e.who, e.who), text=e.text, turn=e.turn,
                   act=e.act if e.act not in ("", "NONE") else "", human=e.human)
            for e in state.messages()]


class NegotiationConversationDock(NegotiationDock):
    def __init__(self, bridge: EngineBridge, parent: QWidget | None = None, *,
                 runner: SessionRunner | None = None) -> None:
        super().__init__("Dialogue", "negotiationConversationDock", bridge, parent,
                         runner=runner)
        self.view = QTextBrowser()
        self.view.setObjectName("negotiationConversation")
        self.view.setOpenLinks(False)
        self.view.setOpenExternalLinks(False)
        self.setWidget(self.view)
        self._markup = ""
        self.follower = ScrollFollower(self.view)  # the newest line, unless reading back
        self._came_forward = False  # once per session, when the talk begins
        self.refresh()

    # -- reading (tests) ------------------------------------------------------------------
    def lines(self) -> list[Spoken]:
        state = self.state()
        return spoken_lines(state) if state is not None else []

    def text(self) -> str:
        return self.view.toPlainText()

    # -- refresh --------------------------------------------------------------------------
    def refresh(self) -> None:
        state = self.state()
        pal = self.theme_palette()
        muted = pal.color(QPalette.ColorRole.PlaceholderText).name()
        if state is None:
            self._show(_quiet("No negotiation is shown.", muted))
            return
        lines = spoken_lines(state)
        marks = side_inks(inks(pal))
        self._show("".join(_line_html(line, marks.get(line.side, ""), muted)
                           for line in lines) or _quiet("Nothing said yet.", muted))

    def _show(self, markup: str) -> None:
        if markup != self._markup:
            self._markup = markup
            self.follower.replace(lambda: self.view.setHtml(markup))

    def on_event(self, event: object) -> None:
        if not isinstance(event, StateChanged) or event.part not in SPOKEN_PARTS:
            return
        self.schedule_refresh()
        if event.part == "message" and not self._came_forward:
            self._came_forward = True
            self.raise_()  # the talk begins: it leads its tab group

    def _on_bridge_session_changed(self) -> None:
        self._came_forward = False
        self.follower.reset()
        super()._on_bridge_session_changed()

    def _on_theme_changed(self) -> None:
        self._markup = ""
        self.refresh()


def _quiet(text: str, muted: str) -> str:
    return f"<p style='color: {muted}'><i>{html.escape(text)}</i></p>"


def _line_html(line: Spoken, ink: str, muted: str) -> str:
    who = html.escape(("✎ " if line.human else "") + line.name)
    colour = f" style='color: {ink}'" if ink else ""
    about = "opening" if line.turn == 0 else f"turn {line.turn}"
    if line.act:
        about += f" · {line.act}"
    return (f"<p style='margin: 0 0 10px 0'><b{colour}>{who}</b> "
            f"<span style='color: {muted}'>{html.escape(about)}</span><br/>"
            f"{html.escape(line.text)}</p>")
