"""The `live_panel` helper: a recorded session of the test panel kind attached to a bridge.

Two AI panelists answer each round at once (two concurrent calls), so it is how the
shared widgets are tested with several live streams. The session is started with
`asyncio.run` before any qasync loop runs (it holds nothing bound to a loop). Drive it
with `panel.act("ask")` (asyncio.run: the bus delivers synchronously, the widgets get
every signal during the run) or, on a running qasync loop, with `panel.start("ask")`
(a task; `qtbot.waitUntil` watches it mid-stream). A ScriptedClient's `hold` stops both
streams after their first word until it is set. The test module registers the kind
(`register_kind(PANEL)`) around its tests.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from roundtable_desktop.engine.base import Action
from roundtable_desktop.engine.launch import SessionHandle, start_session
from roundtable_desktop.llm.client import ChatClient
from roundtable_desktop.store.database import SessionStore
from roundtable_desktop.ui.bridge import EngineBridge
from tests.fakes.panel_kind import PanelSession


@dataclass
class LivePanel:
    store: SessionStore
    handle: SessionHandle
    bridge: EngineBridge

    @property
    def session(self) -> PanelSession:
        assert isinstance(self.handle.session, PanelSession)
        return self.handle.session

    def act(self, action_id: str, **kw: object) -> bool:
        return asyncio.run(self.session.perform(Action(id=action_id, **kw)))

    def start(self, action_id: str, **kw: object) -> asyncio.Task[bool]:
        """The action as a task on the running (qasync) loop."""
        return asyncio.ensure_future(self.session.perform(Action(id=action_id, **kw)))

    def close(self) -> None:
        self.bridge.detach(emit=False)
        self.store.close()


def start_live_panel(db_path: Path, client: ChatClient, *, parallel: int = 4) -> LivePanel:
    store = SessionStore.open(db_path)
    handle = asyncio.run(start_session("panel", store=store, client=client, model="m",
                                       provider="offline", parallel=parallel))
    bridge = EngineBridge()
    bridge.attach(handle)
    return LivePanel(store=store, handle=handle, bridge=bridge)
