"""A debate session's retrieval: its index, the embeddings behind it, and the picks for
each agent's next round (seed 004: message store retrieval, corpus grounding).

Where the index lives: in a private in-memory SQLite database per session
(`RetrievalIndex.memory()`, the same tables as the store's migration 5), built from the
state on first use and rebuilt the same way after a restore. The state is the only
truth: the index is a cache of it (plus the deck's corpus files), so it can never hold a
message of a round that a failed step or a crash dropped, replay needs no index at all
(it shows the requests as recorded), and the engine runs and is tested without a store.
What retrieval chose for the next round is written into the state (`state.retrieved`,
kinds/debate/retrieval/retrieved.py) at the end of the action before that round, and the
payload builder only reads it: the payload shown is the payload sent, live, restored or
replayed, even though embeddings arrive in the background.

Documents: each agent's corpus chunks (its contract's anchor excerpts, and when the deck
has corpus/<id>.json built at the contract's corpus_built_at, its items in chunks of
about 200 tokens) and every past message (initial stance reasons as round 0, then each
round's answers). `index_messages` indexes a round's answers in FTS at once and starts
their embeddings as a background task the session owns: the round does not wait for
them; `prepare` (end of the action before the next round) awaits what is still pending,
embeds the two queries, ranks, and stores the picks. With no embeddings (the client
offers none, or the endpoint answered 404/400 once) the ranking is keyword-only; an
embedding failure (or no answer within 30 s) is a warning Notice, never a failed step,
and that client is not asked for embeddings again for two minutes, so a dead endpoint
does not slow every step; rows left without vectors are embedded later. `aclose` awaits
the background tasks. Must not import Qt or the store's session tables; must not record
embedding calls.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from roundtable_desktop.domain.events import Event, Notice
from roundtable_desktop.kinds.debate.corpus import Corpus
from roundtable_desktop.kinds.debate.deck import deck_folder
from roundtable_desktop.kinds.debate.retrieval.index import Doc, Hit, RetrievalIndex
from roundtable_desktop.kinds.debate.retrieval.retrieved import AgentPicks, Retrieved, Snippet
from roundtable_desktop.kinds.debate.retrieval.text import chunk_text, clip_tokens
from roundtable_desktop.kinds.debate.state import Agent, DebateState
from roundtable_desktop.llm.client import ChatClient
from roundtable_desktop.llm.errors import LLMError

log = logging.getLogger(__name__)

SNIPPETS_K = 4        # seed 004: top 3-5 past messages per agent turn
CORPUS_K = 8          # about 200 tokens each: the corpus share of the budget (~2K)
SNIPPET_TOKENS = 200
EMBED_WAIT_S = 30.0   # how long `prepare` waits for embeddings
FAILURE_PAUSE_S = 120.0  # after a failure, keyword ranking without asking for this long
EMBED_HINT = "Retrieval ranks by keywords until embeddings work again."


def crux_query(state: DebateState) -> str:
    """The heaviest open crux, or every claim before any crux is raised."""
    open_cruxes = sorted((c for c in state.cruxes if not c.resolved), key=lambda c: -c.weight)
    return open_cruxes[0].text if open_cruxes else " ".join(c.text for c in state.claims)


def claims_query(state: DebateState) -> str:
    return " ".join(f"{c.text} {c.pro} {c.con}" for c in state.claims)


def corpus_docs(state: DebateState, agent: Agent) -> list[Doc]:
    """The agent's anchors, then its deck corpus items in ~200-token chunks (only a
    corpus built at the contract's corpus_built_at: the card's own source texts)."""
    docs = [Doc(kind="corpus", owner=agent.id, text=a.text, source=a.source)
            for a in agent.contract.anchors]
    corpus = _read_corpus(state.deck, agent)
    if corpus is not None and corpus.built_at == agent.contract.corpus_built_at:
        docs += [Doc(kind="corpus", owner=agent.id, text=piece, source=item.url)
                 for item in corpus.items for piece in chunk_text(item.text)]
    return docs


def _read_corpus(deck: str, agent: Agent) -> Corpus | None:
    try:
        path = Path(deck_folder(deck)) / "corpus" / f"{agent.id}.json"
        if not path.is_file():
            return None
        return Corpus.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValidationError, ValueError):
        log.warning("the corpus of %s in deck %s is unreadable; anchors only", agent.id, deck)
        return None


def message_docs(state: DebateState) -> list[tuple[tuple[object, ...], Doc]]:
    """Every past message with a key that names it once: stance reasons, then answers."""
    found: list[tuple[tuple[object, ...], Doc]] = []
    for s in state.stances:
        if s.round == 0 and s.reason and not s.failed:
            found.append((("stance", s.agent, s.claim),
                          Doc(kind="message", owner=s.agent, round=0, text=s.reason,
                              source=f"initial stance on {s.claim}")))
    for record in state.rounds:
        found += [(("turn", t.agent, record.index),
                   Doc(kind="message", owner=t.agent, round=record.index, text=t.response))
                  for t in record.turns if t.response and not t.failed]
    turns = state.classical.turns if state.classical else []
    found += [(("speech", t.speaker, t.index),
               Doc(kind="message", owner=t.speaker, round=t.index, text=t.text))
              for t in turns if t.speaker and t.sentences]
    return found


class DebateRetrieval:
    """The index, embeddings and picks of one debate session."""

    def __init__(self, state: Callable[[], DebateState], client: Callable[[], ChatClient],
                 emit: Callable[[Event], None]) -> None:
        self._state = state
        self._client = client
        self._emit = emit
        self._index: RetrievalIndex | None = None
        self._indexed: set[tuple[object, ...]] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._lacking: ChatClient | None = None  # the client that offered no embeddings
        self._warned: set[str] = set()
        self._failed: ChatClient | None = None  # the client whose embeddings just failed
        self._paused_until = 0.0

    @property
    def state(self) -> DebateState:
        return self._state()

    # -- the index --------------------------------------------------------------------
    def synced_index(self) -> RetrievalIndex:
        """The index, built from the state on first use (corpus, then past messages), with
        the messages added since the last call. Each call walks the state's messages:
        take it once per piece of work."""
        if self._index is None:
            self._index = RetrievalIndex.memory()
            self._index.add([d for a in self.state.agents for d in corpus_docs(self.state, a)])
        self._sync_messages()
        return self._index

    def _sync_messages(self) -> None:
        assert self._index is not None
        new = [(key, doc) for key, doc in message_docs(self.state) if key not in self._indexed]
        if new:
            self._index.add([doc for _, doc in new])
            self._indexed.update(key for key, _ in new)

    def index_messages(self) -> None:
        """Index the messages the state has and the index lacks (a round's answers) in FTS
        now, and embed them in the background: used from the next round, not this one."""
        self.synced_index()
        self._start(self._embed_missing())

    def _start(self, work: Coroutine[Any, Any, None]) -> None:
        try:
            task = asyncio.get_running_loop().create_task(work)
        except RuntimeError:  # no loop (a sync caller): `prepare` embeds them instead
            work.close()
            return
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- embeddings -------------------------------------------------------------------
    async def _embed_missing(self) -> None:
        client = self._client()
        if client is self._lacking:
            return
        index = self.synced_index()
        missing = index.without_vectors()
        if not missing:
            return
        vectors = await self._embed(client, [text for _, text in missing])
        if vectors is not None:
            index.set_vectors([i for i, _ in missing], vectors)

    async def _embed(self, client: ChatClient, texts: list[str]) -> list[list[float]] | None:
        if client is self._failed and time.monotonic() < self._paused_until:
            return None  # it failed a moment ago: keywords, rather than wait on it again
        try:
            vectors = await asyncio.wait_for(client.embed(texts), EMBED_WAIT_S)
        except Exception as exc:  # never a crash, nor a failed step
            self._failed, self._paused_until = client, time.monotonic() + FAILURE_PAUSE_S
            if isinstance(exc, LLMError):
                self._warn(f"Embeddings failed: {exc.message}")
            elif isinstance(exc, TimeoutError):
                self._warn(f"No embeddings within {EMBED_WAIT_S:g} s.")
            else:  # e.g. a client closed under a background task
                log.warning("embedding failed", exc_info=True)
                self._warn(f"Embeddings failed ({type(exc).__name__}).")
            return None
        if vectors is None:
            self._lacking = client
            return None
        if len(vectors) != len(texts):
            self._warn(f"The embeddings endpoint sent {len(vectors)} vectors for "
                       f"{len(texts)} texts.")
            return None
        return vectors

    def _warn(self, message: str) -> None:
        if message not in self._warned:
            self._warned.add(message)
            self._emit(Notice(level="warning", message=message, hint=EMBED_HINT))

    async def _settle(self) -> None:
        """Wait (bounded) for this loop's background embeddings; drop other loops'."""
        loop = asyncio.get_running_loop()
        mine = [t for t in self._tasks if t.get_loop() is loop and not t.done()]
        self._tasks = {t for t in self._tasks if t.get_loop() is loop}
        if not mine:
            return
        done, pending = await asyncio.wait(mine, timeout=EMBED_WAIT_S)
        for task in pending:
            task.cancel()
        if pending:
            self._warn(f"Embeddings took longer than {EMBED_WAIT_S:g} s.")
        for task in done:
            if not task.cancelled() and task.exception() is not None:
                self._warn(f"Embeddings failed: {task.exception()}")

    # -- the picks for the next round ---------------------------------------------------
    async def prepare(self, agents: list[str], round_index: int) -> Retrieved:
        """Rank for `agents`' round `round_index` and store the picks in the state."""
        await self._settle()
        await self._embed_missing()
        s = self.state
        crux, claims = crux_query(s), claims_query(s)
        client = self._client()
        queries = None if client is self._lacking else await self._embed(client, [crux, claims])
        crux_vec, claims_vec = queries if queries else (None, None)
        index = self.synced_index()
        hybrid = queries is not None and index.count(with_vectors=True) > 0
        picks = {}
        for agent in agents:
            said = index.search(crux, kind="message", exclude_owner=agent,
                                vector=crux_vec, limit=2 * SNIPPETS_K)
            own = index.search(f"{claims} {crux}", kind="corpus", owner=agent,
                               vector=claims_vec, limit=2 * CORPUS_K)
            picks[agent] = AgentPicks(snippets=_distinct(said, SNIPPETS_K),
                                      corpus=_distinct(own, CORPUS_K))
        s.retrieved = Retrieved(round=round_index, ranking="hybrid" if hybrid else "keyword",
                                crux=crux, claims=claims, agents=picks)
        return s.retrieved

    async def aclose(self) -> None:
        """Await the background embeddings (bounded), then drop the index."""
        with contextlib.suppress(RuntimeError):
            await self._settle()
        if self._index is not None:
            self._index.close()
            self._index = None
            self._indexed.clear()


def _distinct(hits: list[Hit], limit: int) -> list[Snippet]:
    """The first `limit` hits as snippets, a text said twice (two agents' identical
    reasons) kept once: a repeat would only take budget."""
    seen: set[str] = set()
    kept: list[Snippet] = []
    for hit in hits:
        snippet = _snippet(hit)
        if snippet.text not in seen and len(kept) < limit:
            seen.add(snippet.text)
            kept.append(snippet)
    return kept


def _snippet(hit: Hit) -> Snippet:
    return Snippet(text=clip_tokens(hit.text, SNIPPET_TOKENS), score=round(hit.score, 6),
                   agent=hit.owner if hit.kind == "message" else "", round=hit.round,
                   source=hit.source)
