"""The Sequencer dock: what to do next, the phases live, the flow mode, the turn waiting
for the presenter, and each seat.

Top to bottom: one sentence on what to do next (negotiation_next_step.py), large; the
phase strip (negotiation_phase_strip.py, from PhaseChanged events); the flow mode
(manual / confirm / auto: set_flow); the policies (policy_row.py: observer, planner,
wait for speech: set_policies); the planner options and the draft when a confirm
turn waits (negotiation_turn_panel.py: pick_option with keys 1-6, edit_draft,
send_draft); then tabs: each side's seat (negotiation_seat_panel.py: human seat, relay
box and its Send, voice, sampling and model) and "Loop and guidance"
(negotiation_guard_panel.py). A human seat's Send emits `submitted(text)` (the window
performs `send`, as for every kind's human seat dock) and the toolbar's "Send as ..."
comes to `send_from_toolbar()`. Replies are read aloud (speech.py: the dock's reader is
the live session's voice, which SPEAK reads through and, with "Wait for speech", waits
for) when a side's "Read aloud" is on and a speech engine exists; otherwise the voice
controls are disabled with the reason. Must hold no engine logic and never write the state.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QFrame,
    QHBoxLayout,
    QLabel,
    QRadioButton,
    QScrollArea,
    QSizePolicy,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from roundtable_desktop.domain.events import (
    PhaseChanged,
)
from roundtable_desktop.engine.base import SEND, Action, ActionSpec, Edit
from roundtable_desktop.kinds.negotiation.session import NegotiationSession
from roundtable_desktop.kinds.negotiation.state import (
    EDIT_DRAFT,
    FLOW_MODES,
    PHASES,
    PICK_OPTION,
    SEND_DRAFT,
    SET_FLOW,
    SIDES,
    NegotiationState,
)
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.docks.kind_dock import STATE_EVENTS
from roundtable_desktop.ui.kinds.negotiation.dock_base import NegotiationDock
from roundtable_desktop.ui.kinds.negotiation.guard_panel import GuardPanel
from roundtable_desktop.ui.kinds.negotiation.next_step import next_sentence
from roundtable_desktop.ui.kinds.negotiation.phase_strip import PhaseStrip
from roundtable_desktop.ui.kinds.negotiation.policy_row import PolicyRow
from roundtable_desktop.ui.kinds.negotiation.seat_panel import SeatPanel
from roundtable_desktop.ui.kinds.negotiation.speech import QtSpeaker, Speaker, SpeechReader
from roundtable_desktop.ui.kinds.negotiation.turn_panel import TurnPanel
from roundtable_desktop.ui.theme import colors, is_dark
from roundtable_desktop.ui.window.session_runner import SessionRunner
from roundtable_desktop.ui.window.toolbar_widgets import keys_text

FLOW_TIPS = {
    "manual": "Manual: each turn runs whole when you take it (Ctrl+Return).",
    "confirm": "Confirm: a turn stops at PLAN for your pick, and before SEND with the "
               "draft editable.",
    "auto": "Auto: turns run whole, the policy picks; press Auto on the toolbar to run "
            "turns up to its step cap (Esc stops).",
}
STATUS_SCALE = 1.15


class NegotiationSequencerDock(NegotiationDock):
    submitted = Signal(str)  # a human seat's line: the window performs `send`
    refresh_on = STATE_EVENTS  # not tokens: a stream would refresh per token

    def __init__(self, bridge: EngineBridge, parent: QWidget | None = None, *,
                 runner: SessionRunner | None = None) -> None:
        super().__init__("Sequencer", "negotiationSequencerDock", bridge, parent,
                         runner=runner)
        self.status_label = QLabel()
        self.status_label.setObjectName("sequencerStatus")
        self.status_label.setWordWrap(True)
        self.status_label.setTextFormat(Qt.TextFormat.PlainText)
        self.status_label.setSizePolicy(QSizePolicy.Policy.Ignored,
                                        QSizePolicy.Policy.Preferred)
        font = self.status_label.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * STATUS_SCALE)
        self.status_label.setFont(font)
        self.strip = PhaseStrip()

        self.flow_group = QButtonGroup(self)
        self.flow_group.setExclusive(True)
        flow_row = QHBoxLayout()
        flow_row.addWidget(QLabel("Flow:"))
        self.flow_buttons: dict[str, QRadioButton] = {}
        for index, mode in enumerate(FLOW_MODES):
            button = QRadioButton(mode.capitalize())
            button.setObjectName(f"flow_{mode}")
            button.setToolTip(FLOW_TIPS[mode])
            self.flow_group.addButton(button, index)
            flow_row.addWidget(button)
            self.flow_buttons[mode] = button
        flow_row.addStretch(1)
        self.flow_group.idClicked.connect(self._on_flow_group_clicked)
        self.policies = PolicyRow()
        self.policies.edited.connect(self.edit_setting)

        self.turn = TurnPanel(self)
        self.turn.picked.connect(self._on_turn_picked)
        self.turn.draftEdited.connect(self._on_turn_draft_edited)
        self.turn.sendRequested.connect(self._on_turn_send_requested)

        self.seats: dict[str, SeatPanel] = {}
        self.tabs = QTabWidget()
        self.tabs.setObjectName("sequencerTabs")
        self.tabs.setDocumentMode(True)
        for side in SIDES:
            seat = SeatPanel(side)
            seat.edited.connect(self.edit_setting)
            seat.sendRequested.connect(self._on_seat_send_requested)
            self.seats[side] = seat
            self.tabs.addTab(seat, side)
        self.guard = GuardPanel()
        self.guard.edited.connect(self.edit_setting)
        self.tabs.addTab(self.guard, "Loop and guidance")

        body = QWidget()
        body.setObjectName("sequencerBody")
        column = QVBoxLayout(body)
        column.setContentsMargins(6, 4, 6, 4)
        column.setSpacing(6)
        column.addWidget(self.status_label)
        column.addWidget(self.strip)
        column.addLayout(flow_row)
        column.addWidget(self.policies)
        column.addWidget(self.turn)
        column.addWidget(self.tabs, 1)
        area = QScrollArea()
        area.setObjectName("sequencerScroll")
        area.setFrameShape(QFrame.Shape.NoFrame)
        area.setWidgetResizable(True)
        area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        area.setWidget(body)
        self.setWidget(area)
        self.setMinimumWidth(260)

        self._awaited = ""  # the human seat whose turn it is, once brought forward
        self.reader = SpeechReader(QtSpeaker())
        self._show_voices()
        self._on_theme_changed()
        self.refresh()

    # -- API ----------------------------------------------------------------------------------
    def set_speaker(self, speaker: Speaker) -> None:
        """Read aloud with `speaker` (tests hand in a fake; the window keeps Qt's)."""
        self.reader = SpeechReader(speaker)
        self._show_voices()
        self.refresh()

    def status_text(self) -> str:
        return self.status_label.text()

    def send_from_toolbar(self) -> None:
        """The toolbar's "Send as ...": send the seat's relay box, or start writing in it."""
        state = self.state()
        if state is None:
            return
        side = state.turn_side
        self.tabs.setCurrentIndex(list(SIDES).index(side))
        seat = self.seats[side]
        if not seat.send_now():
            seat.relay_box.setFocus()

    # -- refresh ------------------------------------------------------------------------------
    def refresh(self) -> None:
        state = self.state()
        blocked = self.blocked()
        if state is None:
            self.status_label.setText(blocked)
            self.turn.show_state(None, blocked=blocked)
            self.strip.show_state(None)
            return
        session = self.bridge.session()
        specs = session.actions() if session is not None else []
        running = bool(self.runner.acting()) if self.runner is not None else False
        self.status_label.setText(blocked if self.bridge.read_only else
                                  next_sentence(state, specs, running=running))
        self.strip.show_state(state)
        self.flow_group.blockSignals(True)
        self.flow_buttons[state.flow].setChecked(True)
        self.flow_group.blockSignals(False)
        for button in self.flow_buttons.values():
            button.setEnabled(not blocked)
        self.policies.show_state(state, blocked=blocked)
        if isinstance(session, NegotiationSession) and not self.bridge.read_only:
            session.attach_voice(self.reader)  # SPEAK reads through it, and may wait
        send_spec = next((s for s in specs if s.id == SEND_DRAFT), None)
        self.turn.show_state(state, blocked=blocked or ("A step is running." if running
                                                        else ""),
                             send_keys=keys_text(send_spec.shortcut) if send_spec else "")
        human_send = next((s for s in specs if s.id == SEND), None)
        for index, side in enumerate(SIDES):
            seat = state.sides[side]
            self.seats[side].show_state(state, blocked=blocked,
                                        send_why=self._send_why(state, side, human_send,
                                                                running))
            mark = "✎ " if seat.human else ""
            self.tabs.setTabText(index, f"{mark}{side}")
            self.tabs.setTabToolTip(index, f"{seat.emoji} {seat.name}: " + (
                "a human seat" if seat.human else "an AI seat"))
        self.guard.show_state(state, blocked=blocked)
        self._bring_forward_the_seat_awaited(state, blocked)

    def _bring_forward_the_seat_awaited(self, state: NegotiationState, blocked: str) -> None:
        """When a human seat's turn comes, its tab (and relay box) comes forward, once."""
        seat = state.sides[state.turn_side]
        awaited = seat.id if seat.human and state.current is None and not blocked else ""
        if awaited and awaited != self._awaited:
            self.tabs.setCurrentIndex(list(SIDES).index(awaited))
            scroll = self.widget()
            if isinstance(scroll, QScrollArea):
                scroll.ensureWidgetVisible(self.seats[awaited].relay_box)
        self._awaited = awaited

    @staticmethod
    def _send_why(state: NegotiationState, side: str, spec: ActionSpec | None,
                  running: bool) -> str:
        seat = state.sides[side]
        if not seat.human:
            return f"{side} is an AI seat: tick Human seat to write its lines."
        if state.turn_side != side:
            return f"It is {state.turn_side}'s turn."
        if running:
            return "A step is running."
        if spec is not None and spec.enabled:
            return ""
        return (spec.reason if spec is not None else "") or "Not now."

    def _show_voices(self) -> None:
        speaker = self.reader.speaker
        why = speaker.unavailable()
        voices = [] if why else speaker.voices()
        for seat in self.seats.values():
            seat.set_voices(voices, why)

    def _on_theme_changed(self) -> None:
        self.strip.set_theme_colors(colors("dark" if is_dark(self.theme_palette())
                                           else "light"))

    # -- events -------------------------------------------------------------------------------
    def on_event(self, event: object) -> None:
        if isinstance(event, PhaseChanged) and event.phase in PHASES and event.actor_id:
            state = self.state()
            cur = state.current if state is not None else None
            human = bool(cur.human) if cur is not None and cur.side == event.actor_id else False
            self.strip.enter(event.actor_id, event.phase, human=human)
        super().on_event(event)

    # -- slots --------------------------------------------------------------------------------
    def _on_flow_group_clicked(self, index: int) -> None:
        self.edit_setting(Edit(id=SET_FLOW, params={"flow": FLOW_MODES[index]}))

    def _on_turn_picked(self, index: int) -> None:
        self.perform_turn(Action(id=PICK_OPTION, option=index))

    def _on_turn_draft_edited(self, text: str) -> None:
        self.edit_setting(Edit(id=EDIT_DRAFT, params={"text": text}))

    def _on_turn_send_requested(self, text: str) -> None:
        self.perform_turn(Action(id=SEND_DRAFT, text=text if text.strip() else None))

    def _on_seat_send_requested(self, side: str, text: str) -> None:
        state = self.state()
        if state is not None and state.turn_side == side:
            self.submitted.emit(text)
