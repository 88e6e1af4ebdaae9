"""Reading a side's line aloud at SPEAK, and holding the sequencer until it has been read
(seed 000: `speakAI` awaits `speakTTS` before SEND).

The window hands the session a `VoiceOut` (ui/kinds/negotiation/speech.py, over Qt's
text-to-speech); the CLI hands none, so nothing is read and nothing waits. `SpeechHold`
starts the reading and, when the policy says so, waits for it: at most SPEECH_LIMIT_S (a
speech engine that never says it finished must not stall the game), and no longer than
until Stop (`release`). Must not import Qt, emit events or change the state.
"""

from __future__ import annotations

import asyncio
from typing import Protocol

SPEECH_LIMIT_S = 120.0


class VoiceOut(Protocol):
    def read_aloud(self, text: str, voice: str | None) -> asyncio.Future[None]:
        """Start reading `text` in `voice` (None: the engine's default); the future is
        done once it has been read (at once when nothing can speak). Cancelling the
        future stops the reading."""
        ...


class SpeechHold:
    """Where the session's line is read aloud, and the wait for it."""

    def __init__(self) -> None:
        self.out: VoiceOut | None = None
        self._reading: asyncio.Future[None] | None = None

    @property
    def holding(self) -> bool:
        """The sequencer is waiting for a line to be read."""
        return self._reading is not None

    def release(self) -> None:
        """Stop: cut the reading short; the sequencer goes on."""
        if self._reading is not None and not self._reading.done():
            self._reading.cancel()

    async def read(self, text: str, voice: str | None, *, wait: bool,
                   limit_s: float = SPEECH_LIMIT_S) -> bool:
        """Read `text` aloud if a voice is attached; wait for it when `wait`. False only
        when the wait ran past `limit_s` (the reading goes on; the sequencer does not)."""
        if self.out is None or not text.strip():
            return True
        reading = self.out.read_aloud(text, voice)
        if not wait:
            return True
        self._reading = reading
        try:
            done, _ = await asyncio.wait({reading}, timeout=limit_s)
        finally:
            self._reading = None
        return bool(done)
