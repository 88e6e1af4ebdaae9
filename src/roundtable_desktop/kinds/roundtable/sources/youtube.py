"""YouTube Data API v3 as a candidate source: search.list, then videos.list for details.

One search costs two requests: `search.list` (part=snippet, type=video) finds ids, and
`videos.list` (part=snippet,contentDetails) fills duration and the full snippet. The key
travels only in the `X-Goog-Api-Key` header, never in a URL, so no URL this module or
httpx ever prints can carry it; httpx's own exception text is never passed on either.
Every failure becomes a YouTubeError (a SourceError) with one sentence a user can act
on. No retries: a failed fetch is cheap to repeat and the fallback source shows mock
results meanwhile. Must never put the key in a message, log line, exception or repr,
and must not touch meeting state.
"""

from __future__ import annotations

import asyncio
import re
from collections import OrderedDict
from typing import Any

import httpx

from roundtable_desktop.domain.secrets import remember_secret
from roundtable_desktop.kinds.roundtable.catalog import Candidate
from roundtable_desktop.kinds.roundtable.sources.base import SourceResult
from roundtable_desktop.kinds.roundtable.sources.video_fields import (
    candidate_from_record,
    valid_video_id,
)
from roundtable_desktop.sources.errors import SourceError

DEFAULT_BASE_URL = "https://www.googleapis.com/youtube/v3"
# With no query the meeting wants a starting list; YouTube's `|` means OR, so this asks
# for the mock user's three areas at once.
DEFAULT_QUERY = "large language models|web development|science fiction"
DEFAULT_TIMEOUT = httpx.Timeout(connect=5.0, read=10.0, write=10.0, pool=5.0)
DEFAULT_DEADLINE_S = 20.0  # both requests of one search together
MAX_RESULTS = 50  # the API's own cap for maxResults
_CACHE_SIZE = 500
_REASON = re.compile(r"[A-Za-z_]{1,40}")
_KEY_CHARS = re.compile(r"[\x21-\x7e]{1,200}")

_QUOTA = {"quotaexceeded", "dailylimitexceeded", "dailylimitexceededunreg"}
_RATE = {"ratelimitexceeded", "userratelimitexceeded"}
_BAD_KEY = {"keyinvalid", "api_key_invalid", "keyexpired", "api_key_expired"}
_FORBIDDEN = {
    "forbidden", "accessnotconfigured", "api_key_service_blocked", "ipreferblocked",
    "iprefererblocked", "api_key_http_referrer_blocked", "api_key_ip_address_blocked",
    "service_disabled",
}  # fmt: skip


class YouTubeError(SourceError):
    """A YouTube failure; `lasting` means trying again this session will not help
    (quota used up, key rejected), so a fallback may stop asking."""

    def __init__(self, message: str, *, lasting: bool = False) -> None:
        super().__init__(message)
        self.lasting = lasting


class YouTubeSource:
    """Searches YouTube; `lookup` answers from the videos this source has returned."""

    name = "youtube"

    def __init__(
        self,
        api_key: str,
        *,
        base_url: str = DEFAULT_BASE_URL,
        timeout: httpx.Timeout = DEFAULT_TIMEOUT,
        deadline_s: float = DEFAULT_DEADLINE_S,
        transport: httpx.AsyncBaseTransport | None = None,
        default_query: str = DEFAULT_QUERY,
    ) -> None:
        self.__key = api_key.strip()
        remember_secret(self.__key)  # scrubbed from whatever a server echoes it in
        self.base_url = base_url.rstrip("/")
        self._timeout = timeout
        self._deadline_s = deadline_s
        self._transport = transport
        self._default_query = default_query
        self._seen: OrderedDict[str, Candidate] = OrderedDict()

    def __repr__(self) -> str:
        return f"YouTubeSource(base_url={self.base_url!r}, api_key=<hidden>)"

    # -- the CandidateSource interface ---------------------------------------------------
    async def search(self, query: str | None, limit: int = 12) -> SourceResult:
        limit = min(max(1, limit), MAX_RESULTS)
        q = (query or "").strip() or self._default_query
        found = await self._within_deadline(self._search(q, limit))
        for c in found:
            self._remember(c)
        return SourceResult(candidates=[c.model_copy(deep=True) for c in found],
                            source=self.name)

    def lookup(self, video_id: str) -> Candidate | None:
        found = self._seen.get(video_id)
        return found.model_copy(deep=True) if found is not None else None

    async def details(self, video_id: str) -> Candidate | None:
        """One video by id from videos.list, or None if YouTube does not know it."""
        vid = valid_video_id(video_id)
        if vid is None:
            return None
        found = await self._within_deadline(self._videos([vid]))
        candidate = found.get(vid)
        if candidate is not None:
            self._remember(candidate)
        return candidate.model_copy(deep=True) if candidate else None

    # -- requests -------------------------------------------------------------------------
    async def _search(self, q: str, limit: int) -> list[Candidate]:
        data = await self._get("search", {"part": "snippet", "type": "video", "q": q,
                                          "maxResults": limit})
        hits: dict[str, dict[str, Any]] = {}  # id -> search item, in YouTube's order
        for item in _items(data, "search"):
            raw = item.get("id")
            vid = valid_video_id(raw.get("videoId") if isinstance(raw, dict) else raw)
            if vid is not None:
                hits.setdefault(vid, item)
        if not hits:
            return []
        full = await self._videos(list(hits))
        found: list[Candidate] = []
        for vid, item in hits.items():
            candidate = full.get(vid)
            if candidate is None:  # videos.list skipped it: keep what search.list said
                snippet = item.get("snippet")
                snippet = snippet if isinstance(snippet, dict) else {}
                candidate = candidate_from_record({**snippet, "id": vid}, self.name,
                                                  html_escaped=True)
            if candidate is not None:
                found.append(candidate)
        return found

    async def _videos(self, ids: list[str]) -> dict[str, Candidate]:
        data = await self._get("videos", {"part": "snippet,contentDetails", "id": ",".join(ids),
                                          "maxResults": len(ids)})
        found: dict[str, Candidate] = {}
        for item in _items(data, "videos"):
            candidate = candidate_from_record(item, self.name)
            if candidate is not None:
                found[candidate.id] = candidate
        return found

    async def _get(self, endpoint: str, params: dict[str, Any]) -> dict[str, Any]:
        if not _KEY_CHARS.fullmatch(self.__key):
            raise YouTubeError(
                "The YouTube API key has characters an API key cannot have; paste it again in "
                "Settings.", lasting=True)
        headers = {"X-Goog-Api-Key": self.__key, "Accept": "application/json"}
        try:
            async with httpx.AsyncClient(base_url=self.base_url, timeout=self._timeout,
                                         transport=self._transport, headers=headers) as client:
                response = await client.get(f"/{endpoint}", params=params)
        except httpx.TimeoutException:
            raise YouTubeError("YouTube did not answer in time; check the network and try "
                               "again.") from None
        except (httpx.TransportError, httpx.InvalidURL):
            raise YouTubeError("Could not reach YouTube: the network is down or blocked; "
                               "check the connection and try again.") from None
        if response.status_code != 200:
            raise _status_error(response)
        try:
            data = response.json()
        except ValueError:
            data = None
        if not isinstance(data, dict):
            raise YouTubeError(f"YouTube sent a {endpoint} reply that is not the expected "
                               "JSON; try again later.")
        return data

    async def _within_deadline(self, work: Any) -> Any:
        try:
            return await asyncio.wait_for(work, self._deadline_s)
        except TimeoutError:
            raise YouTubeError(f"YouTube did not answer within {self._deadline_s:g} s; check "
                               "the network and try again.") from None

    def _remember(self, candidate: Candidate) -> None:
        self._seen[candidate.id] = candidate
        self._seen.move_to_end(candidate.id)
        while len(self._seen) > _CACHE_SIZE:
            self._seen.popitem(last=False)


def _items(data: dict[str, Any], endpoint: str) -> list[dict[str, Any]]:
    items = data.get("items", [])
    if not isinstance(items, list):
        raise YouTubeError(f"YouTube sent a {endpoint} reply without a list of items; try "
                           "again later.")
    return [item for item in items if isinstance(item, dict)]


def _reasons(response: httpx.Response) -> tuple[set[str], str]:
    """The error reasons Google gave (old `errors[].reason` and new `details[].reason`
    forms, lower-cased) and its message, which is only inspected, never shown."""
    try:
        body = response.json()
    except ValueError:
        return set(), ""
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return set(), ""
    reasons: set[str] = set()
    for key in ("errors", "details"):
        entries = error.get(key)
        for entry in entries if isinstance(entries, list) else []:
            reason = entry.get("reason") if isinstance(entry, dict) else None
            if isinstance(reason, str) and _REASON.fullmatch(reason):
                reasons.add(reason.lower())
    status = error.get("status")
    if isinstance(status, str) and _REASON.fullmatch(status):
        reasons.add(status.lower())
    message = error.get("message")
    return reasons, message.lower() if isinstance(message, str) else ""


def _status_error(response: httpx.Response) -> YouTubeError:
    code = response.status_code
    reasons, message = _reasons(response)
    if reasons & _QUOTA:
        return YouTubeError("The YouTube quota of this API key is used up for today (it resets "
                            "at midnight Pacific time).", lasting=True)
    if reasons & _RATE or code == 429:
        return YouTubeError("YouTube is rate-limiting this API key; wait a minute and try "
                            "again.")
    if reasons & _BAD_KEY or code == 401 or "api key not valid" in message:
        return YouTubeError("YouTube rejected the API key as invalid; check the YouTube key in "
                            "Settings.", lasting=True)
    if code == 403:
        shown = sorted(reasons & _FORBIDDEN) or sorted(reasons)[:1] or ["forbidden"]
        return YouTubeError(
            f"YouTube refused this API key ({shown[0]}): check that the YouTube Data API v3 is "
            "enabled for the key's project and that its restrictions allow this app.",
            lasting=True)
    if code >= 500:
        return YouTubeError(f"YouTube had a server error (HTTP {code}); try again in a minute.")
    if code == 404:
        return YouTubeError("The YouTube API address answered 404 (not found); check the "
                            "YouTube base URL.", lasting=True)
    reason = f", {sorted(reasons)[0]}" if reasons else ""
    return YouTubeError(f"YouTube rejected the request (HTTP {code}{reason}); try a simpler "
                        "query.")
