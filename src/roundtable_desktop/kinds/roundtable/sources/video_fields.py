"""Turn the fields of a video record from outside (YouTube, an MCP server) into Candidate
values: ISO-8601 durations, dates, ids, bounded clean text.

Every value from outside is untrusted: ids are checked against the characters the tool
parser accepts as bare ids, text loses control characters and is capped, and only
https thumbnails are kept. Must not do I/O or know where a record came from.
"""

from __future__ import annotations

import html
import re
from typing import Any

from roundtable_desktop.kinds.roundtable.catalog import Candidate
from roundtable_desktop.sources.outside_text import clean

# The tool parser reads bare ids as [A-Za-z0-9_-]+; an id outside that could not be named
# in a CALL line. YouTube ids are 11 such characters.
_VIDEO_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_ISO_DURATION = re.compile(
    r"P(?:(?P<w>\d+)W)?(?:(?P<d>\d+)D)?"
    r"(?:T(?:(?P<h>\d+)H)?(?:(?P<m>\d+)M)?(?:(?P<s>\d+(?:\.\d+)?)S)?)?"
)
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")

TITLE_CHARS = 300
DESCRIPTION_CHARS = 500  # full YouTube descriptions run to 5000 chars: too much payload
CHANNEL_CHARS = 120
TAG_CHARS = 40
MAX_TAGS = 8


def valid_video_id(value: Any) -> str | None:
    if isinstance(value, str) and _VIDEO_ID.fullmatch(value.strip()):
        return value.strip()
    return None


def iso_duration(value: Any) -> str:
    """`PT1H2M3S` -> `1:02:03`, `PT4M5S` -> `4:05`, `PT45S` -> `0:45`; days fold into hours.

    `P0D` (a live stream or premiere) and anything unreadable give "" (unknown); a value
    already in clock form (`48:12`) passes through.
    """
    if not isinstance(value, str):
        return ""
    text = value.strip()
    if re.fullmatch(r"\d{1,3}(?::\d{2}){1,2}", text):
        return text
    match = _ISO_DURATION.fullmatch(text.upper())
    if match is None or text.upper() in ("P", "PT"):
        return ""
    parts = {k: float(v) if v else 0.0 for k, v in match.groupdict().items()}
    total = int(
        parts["w"] * 604800 + parts["d"] * 86400 + parts["h"] * 3600 + parts["m"] * 60 + parts["s"]
    )
    if total <= 0:
        return ""
    hours, rest = divmod(total, 3600)
    minutes, seconds = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{seconds:02d}" if hours else f"{minutes}:{seconds:02d}"


def date_only(value: Any) -> str:
    """`2025-03-14T12:00:00Z` -> `2025-03-14`; anything else gives ""."""
    if isinstance(value, str) and _DATE.match(value.strip()):
        return value.strip()[:10]
    return ""


def https_url(value: Any) -> str:
    text = clean(value, 2048)
    if text.lower().startswith("https://") and not re.search(r"\s", text):
        return text
    return ""


def best_thumbnail(thumbnails: Any) -> str:
    """The medium thumbnail (320x180), else high, else default, of a YouTube snippet."""
    if not isinstance(thumbnails, dict):
        return https_url(thumbnails)
    for size in ("medium", "high", "standard", "default"):
        entry = thumbnails.get(size)
        url = https_url(entry.get("url")) if isinstance(entry, dict) else ""
        if url:
            return url
    return ""


def tags(value: Any) -> list[str]:
    if not isinstance(value, list):
        return []
    found = [clean(t, TAG_CHARS) for t in value[: MAX_TAGS * 2]]
    return list(dict.fromkeys(t for t in found if t))[:MAX_TAGS]


def first(record: dict[str, Any], *names: str) -> Any:
    """The first of `names` present in `record` with a non-empty value."""
    for name in names:
        value = record.get(name)
        if value not in (None, "", [], {}):
            return value
    return None


def candidate_from_record(
    record: Any, source: str, *, html_escaped: bool = False
) -> Candidate | None:
    """A Candidate from a loosely shaped video record, or None if it has no usable id
    or title. Accepts our own field names, YouTube's camelCase ones and a nested
    `snippet`, so any reasonable video-search tool can feed the meeting.
    `html_escaped`: search.list snippets escape `'` as `&#39;`; videos.list ones do not."""
    if not isinstance(record, dict):
        return None
    snippet = record.get("snippet")
    merged = {**snippet, **record} if isinstance(snippet, dict) else dict(record)
    raw_id = first(merged, "id", "video_id", "videoId")
    if isinstance(raw_id, dict):  # search.list: {"kind": "youtube#video", "videoId": ...}
        raw_id = raw_id.get("videoId")
    video_id = valid_video_id(raw_id)
    title = clean(first(merged, "title") or "", TITLE_CHARS)
    description = clean(first(merged, "description") or "", DESCRIPTION_CHARS)
    if html_escaped:
        title, description = html.unescape(title), html.unescape(description)
    if video_id is None or not title:
        return None
    details = merged.get("contentDetails")
    duration = first(merged, "duration")
    if duration is None and isinstance(details, dict):
        duration = details.get("duration")
    return Candidate(
        id=video_id,
        title=title,
        channel=clean(first(merged, "channel", "channel_title", "channelTitle") or "",
                      CHANNEL_CHARS),
        duration=iso_duration(duration),
        published=date_only(first(merged, "published", "published_at", "publishedAt")),
        thumbnail_url=best_thumbnail(first(merged, "thumbnail_url", "thumbnailUrl", "thumbnail",
                                           "thumbnails")),
        description=description,
        source=source,
        tags=tags(merged.get("tags")),
    )
