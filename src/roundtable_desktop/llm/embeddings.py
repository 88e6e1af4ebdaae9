"""Embeddings: the offline model's hashed vectors, and the `/embeddings` call of an
OpenAI-compatible endpoint.

`hashed_embedding` is feature hashing of character trigrams (256 dimensions, signed,
normalized): deterministic on every machine and run (BLAKE2b, never Python's salted
`hash`), so an offline session ranks by "meaning" too, if only by shared word pieces.
`request_embeddings` POSTs `{"model", "input"}` and reads `data[i].embedding` in index
order; `endpoint_embeddings` does so at `{base}/embeddings` under one overall deadline
(the chat client's `embed` delegates to it, llm/openai_compat.py). An endpoint that
answers 400, 404, 405, 422 or 501 has no embeddings (or not for that model): it is
remembered in `NoEmbeddings` and never asked again in this process, and the caller gets
None, meaning "rank by keywords". Every other failure raises an `LLMError`; the caller
turns it into a warning, never a crash. Embedding calls are not chat calls: nothing here
records them. Must not import Qt, protocols or the store, and must never put the API key
in a message.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import threading
from collections.abc import Sequence

import httpx

from roundtable_desktop.llm.chat_chunks import server_message
from roundtable_desktop.llm.errors import (
    AuthError,
    CallTimeout,
    HTTPStatusError,
    RateLimited,
    StreamError,
    TransportError,
)

HASHED_DIMS = 256
BATCH = 128  # inputs per request: well under every provider's limit
NO_EMBEDDING_STATUSES = frozenset({400, 404, 405, 422, 501})
FIREWORKS_EMBEDDING_MODEL = "nomic-ai/nomic-embed-text-v1.5"
OPENAI_EMBEDDING_MODEL = "text-embedding-3-small"


def hashed_embedding(text: str, dims: int = HASHED_DIMS) -> list[float]:
    """A normalized vector of `text`'s character trigrams, hashed into `dims` signed
    buckets (all zeros for text without letters or digits)."""
    vector = [0.0] * dims
    for word in text.lower().split():
        padded = f" {word} "
        for i in range(len(padded) - 2):
            digest = hashlib.blake2b(padded[i:i + 3].encode("utf-8"), digest_size=8).digest()
            bucket = int.from_bytes(digest, "little")
            vector[bucket % dims] += 1.0 if (bucket >> 63) & 1 else -1.0
    norm = math.sqrt(sum(x * x for x in vector))
    return [x / norm for x in vector] if norm > 0 else vector


def default_embedding_model(base_url: str) -> str:
    """The embedding model to ask an endpoint for when none is configured."""
    return OPENAI_EMBEDDING_MODEL if "api.openai.com" in base_url else \
        FIREWORKS_EMBEDDING_MODEL


class NoEmbeddings:
    """The (embeddings URL, model) pairs that answered "no embeddings here", for this
    process. Thread-safe; clients share the module-level `NO_EMBEDDINGS`."""

    def __init__(self) -> None:
        self._lacking: set[tuple[str, str]] = set()
        self._lock = threading.Lock()

    def remember(self, url: str, model: str) -> None:
        with self._lock:
            self._lacking.add((url, model))

    def lacks(self, url: str, model: str) -> bool:
        with self._lock:
            return (url, model) in self._lacking


NO_EMBEDDINGS = NoEmbeddings()


async def endpoint_embeddings(
    http: httpx.AsyncClient, base_url: str, headers: dict[str, str], model: str,
    texts: Sequence[str], *, host: str, deadline: float, lacking: NoEmbeddings = NO_EMBEDDINGS,
) -> list[list[float]] | None:
    """`request_embeddings` from `{base_url}/embeddings`, all batches within `deadline`
    seconds (else a final `CallTimeout`); None when the endpoint offers no embeddings."""
    headers = {**headers, "Accept": "application/json"}
    try:
        return await asyncio.wait_for(
            request_embeddings(http, f"{base_url}/embeddings", headers, model, texts,
                               host=host, lacking=lacking),
            deadline)
    except TimeoutError:
        raise CallTimeout(f"No embeddings from {host} within {deadline:g} s.",
                          final=True) from None


async def request_embeddings(
    http: httpx.AsyncClient, url: str, headers: dict[str, str], model: str,
    texts: Sequence[str], *, host: str, lacking: NoEmbeddings = NO_EMBEDDINGS,
) -> list[list[float]] | None:
    """One vector per text, in order; None when the endpoint offers no embeddings."""
    if lacking.lacks(url, model):
        return None
    vectors: list[list[float]] = []
    for start in range(0, len(texts), BATCH):
        batch = list(texts[start:start + BATCH])
        found = await _one_batch(http, url, headers, model, batch, host, lacking)
        if found is None:
            return None
        vectors.extend(found)
    return vectors


async def _one_batch(
    http: httpx.AsyncClient, url: str, headers: dict[str, str], model: str,
    batch: list[str], host: str, lacking: NoEmbeddings,
) -> list[list[float]] | None:
    try:
        response = await http.post(url, json={"model": model, "input": batch},
                                   headers=headers)
    except httpx.TimeoutException:
        raise CallTimeout(f"{host} did not answer the embeddings request in time.") from None
    except httpx.TransportError as exc:
        raise TransportError(f"Could not reach {host} for embeddings "
                             f"({type(exc).__name__}).") from None
    status = response.status_code
    if status in NO_EMBEDDING_STATUSES:
        lacking.remember(url, model)
        return None
    if not 200 <= status < 300:
        detail = server_message(response.content[:65536])
        message = f"{host} answered the embeddings request with HTTP {status}" + (
            f": {detail}" if detail else ".")
        if status in (401, 403):
            raise AuthError(message, status=status)
        error = RateLimited if status == 429 else HTTPStatusError
        raise error(message, status=status)
    return _read_vectors(response, len(batch), host)


def _read_vectors(response: httpx.Response, count: int, host: str) -> list[list[float]]:
    bad = StreamError(f"{host} sent embeddings that could not be read.")
    try:
        data = response.json().get("data")
        rows = sorted(data, key=lambda row: int(row.get("index", 0)))
        vectors = [[float(x) for x in row["embedding"]] for row in rows]
    except (ValueError, TypeError, AttributeError, KeyError):
        raise bad from None
    if len(vectors) != count or not vectors or any(len(v) != len(vectors[0]) for v in vectors):
        raise bad
    return vectors
