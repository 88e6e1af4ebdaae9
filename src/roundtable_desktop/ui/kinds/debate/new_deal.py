"""A hand dealt as a new debate, asking first when it replaces the debate under way.

Dealing a hand of another deck or mode, or to a debate whose claims are drawn, starts a
new debate and deals the hand there once it is shown (`NewDebateDeal`); when the shown
one is under way (claims drawn, not ended) it asks first, naming what stops: "Deal
again? The debate under way (its 3 claims, the agents' stances, 2 table rounds and 16
calls) stays saved in Past debates, but it is not finished: a new debate takes its
place." Keep this debate is the default (Enter, Esc and closing the question keep it).
`under_way_words` words what would stop ("" when nothing would), with `calls_shown`
counting the shown session's calls in the store; `DealQuestion` shows the question with
`open()` and a slot, never `exec()` (the window runs on qasync: a nested loop inside a
coroutine breaks it), and calls back only on "Deal a new debate".
Must hold no engine logic: the debate changes only through the runner and the dock's
`perform` (the deal action, as the toolbar would do it).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QMessageBox, QPushButton, QWidget

from roundtable_desktop.domain.plural import count_of
from roundtable_desktop.engine.base import Action
from roundtable_desktop.kinds.debate.state import DebateState
from roundtable_desktop.store.errors import StoreError
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.window.session_runner import SessionRunner

QUESTION_NAME = "debateDealQuestion"


def under_way_words(state: DebateState | None, calls: int) -> str:
    """"its 3 claims, the agents' stances, 2 table rounds and 16 calls"; "" when the shown
    debate has no claims yet or has ended (a new hand then loses nothing)."""
    if state is None or state.ended or not state.claims:
        return ""
    parts = [count_of(len(state.claims), "claim")]
    if state.stances:
        parts.append("the agents' stances")
    if state.table_rounds():
        parts.append(count_of(state.table_rounds(), "table round"))
    if state.classical is not None and state.classical.turns:
        parts.append(count_of(len(state.classical.turns), "turn"))
    parts.append(count_of(calls, "call"))
    return "its " + (", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1
                     else parts[0])


def calls_shown(bridge: EngineBridge) -> int:
    """The calls the shown session has made (0 when the store cannot say)."""
    store, session_id = bridge.store(), bridge.session_id()
    if store is None or session_id is None:
        return 0
    try:
        return len(store.calls(session_id))
    except StoreError:  # the question still names the rest
        return 0


def question_text(words: str) -> str:
    return (f"Deal again? The debate under way ({words}) stays saved in Past debates, "
            "but it is not finished: a new debate takes its place.")


class DealQuestion(QObject):
    """One question at a time; `box` is the open one (None when none is open)."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self._parent = parent
        self.box: QMessageBox | None = None
        self._deal_button: QPushButton | None = None
        self._on_yes: Callable[[], None] | None = None

    def ask(self, words: str, on_yes: Callable[[], None]) -> QMessageBox:
        """Ask (or bring the open question forward); `on_yes` runs on "Deal a new debate"."""
        if self.box is not None:
            self.box.raise_()
            return self.box
        box = QMessageBox(QMessageBox.Icon.Question, "Deal a new debate?",
                          question_text(words), QMessageBox.StandardButton.NoButton,
                          self._parent.window())
        box.setObjectName(QUESTION_NAME)
        self._deal_button = box.addButton("Deal a new debate",
                                          QMessageBox.ButtonRole.AcceptRole)
        keep = box.addButton("Keep this debate", QMessageBox.ButtonRole.RejectRole)
        box.setDefaultButton(keep)
        box.setEscapeButton(keep)
        box.finished.connect(self._on_box_finished)
        self.box, self._on_yes = box, on_yes
        box.open()
        return box

    def deal_button(self) -> QPushButton | None:
        return self._deal_button

    def _on_box_finished(self, _result: int) -> None:
        box, on_yes = self.box, self._on_yes
        self.box, self._on_yes = None, None
        if box is None:
            return
        chosen = box.clickedButton() is self._deal_button
        self._deal_button = None
        box.deleteLater()
        if chosen and on_yes is not None:
            on_yes()


class NewDebateDeal(QObject):
    """Starts a new debate with a hand and deals it there once it is shown; the dock's
    `say` shows what happens, `perform` does the deal as the toolbar would."""

    def __init__(self, parent: QWidget, runner: SessionRunner | None,
                 shown: Callable[[], DebateState | None], perform: Callable[[Action], object],
                 say: Callable[[str], None]) -> None:
        super().__init__(parent)
        self.question = DealQuestion(parent)
        self._runner, self._shown, self._perform, self._say = runner, shown, perform, say
        self._pending: tuple[str, list[str], str] | None = None
        if runner is not None:
            runner.sessionStarted.connect(self._on_runner_session_started)

    def deal(self, deck: str, cards: list[str], topic: str, mode: str, under_way: str) -> None:
        """A new debate of `deck` in `mode` dealt `cards` on `topic`; asked first when
        `under_way` names what the shown debate would lose."""
        if not under_way:
            self._start(deck, cards, topic, mode)
            return
        self._say("Deal again? Answer the question first.")
        self.question.ask(under_way, lambda: self._start(deck, cards, topic, mode))

    def _start(self, deck: str, cards: list[str], topic: str, mode: str) -> None:
        if self._runner is None or self._runner.busy:
            self._say("A step is running: wait for it or press Stop.")
            return
        self._pending = (deck, cards, topic)
        self._say("Starting a new debate with this hand…")
        self._runner.start_new("debate", deck, mode=mode)

    def _on_runner_session_started(self, _session_id: str) -> None:
        pending, self._pending = self._pending, None
        state = self._shown()
        if pending is None or state is None or state.deck != pending[0]:
            return
        _, cards, topic = pending
        self._say(f"Dealt {len(cards)} cards.")
        self._perform(Action(id="deal", params={"cards": cards}, text=topic))
