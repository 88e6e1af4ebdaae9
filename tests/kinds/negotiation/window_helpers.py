"""Helpers for the negotiation window tests: start a negotiation in the real window
(offscreen, offline model, qasync loop), reach its docks, and wait for its state.

Not a test module: the test_window_*.py files import it.
"""

from __future__ import annotations

from collections.abc import Callable

from roundtable_desktop.kinds.negotiation.state import NegotiationState
from roundtable_desktop.ui.kinds.negotiation.beliefs_dock import NegotiationBeliefsDock
from roundtable_desktop.ui.kinds.negotiation.conversation_dock import (
    NegotiationConversationDock,
)
from roundtable_desktop.ui.kinds.negotiation.sequencer_dock import NegotiationSequencerDock
from roundtable_desktop.ui.window.main_window import MainWindow
from tests.fakes.window_harness import WAIT_MS, perform, wait_idle

NEGOTIATION_DOCKS = {"negotiationBeliefsDock", "negotiationSequencerDock",
                     "negotiationConversationDock"}
ROUNDTABLE_OWN = {"actorsDock", "candidatesDock", "whiteboardDock", "mcpDock", "composerDock"}


class FakeSpeaker:
    """A speech engine that records what it was asked to read (no audio). A reading ends
    at once, or, with `hold=True`, when the test calls `finish()`."""

    def __init__(self, voices: tuple[str, ...] = ("Alto", "Basso"), *,
                 hold: bool = False) -> None:
        self._voices = list(voices)
        self.hold = hold
        self.said: list[tuple[str, str | None]] = []
        self.stopped = 0
        self._reading: Callable[[], None] | None = None

    def unavailable(self) -> str:
        return ""

    def voices(self) -> list[str]:
        return list(self._voices)

    def say(self, text: str, voice: str | None, finished: Callable[[], None]) -> None:
        self.said.append((text, voice))
        if self.hold:
            self._reading = finished
        else:
            finished()

    def reading(self) -> bool:
        return self._reading is not None

    def finish(self) -> None:
        finished, self._reading = self._reading, None
        if finished is not None:
            finished()

    def stop(self) -> None:
        self.stopped += 1
        self.finish()


def start_negotiation(qtbot, window: MainWindow, scenario: str = "default") -> str:  # type: ignore[no-untyped-def]
    """Start a negotiation as New session would; its session id once the window shows it."""
    before = window.bridge.session_id()
    window.runner.start_new("negotiation", scenario)
    qtbot.waitUntil(lambda: window.bridge.session_id() not in (None, before)
                    and window.kind == "negotiation", timeout=WAIT_MS)
    wait_idle(qtbot, window)
    session_id = window.bridge.session_id()
    assert session_id is not None
    return session_id


def state_of(window: MainWindow) -> NegotiationState:
    state = window.runner.handle.session.state
    assert isinstance(state, NegotiationState)
    return state


def beliefs_dock(window: MainWindow) -> NegotiationBeliefsDock:
    dock = window.docks["negotiationBeliefsDock"]
    assert isinstance(dock, NegotiationBeliefsDock)
    return dock


def conversation_dock(window: MainWindow) -> NegotiationConversationDock:
    dock = window.docks["negotiationConversationDock"]
    assert isinstance(dock, NegotiationConversationDock)
    return dock


def sequencer_dock(window: MainWindow) -> NegotiationSequencerDock:
    dock = window.docks["negotiationSequencerDock"]
    assert isinstance(dock, NegotiationSequencerDock)
    return dock


def read_shown_request(qtbot, window: MainWindow) -> str:  # type: ignore[no-untyped-def]
    """The whole request element as the context view's page holds it now."""
    results: list[str | None] = []
    window.context_view.read_request_element(results.append)
    qtbot.waitUntil(lambda: bool(results), timeout=WAIT_MS)
    assert results[0], "the view shows no request element"
    return str(results[0])


def shows_pending(window: MainWindow, index: int = 0) -> bool:
    """The view has loaded the session's `index`-th pending payload as it is now."""
    payloads = window.runner.handle.session.pending_payloads()
    return (len(payloads) > index and window.context_view.loaded
            and window.context_view.document() == payloads[index].document)


def play_to_the_end(qtbot, window: MainWindow, cap: int = 30) -> None:  # type: ignore[no-untyped-def]
    """Take turns (manual flow) until the game is adjudicated (the offline model's
    default scenario is released within 20 turns)."""
    for _ in range(cap):
        if state_of(window).ended:
            return
        perform(qtbot, window, "take_turn")
    assert state_of(window).ended, "the game was not adjudicated"
