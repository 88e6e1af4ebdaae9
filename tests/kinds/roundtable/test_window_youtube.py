"""The window's meeting searches YouTube with the key saved in Settings (issue 30 point 6):
its candidate source is built from the keyring as the CLI builds it, the Candidates dock
says which source answered, and a failure (quota, a server error) falls back to the mock
catalog, saying why. Against the fake YouTube Data API (a real local server), offscreen."""

from __future__ import annotations

import hashlib

import pytest

from roundtable_desktop.kinds.roundtable.meeting import MeetingState
from roundtable_desktop.kinds.roundtable.sources.source_setup import (
    YOUTUBE_BASE_URL_ENV,
    make_candidate_source,
)
from roundtable_desktop.llm.keys import YOUTUBE_KEY, KeyStore
from roundtable_desktop.ui.kinds.roundtable.candidates_dock import CandidatesDock
from roundtable_desktop.ui.window.session_runner import ClientChoice
from tests.fakes.scripted_model import ScriptedClient
from tests.fakes.window_harness import WAIT_MS, perform, wait_idle
from tests.fakes.youtube_fixture import FakeYouTube, fake_youtube  # noqa: F401

pytestmark = pytest.mark.qt

KEY = "AIzaFAKE-window-youtube-KEY-1234567"
FAKE_IDS = {"Yt0aaaaaaa1", "Yt0aaaaaaa2"}


@pytest.fixture
def yt(fake_youtube: FakeYouTube, monkeypatch) -> FakeYouTube:  # noqa: F811
    """The fake API, reset, with its URL set and a YouTube key saved as Settings saves it."""
    fake_youtube.reset()
    monkeypatch.setenv(YOUTUBE_BASE_URL_ENV, fake_youtube.base_url)
    KeyStore().set(YOUTUBE_KEY, KEY)
    return fake_youtube


def candidates(window) -> CandidatesDock:  # type: ignore[no-untyped-def]
    dock = window.docks["candidatesDock"]
    assert isinstance(dock, CandidatesDock)
    return dock


def meeting_state(window) -> MeetingState:  # type: ignore[no-untyped-def]
    state = window.runner.handle.session.state
    assert isinstance(state, MeetingState)
    return state


def test_a_saved_youtube_key_makes_the_windows_meeting_list_youtube_videos(
    qtbot, make_window, yt
):
    window = make_window()
    dock = candidates(window)

    qtbot.waitUntil(lambda: "from YouTube" in dock.candidates_label.text(), timeout=WAIT_MS)
    assert set(dock.candidate_ids()) >= FAKE_IDS
    assert meeting_state(window).candidate_source == "youtube"
    # Built from the keyring as the CLI builds it (kinds/roundtable/sources/source_setup.py).
    cli_source = make_candidate_source(KeyStore())
    assert window.runner.handle.session.source.status == cli_source.status
    asked = [r for r in yt.requests() if r["path"].endswith("/search")]
    assert asked and all(r["key_header"] and not r["key_in_query"] for r in asked)
    assert {r["key_sha256"] for r in asked} == {hashlib.sha256(KEY.encode()).hexdigest()[:16]}


def test_youtube_over_quota_gives_the_mock_catalog_and_the_dock_says_why(
    qtbot, make_window, yt
):
    yt.set_mode("quota")
    window = make_window()
    dock = candidates(window)

    qtbot.waitUntil(lambda: "from the mock catalog" in dock.candidates_label.text(),
                    timeout=WAIT_MS)
    heading = dock.candidates_label.text()
    assert heading.splitlines()[1].startswith("YouTube failed: the YouTube quota")
    assert "showing mock results" in dock.candidates_label.toolTip()
    assert not FAKE_IDS & set(dock.candidate_ids()) and dock.candidate_ids()
    assert KEY not in heading


def test_a_fetch_youtube_fails_mid_meeting_falls_back_and_says_so(qtbot, make_window, yt):
    script = ScriptedClient('CALL: fetchCandidates("space opera")\nCALL: passTurn()')
    window = make_window(lambda: ClientChoice(script, "m", "local"))
    dock = candidates(window)
    qtbot.waitUntil(lambda: "from YouTube" in dock.candidates_label.text(), timeout=WAIT_MS)

    yt.set_mode("server_error")
    perform(qtbot, window, "infer")
    perform(qtbot, window, "run_tools")
    wait_idle(qtbot, window)

    qtbot.waitUntil(lambda: "from the mock catalog for “space opera”"
                    in dock.candidates_label.text(), timeout=WAIT_MS)
    assert "YouTube failed" in dock.candidates_label.text()
    assert meeting_state(window).candidate_notice.startswith("YouTube failed")
