"""The policies in the Sequencer dock (issue 30 point 4): Observer, Planner and Wait for
speech are check boxes; unticking the observer or the planner leaves its call out of the
requests sent, and the phase strip shows the phase skipped; a line read aloud holds the
turn at SPEAK until it has been read (a fake speaker: no audio), unless Wait for speech
is off, and Stop cuts it short. Offscreen, on the offline model."""

from __future__ import annotations

import pytest

from roundtable_desktop.ui.kinds.negotiation.phase_strip import SKIPPED
from roundtable_desktop.ui.window.session_runner import ClientChoice
from tests.fakes.window_harness import WAIT_MS, perform, wait_idle
from tests.kinds.negotiation.conftest import RecordingOffline
from tests.kinds.negotiation.window_helpers import (
    FakeSpeaker,
    sequencer_dock,
    start_negotiation,
    state_of,
)

pytestmark = pytest.mark.qt


@pytest.fixture
def recorded(qtbot, make_window):  # type: ignore[no-untyped-def]
    """A negotiation in the window on an offline model that keeps every request."""
    client = RecordingOffline()
    window = make_window(lambda: ClientChoice(client, "offline", "offline"), start=False)
    start_negotiation(qtbot, window)
    return window, client


def untick(qtbot, window, name: str) -> None:  # type: ignore[no-untyped-def]
    check = sequencer_dock(window).policies.checks[name]
    assert check.isChecked() and check.isEnabled()
    check.click()
    qtbot.waitUntil(lambda: not getattr(state_of(window).policies, name), timeout=WAIT_MS)
    wait_idle(qtbot, window)


def test_the_sequencer_shows_each_policy_on_by_default(recorded):
    window, _ = recorded
    checks = sequencer_dock(window).policies.checks
    assert set(checks) == {"observer", "planner", "wait_for_speech"}
    assert all(check.isChecked() for check in checks.values())


def test_unticking_the_observer_leaves_its_call_out_and_skips_model(qtbot, recorded):
    window, client = recorded
    untick(qtbot, window, "observer")

    perform(qtbot, window, "take_turn")

    assert state_of(window).turn_count == 1
    assert client.of("observer") == [] and client.of("reply")
    assert sequencer_dock(window).strip.chip_state("KEEPER", "MODEL") == SKIPPED


def test_unticking_the_planner_drafts_without_a_focus(qtbot, recorded):
    window, client = recorded
    untick(qtbot, window, "planner")

    perform(qtbot, window, "take_turn")

    assert state_of(window).turn_count == 1
    assert client.of("planner") == []
    assert "FOCUS_THIS_TURN" not in client.of("reply")[-1].messages[0].content
    assert sequencer_dock(window).strip.chip_state("ALLY", "PLAN") == SKIPPED


def reading_aloud(qtbot, window) -> FakeSpeaker:  # type: ignore[no-untyped-def]
    """A held fake speaker in the dock, and the ALLY reading aloud."""
    dock = sequencer_dock(window)
    fake = FakeSpeaker(hold=True)
    dock.set_speaker(fake)
    dock.seats["ALLY"].speak_check.click()
    qtbot.waitUntil(lambda: state_of(window).sides["ALLY"].speak, timeout=WAIT_MS)
    wait_idle(qtbot, window)
    return fake


def test_a_line_read_aloud_holds_the_turn_until_it_has_been_read(qtbot, recorded):
    window, _ = recorded
    fake = reading_aloud(qtbot, window)

    window.runner.perform(window.runner.handle.session.next_step())
    qtbot.waitUntil(fake.reading, timeout=WAIT_MS)

    state = state_of(window)
    assert state.current is not None and state.current.phase == "SPEAK"
    assert state.turn_count == 0  # not sent while it is read
    assert fake.said == [(state.sides["ALLY"].last_text, None)]
    assert any(spec.id == "stop" and spec.enabled for spec in window.runner.actions())
    fake.finish()
    qtbot.waitUntil(lambda: state_of(window).turn_count == 1, timeout=WAIT_MS)


def test_without_wait_for_speech_the_turn_goes_on_while_the_line_is_read(qtbot, recorded):
    window, _ = recorded
    fake = reading_aloud(qtbot, window)
    untick(qtbot, window, "wait_for_speech")

    perform(qtbot, window, "take_turn")

    assert state_of(window).turn_count == 1 and fake.reading()


def test_stop_cuts_the_reading_short_and_the_line_is_sent(qtbot, recorded):
    window, _ = recorded
    fake = reading_aloud(qtbot, window)

    window.runner.perform(window.runner.handle.session.next_step())
    qtbot.waitUntil(fake.reading, timeout=WAIT_MS)
    window.runner.stop()

    qtbot.waitUntil(lambda: state_of(window).turn_count == 1, timeout=WAIT_MS)
    assert fake.stopped == 1 and not fake.reading()
