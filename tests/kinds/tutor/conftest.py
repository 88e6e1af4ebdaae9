"""Fixtures for tutor tests: a session on a cartridge with a scripted or offline model,
every event it emits kept, and a copy of the bundled prompts and cartridges a test may
edit (ROUNDTABLE_BUNDLE_ROOT points at it)."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from roundtable_desktop.domain.events import Event, StateChanged
from roundtable_desktop.engine.base import Action
from roundtable_desktop.kinds.tutor.cartridge import cartridges_dir, load_cartridge
from roundtable_desktop.kinds.tutor.session import TutorSession
from roundtable_desktop.kinds.tutor.state import TutorState
from roundtable_desktop.llm.client import ChatClient
from roundtable_desktop.llm.offline import OfflineClient
from roundtable_desktop.paths import bundle_root

TIP = "too_good_tip"
CHAIN = "urgent_chain_message"
QUOTE = "fake_quote_screenshot"


@pytest.fixture
def bundle(tmp_path, monkeypatch) -> Path:
    """A copy of the tutor's prompts and cartridges that the app reads instead."""
    root = tmp_path / "bundle"
    shutil.copytree(bundle_root() / "prompts" / "tutor", root / "prompts" / "tutor")
    shutil.copytree(bundle_root() / "resources" / "tutor", root / "resources" / "tutor")
    # The CLI opens the mock catalog for every kind.
    mock = Path("resources", "roundtable", "mock")
    shutil.copytree(bundle_root() / mock, root / mock)
    monkeypatch.setenv("ROUNDTABLE_BUNDLE_ROOT", str(root))
    return root


def cartridge_data(name: str = TIP) -> dict[str, Any]:
    return json.loads((cartridges_dir() / f"{name}.json").read_text(encoding="utf-8"))


class Tutor:
    """A session and what it emitted; `say` / `choose` / `step` drive it."""

    def __init__(self, session: TutorSession) -> None:
        self.session = session
        self.events: list[Event] = []
        session.bus.subscribe(self.events.append)

    @property
    def state(self) -> TutorState:
        return self.session.state

    def perform(self, action: Action) -> bool:
        return asyncio.run(self.session.perform(action))

    def choose(self, option: int = 0) -> bool:
        return self.perform(Action(id="send", option=option))

    def say(self, text: str) -> bool:
        return self.perform(Action(id="send", text=text))

    def debrief(self) -> bool:
        return self.perform(Action(id="debrief"))

    def changes(self, part: str) -> list[StateChanged]:
        return [e for e in self.events if isinstance(e, StateChanged) and e.part == part]

    def done_events(self) -> list[dict[str, Any]]:
        return [json.loads(e.detail) for e in self.changes("done")]


def make_tutor(client: ChatClient | None = None, scenario: str = TIP, *,
               provider: str = "offline", model: str = "m", **state: Any) -> Tutor:
    cartridge = load_cartridge(cartridges_dir() / f"{scenario}.json")
    tutor_state = TutorState.start(cartridge, scenario, provider)
    for key, value in state.items():
        setattr(tutor_state, key, value)
    return Tutor(TutorSession(tutor_state, client=client or OfflineClient(delay_s=0),
                              model=model))


@pytest.fixture
def tutor_at_chat():
    """A session past the first (static) phase, in the freeform chat."""

    def make(client: ChatClient | None = None, scenario: str = TIP, **kw: Any) -> Tutor:
        tutor = make_tutor(client, scenario, **kw)
        assert tutor.choose(0)
        return tutor

    return make
