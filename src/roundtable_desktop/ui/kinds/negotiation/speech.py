"""Text-to-speech for the negotiation: a side's reply read aloud in the voice chosen for it.

`Speaker` is what the window needs of a speech engine: why it cannot speak ("" when it
can), its voice names, and `say(text, voice)`. `QtSpeaker` wraps QtTextToSpeech: the
module is imported only here and only when asked (on a machine without its audio
library the import itself fails), Qt's test engine ("mock") is never taken for a real
one, and an engine in the Error state or with no voices cannot speak; each case gives
the reason the window shows on the disabled controls. `SpeechReader` reads
`sides[side].last_text` when the engine says StateChanged(part="speak", detail=side)
and that side's `speak` is on, in its `voice`. Tests hand the dock a fake Speaker: no
audio is ever played in tests. Must hold no engine logic.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from roundtable_desktop.domain.events import StateChanged
from roundtable_desktop.kinds.negotiation.state import NegotiationState

TEST_ENGINE = "mock"  # Qt's own test engine: it speaks to nobody


class Speaker(Protocol):
    def unavailable(self) -> str:
        """Why nothing can be read aloud here ("" when it can)."""
        ...

    def voices(self) -> list[str]: ...

    def say(self, text: str, voice: str | None) -> None: ...


class QtSpeaker:
    """QtTextToSpeech behind the Speaker interface; never raises on a machine without it."""

    def __init__(self, *, engines: Callable[[], list[str]] | None = None,
                 allow_test_engine: bool = False) -> None:
        self._tts: Any = None
        self._voices: dict[str, Any] = {}
        self._why = ""
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

    def unavailable(self) -> str:
        return self._why

    def voices(self) -> list[str]:
        return list(self._voices)

    def say(self, text: str, voice: str | None) -> None:
        if self._tts is None or not text.strip():
            return
        chosen = self._voices.get(voice or "")
        if chosen is not None:
            self._tts.setVoice(chosen)
        self._tts.say(text)


class SpeechReader:
    """Reads a side's reply aloud when the engine says it was spoken (SPEAK)."""

    def __init__(self, speaker: Speaker) -> None:
        self.speaker = speaker
        self.spoken: list[tuple[str, str]] = []  # (side, text) read so far (the status)

    def on_event(self, event: object, state: NegotiationState | None) -> bool:
        """Read aloud if `event` is a side's SPEAK and that side speaks; True if read."""
        if state is None or not isinstance(event, StateChanged) or event.part != "speak":
            return False
        side = state.sides.get(event.detail)
        if side is None or not side.speak or not side.last_text.strip():
            return False
        if self.speaker.unavailable():
            return False
        self.speaker.say(side.last_text, side.voice)
        self.spoken.append((side.id, side.last_text))
        return True
