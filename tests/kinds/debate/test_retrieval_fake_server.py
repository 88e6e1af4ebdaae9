"""Retrieval against a real HTTP peer: a debate on the OpenAI-compatible client embeds
through the fake server's `/v1/embeddings` (not recorded as chat calls) and ranks the
next round's picks by both lists; on an endpoint that answers 404 it asks once and
ranks by keywords, and the debate goes on."""

from __future__ import annotations

import asyncio
import json

from roundtable_desktop.domain.events import CallStarted, Notice
from roundtable_desktop.kinds.debate.session import DebateSession
from roundtable_desktop.kinds.debate.setup import new_state
from roundtable_desktop.llm.embeddings import NoEmbeddings
from roundtable_desktop.llm.openai_compat import OpenAICompatClient
from tests.fakes.openai_fixture import FakeOpenAI, fake_openai  # noqa: F401
from tests.kinds.debate.conftest import AI_SIX, TOPIC

CLAIMS = {"claims": [{"text": f"Claim {i}: licences for frontier models help.",
                      "pro": "Yes, audits show it.", "con": "No, it slows small labs."}
                     for i in (1, 2)]}


def _reply(purpose: str, index: int) -> str:
    side = ("pro", "con")[index % 2]
    if purpose == "claims":
        return json.dumps(CLAIMS)
    if purpose == "stance":
        return json.dumps({"stance": side, "confidence": 0.7,
                           "reason": f"Reason {index}: licences and audits matter."})
    if purpose == "answer":
        return json.dumps({"response": f"Answer {index}: the audits of frontier labs decide.",
                           "stances": [{"claim": f"c{i}", "stance": side, "confidence": 0.6}
                                       for i in (1, 2)],
                           "new_cruxes": [{"claim": "c1", "text": "Whether audits are honest"}]})
    return json.dumps({"cruxes": [{"claim": "c1", "text": "Whether audits are honest"}],
                       "summary": "The table split on c1."})


def _run_to_round_two(fake: FakeOpenAI) -> tuple[DebateSession, list]:
    client = OpenAICompatClient(fake.base_url, "sk-test", no_embeddings=NoEmbeddings())
    state = new_state("ai-regulation", {"hand": AI_SIX, "topic": TOPIC})
    session = DebateSession(state, client=client, model="fake", parallel=6)
    events: list = []
    session.bus.subscribe(events.append)

    async def go():
        try:
            for step in ("claims", "stances", "round", "merge"):
                payloads = session.pending_payloads()
                fake.script([{"kind": "ok", "text": _reply(p.request.purpose, i)}
                             for i, p in enumerate(payloads)])
                assert session.next_step().id == step
                assert await session.perform(session.next_step())
            await session.aclose()
        finally:
            await client.aclose()

    asyncio.run(go())
    return session, events


def test_a_debate_embeds_through_the_endpoint_and_ranks_by_both_lists(fake_openai: FakeOpenAI):  # noqa: F811
    fake_openai.reset()
    session, events = _run_to_round_two(fake_openai)
    assert session.state.retrieved.round == 2
    assert session.state.retrieved.ranking == "hybrid"
    embedded = [text for request in fake_openai.embedding_requests() for text in request]
    assert all(t.response in embedded for t in session.state.rounds[0].turns)
    chat_calls = [e for e in events if isinstance(e, CallStarted)]
    assert len(chat_calls) == fake_openai.stats()["count"]  # embeddings are not calls


def test_an_endpoint_without_embeddings_is_asked_once_and_the_debate_goes_on(
        fake_openai: FakeOpenAI):  # noqa: F811
    fake_openai.reset()
    fake_openai.set_embeddings_status(404)
    session, events = _run_to_round_two(fake_openai)
    assert len(fake_openai.embedding_requests()) == 1
    assert session.state.retrieved.ranking == "keyword"
    assert any(p.snippets for p in session.state.retrieved.agents.values())
    assert not [e for e in events if isinstance(e, Notice) and e.level != "info"]
