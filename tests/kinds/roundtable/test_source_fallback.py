"""YouTube with the mock catalog behind it: which source answers, what a failure shows,
and that a YouTube key never reaches the store, exports or output of a CLI meeting."""

from __future__ import annotations

import asyncio

import pytest

from roundtable_desktop.cli.main import main
from roundtable_desktop.context.payload import serialize
from roundtable_desktop.domain.tools import Arg, ToolCall, ToolStatus
from roundtable_desktop.kinds.roundtable.document import build_roundtable_document
from roundtable_desktop.kinds.roundtable.meeting import MeetingState
from roundtable_desktop.kinds.roundtable.sources.fallback import FallbackSource
from roundtable_desktop.kinds.roundtable.sources.mock_catalog import MockCatalog
from roundtable_desktop.kinds.roundtable.sources.source_setup import (
    YOUTUBE_BASE_URL_ENV,
    make_candidate_source,
)
from roundtable_desktop.kinds.roundtable.sources.youtube import YouTubeSource
from roundtable_desktop.kinds.roundtable.tool_executor import execute_calls
from roundtable_desktop.llm.keys import YOUTUBE_KEY, KeyStore
from roundtable_desktop.store.database import SessionStore
from tests.fakes.youtube_fixture import FakeYouTube, fake_youtube  # noqa: F401

KEY = "AIzaFAKE-youtube-SECRET-0987654321"


@pytest.fixture
def yt(fake_youtube: FakeYouTube) -> FakeYouTube:  # noqa: F811
    fake_youtube.reset()
    return fake_youtube


@pytest.fixture
def source(yt: FakeYouTube, catalog: MockCatalog) -> FallbackSource:
    return FallbackSource(YouTubeSource(KEY, base_url=yt.base_url), catalog)


def search(source, query: str | None = "llm"):
    return asyncio.run(source.search(query))


def fetch(state: MeetingState, source, query: str = "space opera"):
    call = ToolCall(name="fetchCandidates", args=[Arg(value=query)])
    report = asyncio.run(execute_calls(state, state.actors[0].id, [call], source=source))
    return report.results[0]


# -- which source answers -----------------------------------------------------------------


def test_without_a_youtube_key_the_mock_catalog_answers():
    source = make_candidate_source(KeyStore())
    assert source.primary is None and source.name == "mock"
    assert source.status == "mock catalog (no YouTube key)"
    assert search(source).source == "mock"


def test_with_a_youtube_key_youtube_answers(yt, monkeypatch):
    KeyStore().set(YOUTUBE_KEY, KEY)
    monkeypatch.setenv(YOUTUBE_BASE_URL_ENV, yt.base_url)
    source = make_candidate_source(KeyStore())
    assert source.name == "youtube"
    assert search(source).source == "youtube"
    assert KEY not in repr(source.primary)


def test_a_youtube_key_from_the_environment_counts(yt, monkeypatch):
    monkeypatch.setenv("ROUNDTABLE_YOUTUBE_KEY", KEY)
    monkeypatch.setenv(YOUTUBE_BASE_URL_ENV, yt.base_url)
    assert search(make_candidate_source(KeyStore())).source == "youtube"


# -- falling back -------------------------------------------------------------------------


def test_a_youtube_failure_gives_mock_results_and_says_why(yt, source):
    yt.set_mode("quota")
    result = search(source)
    assert result.source == "mock" and result.candidates
    assert result.notice.startswith("YouTube failed: the YouTube quota of this API key")
    assert result.notice.endswith("; showing mock results.")
    assert KEY not in result.notice


def test_a_lasting_failure_switches_youtube_off_for_the_session(yt, source):
    yt.set_mode("invalid_key")
    search(source)
    asked = len(yt.requests())
    result = search(source)
    assert len(yt.requests()) == asked
    assert result.notice.startswith("YouTube is off for this session: YouTube rejected")
    assert source.status.startswith("mock catalog (YouTube is off:")


def test_a_passing_failure_tries_youtube_again_next_time(yt, source):
    yt.set_mode("server_error")
    assert search(source).source == "mock"
    yt.set_mode("ok")
    assert search(source).source == "youtube"


def test_an_empty_starting_list_from_youtube_falls_back(yt, source):
    yt.set_mode("empty")
    result = search(source, None)
    assert result.source == "mock" and result.candidates
    assert "returned no starting list" in result.notice


def test_a_query_youtube_finds_nothing_for_keeps_the_meetings_list(yt, source, meeting_state):
    yt.set_mode("empty")
    before = list(meeting_state.candidates)
    result = fetch(meeting_state, source)
    assert result.status == ToolStatus.ERROR and "no candidates found" in result.message
    assert meeting_state.candidates == before


def test_a_fallback_fetch_replaces_the_list_and_the_context_window_names_mock(
    yt, source, meeting_state
):
    yt.set_mode("quota")
    meeting_state.candidate_source = "youtube"
    result = fetch(meeting_state, source)
    assert result.status == ToolStatus.OK
    assert "from mock (YouTube failed:" in result.message
    assert meeting_state.candidate_source == "mock"
    document = serialize(build_roundtable_document(meeting_state, protocol_text="",
                                                   tool_lines=[]))
    assert '(source: mock for "space opera")' in document


def test_a_bug_in_youtube_falls_back_without_its_text(catalog):
    class Broken:
        name = "youtube"

        async def search(self, query, limit=12):
            raise RuntimeError(f"GET https://x?key={KEY}")

        def lookup(self, video_id):
            return None

    result = search(FallbackSource(Broken(), catalog))
    assert result.source == "mock" and "unexpectedly (RuntimeError)" in result.notice
    assert KEY not in result.notice


def test_details_fall_back_to_what_is_known(yt, source):
    yt.set_mode("server_error")
    assert asyncio.run(source.details("qFJWe2aQrry")).source == "mock"


# -- the key stays secret in a whole CLI meeting ------------------------------------------


def _scan_for_key(tmp_path, isolated_home, db, outputs: list[str]) -> list[str]:
    for fmt in ("html", "md", "json"):
        main(["export", "--db", str(db), "--format", fmt, "--out", str(tmp_path / f"e.{fmt}")])
    files = [p for p in [*tmp_path.rglob("*"), *isolated_home.rglob("*")] if p.is_file()]
    hits = [str(p) for p in files if KEY.encode() in p.read_bytes()]
    return hits + [text[:60] for text in outputs if KEY in text]


@pytest.mark.parametrize("mode", ["ok", "quota"])
def test_a_cli_meeting_with_a_youtube_key_never_writes_the_key(
    yt, mode, tmp_path, monkeypatch, capsys, isolated_home
):
    yt.set_mode(mode)
    monkeypatch.setenv("ROUNDTABLE_YOUTUBE_KEY", KEY)
    monkeypatch.setenv(YOUTUBE_BASE_URL_ENV, yt.base_url)
    db = tmp_path / "s.sqlite3"
    code = main(["run", "--offline", "--turns", "6", "--delay", "0", "--db", str(db)])
    captured = capsys.readouterr()
    assert code == 0
    assert yt.requests() and all(r["key_header"] == "***" for r in yt.requests())
    with SessionStore.open(db) as store:
        meeting = store.get_session(store.latest_session_id()).state["meeting"]
    used = {c["source"] for c in meeting["candidates"]}
    assert used == ({"youtube"} if mode == "ok" else {"mock"})
    assert _scan_for_key(tmp_path, isolated_home, db, [captured.out, captured.err]) == []
