"""The `live_meeting` fixture: a recorded offline roundtable attached to an EngineBridge.

The meeting runs on the offline model with no delay and the mock catalog, recorded in
a store under the test's tmp dir, exactly as the window runs it. Actions are driven with
`asyncio.run` (no qasync loop is needed: the bus delivers synchronously, so the bridge's
signals reach the docks during the run). A test module makes its own fixture:
`meeting = start_live_meeting(tmp_path / "s.sqlite3")`, then `meeting.close()`.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from roundtable_desktop.engine.base import Action
from roundtable_desktop.engine.launch import SessionHandle, start_session
from roundtable_desktop.kinds.roundtable.meeting import MeetingState
from roundtable_desktop.kinds.roundtable.session import RoundtableSession
from roundtable_desktop.kinds.roundtable.sources.mock_catalog import MockCatalog
from roundtable_desktop.llm.offline import OfflineClient
from roundtable_desktop.store.database import SessionStore
from roundtable_desktop.ui.bridge import EngineBridge


@dataclass
class LiveMeeting:
    store: SessionStore
    handle: SessionHandle
    bridge: EngineBridge

    @property
    def session(self) -> RoundtableSession:
        assert isinstance(self.handle.session, RoundtableSession)
        return self.handle.session

    @property
    def state(self) -> MeetingState:
        return self.session.state

    def act(self, action_id: str, **kw: object) -> None:
        asyncio.run(self.session.perform(Action(id=action_id, **kw)))

    def step(self) -> None:
        """What a user clicks next (the session says which action that is)."""
        step = self.session.next_step()
        self.act(step.id if step is not None else "next_turn")

    def drive_turns(self, turns: int) -> None:
        last = self.state.turn + turns
        while not self.session.ended and self.state.turn < last:
            self.step()

    def close(self) -> None:
        self.bridge.detach(emit=False)
        self.store.close()


def start_live_meeting(db_path: Path) -> LiveMeeting:
    store = SessionStore.open(db_path)
    handle = asyncio.run(
        start_session(
            "roundtable", store=store, client=OfflineClient(delay_s=0),
            candidate_source=MockCatalog.load(), model="offline", provider="offline",
        )
    )
    bridge = EngineBridge()
    bridge.attach(handle)
    return LiveMeeting(store=store, handle=handle, bridge=bridge)

