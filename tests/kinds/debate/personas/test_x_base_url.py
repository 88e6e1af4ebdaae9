"""Where the persona builder reads X from (issue 26, point 6): ROUNDTABLE_X_BASE_URL or
the address saved in Settings point it at a proxy, a mirror or the fake X API on
127.0.0.1, checked as the YouTube base URL is; against the fake: a rejected token, a rate
limit with its reset, pages, an answer that is no JSON and one of 50 MB."""

from __future__ import annotations

import tracemalloc

import pytest

from roundtable_desktop.kinds.debate.persona_build.errors import PersonaFailed
from roundtable_desktop.kinds.debate.persona_build.source_reading import default_fetch
from roundtable_desktop.llm.keys import X_KEY, KeyStore
from tests.fakes.x_api_fixture import FakeX, fake_x  # noqa: F401
from tests.kinds.debate.persona_build_helpers import deck_config, persona_entry

TOKEN = "AAAAfake-bearer-token-base-url-0123456789"
ENV = "ROUNDTABLE_X_BASE_URL"


@pytest.fixture
def x_api(fake_x: FakeX, monkeypatch) -> FakeX:  # noqa: F811
    fake_x.reset()
    KeyStore().set(X_KEY, TOKEN)
    return fake_x


@pytest.fixture(autouse=True)
def no_address_from_settings():
    """Each test starts with no address from Settings (sources/endpoints.py keeps it)."""
    try:
        from roundtable_desktop.sources.endpoints import X_API, use_setting
    except ImportError:  # a version with no such setting: nothing to clear
        yield
        return
    use_setting(X_API, "")
    yield
    use_setting(X_API, "")


def read_x(tmp_path, username: str = "ada_writes", posts: int = 100):
    config = deck_config(tmp_path, persona_entry("ada", "Ada", sources={"x": username},
                                                 limits={"x_posts": posts}))
    persona = config.persona("ada")
    return default_fetch(config, persona, config.limits_for(persona))


def failure(tmp_path, **kw) -> str:
    with pytest.raises(PersonaFailed) as caught:
        read_x(tmp_path, **kw)
    assert TOKEN not in caught.value.message
    return caught.value.message


def test_the_environment_points_the_builder_at_another_x_api(x_api, tmp_path, monkeypatch):
    monkeypatch.setenv(ENV, x_api.base_url)
    x_api.script({"ada_writes": {"name": "Ada Writes", "posts": 230}})
    profile, items = read_x(tmp_path, posts=230)
    assert profile.handle == "@ada_writes" and len(items) == 230
    pages = [r for r in x_api.requests() if r["endpoint"] == "tweets"]
    assert [p["params"].get("pagination_token") for p in pages] == [None, "page-100",
                                                                   "page-200"]


def test_the_address_in_settings_points_the_builder_at_another_x_api(x_api, tmp_path):
    from roundtable_desktop.sources.endpoints import X_API, use_setting

    use_setting(X_API, x_api.base_url)
    x_api.script({"ada_writes": {"posts": 12}})
    _, items = read_x(tmp_path)
    assert len(items) == 12 and x_api.requests()


def test_the_environment_wins_over_settings(x_api, tmp_path, monkeypatch):
    from roundtable_desktop.sources.endpoints import X_API, use_setting

    use_setting(X_API, "http://127.0.0.1:9/2")  # nothing listens there
    monkeypatch.setenv(ENV, x_api.base_url)
    x_api.script({"ada_writes": {"posts": 5}})
    assert len(read_x(tmp_path)[1]) == 5


@pytest.mark.parametrize("where", ["environment", "settings"])
def test_an_address_that_is_no_http_url_is_refused_in_one_sentence(where, x_api, tmp_path,
                                                                    monkeypatch):
    from roundtable_desktop.sources.endpoints import X_API, use_setting

    if where == "environment":
        monkeypatch.setenv(ENV, "api.x.com/2")
    else:
        use_setting(X_API, "ftp://user:secret@mirror/2")
    message = failure(tmp_path)
    assert "must start with http:// or https://" in message and "secret" not in message
    assert (ENV in message) == (where == "environment")
    assert x_api.requests() == []


def test_a_rejected_token_says_where_to_fix_it(x_api, tmp_path, monkeypatch):
    monkeypatch.setenv(ENV, x_api.base_url)
    x_api.script({"ada_writes": {"posts": 5}}, {"status": 401})
    assert "rejected the bearer token (HTTP 401)" in failure(tmp_path)


def test_a_rate_limit_says_when_it_resets(x_api, tmp_path, monkeypatch):
    monkeypatch.setenv(ENV, x_api.base_url)
    x_api.script({"ada_writes": {"posts": 500}},
                 {"status": 429, "endpoint": "tweets", "after": 1, "reset_in_s": 600})
    message = failure(tmp_path, posts=300)
    assert "HTTP 429" in message and "in 10 minutes" in message


def test_an_answer_that_is_no_json_is_one_sentence(x_api, tmp_path, monkeypatch):
    monkeypatch.setenv(ENV, x_api.base_url)
    x_api.script({"ada_writes": {"posts": 5}}, {"body": "garbage"})
    assert "not the expected JSON" in failure(tmp_path)


@pytest.mark.parametrize("declared", [True, False], ids=["with-length", "until-closed"])
def test_an_answer_of_50_mb_is_refused_without_being_held(declared, x_api, tmp_path,
                                                          monkeypatch):
    monkeypatch.setenv(ENV, x_api.base_url)
    x_api.script({"ada_writes": {"posts": 5}},
                 {"body": "huge", "megabytes": 50, "declared": declared})
    tracemalloc.start()
    try:
        message = failure(tmp_path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert "larger than any page of posts" in message
    assert peak < 10 * 2**20
