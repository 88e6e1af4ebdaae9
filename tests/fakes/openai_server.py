"""A fake OpenAI-compatible chat server for tests and benchmarks: a real HTTP server on
127.0.0.1, run as its own process, stdlib only.

    python -m tests.fakes.openai_server --port 0     # prints the chosen port, then serves

`POST /v1/chat/completions` answers as SSE (chunked), following a script of replies that
tests set through a control API:

    POST /_script    JSON list of replies, consumed in order (replaces the current script)
    GET  /_requests  every chat request so far: path, body, masked Authorization, outcome
    GET  /_outcome?index=N&timeout=S   waits until request N finished streaming
    GET  /_stats     {"in_flight": n, "max_in_flight": m, "count": k}: chat requests being
                     answered now, the most at once, and how many came
    POST /_reset     empty the script, the request log and the stats; leave offline mode
    POST /_offline   {"seed": N}: answer every chat request (the script aside) as the
                     app's offline model would with seed N (see below); {"seed": null} stops
    GET  /_health    "ok"
    POST /_embeddings  {"status": N}: answer `/v1/embeddings` with HTTP N (200: vectors)
    GET  /_embeddings  {"status": N, "count": k, "inputs": [...]}: embedding requests so far

`POST /v1/embeddings` answers `{"data": [{"index", "embedding"}]}` with a deterministic
vector per input: its words hashed (SHA-256) into 32 signed buckets, normalized, so
texts sharing words are near. Embedding requests are not counted as chat requests.

Requests are answered on their own threads, so many can stream at once.

Every reply may carry `"repeat": N` to serve it N times, `"latency_s": S` to wait S
seconds before the first byte, and `"reject_response_format": true` to answer a request
that carries `response_format` with HTTP 400 "response_format is not supported" instead
(a request without it gets the reply). Reply kinds:
    ok                text, chunk_size (chars, default 4), delay_s (between chunks),
                      usage (bool, or a dict sent as it is), finish_reason, reasoning
                      (sent as reasoning_content),
                      tokens + tokens_per_s (generated text, paced: for latency benches)
    status            status, headers, body (JSON or text)
    slow_first_token  200 and headers at once, then delay_s of silence, then an ok reply
    drop              text, then the socket closes mid-body; graceful=true ends the body
                      cleanly but still without finish_reason or [DONE]
    malformed         text, then a chunk that is not JSON
    error_in_stream   text, then `{"error": {...}}` (style "vllm": `{"object": "error"}`)
    keepalive_trickle `: keep-alive` comments every interval_s, count times, then ok
    disconnect        close the connection without any response
    huge_header       200 with one header of header_bytes (default 1 MB), then an ok reply
    json              a non-streamed chat.completion JSON body (tool_calls as below)
    tool_calls        optional text, then `tool_calls` deltas: tool_calls is a list of
                      {id, name, arguments}; each call's arguments are split into pieces of
                      piece_size chars (default 5) over separate chunks, split_name=true
                      sends the name in two pieces; finish_reason (default "tool_calls");
                      count_calls=true counts the text and the calls as completion tokens
With an empty script the server answers `ok` with "CALL: passTurn()".

Offline mode (opt-in, `POST /_offline`): a request the script does not answer gets what
the app's offline model (roundtable_desktop.llm.offline) answers for it with the seed
given, its text streamed and its tool calls sent as `tool_calls` deltas, with usage by
this server's own count (`_usage`, about four characters a token, tool-call arguments
included), never the app's estimate. The offline model picks its policy by the request's
`kind`, `purpose` and `response_schema`, which are never sent in the body: a client tells
them in the `X-Offline-Request` header (JSON; tests/fakes/offline_telling_client.py).
Apart from that mode, must not import the application: it stands in for a remote peer.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.fakes.peer_process import LoopbackServer, send_body, serve_main

DEFAULT_TEXT = "CALL: passTurn()"
OFFLINE_HEADER = "X-Offline-Request"
_TOKEN = re.compile(r"\s*\S+|\s+")


class ServerState:
    """The script and the request log, shared by handler threads."""

    def __init__(self) -> None:
        self.lock = threading.Condition()
        self.script: list[dict[str, Any]] = []
        self.requests: list[dict[str, Any]] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.count = 0
        self.embeddings_status = 200
        self.embedding_inputs: list[list[str]] = []
        self.offline_seed: int | None = None  # offline mode's seed; None: not in it

    def next_reply(self) -> dict[str, Any]:
        with self.lock:
            if not self.script:
                if self.offline_seed is not None:
                    return {"kind": "offline", "seed": self.offline_seed}
                return {"kind": "ok", "text": DEFAULT_TEXT}
            reply = self.script[0]
            repeat = int(reply.get("repeat", 1))
            if repeat > 1:
                self.script[0] = {**reply, "repeat": repeat - 1}
            else:
                self.script.pop(0)
            return reply

    def record(self, entry: dict[str, Any]) -> dict[str, Any]:
        with self.lock:
            self.requests.append(entry)
            return entry

    def finish(self, entry: dict[str, Any], outcome: str) -> None:
        with self.lock:
            entry["outcome"] = outcome
            self.lock.notify_all()

    def started(self) -> None:
        with self.lock:
            self.in_flight += 1
            self.count += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def ended(self) -> None:
        with self.lock:
            self.in_flight -= 1

    def stats(self) -> dict[str, int]:
        with self.lock:
            return {"in_flight": self.in_flight, "max_in_flight": self.max_in_flight,
                    "count": self.count}

    def reset(self) -> None:
        with self.lock:
            self.script = []
            self.requests = []
            # Requests of an earlier test may still be streaming: they stay counted in
            # `in_flight` (and end normally), but the peak starts again from them.
            self.max_in_flight = self.in_flight
            self.count = 0
            self.embeddings_status = 200
            self.embedding_inputs = []
            self.offline_seed = None


class ClientGone(Exception):
    """The client closed the connection while we were writing."""


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: FakeServer

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep the test output clean; the request log is at /_requests

    # -- routing ------------------------------------------------------------------------
    def do_GET(self) -> None:
        url = urllib.parse.urlsplit(self.path)
        state = self.server.state
        if url.path == "/_health":
            self._send_json(200, "ok")
        elif url.path == "/_requests":
            with state.lock:
                self._send_json(200, list(state.requests))
        elif url.path == "/_outcome":
            self._wait_outcome(urllib.parse.parse_qs(url.query))
        elif url.path == "/_stats":
            self._send_json(200, state.stats())
        elif url.path == "/_embeddings":
            with state.lock:
                self._send_json(200, {"status": state.embeddings_status,
                                      "count": len(state.embedding_inputs),
                                      "inputs": list(state.embedding_inputs)})
        else:
            self._send_json(404, {"error": {"message": f"no route {url.path}"}})

    def do_POST(self) -> None:
        url = urllib.parse.urlsplit(self.path)
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        state = self.server.state
        if url.path == "/_script":
            with state.lock:
                state.script = list(json.loads(raw or b"[]"))
            self._send_json(200, {"queued": len(state.script)})
        elif url.path == "/_reset":
            state.reset()
            self._send_json(200, {"reset": True})
        elif url.path == "/_offline":
            seed = json.loads(raw or b"{}").get("seed")
            with state.lock:
                state.offline_seed = None if seed is None else int(seed)
            self._send_json(200, {"seed": state.offline_seed})
        elif url.path == "/_embeddings":
            with state.lock:
                state.embeddings_status = int(json.loads(raw or b"{}").get("status", 200))
            self._send_json(200, {"status": state.embeddings_status})
        elif url.path.endswith("/chat/completions"):
            self._chat(url.path, raw)
        elif url.path.endswith("/embeddings"):
            self._embeddings(raw)
        else:
            self._send_json(404, {"error": {"message": f"no route {url.path}"}})

    def _wait_outcome(self, query: dict[str, list[str]]) -> None:
        index = int(query.get("index", ["0"])[0])
        deadline = time.monotonic() + float(query.get("timeout", ["5"])[0])
        state = self.server.state
        with state.lock:
            while True:
                entry = state.requests[index] if index < len(state.requests) else None
                if entry is not None and entry["outcome"] != "streaming":
                    outcome = entry["outcome"]
                    break
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    outcome = entry["outcome"] if entry else "missing"
                    break
                state.lock.wait(remaining)
        self._send_json(200, {"outcome": outcome})

    # -- embeddings -----------------------------------------------------------------------
    def _embeddings(self, raw: bytes) -> None:
        state = self.server.state
        body = json.loads(raw or b"{}")
        inputs = body.get("input", [])
        inputs = [inputs] if isinstance(inputs, str) else [str(x) for x in inputs]
        with state.lock:
            state.embedding_inputs.append(inputs)
            status = state.embeddings_status
        if status != 200:
            self._send_json(status, {"error": {"message": f"Scripted status {status}: "
                                                          "no embeddings here."}})
            return
        data = [{"object": "embedding", "index": i, "embedding": _word_vector(text)}
                for i, text in enumerate(inputs)]
        self._send_json(200, {"object": "list", "data": data,
                              "model": body.get("model", "fake-embed")})

    # -- chat -----------------------------------------------------------------------------
    def _chat(self, path: str, raw: bytes) -> None:
        self.server.state.started()
        self._counted = True
        try:
            self._chat_counted(path, raw)
        finally:
            self._leave()

    def _leave(self) -> None:
        """Stop counting this request as in flight: called just before the bytes that let
        the client finish (`[DONE]`, the end of the body), so a client that sends its next
        request the moment one ends is never seen with one too many in flight."""
        if getattr(self, "_counted", False):
            self._counted = False
            self.server.state.ended()

    def _chat_counted(self, path: str, raw: bytes) -> None:
        state = self.server.state
        try:
            body = json.loads(raw)
        except json.JSONDecodeError:
            body = {"unparsed": raw.decode("utf-8", "replace")}
        entry = state.record(
            {
                "path": path,
                "body": body,
                **_masked_auth(self.headers.get("Authorization")),
                "outcome": "streaming",
            }
        )
        reply = state.next_reply()
        if reply.get("reject_response_format") and isinstance(body, dict) and body.get(
            "response_format"
        ) is not None:
            reply = {"kind": "status", "status": 400, "latency_s": reply.get("latency_s", 0),
                     "body": {"error": {"message": "response_format is not supported by "
                                                   "this model", "type": "invalid_request"}}}
        try:
            time.sleep(float(reply.get("latency_s", 0) or 0))
            outcome = self._serve(reply, body)
        except (ClientGone, ConnectionError, OSError):
            outcome = "client_disconnected"
        self.close_connection = True
        state.finish(entry, outcome)

    def _serve(self, reply: dict[str, Any], body: dict[str, Any]) -> str:
        kind = reply.get("kind", "ok")
        if kind == "status":
            return self._serve_status(reply)
        if kind == "disconnect":
            return "disconnected"
        if kind == "json":
            return self._serve_json_completion(reply, body)
        if kind == "huge_header":
            padding = "a" * int(reply.get("header_bytes", 1_000_000))
            self._start_stream({"X-Padding": padding})
            return self._stream_ok(reply, body)
        self._start_stream()
        if kind == "slow_first_token":
            time.sleep(float(reply.get("delay_s", 1.0)))
            return self._stream_ok(reply, body)
        if kind == "keepalive_trickle":
            for _ in range(int(reply.get("count", 10))):
                self._chunk(b": keep-alive\n\n")
                time.sleep(float(reply.get("interval_s", 0.1)))
            return self._stream_ok(reply, body)
        if kind == "ok":
            return self._stream_ok(reply, body)
        if kind == "offline":
            return self._stream_tool_calls(
                _offline_reply(body, self.headers.get(OFFLINE_HEADER), int(reply["seed"])),
                body)
        if kind == "tool_calls":
            return self._stream_tool_calls(reply, body)
        self._send_text(reply.get("text", ""), reply, body)
        if kind == "drop":
            if reply.get("graceful"):
                self._end_chunks()
            return "dropped"
        if kind == "malformed":
            self._chunk(b'data: {"choices": [{"delta": {"content": "x"\n\n')
        elif kind == "error_in_stream":
            message = reply.get("message", "The model crashed (scripted).")
            if reply.get("style") == "vllm":
                error: dict[str, Any] = {"object": "error", "message": message, "code": 500}
            else:
                error = {"error": {"message": message, "code": 500}}
            self._event(error)
        else:
            raise ValueError(f"unknown reply kind {kind!r}")
        self._end_chunks()
        return "completed"

    def _serve_status(self, reply: dict[str, Any]) -> str:
        status = int(reply.get("status", 500))
        body = reply.get("body", {"error": {"message": f"Scripted status {status}."}})
        data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        kind = "text/plain" if isinstance(body, str) else "application/json"
        self._leave()
        send_body(self, status, data, kind, reply.get("headers", {}))
        return "completed"

    def _serve_json_completion(self, reply: dict[str, Any], body: dict[str, Any]) -> str:
        text = reply.get("text", DEFAULT_TEXT)
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if reply.get("tool_calls"):
            message["tool_calls"] = [
                {"id": c.get("id", f"call_{i}"), "type": "function",
                 "function": {"name": c["name"], "arguments": c.get("arguments", "")}}
                for i, c in enumerate(reply["tool_calls"])
            ]
        document = {
            "id": "fake-1",
            "object": "chat.completion",
            "model": body.get("model", "fake"),
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "tool_calls" if reply.get("tool_calls") else "stop",
                    "message": message,
                }
            ],
            "usage": _usage(body, text),
        }
        self._leave()
        self._send_json(200, document)
        return "completed"

    def _stream_ok(self, reply: dict[str, Any], body: dict[str, Any]) -> str:
        if reply.get("reasoning"):
            self._event(_chunk_doc(body, {"reasoning_content": reply["reasoning"]}))
        text = self._send_text(_reply_text(reply), reply, body)
        self._event(_chunk_doc(body, {}, finish_reason=reply.get("finish_reason", "stop")))
        if reply.get("usage", True):
            tokens = len(_split_tokens(text)) if "tokens" in reply else None
            given = reply.get("usage")  # a dict is sent as it is (a hostile server's counts)
            usage = given if isinstance(given, dict) else _usage(body, text, tokens)
            self._event({**_chunk_doc(body, None), "choices": [], "usage": usage})
        self._chunk(b"data: [DONE]\n\n")
        self._end_chunks()
        return "completed"

    def _stream_tool_calls(self, reply: dict[str, Any], body: dict[str, Any]) -> str:
        """Text (if any), then each call as OpenAI streams it: the first delta carries
        index, id, type and name, the next ones only argument pieces."""
        self._send_text(str(reply.get("text", "")), reply, body)
        size = max(1, int(reply.get("piece_size", 5)))
        for index, call in enumerate(reply.get("tool_calls", [])):
            name = str(call["name"])
            names = [name[: len(name) // 2], name[len(name) // 2 :]] if reply.get(
                "split_name") else [name]
            for n, piece in enumerate(names):
                head: dict[str, Any] = {"index": index, "function": {"name": piece}}
                if n == 0:
                    head.update(id=call.get("id", f"call_{index}"), type="function")
                    head["function"]["arguments"] = ""
                self._event(_chunk_doc(body, {"tool_calls": [head]}))
            arguments = str(call.get("arguments", ""))
            for i in range(0, len(arguments), size):
                piece = {"index": index, "function": {"arguments": arguments[i : i + size]}}
                self._event(_chunk_doc(body, {"tool_calls": [piece]}))
        finish = str(reply.get("finish_reason", "tool_calls"))
        self._event(_chunk_doc(body, {}, finish_reason=finish))
        if reply.get("usage", True):
            # A model's tool calls are tokens it wrote: counted with the text when asked.
            written = str(reply.get("text", "")) + "".join(
                str(c["name"]) + str(c.get("arguments", ""))
                for c in reply.get("tool_calls", [])) if reply.get("count_calls") else ""
            self._event({**_chunk_doc(body, None), "choices": [],
                         "usage": _usage(body, written)})
        self._chunk(b"data: [DONE]\n\n")
        self._end_chunks()
        return "completed"

    def _send_text(self, text: str, reply: dict[str, Any], body: dict[str, Any]) -> str:
        """Send `text` as content deltas, paced by delay_s or tokens_per_s."""
        self._event(_chunk_doc(body, {"role": "assistant", "content": ""}))
        if "tokens" in reply:
            pieces = _split_tokens(text)
        else:
            size = max(1, int(reply.get("chunk_size", 4)))
            pieces = [text[i : i + size] for i in range(0, len(text), size)]
        rate = float(reply.get("tokens_per_s", 0) or 0)
        delay = 1.0 / rate if rate > 0 else float(reply.get("delay_s", 0.0))
        for piece in pieces:
            self._event(_chunk_doc(body, {"content": piece}))
            if delay:
                time.sleep(delay)
        return text

    # -- wire -----------------------------------------------------------------------------
    def _start_stream(self, extra_headers: dict[str, str] | None = None) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Connection", "close")
        for name, value in (extra_headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        try:
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError) as exc:
            raise ClientGone() from exc

    def _event(self, document: dict[str, Any]) -> None:
        self._chunk(b"data: " + json.dumps(document).encode() + b"\n\n")

    def _chunk(self, data: bytes) -> None:
        if data.startswith(b"data: [DONE]"):
            self._leave()
        try:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError) as exc:
            raise ClientGone() from exc

    def _end_chunks(self) -> None:
        self._leave()
        try:
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError) as exc:
            raise ClientGone() from exc

    def _send_json(self, status: int, document: Any) -> None:
        send_body(self, status, json.dumps(document).encode())


class FakeServer(LoopbackServer):
    request_queue_size = 64  # concurrency tests open many connections at once

    def __init__(self, port: int) -> None:
        super().__init__(port, Handler, ServerState())


def _word_vector(text: str, dims: int = 32) -> list[float]:
    vector = [0.0] * dims
    for word in re.findall(r"\w+", text.lower()):
        digest = int.from_bytes(hashlib.sha256(word.encode()).digest()[:8], "little")
        vector[digest % dims] += 1.0 if digest >> 63 else -1.0
    norm = sum(x * x for x in vector) ** 0.5
    return [x / norm for x in vector] if norm else vector


def _masked_auth(header: str | None) -> dict[str, Any]:
    """Say whether a key came, and a short hash to compare with, never the key itself."""
    if header is None:
        return {"authorization": None, "key_sha256": None}
    scheme, _, token = header.partition(" ")
    digest = hashlib.sha256(token.encode()).hexdigest()[:16] if token else None
    return {"authorization": f"{scheme} ***", "key_sha256": digest}


def _chunk_doc(
    body: dict[str, Any], delta: dict[str, Any] | None, finish_reason: str | None = None
) -> dict[str, Any]:
    choices = (
        [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish_reason}]
    )
    return {
        "id": "fake-1",
        "object": "chat.completion.chunk",
        "model": body.get("model", "fake"),
        "choices": choices,
    }


def _reply_text(reply: dict[str, Any]) -> str:
    if "text" in reply:
        return str(reply["text"])
    if "tokens" in reply:
        return "".join(f" tok{i}" for i in range(int(reply["tokens"])))
    return DEFAULT_TEXT


def _split_tokens(text: str) -> list[str]:
    """Word-sized pieces, each with its leading space, as tokenizers tend to emit."""
    return _TOKEN.findall(text)


def _offline_reply(body: dict[str, Any], told: str | None, seed: int) -> dict[str, Any]:
    """The offline model's answer to `body` as a `tool_calls` reply (text and calls)."""
    from roundtable_desktop.domain.calls import ChatRequest
    from roundtable_desktop.kinds.built import register_built_kinds
    from roundtable_desktop.llm.offline import offline_reply

    register_built_kinds()  # as a composition root: each kind's offline policies
    never_sent = json.loads(told) if told else {}
    request = ChatRequest.model_validate({**body, **never_sent})
    answer = offline_reply(request, seed)
    calls = [{"id": c.id, "name": c.name, "arguments": c.arguments}
             for c in answer.tool_calls]
    return {"kind": "tool_calls", "text": answer.text, "tool_calls": calls,
            "count_calls": True, "piece_size": 64,
            "finish_reason": "tool_calls" if calls else "stop"}


def _usage(body: dict[str, Any], text: str, tokens: int | None = None) -> dict[str, int]:
    """About four characters per token, or the exact count a token-rate reply sent."""
    prompt_chars = sum(len(str(m.get("content", ""))) for m in body.get("messages", []))
    prompt = (prompt_chars + 3) // 4
    completion = tokens if tokens is not None else (len(text) + 3) // 4
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def main(argv: list[str] | None = None) -> None:
    serve_main(FakeServer, __doc__ or "fake server", argv)


if __name__ == "__main__":
    sys.exit(main())
