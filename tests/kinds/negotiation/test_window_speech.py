"""Text-to-speech in the Sequencer: with no speech engine the voice controls are disabled
and say why; with one (a fake speaker: no audio in tests) a side whose "Read aloud" is on
has its reply read in its chosen voice when it is spoken, and a silent side is not."""

from __future__ import annotations

import pytest

from roundtable_desktop.ui.kinds.negotiation.speech import QtSpeaker
from tests.fakes.window_harness import (
    WAIT_MS,
    perform,
    wait_idle,
)
from tests.kinds.negotiation.window_helpers import (
    FakeSpeaker,
    sequencer_dock,
    state_of,
)

pytestmark = pytest.mark.qt


def choose_voice(seat, name: str) -> None:  # type: ignore[no-untyped-def]
    """Pick `name` in the seat's voice list as the user does (activated)."""
    index = seat.voice_combo.findData(name)
    assert index >= 0, f"no voice {name!r}"
    seat.voice_combo.setCurrentIndex(index)
    seat.voice_combo.activated.emit(index)


def test_with_no_speech_engine_qt_speaker_says_why_it_cannot_speak():
    speaker = QtSpeaker(engines=lambda: [])

    assert "speech" in speaker.unavailable().lower()
    assert speaker.voices() == []


def test_qts_test_engine_is_not_taken_for_a_real_one():
    speaker = QtSpeaker(engines=lambda: ["mock"])

    assert speaker.unavailable()


def test_with_no_speech_engine_the_voice_controls_are_disabled_with_the_reason(window):
    dock = sequencer_dock(window)

    dock.set_speaker(QtSpeaker(engines=lambda: []))

    for seat in dock.seats.values():
        assert not seat.voice_combo.isEnabled()
        assert not seat.speak_check.isEnabled()
        assert "speech" in seat.speak_check.toolTip().lower()
        assert seat.speak_check.toolTip() == dock.reader.speaker.unavailable()


def test_with_a_speech_engine_each_side_offers_its_voices(window):
    dock = sequencer_dock(window)

    dock.set_speaker(FakeSpeaker(("Alto", "Basso")))

    seat = dock.seats["KEEPER"]
    assert seat.voice_combo.isEnabled() and seat.speak_check.isEnabled()
    assert [seat.voice_combo.itemData(i) for i in range(seat.voice_combo.count())] == [
        "", "Alto", "Basso"]


def test_a_side_reading_aloud_has_its_reply_read_in_its_voice(qtbot, window):
    dock = sequencer_dock(window)
    fake = FakeSpeaker(("Alto", "Basso"))
    dock.set_speaker(fake)
    ally = dock.seats["ALLY"]
    choose_voice(ally, "Basso")
    qtbot.waitUntil(lambda: state_of(window).sides["ALLY"].voice == "Basso", timeout=WAIT_MS)
    wait_idle(qtbot, window)
    ally.speak_check.click()
    qtbot.waitUntil(lambda: state_of(window).sides["ALLY"].speak, timeout=WAIT_MS)
    wait_idle(qtbot, window)

    perform(qtbot, window, "take_turn")

    qtbot.waitUntil(lambda: bool(fake.said), timeout=WAIT_MS)
    assert fake.said == [(state_of(window).sides["ALLY"].last_text, "Basso")]


def test_a_silent_side_is_not_read_aloud(qtbot, window):
    dock = sequencer_dock(window)
    fake = FakeSpeaker()
    dock.set_speaker(fake)
    dock.seats["KEEPER"].speak_check.click()  # KEEPER reads aloud, ALLY does not
    qtbot.waitUntil(lambda: state_of(window).sides["KEEPER"].speak, timeout=WAIT_MS)
    wait_idle(qtbot, window)

    perform(qtbot, window, "take_turn")  # ALLY's turn

    assert state_of(window).sides["ALLY"].last_text
    assert fake.said == []
