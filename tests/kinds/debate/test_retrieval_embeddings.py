"""Embeddings: the offline client's hashed vectors are deterministic (across processes
too), the OpenAI-compatible client reads `/v1/embeddings` from the fake server, an
endpoint without embeddings (404) is asked once and then answers None, a server error
is an LLMError (and asked again next time), and the scripted client offers none unless
given vectors."""

from __future__ import annotations

import asyncio
import json
import math
import os
import subprocess
import sys

import pytest

from roundtable_desktop.llm.embeddings import HASHED_DIMS, NoEmbeddings, hashed_embedding
from roundtable_desktop.llm.errors import HTTPStatusError
from roundtable_desktop.llm.offline import OfflineClient
from roundtable_desktop.llm.openai_compat import OpenAICompatClient
from tests.fakes.openai_fixture import FakeOpenAI, fake_openai  # noqa: F401
from tests.fakes.scripted_model import ScriptedClient

TEXTS = ["Licensing frontier models slows reckless releases.",
         "Licences for frontier model releases slow the reckless ones.",
         "Bananas ripen faster next to apples."]


def _dot(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def test_offline_embeddings_are_the_same_for_the_same_text_on_every_client():
    first = asyncio.run(OfflineClient(seed=1).embed(TEXTS))
    second = asyncio.run(OfflineClient(seed=2).embed(TEXTS))
    assert first == second
    assert all(len(v) == HASHED_DIMS for v in first)
    assert all(math.isclose(math.sqrt(_dot(v, v)), 1.0) for v in first)


def test_offline_embeddings_do_not_depend_on_pythons_hash_seed():
    code = ("import json; from roundtable_desktop.llm.embeddings import hashed_embedding; "
            f"print(json.dumps(hashed_embedding({TEXTS[0]!r})))")
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout
    assert json.loads(out) == hashed_embedding(TEXTS[0])


def test_offline_embeddings_put_texts_that_share_words_nearer():
    a, b, c = hashed_embedding(TEXTS[0]), hashed_embedding(TEXTS[1]), hashed_embedding(TEXTS[2])
    assert _dot(a, b) > _dot(a, c) + 0.2


def test_the_openai_compatible_client_reads_embeddings_from_the_endpoint(fake_openai: FakeOpenAI):  # noqa: F811
    fake_openai.reset()
    client = OpenAICompatClient(fake_openai.base_url, "sk-test", no_embeddings=NoEmbeddings())

    async def go():
        try:
            return await client.embed(TEXTS)
        finally:
            await client.aclose()

    vectors = asyncio.run(go())
    assert vectors is not None and len(vectors) == 3 and len(vectors[0]) == 32
    assert fake_openai.embedding_requests() == [TEXTS]
    assert fake_openai.stats()["count"] == 0  # not a chat call


def test_an_endpoint_without_embeddings_is_asked_once(fake_openai: FakeOpenAI):  # noqa: F811
    fake_openai.reset()
    fake_openai.set_embeddings_status(404)
    lacking = NoEmbeddings()
    first = OpenAICompatClient(fake_openai.base_url, "sk-test", no_embeddings=lacking)
    again = OpenAICompatClient(fake_openai.base_url, "sk-test", no_embeddings=lacking)

    async def go():
        try:
            return [await first.embed(TEXTS), await first.embed(TEXTS[:1]),
                    await again.embed(TEXTS)]
        finally:
            await first.aclose()
            await again.aclose()

    assert asyncio.run(go()) == [None, None, None]
    assert len(fake_openai.embedding_requests()) == 1


def test_a_server_error_on_embeddings_raises_and_is_not_remembered(fake_openai: FakeOpenAI):  # noqa: F811
    fake_openai.reset()
    fake_openai.set_embeddings_status(500)
    client = OpenAICompatClient(fake_openai.base_url, "sk-test", no_embeddings=NoEmbeddings())

    async def go():
        try:
            with pytest.raises(HTTPStatusError, match="HTTP 500"):
                await client.embed(TEXTS)
            fake_openai.set_embeddings_status(200)
            return await client.embed(TEXTS)
        finally:
            await client.aclose()

    assert asyncio.run(go()) is not None
    assert len(fake_openai.embedding_requests()) == 2


def test_the_scripted_client_offers_no_embeddings_unless_given_vectors():
    assert asyncio.run(ScriptedClient().embed(TEXTS)) is None
    fixed = ScriptedClient(embedder=lambda texts: [[1.0, 0.0] for _ in texts])
    assert asyncio.run(fixed.embed(TEXTS[:2])) == [[1.0, 0.0], [1.0, 0.0]]
    assert fixed.embedded == [TEXTS[:2]]
