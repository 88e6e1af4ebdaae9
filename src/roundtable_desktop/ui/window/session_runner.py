"""Runs the window's session: starts, reopens and stops it, and performs user actions.

Every piece of engine work is an asyncio task on the qasync loop, held in a registry
(qasync keeps no strong reference to tasks) so Stop, New session and Quit can cancel
and await it. One action runs at a time: while one does, every action but Stop is
offered disabled with the reason, except an action whose ActionSpec says
`while_running` (a human seat's line in a kind that lets people talk over a stream):
the session decides whether it is offered, and it runs as its own task beside the
other. Stop cancels the requests in flight (the partial replies are recorded by the
engine). A session keeps its own seed (engine/launch.py): new settings change the client,
not the seed. Errors become `failed(message, hint)` for the banner;
unexpected exceptions go to sys.excepthook. Must not touch widgets, and must not
reach into protocol internals beyond the SessionProtocol interface and its client.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Signal

from roundtable_desktop.engine.base import Action, ActionSpec, ActionUnavailable
from roundtable_desktop.engine.branching import BranchRefused, BranchRequest, branch_session
from roundtable_desktop.engine.launch import (
    SessionHandle,
    UnknownKind,
    reopen_session,
    start_session,
)
from roundtable_desktop.engine.model_calls import DEFAULT_PARALLEL
from roundtable_desktop.engine.session_settings import SettingsClient, stored_settings
from roundtable_desktop.llm.client import ChatClient
from roundtable_desktop.sources.errors import SourceError
from roundtable_desktop.store.database import SessionStore, StoreError
from roundtable_desktop.ui.bridge import EngineBridge
from roundtable_desktop.ui.task_set import TaskSet, cancel_and_wait, task_failure

log = logging.getLogger(__name__)


@dataclass
class ClientChoice:
    """The model client for the next calls, and what to tell the user about it."""

    client: ChatClient
    model: str
    provider: str
    note: str = ""
    parallel: int = DEFAULT_PARALLEL  # model calls a session may have in flight at once


ClientFactory = Callable[[], ClientChoice]
_EXPECTED = (ActionUnavailable, BranchRefused, UnknownKind, StoreError, SourceError)


class SessionRunner(QObject):
    busyChanged = Signal(bool)
    sessionStarted = Signal(str)  # session id, once the bridge shows it
    clientChanged = Signal()  # offline / endpoint changed
    failed = Signal(str, str, str)  # level, message, hint

    def __init__(
        self, bridge: EngineBridge, *, store: SessionStore,
        client_factory: ClientFactory, parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._bridge = bridge
        self._store = store
        self._client_factory = client_factory
        self._choice = client_factory()
        self._handle: SessionHandle | None = None
        self._tasks = TaskSet(self._on_task_done)
        self._action_task: asyncio.Task[Any] | None = None  # the one that others wait for
        self._side_tasks: set[asyncio.Task[Any]] = set()  # while_running actions
        self._acted = False  # whether the user did anything in the current session
        self._closed = False

    # -- what the window reads ----------------------------------------------------------
    @property
    def handle(self) -> SessionHandle | None:
        return self._handle

    @property
    def store(self) -> SessionStore:
        return self._store

    @property
    def choice(self) -> ClientChoice:
        return self._choice

    @property
    def offline(self) -> bool:
        return bool(getattr(self._choice.client, "offline", False))

    @property
    def busy(self) -> bool:
        return self._tasks.running()

    def tasks(self) -> frozenset[asyncio.Task[Any]]:
        return frozenset(self._tasks)

    def acting(self) -> bool:
        """An action of the user's is running (not a new session or new settings)."""
        return self._action_running() or any(not t.done() for t in self._side_tasks)

    def actions(self) -> list[ActionSpec]:
        """The session's actions while one of ours runs: Stop enabled, an action that may
        run alongside (`while_running`) as the session offers it, the others disabled."""
        if self._handle is None or self._bridge.read_only:
            return []
        specs = self._handle.session.actions()
        if not self.busy:
            return specs
        running = "A step is running: wait for it or press Stop."
        alongside = self.acting()  # not while a session starts or the client changes
        return [
            spec.model_copy(update={"enabled": True, "reason": ""}) if spec.id == "stop"
            else spec if spec.while_running and alongside
            else spec.model_copy(update={"enabled": False, "reason": running})
            for spec in specs
        ]

    # -- doing things ---------------------------------------------------------------------
    def perform(self, action: Action) -> asyncio.Task[Any] | None:
        """Start `action` as a task; Stop happens at once. Refusals go to `failed`."""
        if action.id == "stop":
            self.stop()
            return None
        if self._handle is None or self._bridge.read_only:
            self.failed.emit("warning", "There is no live session to act on.",
                             "Start a new session (Ctrl+N) or leave the replay.")
            return None
        spec = next((s for s in self._handle.session.actions() if s.id == action.id), None)
        alongside = spec is not None and spec.while_running
        if self.acting() and not alongside:
            self.failed.emit("warning", "A step is already running.",
                             "Wait for it, or press Stop (Esc).")
            return None
        if spec is not None and not spec.enabled:
            self.failed.emit("warning", spec.reason or f"{spec.label} is not available now.", "")
            return None
        self._acted = True
        task = self._spawn(self._handle.session.perform(action), f"action {action.id}")
        if alongside:
            self._side_tasks.add(task)
            task.add_done_callback(self._side_tasks.discard)
        else:
            self._action_task = task
        return task

    def stop(self) -> None:
        """Cancel the request in flight and any auto flow; the partial reply is kept."""
        if self._handle is not None:
            self._handle.session.stop()

    def start_new(self, kind: str = "roundtable", scenario: str = "default", *,
                  seed: int | None = None, **options: Any) -> asyncio.Task[Any]:
        """A new session; `seed` is its seed (None: the client's, which Settings chose),
        `options` are the kind's session options (SessionContext)."""
        return self._spawn(self._start_new(kind, scenario, seed, options), "new session")

    def reopen(self, session_id: str) -> asyncio.Task[Any]:
        return self._spawn(self._reopen(session_id), "reopen session")

    def branch(self, session_id: str, step: int) -> asyncio.Task[Any]:
        """Make a branch of a stored session after `step` and run it live."""
        return self._spawn(self._branch(session_id, step), "branch session")

    def rebuild_client(self) -> asyncio.Task[Any]:
        """Use fresh settings for the next call (after the Settings dialog)."""
        return self._spawn(self._rebuild_client(), "apply settings")

    def return_to_live(self) -> None:
        """Leave replay: show the live session again."""
        if self._handle is not None:
            self._bridge.attach(self._handle)
        else:
            self._bridge.detach()

    async def shutdown(self) -> None:
        """Cancel and await all work, write partial replies, release the client."""
        self._closed = True
        await self._cancel_all()
        if self._handle is not None:
            try:
                self._handle.recorder.flush()
            finally:
                self._handle.close()  # another process may continue the session now
            self._discard_if_untouched(self._handle.session_id)
            await self._release(self._handle)
        await self._close_client(self._choice.client)

    # -- internals --------------------------------------------------------------------------
    def _action_running(self) -> bool:
        return self._action_task is not None and not self._action_task.done()

    def _spawn(self, coro: Coroutine[Any, Any, Any], what: str) -> asyncio.Task[Any]:
        was_busy = self.busy
        task = self._tasks.spawn(coro, what)
        if not was_busy:
            self.busyChanged.emit(True)
        return task

    def _on_task_done(self, task: asyncio.Task[Any]) -> None:
        exc = task_failure(task)
        if isinstance(exc, _EXPECTED):
            level = "error" if isinstance(exc, StoreError | SourceError) else "warning"
            self.failed.emit(level, str(exc), _hint_for(exc))
        elif exc is not None:
            sys.excepthook(type(exc), exc, exc.__traceback__)
        if not self.busy:
            self.busyChanged.emit(False)

    async def _cancel_all(self) -> None:
        others = self._tasks.others()
        if self._handle is not None:
            self._handle.session.stop()
        await cancel_and_wait(others)

    async def _start_new(self, kind: str, scenario: str, seed: int | None,
                         options: dict[str, Any]) -> None:
        await self._cancel_all()
        choice = self._choice
        handle = await start_session(kind, store=self._store, client=choice.client,
                                     model=choice.model,
                                     provider=choice.provider, scenario=scenario,
                                     parallel=choice.parallel, seed=seed, **options)
        previous = self._handle
        self._replace(handle)
        await self._release(previous)

    async def _reopen(self, session_id: str) -> None:
        await self._cancel_all()
        handle = reopen_session(session_id, store=self._store, client=self._choice.client,
                                parallel=self._choice.parallel)
        previous = self._handle
        self._replace(handle)
        await self._release(previous)

    async def _branch(self, session_id: str, step: int) -> None:
        await self._cancel_all()
        choice = self._choice
        handle = branch_session(BranchRequest(parent_id=session_id, at=step),
                                store=self._store, client=choice.client,
                                provider=choice.provider, parallel=choice.parallel)
        previous = self._handle
        self._replace(handle)
        await self._release(previous)

    def _replace(self, handle: SessionHandle) -> None:
        previous, acted = self._handle, self._acted
        self._handle, self._acted = handle, False
        self._bridge.attach(handle)
        if previous is not None:
            previous.close()  # the window leaves it: another process may continue it
        if previous is not None and previous.session_id != handle.session_id and not acted:
            self._discard_if_untouched(previous.session_id)
        self.sessionStarted.emit(handle.session_id)

    def _discard_if_untouched(self, session_id: str) -> None:
        """A session opened (at launch, by New session) and never used is no session:
        it is not kept to clutter Replay, Open recent or Past debates."""
        try:
            if not self._store.session_used(session_id):
                self._store.delete_session(session_id)
        except StoreError:
            log.warning("could not discard an unused session", exc_info=True)

    async def _rebuild_client(self) -> None:
        acting = [t for t in (self._action_task, *self._side_tasks)
                  if t is not None and not t.done()]
        if acting:
            await asyncio.gather(*acting, return_exceptions=True)
        old = self._choice
        self._choice = self._client_factory()
        if self._handle is not None:
            session = self._handle.session
            # New settings, same session: it keeps the seed it was made with.
            session.client = SettingsClient.wrap(  # a branch keeps its own model
                self._choice.client.with_seed(self._handle.seed),
                stored_settings(self._store.session_header(self._handle.session_id).meta))
            session.set_parallel(self._choice.parallel)
            # Roundtable sessions name their default model; a new provider means a new name.
            if hasattr(session, "model") and hasattr(session, "provider"):
                session.model = self._choice.model
                session.provider = self._choice.provider
        self.clientChanged.emit()
        if self._choice.note:
            self.failed.emit("warning", self._choice.note,
                             "Open Settings (Ctrl+,) to change the provider.")
        await self._close_client(old.client)

    @staticmethod
    async def _release(handle: SessionHandle | None) -> None:
        """Let a session the window drops release what it holds (servers it started)."""
        if handle is None:
            return
        try:
            await handle.session.aclose()
        except Exception:  # releasing must never block a new session or quitting
            log.warning("releasing the session failed", exc_info=True)

    @staticmethod
    async def _close_client(client: ChatClient) -> None:
        try:
            await client.aclose()
        except Exception:  # closing must never block quitting
            log.warning("closing the model client failed", exc_info=True)


def _hint_for(exc: BaseException) -> str:
    if isinstance(exc, StoreError):
        return "Check that the data folder is writable and the disk is not full."
    if isinstance(exc, SourceError):
        return "The bundled data may be damaged; reinstall, or start a new session."
    if isinstance(exc, UnknownKind):
        return "Choose a kind that is built: the Kind picker lists them."
    return ""
