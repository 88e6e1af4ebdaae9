"""The one adapter between the engine's events and Qt: events in, Qt signals out.

Widgets subscribe to these signals and read the session through a kind-neutral view:
`session()`, `kind()`, `summary()` (participants, transcript, result, progress, ended),
`ended()`, `current_actor_id()`, `awaiting_human()` and `hint()`; a kind's own docks
read its own state from `session()` (in their own modules). They never reach into
protocol internals. In replay the bridge serves a stored state instead of a live
session, and `read_only` is true. `kindChanged` fires before `sessionChanged` when the
shown session is of another kind than the one shown before (the window rebuilds the
kind's docks on it). Must hold no engine logic.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from roundtable_desktop.domain.events import (
    CallFinished,
    CallStarted,
    Event,
    Notice,
    PhaseChanged,
    SessionEnded,
    StateChanged,
    TokenReceived,
    ToolRan,
)
from roundtable_desktop.domain.summary import SessionSummary
from roundtable_desktop.engine.base import SessionProtocol
from roundtable_desktop.engine.launch import SessionHandle
from roundtable_desktop.store.database import SessionStore


class EngineBridge(QObject):
    sessionChanged = Signal()  # a session was attached, detached, or replay moved
    eventReceived = Signal(object)  # every engine event
    callStarted = Signal(object)  # CallStarted
    tokenReceived = Signal(str, str, int)  # call_id, text, count
    callFinished = Signal(object)  # CallFinished
    toolRan = Signal(object)  # ToolRan
    stateChanged = Signal(str)  # part
    phaseChanged = Signal(str, str, str)  # phase, actor_id, detail
    notice = Signal(str, str, str)  # level, message, hint
    sessionEnded = Signal(str)  # reason
    kindChanged = Signal(str)  # the kind of the session shown now, before sessionChanged

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._handle: SessionHandle | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self._replay_session: SessionProtocol | None = None
        self._replay_store: SessionStore | None = None
        self._replay_session_id: str | None = None
        self._replay_summary: tuple[SessionProtocol, SessionSummary] | None = None
        self._kind = ""  # the kind of the last session shown

    # -- what widgets read ----------------------------------------------------------------
    @property
    def handle(self) -> SessionHandle | None:
        return self._handle

    @property
    def read_only(self) -> bool:
        return self._replay_session is not None

    def session(self) -> SessionProtocol | None:
        """The session the docks show: the replayed one in replay, else the live one."""
        if self._replay_session is not None:
            return self._replay_session
        return self._handle.session if self._handle is not None else None

    def kind(self) -> str:
        """The kind of the session shown ("" with none)."""
        session = self.session()
        return session.kind if session is not None else ""

    def summary(self) -> SessionSummary | None:
        """The kind-neutral account of the session shown, live or replayed."""
        session = self.session()
        if session is None:
            return None
        if not self.read_only:
            return session.summary()
        # A replayed state never changes: every dock asks for its summary once per step.
        cached = self._replay_summary
        if cached is None or cached[0] is not session:
            cached = self._replay_summary = (session, session.summary())
        return cached[1]

    def ended(self) -> bool:
        session = self.session()
        return session is not None and session.ended

    def current_actor_id(self) -> str | None:
        session = self.session()
        return session.current_actor_id() if session is not None else None

    def awaiting_human(self) -> str | None:
        """The name of the human seat the live session waits for, or None."""
        session = self.session()
        return session.awaiting_human() if session is not None and not self.read_only else None

    def hint(self) -> str:
        """What the user may do next, in one sentence."""
        session = self.session()
        if session is None:
            return "Start a session (Ctrl+N)."
        if self.read_only:
            return "Replay is read-only: step with Alt+Left / Alt+Right, or leave it."
        if session.ended:
            return "The session has ended: export it, replay it or start a new one (Ctrl+N)."
        seat = session.awaiting_human()
        if seat:
            return f"{seat} is a human seat: write their line and send it."
        step = session.next_step()
        if step is None:
            return ""
        spec = next((s for s in session.actions() if s.id == step.id), None)
        if spec is None:
            return ""
        keys = f" ({spec.shortcut})" if spec.shortcut else ""
        return f"Next: {spec.label}{keys}."

    def store(self) -> SessionStore | None:
        return self._replay_store if self.read_only else (
            self._handle.store if self._handle else None)

    def session_id(self) -> str | None:
        return self._replay_session_id if self.read_only else (
            self._handle.session_id if self._handle else None)

    # -- wiring ------------------------------------------------------------------------
    def attach(self, handle: SessionHandle) -> None:
        self.detach(emit=False)
        self._handle = handle
        self._unsubscribe = handle.bus.subscribe(self._on_engine_event)
        self._announce()

    def detach(self, *, emit: bool = True) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
        self._unsubscribe = None
        self._handle = None
        self._replay_session = None
        if emit:
            self._announce()

    def _announce(self) -> None:
        """kindChanged first (the window's docks for that kind), then sessionChanged."""
        kind = self.kind()
        if kind and kind != self._kind:
            self._kind = kind
            self.kindChanged.emit(kind)
        self.sessionChanged.emit()

    def show_replay(self, store: SessionStore, session_id: str,
                    session: SessionProtocol) -> None:
        """Serve a stored state read-only (replay); the live session stays detached."""
        self.detach(emit=False)
        self._replay_store, self._replay_session_id = store, session_id
        self._replay_session = session
        self._announce()

    def _on_engine_event(self, event: Event) -> None:
        self.eventReceived.emit(event)
        if isinstance(event, TokenReceived):
            self.tokenReceived.emit(event.call_id, event.text, event.count)
        elif isinstance(event, CallStarted):
            self.callStarted.emit(event)
        elif isinstance(event, CallFinished):
            self.callFinished.emit(event)
        elif isinstance(event, ToolRan):
            self.toolRan.emit(event)
        elif isinstance(event, StateChanged):
            self.stateChanged.emit(event.part)
        elif isinstance(event, PhaseChanged):
            self.phaseChanged.emit(event.phase, event.actor_id or "", event.detail)
        elif isinstance(event, Notice):
            self.notice.emit(event.level, event.message, event.hint)
        elif isinstance(event, SessionEnded):
            self.sessionEnded.emit(event.reason)
