"""A fake X API v2 for tests: a real HTTP server on 127.0.0.1, run as its own process,
stdlib only.

    python -m tests.fakes.x_api_server --port 0     # prints the chosen port, then serves

`GET /2/users/by/username/{username}` and `GET /2/users/{id}/tweets` answer in the real
API's shapes: a user lookup gives `data` {id, name, username, profile_image_url,
protected}, or HTTP 200 with `errors[]` for an unknown name, as X does; a timeline page
gives `data` (id, text with `&amp;`-style escapes, created_at, public_metrics) and
`meta` {result_count, newest_id, oldest_id, next_token}, newest first. `max_results`
must be 5..100 (else 400, as X); `pagination_token` continues from a page's next_token.
A user's timeline interleaves original posts and reposts ("RT @..."); only a request
with `exclude=retweets` leaves the reposts out, so a client that forgets the parameter
gets them. Every API request needs `Authorization: Bearer <token>` (else 401). Control:

    POST /_script    {"users": {name: {"name": str, "posts": N, "reposts": M,
                                       "protected": bool}},
                      "fault": {"status": 429|401|503|..., "endpoint": "user"|"tweets"|"any",
                                "after": K, "reset_in_s": S,
                                "body": "garbage"|"huge", "megabytes": M, "declared": B}}
                     replaces the users (default: none, so every name is unknown) and the
                     fault: the (K+1)-th request to that endpoint and every later one get
                     that status; a 429 carries x-rate-limit-reset = now + S (default 900);
                     "body" answers 200 with HTML that is no JSON ("garbage") or with a
                     JSON document of M MB (default 50: "huge"; "declared": false sends
                     it with no Content-Length, ended by closing) instead;
                     the request log is emptied too
    GET  /_requests  every API request: path, params, whether a bearer token came and a
                     short hash of it (never the token)
    POST /_reset     no users, no fault, empty request log
    GET  /_health    "ok"

Error bodies quote the received token the way a careless server might, so tests can
check the client never passes server text on. Exits when its standard input closes.
Must not import the application: it stands in for a remote peer.
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

API = "/2"
BASE_TIME = 1_735_689_600  # 2025-01-01T00:00:00Z: the newest post; older ones an hour apart


def user_id(username: str) -> str:
    return str(int(hashlib.sha256(username.lower().encode()).hexdigest()[:12], 16))


def timeline(username: str, user: dict[str, Any]) -> list[dict[str, Any]]:
    """The user's whole timeline, newest first: posts with a repost after every third."""
    posts, reposts = int(user.get("posts", 0)), int(user.get("reposts", 0))
    entries: list[dict[str, Any]] = []
    made_posts = made_reposts = 0
    while made_posts < posts or made_reposts < reposts:
        repost = made_reposts < reposts and (made_posts >= posts or (len(entries) + 1) % 4 == 0)
        number = len(entries)
        created = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(BASE_TIME - 3600 * number))
        base_id = int(user_id(username)) % 10**6 * 10**6
        if repost:
            made_reposts += 1
            text = f"RT @someone_else: a reposted thought number {made_reposts}"
        else:
            made_posts += 1
            text = (f"Post {made_posts} by {username}: rules &amp; markets &lt;both&gt; "
                    "matter, and here is why.")
        entries.append({
            "id": str(base_id + 10**5 - number),
            "text": text,
            "created_at": created,
            "edit_history_tweet_ids": [str(base_id + 10**5 - number)],
            "public_metrics": {"retweet_count": number % 7, "reply_count": number % 5,
                               "like_count": 10 * number + 3, "quote_count": number % 3,
                               "bookmark_count": number % 2, "impression_count": 1000 + number},
            "repost": repost,
        })
    return entries


def problem(status: int, title: str, detail: str) -> dict[str, Any]:
    return {"title": title, "detail": detail, "type": "about:blank", "status": status}


class ServerState:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.users: dict[str, dict[str, Any]] = {}
        self.fault: dict[str, Any] = {}
        self.counts: dict[str, int] = {"user": 0, "tweets": 0}
        self.requests: list[dict[str, Any]] = []

    def reset(self) -> None:
        self.users, self.fault = {}, {}
        self.counts = {"user": 0, "tweets": 0}
        self.requests = []


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
        elif url.path.startswith(f"{API}/users/"):
            self._api(url)
        else:
            self._send_json(404, problem(404, "Not Found", "no such route"))

    def do_POST(self) -> None:
        url = urllib.parse.urlsplit(self.path)
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        state = self.server.state
        if url.path == "/_script":
            script = json.loads(raw or b"{}")
            with state.lock:
                state.users = {k.lower(): {**v, "username": k}
                               for k, v in dict(script.get("users") or {}).items()}
                state.fault = dict(script.get("fault") or {})
                state.counts = {"user": 0, "tweets": 0}
                state.requests = []
            self._send_json(200, {"scripted": True})
        elif url.path == "/_reset":
            with state.lock:
                state.reset()
            self._send_json(200, {"reset": True})
        else:
            self._send_json(404, {"error": "no route"})

    # -- the API --------------------------------------------------------------------------
    def _api(self, url: urllib.parse.SplitResult) -> None:
        params = dict(urllib.parse.parse_qsl(url.query))
        auth = self.headers.get("Authorization") or ""
        token = auth[len("Bearer "):] if auth.startswith("Bearer ") else ""
        parts = url.path[len(API) + 1:].split("/")  # users, by, username, NAME | users, ID, tweets
        endpoint = "user" if parts[:3] == ["users", "by", "username"] else "tweets"
        state = self.server.state
        with state.lock:
            state.requests.append({
                "path": url.path,
                "endpoint": endpoint,
                "params": params,
                "bearer": bool(token),
                "token_sha256": hashlib.sha256(token.encode()).hexdigest()[:16] if token else None,
            })
            count = state.counts[endpoint]
            state.counts[endpoint] = count + 1
            fault = dict(state.fault)
            users = {k: dict(v) for k, v in state.users.items()}
        if not token:
            self._send_json(401, problem(401, "Unauthorized", "Unauthorized"))
            return
        if fault and fault.get("endpoint", "any") in ("any", endpoint) \
                and count >= int(fault.get("after", 0)):
            self._fault(fault, token)
            return
        if endpoint == "user" and len(parts) == 4:
            self._user(parts[3], users)
        elif endpoint == "tweets" and len(parts) == 3:
            self._tweets(parts[1], params, users)
        else:
            self._send_json(404, problem(404, "Not Found", "no such route"))

    def _fault(self, fault: dict[str, Any], token: str) -> None:
        if fault.get("body") == "garbage":
            send_body(self, 200, b"<html><body>Something went wrong {{{ not JSON", "text/html")
            return
        if fault.get("body") == "huge":
            size = int(float(fault.get("megabytes", 50)) * 2**20)
            filler = b'{"data": [], "meta": {"result_count": 0}, "padding": "'
            body = filler + b"x" * max(0, size - len(filler) - 2) + b'"}'
            if fault.get("declared", True):
                send_body(self, 200, body, "application/json")
                return
            # No Content-Length: the body ends when the connection closes.
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Connection", "close")
            self.end_headers()
            try:
                for at in range(0, len(body), 2**16):
                    self.wfile.write(body[at:at + 2**16])
            except OSError:
                pass  # the client stopped reading: as it should
            self.close_connection = True
            return
        status = int(fault.get("status", 503))
        if status == 429:
            reset = int(time.time() + float(fault.get("reset_in_s", 900)))
            self._send_json(429, problem(429, "Too Many Requests", "Too Many Requests"),
                            {"x-rate-limit-limit": "5", "x-rate-limit-remaining": "0",
                             "x-rate-limit-reset": str(reset)})
        elif status == 401:
            self._send_json(401, problem(401, "Unauthorized",
                                         f"Unauthorized: bearer {token} is not valid"))
        else:
            self._send_json(status, problem(status, "Error", f"failure for token {token}"))

    def _user(self, username: str, users: dict[str, dict[str, Any]]) -> None:
        user = users.get(username.lower())
        if user is None:
            self._send_json(200, {"errors": [{
                "value": username, "detail": f"Could not find user with username: [{username}].",
                "title": "Not Found Error", "resource_type": "user", "parameter": "username",
                "resource_id": username,
                "type": "https://api.twitter.com/2/problems/resource-not-found"}]})
            return
        name = user["username"]
        self._send_json(200, {"data": {
            "id": user_id(name), "name": user.get("name", name), "username": name,
            "protected": bool(user.get("protected", False)),
            "profile_image_url": f"https://pbs.twimg.invalid/profile_images/{name}_normal.jpg"}})

    def _tweets(self, wanted_id: str, params: dict[str, str],
                users: dict[str, dict[str, Any]]) -> None:
        user = next((u for u in users.values() if user_id(u["username"]) == wanted_id), None)
        if user is None or user.get("protected"):
            self._send_json(200, {"errors": [{
                "title": "Authorization Error", "resource_type": "user", "parameter": "id",
                "value": wanted_id, "detail": "Sorry, you are not authorized to see the user.",
                "type": "https://api.twitter.com/2/problems/not-authorized-for-resource"}]})
            return
        try:
            size = int(params.get("max_results", "10"))
        except ValueError:
            size = 0
        if not 5 <= size <= 100:
            self._send_json(400, problem(400, "Invalid Request",
                                         "max_results must be between 5 and 100"))
            return
        entries = timeline(user["username"], user)
        if "retweets" in params.get("exclude", "").split(","):
            entries = [e for e in entries if not e["repost"]]
        token = params.get("pagination_token", "")
        start = int(token[len("page-"):]) if token.startswith("page-") else 0
        page = entries[start:start + size]
        fields = set(params.get("tweet.fields", "").split(","))
        data = [{k: v for k, v in e.items() if k in {"id", "text", "edit_history_tweet_ids"}
                 or k in fields} for e in page]
        meta: dict[str, Any] = {"result_count": len(page)}
        if page:
            meta.update(newest_id=page[0]["id"], oldest_id=page[-1]["id"])
        if start + size < len(entries):
            meta["next_token"] = f"page-{start + size}"
        self._send_json(200, {"data": data, "meta": meta} if data else {"meta": meta})

    # -- wire -----------------------------------------------------------------------------
    def _send_json(self, status: int, document: Any,
                   headers: dict[str, Any] | None = None) -> None:
        send_body(self, status, json.dumps(document).encode(), "application/json", headers)


class FakeServer(LoopbackServer):
    def __init__(self, port: int) -> None:
        super().__init__(port, Handler, ServerState())


def main(argv: list[str] | None = None) -> None:
    serve_main(FakeServer, __doc__ or "fake server", argv)


if __name__ == "__main__":
    sys.exit(main())
