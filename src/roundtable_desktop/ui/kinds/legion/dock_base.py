"""The base of the legion's docks: reads the shown session's LegionState, refreshes on
the engine events that change it, performs the Commander's actions through the window's
session runner (exactly as the toolbar would), and words what a minion's diary says.

Must hold no engine logic and never change the legion's state except through actions and
the edit functions of kinds/legion/edit.py.
"""

from __future__ import annotations

import json

from PySide6.QtWidgets import QWidget

from roundtable_desktop.domain.events import (
    ActionFinished,
    ActionStarted,
    PhaseChanged,
    SessionEnded,
    StateChanged,
)
from roundtable_desktop.engine.base import Action, SessionProtocol
from roundtable_desktop.kinds.legion.state import Diary, LegionState
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.docks.bridge_dock import BridgeDock, shown_state
from roundtable_desktop.ui.window.session_runner import SessionRunner

REFRESH_ON = (StateChanged, PhaseChanged, ActionStarted, ActionFinished, SessionEnded)


class LegionDock(BridgeDock):
    def __init__(self, title: str, object_name: str, bridge: EngineBridge,
                 parent: QWidget | None = None, *, runner: SessionRunner | None = None) -> None:
        super().__init__(title, object_name, bridge, parent)
        self.runner = runner
        bridge.eventReceived.connect(self._on_bridge_event_received)

    def legion(self) -> LegionState | None:
        """The legion shown (live or replayed), or None for another kind."""
        return shown_state(self.bridge, LegionState)

    def live_legion(self) -> SessionProtocol | None:
        """The running legion session (None in replay, or for another kind)."""
        session = self.live_session()
        return session if isinstance(getattr(session, "state", None), LegionState) else None

    def perform(self, action: Action) -> None:
        if self.runner is not None and not self.bridge.read_only:
            self.runner.perform(action)

    def _on_bridge_event_received(self, event: object) -> None:
        if isinstance(event, REFRESH_ON):
            self.schedule_refresh()


def diary_text(diary: Diary) -> str:
    """A minion's diary for one message, as the window shows it: what it made of the
    message, its scores and mode, what it did and why, its tools, then the plan's JSON."""
    plan = diary.plan
    lines = [f"{diary.minion} in #{diary.channel}, about message {diary.about}"]
    if diary.outcome == "silent":
        lines.append(diary.quiet_line())
    elif diary.outcome == "failed":
        lines.append(f"{diary.minion}'s turn failed.")
    if diary.addressed:
        lines.append("Addressed by name: it had to speak.")
    elif diary.chance is not None and diary.roll is not None and diary.outcome == "spoke":
        lines.append(f"Chose to speak (drew {diary.roll} against a chance of {diary.chance}).")
    if plan is not None:
        lines += [f"Perception: {plan.perceptionAnalysis}",
                  f"Mode: {plan.selectedResponseMode} · action {plan.action}"]
        lines += [f"Plan: {plan.responsePlan}"] if plan.responsePlan else []
        lines += [f"Notes: {plan.personalNotes}"] if plan.personalNotes else []
        for update in plan.opinionUpdates:
            lines.append(f"Opinion of {update.participantName} → {update.newScore}: "
                         f"{update.reasonForChange}")
    for step in diary.tool_steps:
        arguments = json.dumps(step.arguments, ensure_ascii=False)
        lines.append(f"[TOOL CALL] {step.name}({arguments})"
                     + ("" if step.ok else " — failed"))
        lines.append(f"[TOOL OUTPUT] {_short(step.output)}")
    lines += [f"Note: {note}" for note in diary.notes]
    for index, each in enumerate(diary.plans, 1):
        lines += ["", f"Plan {index} of {len(diary.plans)} (JSON):",
                  json.dumps(each.model_dump(mode="json"), ensure_ascii=False, indent=2)]
    return "\n".join(lines).strip()


def _short(text: str, limit: int = 600) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
