"""The X API v2 timeline source, against the fake X API server (a real process)."""

from __future__ import annotations

import re
import time
from datetime import datetime

import httpx
import pytest

from roundtable_desktop.domain.secrets import scrub
from roundtable_desktop.kinds.debate.persona_build.sources.errors import CorpusSourceError
from roundtable_desktop.kinds.debate.persona_build.sources.x import (
    X_TOKEN_ENV,
    X_TOKEN_SLOT,
    fetch_x_timeline,
    rate_limit_sentence,
    x_bearer_token,
    x_username,
)
from roundtable_desktop.llm.keys import ENV_VARS, X_KEY, KeyStore
from tests.fakes.x_api_fixture import FakeX, fake_x  # noqa: F401

TOKEN = "AAAAfake-bearer-token-0123456789"


@pytest.fixture
def x_api(fake_x: FakeX) -> FakeX:  # noqa: F811
    fake_x.reset()
    return fake_x


def fetch(fake: FakeX, username: str = "ada_writes", **options):
    return fetch_x_timeline(username, token=TOKEN, base_url=fake.base_url, **options)


def refusal(fake: FakeX, username: str = "ada_writes", **options) -> CorpusSourceError:
    with pytest.raises(CorpusSourceError) as caught:
        fetch(fake, username, **options)
    assert TOKEN not in caught.value.message and TOKEN not in caught.value.hint
    return caught.value


# -- the timeline --------------------------------------------------------------------------
def test_pages_are_followed_until_the_limit(x_api: FakeX) -> None:
    x_api.script({"ada_writes": {"name": "Ada Writes", "posts": 260, "reposts": 30}})
    _, items = fetch(x_api, limit=230)
    timeline_calls = [r for r in x_api.requests() if r["endpoint"] == "tweets"]
    assert len(items) == 230
    assert len(timeline_calls) == 3
    assert "pagination_token" not in timeline_calls[0]["params"]
    assert timeline_calls[1]["params"]["pagination_token"] == "page-100"
    assert timeline_calls[2]["params"]["max_results"] == "30"
    assert len({item.url for item in items}) == 230


def test_the_timeline_ends_before_the_limit_without_error(x_api: FakeX) -> None:
    x_api.script({"ada_writes": {"posts": 12}})
    _, items = fetch(x_api, limit=100)
    assert len(items) == 12


def test_default_limit_is_one_hundred_posts(x_api: FakeX) -> None:
    x_api.script({"ada_writes": {"posts": 150}})
    _, items = fetch(x_api)
    assert len(items) == 100


def test_retweets_are_excluded_by_the_request(x_api: FakeX) -> None:
    x_api.script({"ada_writes": {"posts": 20, "reposts": 10}})
    _, items = fetch(x_api)
    timeline_calls = [r for r in x_api.requests() if r["endpoint"] == "tweets"]
    assert all(r["params"]["exclude"] == "retweets" for r in timeline_calls)
    assert len(items) == 20
    assert not any(item.text.startswith("RT @") for item in items)


def test_engagement_metrics_are_kept(x_api: FakeX) -> None:
    x_api.script({"ada_writes": {"posts": 8}})
    _, items = fetch(x_api)
    assert set(items[1].metrics) == {"likes", "reposts", "replies", "quotes", "bookmarks",
                                     "impressions"}
    assert items[1].metrics["likes"] == 13
    assert items[1].metrics["impressions"] == 1001


def test_each_post_has_its_address_time_and_unescaped_text(x_api: FakeX) -> None:
    x_api.script({"ada_writes": {"posts": 5}})
    _, items = fetch(x_api)
    first = items[0]
    assert first.kind == "tweet"
    assert re.fullmatch(r"https://x\.com/ada_writes/status/\d+", first.url)
    assert datetime.fromisoformat(first.published) > datetime.fromisoformat(items[1].published)
    assert "rules & markets <both> matter" in first.text


def test_profile_gives_name_handle_and_picture(x_api: FakeX) -> None:
    x_api.script({"Ada_Writes": {"name": "Ada Writes", "posts": 5}})
    profile, _ = fetch(x_api, "https://x.com/ada_writes")
    assert profile.name == "Ada Writes"
    assert profile.handle == "@Ada_Writes"
    assert profile.avatar_url.startswith("https://")


def test_the_token_travels_as_a_bearer_header_only(x_api: FakeX) -> None:
    x_api.script({"ada_writes": {"posts": 5}})
    fetch(x_api)
    for request in x_api.requests():
        assert request["bearer"] is True
        assert TOKEN not in str(request["params"])


# -- failures -------------------------------------------------------------------------------
def test_rate_limit_names_the_wait(x_api: FakeX) -> None:
    x_api.script({"ada_writes": {"posts": 300}},
                  {"status": 429, "endpoint": "tweets", "after": 1, "reset_in_s": 600})
    before = time.time()
    error = refusal(x_api, limit=300)
    after = time.time()
    # The server sets the reset 600 s ahead of its clock, somewhere in [before, after].
    local = {datetime.fromtimestamp(moment).astimezone().strftime("%H:%M")
             for moment in (before + 599, after + 600)}
    assert "HTTP 429" in error.message
    assert "in 10 minutes" in error.message
    assert any(f"resets at {hhmm} local time" in error.message for hhmm in local)


def test_rate_limit_sentence_counts_minutes_up() -> None:
    sentence = rate_limit_sentence(str(1_000_000 + 61), "@ada", now=1_000_000)
    assert "in 2 minutes" in sentence


def test_rate_limit_without_a_reset_header_still_says_to_wait() -> None:
    assert "wait about 15 minutes" in rate_limit_sentence(None, "@ada")


def test_a_rejected_token_says_where_to_fix_it(x_api: FakeX) -> None:
    x_api.script({"ada_writes": {"posts": 5}}, {"status": 401})
    error = refusal(x_api)
    assert "rejected the bearer token" in error.message
    assert X_TOKEN_SLOT in error.message


def test_a_protected_account_is_refused_before_its_timeline(x_api: FakeX) -> None:
    x_api.script({"ada_writes": {"posts": 5, "protected": True}})
    error = refusal(x_api)
    assert "private (protected)" in error.message
    assert not [r for r in x_api.requests() if r["endpoint"] == "tweets"]


def test_an_unknown_account_is_named(x_api: FakeX) -> None:
    x_api.script({"someone_else": {"posts": 5}})
    error = refusal(x_api, "nobody_here")
    assert "no account @nobody_here" in error.message


def test_a_404_names_the_account(x_api: FakeX) -> None:
    x_api.script({"ada_writes": {"posts": 5}}, {"status": 404, "endpoint": "user"})
    assert "no account @ada_writes (HTTP 404)" in refusal(x_api).message


def test_the_profile_name_is_safe_text(x_api: FakeX) -> None:
    x_api.script({"ada_writes": {"name": "Ada\u202e Wri\u0000tes", "posts": 5}})
    profile, _ = fetch(x_api)
    assert profile.name == "Ada Writes"


def test_an_empty_timeline_is_an_error(x_api: FakeX) -> None:
    x_api.script({"ada_writes": {"posts": 0}})
    assert "has no posts of its own" in refusal(x_api).message


def test_a_timeline_of_only_reposts_is_an_empty_one(x_api: FakeX) -> None:
    x_api.script({"ada_writes": {"posts": 0, "reposts": 9}})
    assert "has no posts of its own" in refusal(x_api).message


def test_a_server_error_never_echoes_the_token(x_api: FakeX) -> None:
    x_api.script({"ada_writes": {"posts": 5}}, {"status": 503, "endpoint": "tweets"})
    error = refusal(x_api)
    assert "server error (HTTP 503)" in error.message


def test_network_failure_is_one_clear_sentence() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    with pytest.raises(CorpusSourceError) as caught:
        fetch_x_timeline("ada_writes", token=TOKEN, transport=httpx.MockTransport(refuse))
    assert caught.value.message.startswith("Could not reach the X API")


def test_a_username_that_cannot_exist_is_refused_before_any_request() -> None:
    with pytest.raises(CorpusSourceError, match="is not an X username"):
        x_username("not a name!")


@pytest.mark.parametrize("written", ["@ada_writes", "ada_writes", "https://x.com/ada_writes",
                                     "twitter.com/ada_writes/", "https://x.com/ada_writes?s=1"])
def test_usernames_are_read_from_the_usual_forms(written: str) -> None:
    assert x_username(written) == "ada_writes"


def test_the_token_is_remembered_as_a_secret(x_api: FakeX) -> None:
    x_api.script({"ada_writes": {"posts": 5}})
    fetch(x_api)
    assert TOKEN not in scrub(f"echo {TOKEN}")


# -- the token slot -------------------------------------------------------------------------
def test_the_keys_module_and_the_source_name_the_same_slot() -> None:
    assert X_KEY == X_TOKEN_SLOT
    assert ENV_VARS[X_KEY] == X_TOKEN_ENV


def test_the_token_is_read_from_the_keyring(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(X_TOKEN_ENV, raising=False)
    keys = KeyStore()
    keys.set(X_KEY, TOKEN)
    assert x_bearer_token(keys) == TOKEN


def test_the_token_is_read_from_the_environment_for_the_cli(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(X_TOKEN_ENV, TOKEN)
    assert x_bearer_token(KeyStore()) == TOKEN
    assert TOKEN not in scrub(TOKEN)


def test_no_token_says_where_to_set_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(X_TOKEN_ENV, raising=False)
    with pytest.raises(CorpusSourceError) as caught:
        x_bearer_token(KeyStore())
    assert X_TOKEN_ENV in caught.value.message
    assert X_TOKEN_SLOT in caught.value.message
