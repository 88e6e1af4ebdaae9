"""The asyncio tasks one part of the window started (the session runner, the MCP
controllers, a dock acting beside a turn): `TaskSet` keeps each until it is done (the
event loop holds tasks only weakly), then hands it to the owner's `done(task)`;
`task_failure(task)` is what a finished task raised; `cancel_and_wait` stops tasks and
waits until they have. Must hold no engine logic.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection, Coroutine, Iterator
from typing import Any

Task = asyncio.Task[Any]


def task_failure(task: Task) -> BaseException | None:
    """What a finished task raised (None when it returned or was cancelled)."""
    return None if task.cancelled() else task.exception()


async def cancel_and_wait(tasks: Collection[Task]) -> None:
    for task in tasks:
        task.cancel()
    if tasks:
        await asyncio.wait(tasks)


class TaskSet:
    def __init__(self, done: Callable[[Task], None]) -> None:
        self._tasks: set[Task] = set()
        self._done = done

    def spawn(self, coro: Coroutine[Any, Any, Any], name: str) -> Task:
        task = asyncio.ensure_future(coro)
        task.set_name(name)
        self._tasks.add(task)
        task.add_done_callback(self._on_task_done)
        return task

    def __iter__(self) -> Iterator[Task]:
        return iter(frozenset(self._tasks))

    def running(self) -> bool:
        return any(not t.done() for t in self._tasks)

    def others(self) -> list[Task]:
        """The tasks still running, but the one asking (a task that stops the others)."""
        current = asyncio.current_task()
        return [t for t in self._tasks if t is not current and not t.done()]

    def cancel(self) -> None:
        """Cancel every task (without waiting)."""
        for task in list(self._tasks):
            task.cancel()

    def _on_task_done(self, task: Task) -> None:
        self._tasks.discard(task)
        self._done(task)
