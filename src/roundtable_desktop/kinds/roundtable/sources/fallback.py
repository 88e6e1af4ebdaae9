"""A candidate source that asks YouTube first and the mock catalog when YouTube fails.

Why fall back rather than fail: a meeting on stage must keep moving, and a list of mock
videos that says where it came from is more useful than an unchanged list and an error.
So on a YouTube failure `search` returns the mock results with `source="mock"` and a
notice ("YouTube failed: <reason>; showing mock results."); the executor replaces the
list as on any success, shows the notice in the tool result, and the context window's
candidates section names the source. A failure that will not heal this session (quota
used up, key rejected) switches YouTube off until the source is rebuilt, so each later
fetch does not wait on it. A YouTube search that finds nothing for a query is passed on
as found-nothing (the executor keeps the current list); mock videos for a real query
would be misleading. Must not touch meeting state or read keys itself.
"""

from __future__ import annotations

from roundtable_desktop.kinds.roundtable.catalog import Candidate
from roundtable_desktop.kinds.roundtable.sources.base import CandidateSource, SourceResult
from roundtable_desktop.kinds.roundtable.sources.mock_catalog import MockCatalog
from roundtable_desktop.kinds.roundtable.sources.youtube import (
    DEFAULT_BASE_URL,
    YouTubeError,
    YouTubeSource,
)
from roundtable_desktop.sources.errors import SourceError


class FallbackSource:
    """`primary` (YouTube, or None when there is no key) backed by the mock catalog."""

    def __init__(
        self, primary: CandidateSource | None, fallback: MockCatalog, *, label: str = "YouTube"
    ) -> None:
        self.primary = primary
        self.fallback = fallback
        self.label = label
        self.name = primary.name if primary is not None else fallback.name
        self.off_reason = ""  # why the primary is switched off for this session, if it is

    @property
    def status(self) -> str:
        """One line for a status bar: which source answers fetches now."""
        if self.primary is None:
            return f"mock catalog (no {self.label} key)"
        if self.off_reason:
            return f"mock catalog ({self.label} is off: {_clause(self.off_reason)})"
        return f"{self.label}, with the mock catalog if it fails"

    async def search(self, query: str | None, limit: int = 12) -> SourceResult:
        if self.primary is None:
            return await self.fallback.search(query, limit)
        if self.off_reason:
            return await self._mock(query, limit,
                                    f"{self.label} is off for this session: {self.off_reason}")
        try:
            result = await self.primary.search(query, limit)
        except SourceError as error:
            if isinstance(error, YouTubeError) and error.lasting:
                self.off_reason = _clause(str(error))
            return await self._mock(query, limit, f"{self.label} failed: {_clause(str(error))}")
        except Exception as error:  # a bug in the primary must not cost the meeting its list
            return await self._mock(
                query, limit, f"{self.label} failed unexpectedly ({type(error).__name__})")
        if not result.candidates and not (query or "").strip():
            return await self._mock(query, limit, f"{self.label} returned no starting list")
        return result

    def lookup(self, video_id: str) -> Candidate | None:
        found = self.primary.lookup(video_id) if self.primary is not None else None
        return found if found is not None else self.fallback.lookup(video_id)

    async def details(self, video_id: str) -> Candidate | None:
        """One video by id: from the primary if it can look videos up, else what is known."""
        details = getattr(self.primary, "details", None)
        if details is not None and not self.off_reason:
            try:
                found: Candidate | None = await details(video_id)
            except SourceError:
                found = None
            if found is not None:
                return found
        return self.lookup(video_id)

    async def _mock(self, query: str | None, limit: int, why: str) -> SourceResult:
        result = await self.fallback.search(query, limit)
        extra = f" ({_clause(result.notice)})" if result.notice else ""
        return SourceResult(
            candidates=result.candidates,
            source=self.fallback.name,
            notice=f"{_clause(why)}; showing mock results{extra}.",
        )


def _clause(message: str) -> str:
    """A sentence as a clause inside another: no final stop, lower-case start unless the
    first word is a name (YouTube, MCP)."""
    text = message.strip().rstrip(".")
    first = text.split(" ", 1)[0]
    if first[:1].isupper() and not any(ch.isupper() for ch in first[1:]):
        text = text[:1].lower() + text[1:]
    return text


def candidate_source_for(
    youtube_key: str | None,
    *,
    catalog: MockCatalog | None = None,
    youtube_base_url: str | None = None,
) -> FallbackSource:
    """YouTube with the mock catalog behind it when there is a key, else the catalog."""
    catalog = catalog or MockCatalog.load()
    key = (youtube_key or "").strip()
    primary = YouTubeSource(key, base_url=youtube_base_url or DEFAULT_BASE_URL) if key else None
    return FallbackSource(primary, catalog)
