"""The YouTube Data API v3 source, against a fake YouTube server in its own process:
search.list then videos.list fill every candidate field; every failure is one clear
sentence; the key travels only in a header and never shows up anywhere."""

from __future__ import annotations

import asyncio
import hashlib
import socket

import httpx
import pytest

from roundtable_desktop.kinds.roundtable.sources.video_fields import date_only, iso_duration
from roundtable_desktop.kinds.roundtable.sources.youtube import YouTubeError, YouTubeSource
from tests.fakes.youtube_fixture import FakeYouTube, fake_youtube  # noqa: F401

KEY = "AIzaFAKE-youtube-SECRET-1234567890"


@pytest.fixture
def yt(fake_youtube: FakeYouTube) -> FakeYouTube:  # noqa: F811
    fake_youtube.reset()
    return fake_youtube


def source_for(yt: FakeYouTube, **options) -> YouTubeSource:
    return YouTubeSource(KEY, base_url=yt.base_url, **options)


def search(source: YouTubeSource, query: str | None = "llm", limit: int = 12):
    return asyncio.run(source.search(query, limit))


def failure(source: YouTubeSource, query: str | None = "llm") -> YouTubeError:
    with pytest.raises(YouTubeError) as caught:
        search(source, query)
    return caught.value


# -- fields -------------------------------------------------------------------------------


def test_search_fills_every_candidate_field(yt):
    first = search(source_for(yt)).candidates[0]
    assert first.model_dump() == {
        "id": "Yt0aaaaaaa1",
        "title": "Transformers, explained: attention you can draw",
        "channel": "Fake Lab",
        "duration": "1:02:03",
        "published": "2025-02-03",
        "thumbnail_url": "https://i.ytimg.invalid/vi/Yt0aaaaaaa1/mqdefault.jpg",
        "description": "A visual walk through attention for web developers.",
        "source": "youtube",
        "tags": ["llm", "transformers"],
    }


def test_results_keep_youtubes_order_and_say_they_came_from_youtube(yt):
    result = search(source_for(yt))
    assert result.source == "youtube"
    assert [c.id for c in result.candidates] == [
        "Yt0aaaaaaa1", "Yt0aaaaaaa2", "Yt0aaaaaaa3", "Yt0aaaaaaa4"]


def test_titles_from_videos_list_are_taken_verbatim(yt):
    second = search(source_for(yt)).candidates[1]
    assert second.title == "Don't ship that prompt: evals for LLM apps"
    assert second.duration == "14:05"


def test_a_live_stream_has_an_unknown_duration(yt):
    assert search(source_for(yt)).candidates[2].duration == ""


def test_a_video_missing_from_videos_list_keeps_its_unescaped_search_snippet(yt):
    last = search(source_for(yt)).candidates[3]
    assert last.title == "CSS container queries & you in 45 seconds"
    assert last.description == "Short & sweet."
    assert (last.duration, last.published) == ("", "2025-01-10")


def test_lookup_answers_from_videos_this_source_returned(yt):
    source = source_for(yt)
    assert source.lookup("Yt0aaaaaaa2") is None
    search(source)
    assert source.lookup("Yt0aaaaaaa2").channel == "Eval Corner"


def test_details_fetches_one_video_by_id(yt):
    found = asyncio.run(source_for(yt).details("Yt0aaaaaaa1"))
    assert found is not None and found.duration == "1:02:03"
    assert yt.requests()[-1]["params"]["id"] == "Yt0aaaaaaa1"


def test_no_results_is_an_empty_list_not_an_error(yt):
    yt.set_mode("empty")
    assert search(source_for(yt)).candidates == []


# -- the requests -------------------------------------------------------------------------


def test_search_then_videos_are_asked_with_the_documented_parameters(yt):
    search(source_for(yt), "rust web", limit=7)
    first, second = yt.requests()
    assert first["path"] == "/youtube/v3/search"
    assert first["params"] == {"part": "snippet", "type": "video", "q": "rust web",
                               "maxResults": "7"}
    assert second["path"] == "/youtube/v3/videos"
    assert second["params"]["part"] == "snippet,contentDetails"
    assert second["params"]["id"] == "Yt0aaaaaaa1,Yt0aaaaaaa2,Yt0aaaaaaa3,Yt0aaaaaaa4"


def test_the_key_is_sent_in_the_header_and_never_in_the_url(yt):
    search(source_for(yt))
    digest = hashlib.sha256(KEY.encode()).hexdigest()[:16]
    for request in yt.requests():
        assert request["key_header"] == "***" and request["key_sha256"] == digest
        assert request["key_in_query"] is False


def test_no_query_asks_for_the_default_starting_query(yt):
    search(source_for(yt, default_query="llm|sf"), None)
    assert yt.requests()[0]["params"]["q"] == "llm|sf"


def test_the_limit_is_capped_at_the_apis_maximum(yt):
    search(source_for(yt), limit=500)
    assert yt.requests()[0]["params"]["maxResults"] == "50"


# -- failures -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "says", "lasting"),
    [
        ("quota", "quota of this API key is used up", True),
        ("daily_limit", "quota of this API key is used up", True),
        ("invalid_key", "rejected the API key as invalid", True),
        ("forbidden", "refused this API key (forbidden)", True),
        ("server_error", "server error (HTTP 500)", False),
        ("malformed", "search reply that is not the expected JSON", False),
        ("videos_malformed", "videos reply that is not the expected JSON", False),
    ],
)
def test_each_failure_is_one_clear_sentence_without_the_key(yt, mode, says, lasting):
    yt.set_mode(mode)
    error = failure(source_for(yt))
    message = str(error)
    assert says in message
    assert error.lasting is lasting
    assert KEY not in message and KEY not in repr(error) and "http" not in message
    assert message.endswith(".") and "\n" not in message


def test_network_down_says_youtube_cannot_be_reached():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    source = YouTubeSource(KEY, base_url=f"http://127.0.0.1:{port}/youtube/v3")
    message = str(failure(source))
    assert message.startswith("Could not reach YouTube") and KEY not in message


def test_a_slow_answer_trips_the_read_timeout(yt):
    yt.set_mode("slow", delay_s=3)
    source = source_for(yt, timeout=httpx.Timeout(5.0, read=0.2))
    assert "did not answer in time" in str(failure(source))


def test_the_deadline_covers_the_whole_search(yt):
    yt.set_mode("slow", delay_s=3)
    source = source_for(yt, deadline_s=0.2)
    assert "did not answer within 0.2 s" in str(failure(source))


def test_a_key_with_impossible_characters_is_refused_without_a_request(yt):
    source = YouTubeSource("bad key\nwith newline", base_url=yt.base_url)
    error = failure(source)
    assert "characters an API key cannot have" in str(error) and error.lasting
    assert "newline" not in str(error)
    assert yt.requests() == []


def test_items_that_are_not_a_list_are_malformed():
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"items": {"id": "x"}})

    source = YouTubeSource(KEY, transport=httpx.MockTransport(answer))
    assert "without a list of items" in str(failure(source))


def test_search_items_without_a_usable_id_are_skipped():
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/search"):
            return httpx.Response(200, json={"items": [
                {"id": {"videoId": "bad id!"}, "snippet": {"title": "x"}},
                {"id": {"videoId": "good_id_001"}, "snippet": {"title": "Good &amp; kept"}},
                "not an object",
            ]})
        return httpx.Response(200, json={"items": []})

    result = asyncio.run(YouTubeSource(KEY, transport=httpx.MockTransport(answer)).search("q"))
    assert [(c.id, c.title) for c in result.candidates] == [("good_id_001", "Good & kept")]


def test_repr_hides_the_key():
    assert KEY not in repr(YouTubeSource(KEY)) and "hidden" in repr(YouTubeSource(KEY))


# -- field parsing ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("iso", "shown"),
    [
        ("PT1H2M3S", "1:02:03"),
        ("PT4M5S", "4:05"),
        ("PT45S", "0:45"),
        ("PT10H", "10:00:00"),
        ("P1DT2H", "26:00:00"),
        ("P0D", ""),
        ("PT0S", ""),
        ("48:12", "48:12"),
        ("soon", ""),
        ("", ""),
    ],
)
def test_iso_8601_durations_read_as_clock_time(iso, shown):
    assert iso_duration(iso) == shown


def test_published_is_the_date_part_only():
    assert date_only("2025-03-14T12:00:00Z") == "2025-03-14"
    assert date_only("yesterday") == ""
