"""The status line: what the session is doing now, whose turn it is, and offline or not.

Phases come from the bridge (idle, assembling, streaming N tokens, running tools,
waiting for the user, auto, ended); the token count updates live from token events.
The badge on the right says Offline (the offline model is answering) or names the
endpoint host; it is never shortened. The texts never ask for their own width: each
shows the whole words that fit and "…", with the full text as its tooltip, so a long
message cannot make the window wider than the screen (elided_label.py).
Must hold no engine logic: it only words what the bridge reports.
"""

from __future__ import annotations

from urllib.parse import urlparse

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSizePolicy, QStatusBar, QWidget

from roundtable_desktop.domain.events import CallFinished
from roundtable_desktop.domain.meeting import TurnPhase
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.elided_label import ElidedLabel

PHASE_WORDS = {
    "idle": "Idle",
    "assembling": "Assembling the context window",
    "streaming": "Streaming",
    "running_tools": "Running tools",
    "waiting_for_user": "Waiting for you",
    "auto": "Auto",
    "ended": "Meeting ended",
}


class SessionStatusBar(QStatusBar):
    def __init__(self, bridge: EngineBridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("sessionStatusBar")
        self.setSizeGripEnabled(False)
        self._bridge = bridge
        self._phase = "idle"
        self._actor_id = ""
        self._detail = ""
        self._tokens = 0
        self.phase_label = ElidedLabel("Idle", self)
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
        self.addWidget(self.phase_label, 3)
        self.addWidget(self.turn_label, 2)
        self.addWidget(self.last_call_label, 2)
        self.addPermanentWidget(self.badge)
        bridge.phaseChanged.connect(self._on_bridge_phase_changed)
        bridge.tokenReceived.connect(self._on_bridge_token_received)
        bridge.callFinished.connect(self._on_bridge_call_finished)
        bridge.sessionChanged.connect(self._on_bridge_session_changed)
        bridge.stateChanged.connect(self._on_bridge_state_changed)

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

    # -- slots ------------------------------------------------------------------------------
    def _on_bridge_phase_changed(self, phase: str, actor_id: str, detail: str) -> None:
        self._phase, self._actor_id, self._detail = phase, actor_id, detail
        if phase == "streaming":
            self._tokens = 0
        self._render()

    def _on_bridge_token_received(self, _call_id: str, _text: str, count: int) -> None:
        self._tokens = count
        if self._phase == "streaming":
            self._render()

    def _on_bridge_call_finished(self, event: CallFinished) -> None:
        outcome = event.outcome
        # A label, not showMessage(): temporary messages hide the phase line.
        self.last_call_label.set_full_text(
            f"Last call: {outcome.status.value}, {outcome.usage.completion_tokens} tokens, "
            f"{outcome.latency_ms:,.0f} ms")

    def _on_bridge_session_changed(self) -> None:
        self.last_call_label.set_full_text("")
        self._phase = "replay" if self._bridge.read_only else (
            "ended" if (s := self._bridge.state()) is not None and s.ended else "idle")
        self._actor_id, self._detail, self._tokens = "", "", 0
        self._render()

    def _on_bridge_state_changed(self, _part: str) -> None:
        self._render_turn()

    # -- wording ------------------------------------------------------------------------------
    def _actor_name(self, actor_id: str) -> str:
        state = self._bridge.state()
        if state is None:
            return ""
        actor = state.actor_by_id(actor_id) if actor_id else state.actor
        return actor.name if actor else actor_id

    def _render(self) -> None:
        phase = self._phase
        who = self._actor_name(self._actor_id)
        if phase == "streaming":
            text = f"Streaming {who}'s reply: {self._tokens} tokens"
        elif phase == "assembling":
            text = f"Assembling {who}'s context window"
        elif phase == "running_tools":
            text = f"Running {who}'s tools" + (f" ({self._detail})" if self._detail else "")
        elif phase == "waiting_for_user":
            text = f"Waiting for you — {self._next_step()}"
        elif phase == "auto":
            text = f"Auto: {self._detail}" if self._detail else "Auto"
        elif phase == "replay":
            text = "Replay (read-only)"
        else:
            text = PHASE_WORDS.get(phase, phase.replace("_", " ").capitalize())
        self.phase_label.set_full_text(text)
        self._render_turn()

    def _next_step(self) -> str:
        """What the user would click next, in words (the toolbar says why not otherwise)."""
        state = self._bridge.state()
        if state is None:
            return "start a session (Ctrl+N)"
        who = state.actor.name
        if state.ended:
            return "the meeting has ended"
        if state.phase == TurnPhase.TOOLS_PENDING:
            return f"run {who}'s tools (Ctrl+T) or go to the next turn (Ctrl+→)"
        if state.actor.human:
            return f"{who} is a human seat: write the reply in Human seat"
        return f"infer {who} (Ctrl+Enter)"

    def _render_turn(self) -> None:
        state = self._bridge.state()
        if state is None:
            self.turn_label.set_full_text("")
            return
        self.turn_label.set_full_text(
            f"Turn {state.turn} · round {state.round} · {state.actor.name} · "
            f"{len(state.suggestions)} suggestions")
