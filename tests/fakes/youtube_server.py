"""A fake YouTube Data API v3 for tests: a real HTTP server on 127.0.0.1, run as its own
process, stdlib only.

    python -m tests.fakes.youtube_server --port 0     # prints the chosen port, then serves

`GET /youtube/v3/search` and `GET /youtube/v3/videos` answer in the shapes the real API
uses (search items carry `id.videoId` and an HTML-escaped snippet; videos items carry
`contentDetails.duration` in ISO-8601), from a fixed set of four videos; one of them is
missing from videos.list, as deleted or private videos are. Control API:

    POST /_mode      {"mode": M, "delay_s": S} until changed; modes:
                     ok, empty, quota (403 quotaExceeded), daily_limit (403
                     dailyLimitExceeded), invalid_key (400 API_KEY_INVALID), forbidden
                     (403 forbidden), malformed (200, not JSON), server_error (500),
                     videos_malformed (search ok, videos.list not JSON), slow (ok after S s)
    GET  /_requests  every API request: path, params, whether a key came in the
                     X-Goog-Api-Key header or the query, and a short hash of it (never it)
    POST /_reset     mode ok, empty request log
    GET  /_health    "ok"

It exits when its standard input closes, so a test run that dies leaves no server behind.
Error bodies quote the received key the way a careless server might, so tests can check
the client never passes server text through. Must not import the application.
"""

from __future__ import annotations

import hashlib
import json
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.fakes.peer_process import LoopbackServer, send_body, serve_main

API = "/youtube/v3"

VIDEOS: list[dict[str, Any]] = [
    {
        "id": "Yt0aaaaaaa1",
        "title": "Transformers, explained: attention you can draw",
        "search_title": "Transformers, explained: attention you can draw",
        "channel": "Fake Lab",
        "published": "2025-02-03T10:00:00Z",
        "duration": "PT1H2M3S",
        "description": "A visual walk through attention for web developers.",
        "tags": ["llm", "transformers"],
    },
    {
        "id": "Yt0aaaaaaa2",
        "title": "Don't ship that prompt: evals for LLM apps",
        "search_title": "Don&#39;t ship that prompt: evals for LLM apps",
        "channel": "Eval Corner",
        "published": "2024-11-19T08:30:00Z",
        "duration": "PT14M5S",
        "description": "How to test LLM features before users do.",
        "tags": ["llm", "evaluation"],
    },
    {
        "id": "Yt0aaaaaaa3",
        "title": "Live: science fiction book club",
        "search_title": "Live: science fiction book club",
        "channel": "Orbit Readers",
        "published": "2025-06-01T18:00:00Z",
        "duration": "P0D",
        "description": "A live stream; no fixed length.",
        "tags": ["science fiction"],
    },
    {  # in search results but not in videos.list (private or deleted meanwhile)
        "id": "Yt0aaaaaaa4",
        "title": "CSS container queries in 45 seconds",
        "search_title": "CSS container queries &amp; you in 45 seconds",
        "channel": "Quick Web",
        "published": "2025-01-10T12:00:00Z",
        "duration": "PT45S",
        "description": "Short &amp; sweet.",
        "tags": ["web development"],
        "hidden_from_videos": True,
    },
]


def _thumbnails(vid: str) -> dict[str, Any]:
    return {
        size: {"url": f"https://i.ytimg.invalid/vi/{vid}/{name}.jpg", "width": w, "height": h}
        for size, name, w, h in (
            ("default", "default", 120, 90),
            ("medium", "mqdefault", 320, 180),
            ("high", "hqdefault", 480, 360),
        )
    }


def search_item(video: dict[str, Any]) -> dict[str, Any]:
    return {
        "kind": "youtube#searchResult",
        "etag": "fake",
        "id": {"kind": "youtube#video", "videoId": video["id"]},
        "snippet": {
            "publishedAt": video["published"],
            "channelId": "UCfake",
            "title": video["search_title"],
            "description": video["description"],
            "thumbnails": _thumbnails(video["id"]),
            "channelTitle": video["channel"],
            "liveBroadcastContent": "none",
        },
    }


def video_item(video: dict[str, Any]) -> dict[str, Any]:
    return {
        "kind": "youtube#video",
        "etag": "fake",
        "id": video["id"],
        "snippet": {
            "publishedAt": video["published"],
            "channelId": "UCfake",
            "title": video["title"],
            "description": video["description"],
            "thumbnails": _thumbnails(video["id"]),
            "channelTitle": video["channel"],
            "tags": video["tags"],
            "categoryId": "27",
        },
        "contentDetails": {"duration": video["duration"], "dimension": "2d",
                           "definition": "hd", "caption": "false"},
    }


def google_error(code: int, reason: str, message: str, status: str,
                 detail_reason: str | None = None) -> dict[str, Any]:
    error: dict[str, Any] = {
        "code": code,
        "message": message,
        "errors": [{"message": message, "domain": "youtube.quota", "reason": reason}],
        "status": status,
    }
    if detail_reason:
        error["details"] = [{"@type": "type.googleapis.com/google.rpc.ErrorInfo",
                             "reason": detail_reason, "domain": "googleapis.com"}]
    return {"error": error}


class ServerState:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.mode: dict[str, Any] = {"mode": "ok"}
        self.requests: list[dict[str, Any]] = []


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: FakeServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        url = urllib.parse.urlsplit(self.path)
        state = self.server.state
        if url.path == "/_health":
            self._send_json(200, "ok")
        elif url.path == "/_requests":
            with state.lock:
                self._send_json(200, list(state.requests))
        elif url.path in (f"{API}/search", f"{API}/videos"):
            self._api(url)
        else:
            self._send_json(404, google_error(404, "notFound", "Not Found", "NOT_FOUND"))

    def do_POST(self) -> None:
        url = urllib.parse.urlsplit(self.path)
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        state = self.server.state
        if url.path == "/_mode":
            with state.lock:
                state.mode = dict(json.loads(raw or b"{}"))
            self._send_json(200, {"mode": state.mode})
        elif url.path == "/_reset":
            with state.lock:
                state.mode = {"mode": "ok"}
                state.requests = []
            self._send_json(200, {"reset": True})
        else:
            self._send_json(404, {"error": "no route"})

    # -- the API --------------------------------------------------------------------------
    def _api(self, url: urllib.parse.SplitResult) -> None:
        params = dict(urllib.parse.parse_qsl(url.query))
        header_key = self.headers.get("X-Goog-Api-Key")
        query_key = params.pop("key", None)
        key = header_key or query_key or ""
        state = self.server.state
        with state.lock:
            state.requests.append({
                "path": url.path,
                "params": params,
                "key_header": "***" if header_key else None,
                "key_in_query": query_key is not None,
                "key_sha256": hashlib.sha256(key.encode()).hexdigest()[:16] if key else None,
            })
            mode = dict(state.mode)
        self._answer(mode, url.path.rsplit("/", 1)[-1], params, key)

    def _answer(self, mode: dict[str, Any], endpoint: str, params: dict[str, str],
                key: str) -> None:
        name = mode.get("mode", "ok")
        if name == "quota":
            self._send_json(403, google_error(
                403, "quotaExceeded", f"The request cannot be completed because you have "
                f"exceeded your quota (key {key}).", "PERMISSION_DENIED"))
        elif name == "daily_limit":
            self._send_json(403, google_error(
                403, "dailyLimitExceeded", f"Daily Limit Exceeded for {key}.",
                "PERMISSION_DENIED"))
        elif name == "invalid_key":
            self._send_json(400, google_error(
                400, "badRequest", f"API key not valid. Please pass a valid API key. ({key})",
                "INVALID_ARGUMENT", detail_reason="API_KEY_INVALID"))
        elif name == "forbidden":
            self._send_json(403, google_error(403, "forbidden", f"Forbidden for key {key}",
                                              "PERMISSION_DENIED"))
        elif name == "server_error":
            self._send_json(500, google_error(500, "backendError", f"Backend error {key}",
                                              "INTERNAL"))
        elif name == "malformed" or (name == "videos_malformed" and endpoint == "videos"):
            self._send_raw(200, b'{"items": [ {"id": "Yt0aaaaaaa1", ', "application/json")
        else:
            if name == "slow":
                time.sleep(float(mode.get("delay_s", 2.0)))
            self._send_json(200, self._ok_body(endpoint, params, empty=name == "empty"))

    @staticmethod
    def _ok_body(endpoint: str, params: dict[str, str], *, empty: bool) -> dict[str, Any]:
        if endpoint == "search":
            limit = int(params.get("maxResults", "5"))
            items = [] if empty else [search_item(v) for v in VIDEOS][:limit]
            return {"kind": "youtube#searchListResponse", "etag": "fake",
                    "regionCode": "US", "pageInfo": {"totalResults": len(items),
                                                     "resultsPerPage": limit},
                    "items": items}
        wanted = [i for i in params.get("id", "").split(",") if i]
        items = [video_item(v) for v in VIDEOS
                 if v["id"] in wanted and not v.get("hidden_from_videos")]
        return {"kind": "youtube#videoListResponse", "etag": "fake",
                "pageInfo": {"totalResults": len(items), "resultsPerPage": len(items)},
                "items": items}

    # -- wire -----------------------------------------------------------------------------
    def _send_json(self, status: int, document: Any) -> None:
        self._send_raw(status, json.dumps(document).encode(), "application/json")

    def _send_raw(self, status: int, data: bytes, content_type: str) -> None:
        send_body(self, status, data, content_type)


class FakeServer(LoopbackServer):
    def __init__(self, port: int) -> None:
        super().__init__(port, Handler, ServerState())


def main(argv: list[str] | None = None) -> None:
    serve_main(FakeServer, __doc__ or "fake server", argv)


if __name__ == "__main__":
    sys.exit(main())
