"""Fixtures for negotiation tests: a session on the offline model whose policies a test may
replace per purpose, with every request it was sent and every event kept."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

import pytest

from roundtable_desktop.domain.calls import ChatRequest
from roundtable_desktop.domain.events import Event, PhaseChanged
from roundtable_desktop.engine.base import Action, Edit, Edited
from roundtable_desktop.engine.bus import EventBus
from roundtable_desktop.engine.registry import SessionContext
from roundtable_desktop.kinds.negotiation.kind import NEGOTIATION
from roundtable_desktop.kinds.negotiation.offline import OFFLINE_POLICIES
from roundtable_desktop.kinds.negotiation.session import NegotiationSession
from roundtable_desktop.kinds.negotiation.state import PHASES
from roundtable_desktop.llm.client import StreamItem
from roundtable_desktop.llm.offline import OfflineClient, OfflinePolicies, Policy


class RecordingOffline(OfflineClient):
    """The offline model with its own policies (the negotiation's, replaceable per
    purpose), keeping every request it streams."""

    def __init__(self, seed: int = 0) -> None:
        policies = OfflinePolicies()
        for purpose, policy in OFFLINE_POLICIES.items():
            policies.register("negotiation", purpose, policy)
        super().__init__(delay_s=0, seed=seed, policies=policies)
        self.requests: list[ChatRequest] = []

    def answer(self, purpose: str, policy: Policy) -> None:
        self.policies.register("negotiation", purpose, policy)

    def answer_once(self, purpose: str, *texts: str) -> None:
        """Answer the next calls of `purpose` with `texts` in order, then as before."""
        queue = list(texts)
        before = self.policies.find("negotiation", purpose)

        def policy(request: ChatRequest, seed: int) -> str:
            if queue:
                return queue.pop(0)
            assert before is not None
            answer = before(request, seed)
            return answer if isinstance(answer, str) else answer.text

        self.answer(purpose, policy)

    def of(self, purpose: str) -> list[ChatRequest]:
        return [r for r in self.requests if r.purpose == purpose]

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamItem]:
        self.requests.append(request)
        async for item in super().stream(request):
            yield item


@dataclass
class Game:
    session: NegotiationSession
    client: RecordingOffline
    events: list[Event] = field(default_factory=list)

    @property
    def state(self):
        return self.session.state

    def do(self, action_id: str, **kw) -> bool:
        return asyncio.run(self.session.perform(Action(id=action_id, **kw)))

    def edit(self, edit_id: str, **params) -> Edited:
        """A setting or the draft's text, as the docks make it (a Refusal if refused)."""
        return self.session.edit(Edit(id=edit_id, params=params))

    def phases(self) -> list[str]:
        """Sequencer phases entered (a pause at one, "waiting ...", is not an entry)."""
        return [e.phase for e in self.events if isinstance(e, PhaseChanged)
                and e.phase in PHASES and not e.detail.startswith("waiting")]

    def of_type(self, kind: type) -> list:
        return [e for e in self.events if isinstance(e, kind)]


def new_game(scenario: str = "default", *, seed: int = 0, **options) -> Game:
    client = RecordingOffline(seed)
    bus = EventBus()
    ctx = SessionContext(client=client, model="test-model", provider="offline", bus=bus,
                         options=options)
    session = asyncio.run(NEGOTIATION.create(ctx, scenario))
    game = Game(session, client)
    bus.subscribe(game.events.append)
    return game


@pytest.fixture
def game() -> Game:
    return new_game()


@pytest.fixture
def make_game() -> Callable[..., Game]:
    return new_game


@pytest.fixture
def window(qtbot, make_window):  # type: ignore[no-untyped-def]
    """The real window with a negotiation started in it (offscreen, offline model)."""
    # Imported here: the negotiation's engine tests run where Qt is not installed.
    from tests.kinds.negotiation.window_helpers import start_negotiation

    window = make_window()
    start_negotiation(qtbot, window)
    return window
