"""An X account's recent posts as a persona corpus, through the X API v2 user timeline.

    x_bearer_token(keys) -> str                       # the token, or CorpusSourceError
    fetch_x_timeline(username, *, token, limit=100, base_url=..., transport=None)
        -> (CorpusProfile, SourceItems)

Two requests and then pages: `GET /users/by/username/{username}` (name, picture,
protected) and `GET /users/{id}/tweets` with `exclude=retweets` and
`tweet.fields=created_at,public_metrics`, following `meta.next_token` (sent back as
`pagination_token`) until `limit` posts are read or the timeline ends. Each post is a
CorpusItem of kind "tweet": its text (X sends `&amp;`, `&lt;`, `&gt;` escaped; they are
unescaped, then sanitized), `https://x.com/{username}/status/{id}`, the creation time
and its public metrics (likes, reposts, replies, quotes, bookmarks, impressions).

The bearer token is read by the caller from the OS keyring (llm/keys.py `X_KEY`, or
ROUNDTABLE_X_TOKEN for the CLI) and passed in; `x_bearer_token` does that read for any
object with the KeyStore's `get`, and says where to set a token when none is set. The
token travels only in the Authorization header; it is remembered as a secret, and no
message, exception or repr here carries it or any server text that could echo it.
Failures raise CorpusSourceError with one sentence: token rejected (401), account not
found, private (protected) account, rate limit (429: when it resets, as a local time and
in how many minutes), an empty timeline, an answer that is not JSON or is larger than
any page (read as it comes, refused past MAX_ANSWER_BYTES), the network. `base_url` is
where the API is: the caller reads ROUNDTABLE_X_BASE_URL or Settings for it
(sources/endpoints.py, persona_build/source_reading.py). Must not import anything above
domain or retry on its own (a rate limit is reported, not waited out).
"""

from __future__ import annotations

import html
import json
import math
import re
import time
from datetime import datetime
from typing import Any, Protocol

import httpx

from roundtable_desktop import __version__
from roundtable_desktop.domain.secrets import remember_secret
from roundtable_desktop.kinds.debate.corpus import CorpusItem, CorpusProfile
from roundtable_desktop.kinds.debate.persona_build.sources.errors import (
    CorpusSourceError,
    SourceItems,
)
from roundtable_desktop.kinds.debate.persona_build.sources.text import safe_text

DEFAULT_BASE_URL = "https://api.x.com/2"
DEFAULT_LIMIT = 100
# The keyring slot and environment variable of the token; llm/keys.py X_KEY names the
# same slot (sources may not import llm; a test checks the two agree).
X_TOKEN_SLOT = "x-bearer-token"
X_TOKEN_ENV = "ROUNDTABLE_X_TOKEN"
KEYRING_SERVICE = "roundtable-desktop"
TIMEOUT = httpx.Timeout(connect=5.0, read=15.0, write=10.0, pool=5.0)
PAGE_MAX = 100  # the API's max_results bounds: 5..100
PAGE_MIN = 5
TIMELINE_CAP = 3200  # X serves at most the 3,200 most recent posts of a timeline
MAX_ANSWER_BYTES = 4 * 2**20  # a page of 100 posts is some 60 KB: anything past this is not
_USERNAME = re.compile(r"[A-Za-z0-9_]{1,15}")
_PROFILE_URL = re.compile(r"^(?:https?://)?(?:www\.|mobile\.)?(?:x|twitter)\.com/", re.I)
_TOKEN_CHARS = re.compile(r"[\x21-\x7e]{8,4096}")
_ID = re.compile(r"[0-9]{1,25}")
_NEXT_TOKEN = re.compile(r"[A-Za-z0-9_-]{1,200}")
_METRICS = {"like_count": "likes", "retweet_count": "reposts", "reply_count": "replies",
            "quote_count": "quotes", "bookmark_count": "bookmarks",
            "impression_count": "impressions"}


class KeyReader(Protocol):
    """What `x_bearer_token` needs of llm/keys.py KeyStore."""

    def get(self, name: str, *, env: bool = True) -> str | None: ...


def x_bearer_token(keys: KeyReader) -> str:
    """The X bearer token from the keyring (or ROUNDTABLE_X_TOKEN), or a
    CorpusSourceError saying where to set one."""
    token = (keys.get(X_TOKEN_SLOT) or "").strip()
    if not token:
        raise CorpusSourceError(
            f"No X bearer token is set: set {X_TOKEN_ENV} for the command line, or store the "
            f"token in the OS keyring (service \"{KEYRING_SERVICE}\", name \"{X_TOKEN_SLOT}\").",
            "Or build this persona from a feed, a folder or hand-written excerpts.")
    return token


def x_username(value: str) -> str:
    """The bare username of `@name`, `name` or a profile address; CorpusSourceError if
    it cannot be one (1-15 letters, digits or underscores)."""
    name = _PROFILE_URL.sub("", value.strip()).lstrip("@").split("/")[0].split("?")[0]
    if not _USERNAME.fullmatch(name):
        raise CorpusSourceError(f"{safe_text(value)[:40]!r} is not an X username (1 to 15 "
                                "letters, digits or underscores).")
    return name


def fetch_x_timeline(username: str, *, token: str, limit: int = DEFAULT_LIMIT,
                     base_url: str = DEFAULT_BASE_URL,
                     transport: httpx.BaseTransport | None = None,
                     ) -> tuple[CorpusProfile, SourceItems]:
    """The account's profile and its newest `limit` original posts, newest first."""
    if limit < 1:
        raise ValueError("limit must be at least 1")
    name = x_username(username)
    secret = token.strip()
    remember_secret(secret)
    if not _TOKEN_CHARS.fullmatch(secret):
        raise CorpusSourceError("The X bearer token has characters a token cannot have (or "
                                "is too short); store it again.")
    headers = {"Authorization": f"Bearer {secret}", "Accept": "application/json",
               "User-Agent": f"roundtable-desktop/{__version__} (persona builder)"}
    with httpx.Client(base_url=base_url.rstrip("/"), timeout=TIMEOUT, transport=transport,
                      headers=headers) as client:
        user = _user(client, name)
        profile = CorpusProfile(name=safe_text(str(user.get("name") or ""))[:100],
                                handle=f"@{user['username']}",
                                avatar_url=_https(user.get("profile_image_url")))
        items = _timeline(client, user, min(limit, TIMELINE_CAP))
    return profile, items


def _user(client: httpx.Client, name: str) -> dict[str, Any]:
    data = _get(client, f"/users/by/username/{name}",
                {"user.fields": "name,profile_image_url,protected"}, f"@{name}")
    user = data.get("data")
    if not isinstance(user, dict):
        if _errors(data):
            raise CorpusSourceError(f"X has no account @{name} (or it is suspended); check "
                                    "the username.")
        raise CorpusSourceError(f"X sent an answer about @{name} that is not the expected "
                                "JSON; try again later.")
    user_id = str(user.get("id") or "")
    if not _ID.fullmatch(user_id):
        raise CorpusSourceError(f"X sent an answer about @{name} without a valid account id; "
                                "try again later.")
    if user.get("protected") is True:
        raise CorpusSourceError(
            f"The X account @{name} is private (protected): its posts cannot be read with an "
            "app token.", "Use the account's feed, a folder of its texts or hand-written "
            "excerpts instead.")
    handle = str(user.get("username") or "")
    return {**user, "id": user_id, "username": handle if _USERNAME.fullmatch(handle) else name}


def _timeline(client: httpx.Client, user: dict[str, Any], limit: int) -> SourceItems:
    handle = user["username"]
    items: list[CorpusItem] = []
    next_token = ""
    pages = math.ceil(limit / PAGE_MIN) + 1  # a bound, in case a server loops its tokens
    for _ in range(pages):
        params = {"max_results": max(PAGE_MIN, min(PAGE_MAX, limit - len(items))),
                  "exclude": "retweets", "tweet.fields": "created_at,public_metrics"}
        if next_token:
            params["pagination_token"] = next_token
        data = _get(client, f"/users/{user['id']}/tweets", params, f"@{handle}")
        posts = data.get("data")
        if posts is None and _errors(data) and not items:
            raise CorpusSourceError(f"X would not show the posts of @{handle} (the account "
                                    "may be private or suspended).")
        for post in posts if isinstance(posts, list) else []:
            item = _item(post, handle)
            if item is not None and len(items) < limit:
                items.append(item)
        meta = data.get("meta")
        meta = meta if isinstance(meta, dict) else {}
        next_token = str(meta.get("next_token") or "")
        if len(items) >= limit or not _NEXT_TOKEN.fullmatch(next_token):
            break
    if not items:
        raise CorpusSourceError(f"The X account @{handle} has no posts of its own to read "
                                "(its timeline is empty or holds only reposts).")
    return SourceItems(items)


def _item(post: Any, handle: str) -> CorpusItem | None:
    if not isinstance(post, dict):
        return None
    post_id = str(post.get("id") or "")
    text = safe_text(html.unescape(str(post.get("text") or "")))
    if not _ID.fullmatch(post_id) or not text:
        return None
    raw = post.get("public_metrics")
    metrics = {short: value for key, short in _METRICS.items()
               if isinstance(raw, dict) and isinstance(value := raw.get(key), int)
               and not isinstance(value, bool)}
    return CorpusItem(text=text, url=f"https://x.com/{handle}/status/{post_id}",
                      published=_iso(post.get("created_at")), kind="tweet", metrics=metrics)


def _iso(value: Any) -> str:
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00")).isoformat()
    except ValueError:
        return ""


def _https(value: Any) -> str:
    url = safe_text(str(value or ""))
    return url[:2048] if url.startswith("https://") and " " not in url else ""


def _errors(data: dict[str, Any]) -> bool:
    errors = data.get("errors")
    return isinstance(errors, list) and bool(errors)


# -- the wire --------------------------------------------------------------------------------
def _get(client: httpx.Client, path: str, params: dict[str, Any], who: str) -> dict[str, Any]:
    try:
        with client.stream("GET", path, params=params) as response:
            if response.status_code != 200:
                raise CorpusSourceError(_status_sentence(response, who))
            body = _bounded_body(response, who)
    except httpx.TimeoutException:
        raise CorpusSourceError(f"X did not answer in time while reading {who}; check the "
                                "network and try again.") from None
    except (httpx.TransportError, httpx.InvalidURL, httpx.UnsupportedProtocol):
        raise CorpusSourceError(f"Could not reach the X API while reading {who}: the network "
                                "is down or blocked; check the connection and try again."
                                ) from None
    try:
        data = json.loads(body)
    except ValueError:  # not JSON, or not text at all
        data = None
    if not isinstance(data, dict):
        raise CorpusSourceError(f"X sent an answer about {who} that is not the expected JSON; "
                                "try again later.")
    return data


def _bounded_body(response: httpx.Response, who: str) -> bytes:
    """The answer's bytes, read as they come and refused past MAX_ANSWER_BYTES."""
    too_big = CorpusSourceError(
        f"X sent an answer about {who} larger than any page of posts (over "
        f"{MAX_ANSWER_BYTES // 2**20} MB); try again later.")
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_ANSWER_BYTES:
        raise too_big
    chunks: list[bytes] = []
    size = 0
    for chunk in response.iter_bytes():
        size += len(chunk)
        if size > MAX_ANSWER_BYTES:
            raise too_big
        chunks.append(chunk)
    return b"".join(chunks)


def _status_sentence(response: httpx.Response, who: str) -> str:
    status = response.status_code
    if status == 401:
        return ("X rejected the bearer token (HTTP 401); check the token stored as "
                f"\"{X_TOKEN_SLOT}\" in the OS keyring (or {X_TOKEN_ENV}).")
    if status == 429:
        return rate_limit_sentence(response.headers.get("x-rate-limit-reset"), who)
    if status == 404:
        return f"X has no account {who} (HTTP 404); check the username."
    if status == 403:
        return (f"X refused to show {who} (HTTP 403): the token's app may lack access to the "
                "v2 user timeline, or the account is private.")
    if status >= 500:
        return f"X had a server error (HTTP {status}) while reading {who}; try again later."
    return f"X refused the request for {who} (HTTP {status})."


def rate_limit_sentence(reset: str | None, who: str, *, now: float | None = None) -> str:
    """The 429 sentence: when the limit resets (local time) and in how many minutes."""
    now = time.time() if now is None else now
    try:
        at = float(reset or "")
    except ValueError:
        at = math.nan
    if not math.isfinite(at) or at <= 0:
        return (f"X is rate-limiting this token while reading {who} (HTTP 429); wait about "
                "15 minutes and try again.")
    minutes = max(1, math.ceil((at - now) / 60))
    try:
        local = datetime.fromtimestamp(at).astimezone().strftime("%H:%M")
    except (OverflowError, OSError, ValueError):  # a reset far outside any clock's range
        return (f"X is rate-limiting this token while reading {who} (HTTP 429); wait about "
                "15 minutes and try again.")
    return (f"X is rate-limiting this token while reading {who} (HTTP 429): the limit "
            f"resets at {local} local time, in {minutes} minute{'' if minutes == 1 else 's'}; "
            "try again then.")
