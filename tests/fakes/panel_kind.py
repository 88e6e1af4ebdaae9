"""A session kind that exists only in tests: the proof that a kind plugs in through the
registry alone, with no change to roundtable code or to launch, CLI, store, export, replay.

Each round two AI panelists answer the topic at once (two concurrent calls, each a JSON
verdict read through the shared structured-reply path), then the human seat speaks. The
payload is a chat request: a system prompt of two runtime layers plus one user message.
Two edits show the shared edit path: `set_topic` (waits for a running call) and
`set_rounds` (may be made while the panelists answer).
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
from collections.abc import Iterator
from typing import Any, Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field

from roundtable_desktop.domain.calls import ChatMessage, ChatRequest
from roundtable_desktop.domain.events import SessionEnded, StateChanged
from roundtable_desktop.domain.prompts import LayerText
from roundtable_desktop.domain.summary import (
    Participant,
    Progress,
    ResultItem,
    ResultSection,
    SessionSummary,
    TranscriptEntry,
)
from roundtable_desktop.engine.base import (
    SEND,
    Action,
    ActionSpec,
    ActionUnavailable,
    Edit,
    Edited,
    PendingPayload,
    SessionProtocol,
)
from roundtable_desktop.engine.bus import EventBus
from roundtable_desktop.engine.model_calls import DEFAULT_PARALLEL
from roundtable_desktop.engine.params import read_params
from roundtable_desktop.engine.payloads import chat_payload, system_message
from roundtable_desktop.engine.registry import KindSpec, Scenario, SessionContext, register_kind
from roundtable_desktop.engine.structured_call import call_structured
from roundtable_desktop.llm.client import ChatClient

PANELISTS = {"ada": "Ada", "bo": "Bo"}
HUMAN = "You"
SET_TOPIC, SET_ROUNDS = "set_topic", "set_rounds"


class TopicParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    topic: str = Field(min_length=1, max_length=200)


class RoundsParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    rounds: int = Field(ge=1, le=9)


class Verdict(BaseModel):
    stance: Literal["for", "against", "unsure"]
    confidence: float = Field(ge=0, le=1)
    reason: str = Field(min_length=1, max_length=300)


class Line(BaseModel):
    speaker: str
    text: str
    round: int


class PanelState(BaseModel):
    topic: str
    rounds: int = 2
    round: int = 1
    waiting_for_human: bool = False
    lines: list[Line] = Field(default_factory=list)
    verdicts: dict[str, Verdict] = Field(default_factory=dict)
    ended: bool = False


class PanelSession(SessionProtocol):
    kind = "panel"

    def __init__(self, state: PanelState, *, client: ChatClient, bus: EventBus | None = None,
                 model: str = "offline", parallel: int = DEFAULT_PARALLEL) -> None:
        super().__init__(client=client, bus=bus, parallel=parallel)
        self.state = state
        self.model = model

    # -- what the user may do -------------------------------------------------------
    def actions(self) -> list[ActionSpec]:
        s = self.state
        why = "The panel has ended." if s.ended else (
            "A call is running." if self.running else None)
        ask_why = why or (f"Waiting for {HUMAN} to speak." if s.waiting_for_human else None)
        send_why = why or (None if s.waiting_for_human else "The panelists answer first.")
        return [
            ActionSpec(id="ask", label="Ask the panel", enabled=ask_why is None,
                       reason=ask_why or "", shortcut="Ctrl+Return"),
            *self.common_specs(auto_why="The panel has ended." if s.ended else None),
            ActionSpec(id=SEND, label=f"Speak as {HUMAN}", enabled=send_why is None,
                       reason=send_why or "", needs_text=True),
        ]

    def edit_specs(self) -> list[ActionSpec]:
        why = "The panel has ended." if self.state.ended else ""
        return [ActionSpec(id=SET_TOPIC, label="Topic", enabled=not why, reason=why),
                ActionSpec(id=SET_ROUNDS, label="Rounds", enabled=not why, reason=why,
                           while_running=True)]

    def _edit(self, edit: Edit) -> Edited:
        if edit.id == SET_TOPIC:
            topic = read_params(TopicParams, edit.params, "Topic").topic
            self.state.topic = topic
            return Edited.part("topic", message=f"The topic is now {topic!r}.")
        if edit.id == SET_ROUNDS:
            rounds = read_params(RoundsParams, edit.params, "Rounds").rounds
            if rounds < self.state.round:
                raise ActionUnavailable(f"Round {self.state.round} is already under way.")
            self.state.rounds = rounds
            return Edited.part("rounds", str(rounds))
        return super()._edit(edit)

    async def _perform(self, action: Action) -> bool:
        if action.id == "ask":
            return await self._ask()
        if action.id == SEND:
            self._speak(action.text or "")
            return True
        raise ActionUnavailable(f"Unknown action {action.id!r}.")

    def next_step(self) -> Action | None:
        s = self.state
        return None if s.ended or s.waiting_for_human else Action(id="ask")

    def awaiting_human(self) -> str | None:
        s = self.state
        return HUMAN if s.waiting_for_human and not s.ended else None

    def progress(self) -> int:
        return self.state.round

    # -- payloads ---------------------------------------------------------------------
    def _layers(self, name: str) -> list[LayerText]:
        return [
            LayerText(name="persona", source="runtime",
                      text=f"You are {name}, a panelist on: {self.state.topic}."),
            LayerText(name="format", source="runtime",
                      text='Answer with one JSON object: {"stance", "confidence", "reason"}.'),
        ]

    def pending_payloads(self) -> list[PendingPayload]:
        s = self.state
        if s.ended or s.waiting_for_human:
            return []
        heard = "\n".join(f"{line.speaker}: {line.text}" for line in s.lines) or "(nothing yet)"
        payloads = []
        for pid, name in PANELISTS.items():
            layers = self._layers(name)
            request = ChatRequest(
                model=self.model,
                messages=[*system_message(layers), ChatMessage(
                    role="user", content=f"Round {s.round}. So far:\n{heard}\nYour verdict?")],
                purpose="stance", kind=self.kind, response_format={"type": "json_object"},
                response_schema=Verdict.model_json_schema(),
            )
            payloads.append(chat_payload(pid, f"Round {s.round}: {name}", request, layers))
        return payloads

    # -- the round --------------------------------------------------------------------
    async def _ask(self) -> bool:
        payloads = self.pending_payloads()
        results = await asyncio.gather(*(
            call_structured(self, p.actor_id, p.request, Verdict, label=p.label,
                            layers=p.layers)
            for p in payloads
        ))
        ok = True
        for payload, result in zip(payloads, results, strict=True):
            if result.value is None:
                ok = False  # that panelist's previous verdict stays
                continue
            assert payload.actor_id is not None
            self.state.verdicts[payload.actor_id] = result.value
            self.state.lines.append(Line(speaker=PANELISTS[payload.actor_id],
                                         text=f"{result.value.stance}: {result.value.reason}",
                                         round=self.state.round))
        self.state.waiting_for_human = True
        self.emit(StateChanged(part="verdicts"))
        return ok

    def _speak(self, text: str) -> None:
        s = self.state
        s.lines.append(Line(speaker=HUMAN, text=text, round=s.round))
        s.waiting_for_human = False
        s.round += 1
        self.emit(StateChanged(part="lines"))
        if s.round > s.rounds:
            s.ended = True
            self.emit(SessionEnded(reason="The panel has heard every round."))

    # -- persistence and summary ------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        return {"panel": self.state.model_dump(mode="json"), "model": self.model}

    @property
    def ended(self) -> bool:
        return self.state.ended

    def summary(self) -> SessionSummary:
        return panel_summary(self.state)


def panel_summary(state: PanelState) -> SessionSummary:
    return SessionSummary(
        kind="panel",
        title=f"Panel: {state.topic}",
        participants=[*(Participant(id=k, name=v) for k, v in PANELISTS.items()),
                      Participant(id="you", name=HUMAN, human=True)],
        transcript=[TranscriptEntry(speaker=line.speaker, text=line.text, turn=line.round)
                    for line in state.lines],
        result=ResultSection(
            heading="Verdicts",
            items=[ResultItem(title=f"{PANELISTS[k]}: {v.stance}",
                              detail=f"{v.confidence:.2f} · {v.reason}")
                   for k, v in state.verdicts.items()],
            empty_text="No verdicts yet.", final=state.ended,
        ),
        ended=state.ended,
        progress=Progress(step=state.round, step_name="Round"),
    )


def offline_verdict(request: ChatRequest, seed: int) -> str:
    """The offline policy for ("panel", "stance"): a seeded verdict that varies with the
    request it reads."""
    digest = hashlib.sha256(f"{seed}:{request.user_text()}:{request.messages[0].content}"
                            .encode()).digest()
    stance = ("for", "against", "unsure")[digest[0] % 3]
    return json.dumps({"stance": stance, "confidence": round(digest[1] / 255, 2),
                       "reason": f"Offline view number {digest[2]}."})


async def _create(ctx: SessionContext, scenario: str) -> PanelSession:
    topics = {s.name: s.title for s in _scenarios()}
    if scenario not in topics:
        raise ValueError(f"No panel scenario {scenario!r}.")
    return PanelSession(PanelState(topic=topics[scenario]), client=ctx.client, bus=ctx.bus,
                        model=ctx.model, parallel=ctx.parallel)


def _restore(ctx: SessionContext, state: dict[str, Any]) -> PanelSession:
    return PanelSession(PanelState.model_validate(state["panel"]), client=ctx.client,
                        bus=ctx.bus, model=state.get("model", ctx.model), parallel=ctx.parallel)


def _scenarios() -> list[Scenario]:
    return [Scenario(name="default", title="Should meetings have agendas?"),
            Scenario(name="tabs", title="Tabs or spaces?")]


PANEL = KindSpec(
    name="panel",
    title="Test panel",
    description="Two AI panelists and a human seat (tests only).",
    scenarios=_scenarios,
    create=_create,
    restore=_restore,
    summarize=lambda state: panel_summary(PanelState.model_validate(state["panel"])),
    offline_policies={"stance": offline_verdict},
)


class OpenFloorPanelSession(PanelSession):
    """The panel with an open floor: the human seat may speak at any time, even while the
    panelists' replies stream (its send spec says `while_running`); a line spoken out of
    turn is heard in the next round's payloads and does not end the round."""

    kind = "openfloor"

    def actions(self) -> list[ActionSpec]:
        ended = self.state.ended
        return [
            spec.model_copy(update={"enabled": not ended, "while_running": True,
                                    "reason": "The panel has ended." if ended else ""})
            if spec.id == SEND else spec
            for spec in super().actions()
        ]

    async def _perform(self, action: Action) -> bool:
        s = self.state
        if action.id == SEND and not s.waiting_for_human:
            s.lines.append(Line(speaker=HUMAN, text=action.text or "", round=s.round))
            self.emit(StateChanged(part="lines"))
            return True
        return await super()._perform(action)


async def _create_open_floor(ctx: SessionContext, scenario: str) -> OpenFloorPanelSession:
    panel = await _create(ctx, scenario)
    return OpenFloorPanelSession(panel.state, client=ctx.client, bus=ctx.bus, model=ctx.model,
                                 parallel=ctx.parallel)


OPEN_FLOOR_PANEL = dataclasses.replace(
    PANEL, name="openfloor", title="Open-floor panel",
    description="The test panel where the human seat may speak while others stream.",
    create=_create_open_floor,
    restore=lambda ctx, state: OpenFloorPanelSession(
        PanelState.model_validate(state["panel"]), client=ctx.client, bus=ctx.bus,
        model=state.get("model", ctx.model), parallel=ctx.parallel),
)


@pytest.fixture(autouse=True)
def panel_kind() -> Iterator[None]:
    """The panel kind registered for each test of a module that imports this fixture
    (imported, an autouse fixture applies to that module only)."""
    remove = register_kind(PANEL)
    yield
    remove()
