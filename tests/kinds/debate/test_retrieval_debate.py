"""Retrieval in the debate: each agent's "retrieved snippets" are the other agents' past
messages nearest the heaviest crux (never its own), its "corpus grounding" its own corpus
chunks with their sources; a round's answers are searchable at once and embedded in the
background, for the next round and not this one; with no embeddings (or a failing
endpoint) the ranking is keyword-only and the step goes on with a warning; the picks
live in the state, so what is shown is sent, and a restored session shows the same."""

from __future__ import annotations

import asyncio
import json
import shutil

from roundtable_desktop.context.request_document import messages_from_document
from roundtable_desktop.domain.events import CallStarted, Notice
from roundtable_desktop.domain.tokens import estimate_tokens
from roundtable_desktop.engine.base import Action
from roundtable_desktop.kinds.debate.corpus import Corpus, CorpusItem
from roundtable_desktop.kinds.debate.deck import decks_dir, load_deck, user_decks_dir
from roundtable_desktop.kinds.debate.retrieval.search import corpus_docs
from roundtable_desktop.kinds.debate.session import DebateSession
from roundtable_desktop.kinds.debate.state import DebateState
from roundtable_desktop.llm.errors import TransportError
from roundtable_desktop.llm.offline import OfflineClient
from tests.kinds.debate.conftest import AI_EIGHT, AI_SIX, debate_policies, make_session, run_steps


class EmbeddingsClient(OfflineClient):
    """The offline model, with embeddings that can be held, refused or made to fail."""

    def __init__(self, *, offers: bool = True, fails: bool = False) -> None:
        super().__init__(delay_s=0, policies=debate_policies())
        self.offers, self.fails = offers, fails
        self.hold: asyncio.Event | None = None
        self.embedded: list[list[str]] = []
        self.answered = 0

    async def embed(self, texts, model=None):
        self.embedded.append(list(texts))
        if self.hold is not None:
            await self.hold.wait()
        if self.fails:
            raise TransportError("Could not reach embeddings.test (connection failed).")
        self.answered += 1
        return await super().embed(texts) if self.offers else None


def _layer(payload, name: str) -> str:
    return next(layer.text for layer in payload.layers if layer.name == name)


def _names(session: DebateSession) -> dict[str, str]:
    return {a.id: a.name for a in session.state.agents}


def test_an_agent_never_retrieves_its_own_messages():
    session = make_session(hand=AI_EIGHT)
    names = _names(session)
    checked = 0
    while not session.ended:
        s = session.state
        if s.phase in ("round", "final"):
            assert s.retrieved is not None and s.retrieved.round == len(s.rounds) + 1
            for payload in session.pending_payloads():
                picks = s.retrieved.agents[payload.actor_id]
                assert picks.snippets, "others' past messages were retrieved"
                assert all(x.agent != payload.actor_id for x in picks.snippets)
                section = _layer(payload, "snippets")
                assert f"· {names[payload.actor_id]}]" not in section
                checked += 1
        assert asyncio.run(session.perform(session.next_step()))
    assert checked >= 8 + 8 + 3  # two table rounds of 8 and a final table of 3-5


def test_the_snippets_and_corpus_sections_are_filled_from_retrieval():
    session = make_session()
    assert run_steps(session, until="merge")
    assert asyncio.run(session.perform(Action(id="merge")))
    s = session.state
    assert s.retrieved.round == 2 and s.retrieved.ranking == "hybrid"
    names = _names(session)
    for payload in session.pending_payloads():
        picks = s.retrieved.agents[payload.actor_id]
        snippets, corpus = _layer(payload, "snippets"), _layer(payload, "corpus")
        assert 3 <= len(picks.snippets) <= 5
        for x in picks.snippets:
            where = f"round {x.round}" if x.round else x.source
            assert f"- [{where} · {names[x.agent]}] {x.text}" in snippets
        assert any(x.round == 1 for x in picks.snippets)  # last round's answers count
        own = {a.text: a.source for a in s.agent(payload.actor_id).contract.anchors}
        assert picks.corpus and all(own[x.text] == x.source for x in picks.corpus)
        assert all(f'- "{x.text}" ({x.source})' in corpus for x in picks.corpus)


def test_a_rounds_answers_are_searchable_at_once_and_embedded_for_the_next_round_only():
    client = EmbeddingsClient()
    session = make_session(client)

    async def go():
        for step in ("claims", "stances"):
            assert await session.perform(Action(id=step))
        index = session.retrieval.synced_index()
        assert not index.without_vectors()  # the corpus and the initial reasons
        client.hold = asyncio.Event()
        assert await session.perform(Action(id="round"))  # did not wait for embeddings
        answers = {t.response for t in session.state.rounds[0].turns}
        waiting = {text for _, text in index.without_vectors()}
        assert answers <= waiting  # indexed, not yet embedded
        hits = index.search(session.state.rounds[0].turns[0].response, kind="message")
        assert any(h.round == 1 for h in hits)  # found by keywords already
        client.hold.set()
        assert await session.perform(Action(id="merge"))
        assert not index.without_vectors()
        await session.aclose()

    asyncio.run(go())
    assert session.state.retrieved.round == 2
    assert session.state.retrieved.ranking == "hybrid"
    embedded = [text for call in client.embedded for text in call]
    assert all(t.response in embedded for t in session.state.rounds[0].turns)


def test_closing_the_session_awaits_its_background_embeddings():
    client = EmbeddingsClient()
    session = make_session(client)

    async def go() -> list[asyncio.Task]:
        for step in ("claims", "stances", "round"):
            if step == "round":
                client.hold = asyncio.Event()
            assert await session.perform(Action(id=step))
        asked = client.answered
        asyncio.get_running_loop().call_later(0.05, client.hold.set)
        await session.aclose()
        assert client.answered == asked + 1  # the round's embeddings finished
        return [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]

    assert asyncio.run(go()) == []


def test_without_embeddings_the_picks_are_ranked_by_keywords_and_asked_for_once():
    client = EmbeddingsClient(offers=False)
    session = make_session(client)
    assert run_steps(session, until="final")
    assert session.state.retrieved.ranking == "keyword"
    assert any(p.snippets for p in session.state.retrieved.agents.values())
    assert len(client.embedded) == 1


def test_an_embedding_failure_is_a_warning_and_the_debate_goes_on(events_of):
    client = EmbeddingsClient(fails=True)
    session = make_session(client)
    events = events_of(session)
    assert run_steps(session, until="final")
    warnings = [e for e in events if isinstance(e, Notice) and e.level == "warning"]
    assert len(warnings) == 1 and "Embeddings failed" in warnings[0].message
    assert session.state.retrieved.ranking == "keyword"
    assert not [e for e in events if isinstance(e, Notice) and e.level == "error"]
    assert len(client.embedded) == 1  # not asked again at every step after it failed


def test_shown_is_sent_for_the_answer_calls_with_retrieved_context(events_of):
    session = make_session()
    events = events_of(session)
    assert run_steps(session, until="merge")
    assert asyncio.run(session.perform(Action(id="merge")))
    payloads = session.pending_payloads()
    for payload in payloads:
        assert messages_from_document(payload.document) == payload.request.messages
        assert "[round 1 · " in _layer(payload, "snippets")
    before = len(events)
    assert asyncio.run(session.perform(Action(id="round")))
    sent = {e.actor_id: e.request for e in events[before:] if isinstance(e, CallStarted)}
    assert sent == {p.actor_id: p.request.to_body() for p in payloads}


def test_a_restored_session_shows_the_same_payloads():
    session = make_session()
    assert run_steps(session, until="merge")
    assert asyncio.run(session.perform(Action(id="merge")))
    data = json.loads(session.state_json())
    restored = DebateSession(DebateState.model_validate(data["debate"]),
                             client=OfflineClient(delay_s=0, policies=debate_policies()))
    assert [p.request for p in restored.pending_payloads()] == \
        [p.request for p in session.pending_payloads()]


POST_URL = "https://example.org/posts/licences"
POST_TEXT = "Licensing frontier models is a binding rule that public oversight needs. " * 30


def _deck_with_corpus(built_at: str | None) -> str:
    """The ai-regulation deck copied to the user's decks, with a corpus for its first
    card (stamped `built_at`, or the contract's own stamp when None)."""
    target = user_decks_dir() / "ai-regulation"
    shutil.copytree(decks_dir() / "ai-regulation", target)
    card = load_deck("ai-regulation").card(AI_SIX[0])
    corpus = Corpus(persona_id=card.id, built_at=built_at or card.corpus_built_at,
                    items=[CorpusItem(url=POST_URL, text=POST_TEXT)])
    (target / "corpus").mkdir()
    (target / "corpus" / f"{card.id}.json").write_text(corpus.model_dump_json())
    return card.id


def test_a_decks_corpus_file_is_chunked_into_the_cards_grounding():
    card = _deck_with_corpus(None)
    session = make_session()
    posts = [d for d in corpus_docs(session.state, session.state.agent(card))
             if d.source == POST_URL]
    assert len(posts) >= 2 and all(estimate_tokens(d.text) <= 200 for d in posts)
    assert " ".join(d.text for d in posts) == " ".join(POST_TEXT.split())
    assert run_steps(session, until="round")
    assert any(x.source == POST_URL for x in session.state.retrieved.agents[card].corpus)


def test_a_corpus_built_at_another_time_than_the_contract_is_not_used():
    card = _deck_with_corpus("2020-01-01T00:00:00Z")
    session = make_session()
    assert run_steps(session, until="round")
    corpus = session.state.retrieved.agents[card].corpus
    assert all(x.source != POST_URL for x in corpus)


def _classical_client() -> OfflineClient:
    from roundtable_desktop.kinds.debate.classical.offline import CLASSICAL_POLICIES
    from roundtable_desktop.kinds.debate.offline import POLICIES
    from roundtable_desktop.llm.offline import OfflinePolicies

    policies = OfflinePolicies()
    for purpose, policy in {**POLICIES, **CLASSICAL_POLICIES}.items():
        policies.register("debate", purpose, policy)
    return OfflineClient(delay_s=0, policies=policies)


def test_a_classical_speaker_hears_what_the_others_said_never_its_own_words(events_of):
    session = make_session(_classical_client(), mode="classical")
    names = _names(session)
    events = events_of(session)
    speeches = 0
    while not session.ended and speeches < 4:
        assert asyncio.run(session.perform(session.next_step()))
        for e in [e for e in events if isinstance(e, CallStarted) and e.purpose == "speech"]:
            said = next(layer.text for layer in e.layers if layer.name == "snippets")
            others = [line for line in said.splitlines() if line.startswith("- [")]
            speaker = names[e.actor_id]
            assert all(f"· {speaker}]" not in line for line in others)
            if session.state.classical.turns[-1].index > 1:
                assert others, "after the first turn, the others' words are retrieved"
            excerpts = next(layer.text for layer in e.layers if layer.name == "corpus")
            assert excerpts.count("\n- [e") >= 1
            speeches += 1
        events.clear()
    assert speeches >= 2
    assert session.state.retrieved is not None
    assert session.state.retrieved.round == len(session.state.classical.turns) + 1
