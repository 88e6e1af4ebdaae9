"""An RSS or Atom feed (a Substack's /feed, a blog's) as a persona corpus.

    read_feed(url_or_path, *, limit=20, max_chars=2000, transport=None) -> SourceItems

`url_or_path` is an http(s) address, fetched here with httpx (explicit timeouts, an
overall deadline and a size cap; `transport` is the test seam), or a feed file on disk.
The bytes are parsed by feedparser, which also reads broken ("bozo") feeds as far as it
can: entries it recovers are kept, entries with neither text nor title are skipped, and
only when no entry is usable is that an error (saying how many were skipped). Each post
becomes a CorpusItem of kind "post": HTML body stripped to plain text (persona_text.py),
cut near `max_chars` at a sentence or word boundary, with its title, link (http and
https only) and publication time (ISO, UTC); the newest `limit` posts, newest first.

Failures raise CorpusSourceError with one sentence naming the feed: the network, an HTTP
status, a document that is not a feed, a feed with no posts. The feed is named without
user, password or query (a private feed's address can carry a token). Must not import
anything above domain, call models or keep any markup in the text.
"""

from __future__ import annotations

import calendar
import io
import re
import time
import urllib.parse
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import feedparser
import httpx

from roundtable_desktop import __version__
from roundtable_desktop.kinds.debate.corpus import CorpusItem
from roundtable_desktop.kinds.debate.persona_build.sources.errors import (
    CorpusSourceError,
    SourceItems,
)
from roundtable_desktop.kinds.debate.persona_build.sources.text import (
    html_to_text,
    safe_text,
    truncate_near,
)

DEFAULT_LIMIT = 20
DEFAULT_MAX_CHARS = 2000
TIMEOUT = httpx.Timeout(connect=5.0, read=15.0, write=10.0, pool=5.0)
DEADLINE_S = 30.0  # the whole download: a server trickling bytes never trips a read timeout
MAX_BYTES = 10 * 1024 * 1024
_ACCEPT = ("application/rss+xml, application/atom+xml, application/xml;q=0.9, "
           "text/xml;q=0.8, */*;q=0.1")
_TITLE_CHARS = 300
_CHARREF = re.compile(rb"&#(?:[xX]([0-9a-fA-F]{1,8})|([0-9]{1,10}));")


def read_feed(url_or_path: str, *, limit: int = DEFAULT_LIMIT,
              max_chars: int = DEFAULT_MAX_CHARS,
              transport: httpx.BaseTransport | None = None) -> SourceItems:
    """The newest `limit` posts of the feed, newest first; CorpusSourceError otherwise."""
    if limit < 1 or max_chars < 1:
        raise ValueError("limit and max_chars must be at least 1")
    source = url_or_path.strip()
    if _is_web_address(source):
        name = shown_address(source)
        data, content_type = _download(source, name, transport)
    else:
        name, data, content_type = _read_file(source)
    try:
        parsed = feedparser.parse(io.BytesIO(_defuse_charrefs(data)),
                                  response_headers=_headers(content_type))
    except Exception:  # a parser crash on hostile input is this feed's fault, not the app's
        raise CorpusSourceError(f"The feed {name} could not be parsed at all; check that it "
                                "is an RSS or Atom feed.") from None
    return _items_of(parsed, name, content_type, limit=limit, max_chars=max_chars)


def shown_address(url: str) -> str:
    """The address as it may be shown: scheme, host, port and path only."""
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or ""
    port = _port(parts)
    shown_port = f":{port}" if port else ""
    return safe_text(f"{parts.scheme}://{host}{shown_port}{parts.path}")[:200]


def _port(parts: urllib.parse.SplitResult) -> int | None:
    try:
        return parts.port
    except ValueError:
        return None


def _is_web_address(source: str) -> bool:
    return source[:8].lower() == "https://" or source[:7].lower() == "http://"


def _defuse_charrefs(data: bytes) -> bytes:
    """`data` with numeric character references to what no text may hold (surrogates,
    code points past U+10FFFF: U+FFFD; NUL and other XML-illegal controls: removed);
    feedparser's loose parser crashes on them."""
    return _CHARREF.sub(_defused, data)


def _defused(match: re.Match[bytes]) -> bytes:
    code = int(match[1], 16) if match[1] else int(match[2])
    if 0xD800 <= code <= 0xDFFF or code > 0x10FFFF:
        return b"&#xFFFD;"
    if (code < 0x20 and code not in (0x9, 0xA, 0xD)) or code in (0xFFFE, 0xFFFF):
        return b""
    return match[0]


def _headers(content_type: str) -> dict[str, str]:
    return {"content-type": content_type} if content_type else {}


# -- reading --------------------------------------------------------------------------------
def _download(url: str, name: str, transport: httpx.BaseTransport | None) -> tuple[bytes, str]:
    headers = {"User-Agent": f"roundtable-desktop/{__version__} (persona builder)",
               "Accept": _ACCEPT}
    started = time.monotonic()
    try:
        with httpx.Client(timeout=TIMEOUT, transport=transport, headers=headers,
                          follow_redirects=True, max_redirects=5) as client, \
                client.stream("GET", url) as response:
            if response.status_code != 200:
                raise CorpusSourceError(_status_sentence(name, response.status_code))
            chunks: list[bytes] = []
            size = 0
            for chunk in response.iter_bytes():
                size += len(chunk)
                if size > MAX_BYTES:
                    raise CorpusSourceError(
                        f"The feed {name} is larger than {MAX_BYTES // (1024 * 1024)} MB; "
                        "it is not read.")
                if time.monotonic() - started > DEADLINE_S:
                    raise CorpusSourceError(f"The feed {name} did not finish downloading "
                                            f"within {DEADLINE_S:g} s; try again later.")
                chunks.append(chunk)
            return b"".join(chunks), response.headers.get("content-type", "")
    except httpx.TimeoutException:
        raise CorpusSourceError(f"The feed {name} did not answer in time; check the network "
                                "and the address, then try again.") from None
    except httpx.TooManyRedirects:
        raise CorpusSourceError(f"The feed {name} redirects too many times; check the "
                                "address.") from None
    except (httpx.TransportError, httpx.InvalidURL, httpx.UnsupportedProtocol):
        raise CorpusSourceError(f"Could not reach the feed {name}: the network is down or the "
                                "host does not exist; check the connection and the address."
                                ) from None


def _status_sentence(name: str, status: int) -> str:
    if status in (401, 403):
        return (f"The feed {name} refused access (HTTP {status}); a private feed needs its "
                "full private address.")
    if status == 404:
        return f"The feed {name} was not found (HTTP 404); check the address."
    if status == 429:
        return f"The feed {name} is rate-limiting requests (HTTP 429); try again later."
    if status >= 500:
        return f"The feed {name} had a server error (HTTP {status}); try again later."
    return f"The feed {name} answered HTTP {status} instead of a feed."


def _read_file(source: str) -> tuple[str, bytes, str]:
    if source[:7].lower() == "file://":
        source = urllib.parse.unquote(urllib.parse.urlsplit(source).path)
    path = Path(source).expanduser()
    name = safe_text(str(path))[:200]
    if not source or not path.is_file():
        raise CorpusSourceError(f"The feed {name or '(empty)'} is neither a web address "
                                "(http:// or https://) nor a file that exists.")
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise CorpusSourceError(f"The feed file {name} is larger than "
                                    f"{MAX_BYTES // (1024 * 1024)} MB; it is not read.")
        return name, path.read_bytes(), ""
    except OSError as error:
        raise CorpusSourceError(f"The feed file {name} could not be read "
                                f"({error.strerror or type(error).__name__}).") from None


# -- parsing --------------------------------------------------------------------------------
def _items_of(parsed: Any, name: str, content_type: str, *, limit: int,
              max_chars: int) -> SourceItems:
    entries = list(parsed.get("entries") or [])
    if not parsed.get("version") and not entries:
        raise CorpusSourceError(_not_a_feed(name, content_type))
    if not entries:
        raise CorpusSourceError(f"The feed {name} has no posts.")
    dated: list[tuple[float, CorpusItem]] = []
    skipped = 0
    for entry in entries:
        item, stamp = _item_of(entry, max_chars)
        if item is None:
            skipped += 1
        else:
            dated.append((stamp, item))
    if not dated:
        raise CorpusSourceError(
            f"The feed {name} has {skipped} post{'' if skipped == 1 else 's'}, but none could "
            "be read (each lacks both text and title).")
    # Newest first; undated posts keep the feed's order after the dated ones (stable sort).
    dated.sort(key=lambda pair: pair[0], reverse=True)
    notice = (f"{skipped} unreadable post{'' if skipped == 1 else 's'} in the feed {name} "
              "were skipped." if skipped else "")
    if skipped == 1:
        notice = notice.replace(" were ", " was ")
    return SourceItems((item for _, item in dated[:limit]), skipped=skipped, notice=notice)


def _not_a_feed(name: str, content_type: str) -> str:
    hint = ""
    if "html" in content_type.lower():
        hint = " (it is a web page; a Substack's feed is its address followed by /feed)"
    return f"The document at {name} is not an RSS or Atom feed{hint}."


def _item_of(entry: Any, max_chars: int) -> tuple[CorpusItem | None, float]:
    title = _text(entry.get("title_detail") or {"value": entry.get("title")})[:_TITLE_CHARS]
    body: Any = {}
    for content in entry.get("content") or []:  # Atom <content>, RSS <content:encoded>
        value = content.get("value") if isinstance(content, dict) else None
        if isinstance(value, str) and len(value) > len(str(body.get("value") or "")):
            body = content
    text = _text(body) or _text(entry.get("summary_detail") or
                                {"value": entry.get("summary")}) or title
    if not text:
        return None, float("-inf")
    parsed_time = entry.get("published_parsed") or entry.get("updated_parsed")
    stamp, published = float("-inf"), ""
    if parsed_time:
        try:
            stamp = float(calendar.timegm(parsed_time))
            published = datetime.fromtimestamp(stamp, UTC).isoformat()
        except (OverflowError, ValueError, OSError, TypeError):
            stamp, published = float("-inf"), ""
    item = CorpusItem(text=truncate_near(text, max_chars), url=_link(entry),
                      published=published, kind="post", title=title)
    return item, stamp


def _text(detail: Any) -> str:
    """Plain text of a feedparser text construct: HTML read as HTML, the rest as text
    (a plain "a <b> c" keeps its angle brackets)."""
    value = detail.get("value") if isinstance(detail, dict) else None
    if not isinstance(value, str):
        return ""
    kind = str(detail.get("type") or "text/html")
    return html_to_text(value) if "html" in kind else safe_text(value)


def _link(entry: Any) -> str:
    link = safe_text(str(entry.get("link") or "")).strip()
    if _is_web_address(link) and " " not in link and "\n" not in link:
        return link[:2048]
    return ""
