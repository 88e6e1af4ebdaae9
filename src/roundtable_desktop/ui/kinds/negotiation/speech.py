"""Text-to-speech for the negotiation: a side's reply read aloud in the voice chosen for it.

`Speaker` is what the window needs of a speech engine: why it cannot speak ("" when it
can), its voice names, `say(text, voice, finished)` (calls `finished()` once the text has
been read) and `stop()`. `QtSpeaker` wraps QtTextToSpeech: the module is imported only
here and only when asked (on a machine without its audio library the import itself
fails), Qt's test engine ("mock") is never taken for a real one, and an engine in the
Error state or with no voices cannot speak; each case gives the reason the window shows
on the disabled controls. `SpeechReader` is the session's voice (the engine's
`VoiceOut`, kinds/negotiation/speech_hold.py): the session calls `read_aloud` at SPEAK
for a side whose `speak` is on, and waits on the future it returns when the policy
`wait_for_speech` is on; cancelling the future (Stop) stops the reading. Tests hand the
dock a fake Speaker: no audio is ever played in tests. Must hold no engine logic.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Protocol

TEST_ENGINE = "mock"  # Qt's own test engine: it speaks to nobody


class Speaker(Protocol):
    def unavailable(self) -> str:
        """Why nothing can be read aloud here ("" when it can)."""
        ...

    def voices(self) -> list[str]: ...

    def say(self, text: str, voice: str | None, finished: Callable[[], None]) -> None:
        """Read `text` aloud; call `finished()` once it has been read or was stopped."""
        ...

    def stop(self) -> None: ...


class QtSpeaker:
    """QtTextToSpeech behind the Speaker interface; never raises on a machine without it."""

    def __init__(self, *, engines: Callable[[], list[str]] | None = None,
                 allow_test_engine: bool = False) -> None:
        self._tts: Any = None
        self._voices: dict[str, Any] = {}
        self._why = ""
        self._finished: Callable[[], None] | None = None  # the reading under way
        self._started = False  # the engine has begun speaking it
        try:
            from PySide6.QtTextToSpeech import QTextToSpeech
        except ImportError as exc:  # e.g. libpulse missing: Qt's speech module cannot load
            self._why = (f"Text-to-speech cannot load on this machine ({exc}); install the "
                         "system's audio library and a speech engine (speech-dispatcher).")
            return
        names = (engines or QTextToSpeech.availableEngines)()
        real = [n for n in names if allow_test_engine or n != TEST_ENGINE]
        if not real:
            self._why = ("No speech engine is installed (Qt found "
                         + (", ".join(names) if names else "none") + "); install one, e.g. "
                         "speech-dispatcher, to read the replies aloud.")
            return
        tts = QTextToSpeech(real[0])
        if tts.state() == QTextToSpeech.State.Error:
            detail = tts.errorString() or "it is in an error state"
            self._why = f"The speech engine {real[0]!r} cannot speak: {detail}."
            return
        self._voices = {voice.name(): voice for voice in tts.availableVoices()}
        if not self._voices:
            self._why = f"The speech engine {real[0]!r} offers no voices."
            return
        self._tts = tts
        self._speaking_state = QTextToSpeech.State.Speaking
        tts.stateChanged.connect(self._on_tts_state_changed)

    def unavailable(self) -> str:
        return self._why

    def voices(self) -> list[str]:
        return list(self._voices)

    def say(self, text: str, voice: str | None, finished: Callable[[], None]) -> None:
        if self._tts is None or not text.strip():
            finished()
            return
        self._finish()  # a new line cuts the one before short
        chosen = self._voices.get(voice or "")
        if chosen is not None:
            self._tts.setVoice(chosen)
        self._finished, self._started = finished, False
        self._tts.say(text)

    def stop(self) -> None:
        if self._tts is not None:
            self._tts.stop()
        self._finish()

    def _finish(self) -> None:
        finished, self._finished = self._finished, None
        if finished is not None:
            finished()

    def _on_tts_state_changed(self, state: object) -> None:
        if state == self._speaking_state:
            self._started = True
        elif self._started:  # Ready, Paused or Error after speaking: the reading is over
            self._finish()


class SpeechReader:
    """The session's voice: reads a side's line aloud with the window's speech engine."""

    def __init__(self, speaker: Speaker) -> None:
        self.speaker = speaker
        self.spoken: list[tuple[str, str | None]] = []  # (text, voice) read so far

    def read_aloud(self, text: str, voice: str | None) -> asyncio.Future[None]:
        """Start reading `text`; the future is done once it has been read (at once when
        nothing can speak here). Cancelling it stops the reading."""
        read: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        if self.speaker.unavailable():
            read.set_result(None)
            return read
        read.add_done_callback(self._on_read_done)
        self.spoken.append((text, voice))
        self.speaker.say(text, voice, lambda: None if read.done() else read.set_result(None))
        return read

    def _on_read_done(self, read: asyncio.Future[None]) -> None:
        if read.cancelled():  # Stop: the reading is cut short
            self.speaker.stop()
