"""When a minion's reply posts: in the order and at the pace the minions predicted.

One `ReplyRound` holds the minions answering one message. Each tells the round its
predicted response time once it has a plan (`planned`); its reply, once written, waits
(`wait_turn`) until the time is due (the message's arrival + predicted time × the
session's speed factor, read live, so the slider acts on replies already waiting) and
every minion of the round that predicted a sooner reply (or has not planned yet) has
posted or dropped out (`leave`: silent, failed, done). So replies appear in predicted
order whatever order their model calls finish in; with speed 0 they still keep that
order, only without the wait. `hurry()` true (the user pressed Stop) posts at once.
Must not call models, touch the state or import Qt.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable

RECHECK_S = 0.2  # a waiting reply re-reads the speed factor this often


class ReplyRound:
    def __init__(self, members: list[str], *, speed: Callable[[], float],
                 hurry: Callable[[], bool] = lambda: False,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self._order = {name: index for index, name in enumerate(members)}
        self._predicted: dict[str, int | None] = dict.fromkeys(members)
        self._speed = speed
        self._hurry = hurry
        self._clock = clock
        self.started = clock()
        self._changed = asyncio.Event()

    def planned(self, minion: str, predicted_ms: int) -> None:
        """The minion plans to answer, in `predicted_ms` (its latest plan's time)."""
        if minion in self._predicted:
            self._predicted[minion] = max(0, predicted_ms)
            self._wake()

    def leave(self, minion: str) -> None:
        """The minion posted, stayed silent or failed: nobody waits for it any more."""
        self._predicted.pop(minion, None)
        self._wake()

    def due_in(self, minion: str) -> float:
        """Seconds until the minion's predicted time is due (0 or less: due)."""
        ms = self._predicted.get(minion) or 0
        return self.started + ms / 1000 * max(0.0, self._speed()) - self._clock()

    def waiting_for(self, minion: str) -> list[str]:
        """The minions still to post before it: not planned yet, or predicted sooner."""
        mine = self._key(minion)
        return [other for other, ms in self._predicted.items()
                if other != minion and (ms is None or self._key(other) < mine)]

    async def wait_turn(self, minion: str) -> None:
        """Return when the minion's reply may post."""
        while not self._hurry():
            before = self.waiting_for(minion)
            left = self.due_in(minion)
            if not before and left <= 0:
                return
            self._changed.clear()
            timeout = RECHECK_S if before else min(left, RECHECK_S)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), timeout=timeout)

    def _key(self, minion: str) -> tuple[int, int]:
        return (self._predicted.get(minion) or 0, self._order.get(minion, 0))

    def _wake(self) -> None:
        self._changed.set()
