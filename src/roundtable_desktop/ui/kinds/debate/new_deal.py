"""A hand dealt as a new debate, asking first when it replaces the debate under way.

Dealing a hand of another deck or mode, or to a debate whose claims are drawn, starts a
new debate and deals the hand there once it is shown (`NewDebateDeal`); when the shown
one is under way (claims drawn, not ended) it asks first, naming what stops: "Deal
again? The debate under way (its 3 claims, the agents' stances, 2 table rounds and 16
calls) stays saved in Past debates, but it is not finished: a new debate takes its
place." Keep this debate is the default (Enter, Esc and closing the question keep it).
`under_way_words` words what would stop ("" when nothing would), with `calls_shown`
counting the shown session's calls in the store; `DealQuestion` asks with the shared
question (ui/dialogs/ask_first.py: `open()`, never `exec()`) and calls back only on
"Deal a new debate". The new debate takes the session options given (the schedule).
Must hold no engine logic: the debate changes only through the runner and the dock's
`perform` (the deal action, as the toolbar would do it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QPushButton, QWidget

from roundtable_desktop.domain.plural import count_of
from roundtable_desktop.engine.base import Action
from roundtable_desktop.kinds.debate.state import DebateState
from roundtable_desktop.store.errors import StoreError
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.dialogs.ask_first import AskFirstBox, open_question
from roundtable_desktop.ui.kinds.spec import AskFirst
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
    """One question at a time, asked with the shared question (ui/dialogs/ask_first.py),
    its Cancel worded "Keep this debate"; `box` is the open one (None when none is)."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self._parent = parent
        self.box: AskFirstBox | None = None

    def ask(self, words: str, on_yes: Callable[[], None]) -> AskFirstBox:
        """Ask (or bring the open question forward); `on_yes` runs on "Deal a new debate"."""
        if self.box is not None:
            self.box.raise_()
            return self.box
        box = open_question(self._parent.window(),
                            AskFirst(text=question_text(words), yes="Deal a new debate"),
                            on_yes)
        box.setObjectName(QUESTION_NAME)
        keep = box.escapeButton()
        if keep is not None:
            keep.setText("Keep this debate")
        box.finished.connect(self._on_box_finished)
        self.box = box
        return box

    def deal_button(self) -> QPushButton | None:
        return self.box.yes_button if self.box is not None else None

    def _on_box_finished(self, _result: int) -> None:
        self.box = None


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
        self._options: dict[str, Any] = {}
        if runner is not None:
            runner.sessionStarted.connect(self._on_runner_session_started)

    def deal(self, deck: str, cards: list[str], topic: str, mode: str, under_way: str,
             options: dict[str, Any] | None = None) -> None:
        """A new debate of `deck` in `mode` (with the session `options`, e.g. the
        schedule) dealt `cards` on `topic`; asked first when `under_way` names what the
        shown debate would lose."""
        self._options = dict(options or {})
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
        # Created with the hand and topic (the kind's options), so the docks show this
        # hand from the start; the deal once shown records it as the toolbar would.
        self._runner.start_new("debate", deck, mode=mode, hand=list(cards), topic=topic,
                               **self._options)

    def _on_runner_session_started(self, _session_id: str) -> None:
        pending, self._pending = self._pending, None
        state = self._shown()
        if pending is None or state is None or state.deck != pending[0]:
            return
        _, cards, topic = pending
        self._say(f"Dealt {len(cards)} cards.")
        self._perform(Action(id="deal", params={"cards": cards}, text=topic))
