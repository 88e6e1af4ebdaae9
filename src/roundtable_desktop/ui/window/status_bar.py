"""The status line: what to do next, always; what is running; and offline or not.

The phase line says, from the engine interface alone (never a kind's own words):
before the first action, which action starts the session and its key; while a human
seat waits (`awaiting_human()`), whose line is awaited and where to write it (the
kind's human seat dock, else its send action); while calls stream, how many and their
tokens (and which action may still be taken meanwhile); when the session has ended,
that it has and where its result, Export and Replay are; otherwise the next step
(`next_step()`, with its label and shortcut from `actions()`) and the other actions
offered. The context line shows the summary's progress, who acts, and the size of the
result; the last-call line the latest finished call, kept per session so leaving replay
gives it back. The badge on the right says Offline (the offline model is answering) or
names the endpoint host; it is never shortened. The texts never ask for their own
width: each shows the whole words that fit and "…", with the full text as its tooltip,
so a long message cannot make the window wider than the screen (elided_label.py).
Must hold no engine logic: it only words what the bridge and the session report.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlparse

from PySide6.QtCore import Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QDockWidget, QLabel, QSizePolicy, QStatusBar, QWidget

from roundtable_desktop.domain.events import ActionStarted, CallFinished, CallStarted
from roundtable_desktop.domain.plural import count_of
from roundtable_desktop.engine.base import AUTO, SEND, STOP, ActionSpec, SessionProtocol
from roundtable_desktop.store.errors import StoreError
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.elided_label import ElidedLabel
from roundtable_desktop.ui.kinds.registry import window_kind
from roundtable_desktop.ui.window.toolbar_widgets import keys_text

NO_SESSION = "No session: start one with New session (Ctrl+N)."
REPLAY = ("Replay (read-only): step with Alt+Left / Alt+Right; Session › Back to the live "
          "session leaves it.")
ENDED = "The session has ended: its result is above; Ctrl+N starts a new one."
# What else may be done when it has ended: the status line's tooltip.
ENDED_MORE = "Export it (File › Export), replay it (Ctrl+Shift+R) or start a new session (Ctrl+N)."


@dataclass
class _Notes:
    """What the status line remembers of one live session across replay."""

    acted: bool = False  # any action taken (else the next step is the one that starts it)
    last_call: str = ""


@dataclass
class _Stream:
    who: str
    tokens: int = 0


class SessionStatusBar(QStatusBar):
    def __init__(self, bridge: EngineBridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("sessionStatusBar")
        self.setSizeGripEnabled(False)
        self._bridge = bridge
        self._phase = ""
        self._actor_id = ""
        self._detail = ""
        self._auto = ""  # "step 2 of 8" while Auto runs
        self._streams: dict[str, _Stream] = {}  # call id -> who, tokens so far
        self._alongside = ""  # an action offered while calls stream, in words
        self._notes: dict[str, _Notes] = {}  # by session id
        self._also = ""  # what else may be done now, for the tooltip
        self._compact = False  # presenter mode: only what to do next
        self.phase_label = ElidedLabel(NO_SESSION, self)
        self.phase_label.setObjectName("phaseLabel")
        self.turn_label = ElidedLabel("", self)
        self.turn_label.setObjectName("turnLabel")
        self.last_call_label = ElidedLabel("", self)
        self.last_call_label.setObjectName("lastCallLabel")
        self.badge = QLabel("Offline", self)
        self.badge.setObjectName("offlineBadge")
        self.badge.setAlignment(Qt.AlignmentFlag.AlignCenter)
        # The badge keeps its whole text ("OFFLINE", never "OFFI"): the others give way.
        self.badge.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Preferred)
        self.addWidget(self.phase_label, 4)  # what to do next: the most room
        self.addWidget(self.turn_label, 2)
        self.addWidget(self.last_call_label, 2)
        self.addPermanentWidget(self.badge)
        bridge.phaseChanged.connect(self._on_bridge_phase_changed)
        bridge.callStarted.connect(self._on_bridge_call_started)
        bridge.tokenReceived.connect(self._on_bridge_token_received)
        bridge.callFinished.connect(self._on_bridge_call_finished)
        bridge.sessionChanged.connect(self._on_bridge_session_changed)
        bridge.stateChanged.connect(self._on_bridge_state_changed)
        bridge.sessionEnded.connect(self._on_bridge_session_ended)
        bridge.eventReceived.connect(self._on_bridge_event_received)

    # -- what others set ---------------------------------------------------------------
    def set_connection(self, offline: bool, endpoint: str) -> None:
        if offline:
            self.badge.setObjectName("offlineBadge")
            self.badge.setText("  OFFLINE  ")
            self.badge.setToolTip("The offline model answers: no network is used.")
        else:
            host = urlparse(endpoint).hostname or endpoint
            self.badge.setObjectName("onlineBadge")
            self.badge.setText(f"  Online: {host}  ")
            self.badge.setToolTip(f"Requests go to {endpoint}")
        # The stylesheet matches on objectName: re-polish after changing it.
        self.badge.style().unpolish(self.badge)
        self.badge.style().polish(self.badge)

    def phase_text(self) -> str:
        """The whole phase line (what is shown may end in "…")."""
        return self.phase_label.full_text()

    def context_text(self) -> str:
        return self.turn_label.full_text()

    def last_call_text(self) -> str:
        return self.last_call_label.full_text()

    # -- slots ------------------------------------------------------------------------------
    def _on_bridge_phase_changed(self, phase: str, actor_id: str, detail: str) -> None:
        self._phase, self._actor_id, self._detail = phase, actor_id, detail
        if phase == "auto":
            self._auto = detail
        elif phase in ("waiting_for_user", "ended"):  # emitted once the user's action ends
            self._auto = ""
        self._render()

    def _on_bridge_call_started(self, event: CallStarted) -> None:
        summary = self._bridge.summary()
        who = summary.name_of(event.actor_id) if summary and event.actor_id else event.label
        self._streams[event.call_id] = _Stream(who)
        self._alongside = self._while_running_words()
        self._render()

    def _on_bridge_token_received(self, call_id: str, _text: str, count: int) -> None:
        self._streams.setdefault(call_id, _Stream("")).tokens = count
        self._render_phase()

    def _on_bridge_call_finished(self, event: CallFinished) -> None:
        self._streams.pop(event.call_id, None)
        outcome = event.outcome
        text = _last_call(outcome.status.value, outcome.usage.completion_tokens,
                          outcome.latency_ms)
        self._notes_of_live().last_call = text
        # A label, not showMessage(): temporary messages hide the phase line.
        self.last_call_label.set_full_text(text)
        self._render()

    def _on_bridge_session_changed(self) -> None:
        self._phase, self._actor_id, self._detail, self._auto = "", "", "", ""
        self._streams.clear()
        notes = None if self._bridge.read_only else self._notes_of_live()
        self.last_call_label.set_full_text(notes.last_call if notes is not None else "")
        self._render()

    def _on_bridge_state_changed(self, _part: str) -> None:
        self._render()  # e.g. a seat changed hands: someone else is awaited now

    def _on_bridge_session_ended(self, _reason: str) -> None:
        self._render()

    def _on_bridge_event_received(self, event: object) -> None:
        if isinstance(event, ActionStarted):
            self._notes_of_live().acted = True

    # -- what the session has done -----------------------------------------------------------
    def _notes_of_live(self) -> _Notes:
        """The notes of the live session, read from the store the first time it is shown
        (a reopened session has calls already)."""
        session_id, store = self._bridge.session_id(), self._bridge.store()
        if session_id is None or self._bridge.read_only:
            return _Notes()
        notes = self._notes.get(session_id)
        if notes is None:
            notes = self._notes[session_id] = _Notes()
            try:
                calls = store.call_summaries(session_id) if store is not None else []
            except StoreError:
                calls = []
            if calls:
                last = calls[-1]
                notes.acted = True
                notes.last_call = _last_call(last.status.value, last.completion_tokens or 0,
                                             last.latency_ms or 0.0)
        return notes

    # -- wording ------------------------------------------------------------------------------
    def _render(self) -> None:
        self._render_phase()
        self._render_context()
        self._fit()  # the progress's new text may no longer fit its share

    def _render_phase(self) -> None:
        self._also = ""
        text = self._phase_sentence()
        self.phase_label.set_full_text(text)
        if self._also:  # what else may be done: in the tooltip, not the line
            self.phase_label.setToolTip(f"{text}\n{self._also}")
        self._fit()

    def set_compact(self, on: bool) -> None:
        """Presenter mode: the line says only what to do next (and the badge); the
        progress and the last call are in the docks."""
        self._compact = on
        self._fit()

    def _fit(self) -> None:
        """What to do next is never cut: when its sentence needs the room, the last call
        and then the progress give theirs up (both are in the docks too). Nor are the
        others: one that is empty, or whose text its share would cut, gives its place
        up, so the line shows whole texts or none."""
        room = self.width() - self.badge.sizeHint().width() - 32
        others = [self.last_call_label, self.turn_label]
        shown = [] if self._compact else [label for label in others if label.full_text()]

        def cut(label: ElidedLabel, parts: int) -> bool:
            # The line is shared by stretch: 4 parts for what to do next, 2 for each other.
            need = label.fontMetrics().horizontalAdvance(label.full_text()) + 24
            return need > room * parts / (4 + 2 * len(shown))

        while shown:
            if cut(self.phase_label, 4):
                shown.pop(0)  # the last call first, then the progress
            elif too_long := [label for label in shown if cut(label, 2)]:
                shown.remove(too_long[0])
            else:
                break
        for label in others:
            label.setVisible(label in shown)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def _phase_sentence(self) -> str:
        session = self._bridge.session()
        if session is None:
            return NO_SESSION
        if self._bridge.read_only:
            return REPLAY
        auto = f"Auto, {self._auto} (Esc stops it) · " if self._auto else ""
        if self._streams:
            return auto + self._streaming_sentence()
        if session.ended:
            self._also = ENDED_MORE
            return ENDED
        if session.running:
            return auto + self._working_sentence(session)
        return self._next_sentence(session)

    def _streaming_sentence(self) -> str:
        streams = list(self._streams.values())
        tokens = count_of(sum(s.tokens for s in streams), "token")
        if len(streams) == 1:
            who = streams[0].who
            text = f"Streaming {who}'s reply: {tokens}" if who else f"Streaming: {tokens}"
        else:
            names = ", ".join(dict.fromkeys(s.who for s in streams if s.who))
            text = f"Streaming {len(streams)} replies" + (f" ({names})" if names else "") + \
                f": {tokens}"
        return text + (f" — you may {self._alongside} meanwhile" if self._alongside else "")

    def _working_sentence(self, session: SessionProtocol) -> str:
        who = self._name(session, self._actor_id)
        if self._phase == "assembling":
            return f"Assembling {who}'s request" if who else "Assembling the request"
        if self._phase == "running_tools":
            text = f"Running {who}'s tools" if who else "Running tools"
            return text + (f" ({self._detail})" if self._detail else "")
        return "Working… (Esc stops it)"

    def _next_sentence(self, session: SessionProtocol) -> str:
        own = window_kind(self._bridge.kind()).next_sentence
        text = own(session) if own is not None else ""
        if text:
            return text
        specs = {spec.id: spec for spec in session.actions()}
        seat = session.awaiting_human()
        if seat:
            return self._waiting_for_seat(seat, list(specs.values()))
        step = session.next_step()
        spec = specs.get(step.id) if step is not None else None
        if spec is None:
            return "Waiting for you: choose an action on the toolbar."
        if not self._notes_of_live().acted:
            return f"To start, {_press(spec)}."
        others = [s for s in specs.values() if s.enabled and s.id not in (spec.id, STOP, AUTO)
                  and not s.needs_text]
        if others:
            self._also = "Also: " + ", ".join(_named(s) for s in others) + "."
        return f"Waiting for you: {_press(spec)}."

    def _waiting_for_seat(self, seat: str, specs: list[ActionSpec]) -> str:
        send = next((s for s in specs if s.id == SEND), None) or next(
            (s for s in specs if s.needs_text), None)
        keys = keys_text(send.shortcut) if send is not None else ""
        place = self._human_seat_place()
        if place:
            return f"Waiting for {seat}: write your line in {place}, then send it" + (
                f" ({keys})." if keys else ".")
        if send is not None:
            return f"Waiting for {seat}: {_press(send)} to write the line."
        return f"Waiting for {seat}."

    def _human_seat_place(self) -> str:
        """The title of the dock where the shown kind's human seat writes, if it has one."""
        name = window_kind(self._bridge.kind()).human_seat_dock
        window = self.window()
        dock = window.findChild(QDockWidget, name) if name and window is not None else None
        return dock.windowTitle() if dock is not None else ""

    def _while_running_words(self) -> str:
        session = None if self._bridge.read_only else self._bridge.session()
        if session is None:
            return ""
        spec = next((s for s in session.actions() if s.while_running and s.enabled), None)
        return _lower_first(_named(spec)) if spec is not None else ""

    def _render_context(self) -> None:
        session = self._bridge.session()
        summary = session.summary() if session is not None else None
        if session is None or summary is None:
            self.turn_label.set_full_text("")
            return
        parts = [summary.progress_text] if summary.progress_text else []
        actor = session.current_actor_id()
        if actor and not summary.ended:
            parts.append(summary.name_of(actor))
        self.turn_label.set_full_text(" · ".join(parts))

    @staticmethod
    def _name(session: SessionProtocol, actor_id: str) -> str:
        return session.summary().name_of(actor_id) if actor_id else ""


def _press(spec: ActionSpec) -> str:
    """"press Ctrl+T or click Run tools": the key first, so a narrow status line that
    ends in "…" still shows it ("click Run tools" when the action has no key)."""
    keys = keys_text(spec.shortcut)
    return (f"press {keys} or click " if keys else "click ") + spec.label


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def _named(spec: ActionSpec) -> str:
    keys = keys_text(spec.shortcut)
    return f"{spec.label} ({keys})" if keys else spec.label


def _last_call(status: str, tokens: int, latency_ms: float) -> str:
    return f"Last call: {status}, {count_of(tokens, 'token')}, {latency_ms:,.0f} ms"
