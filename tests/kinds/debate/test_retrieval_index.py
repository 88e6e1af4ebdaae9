"""The retrieval index in SQLite: reciprocal rank fusion on a hand-computed ranking,
keyword-only ranking without vectors, one candidate pool for both lists (an owner left
out of it is never ranked), chunks of about 200 tokens, and FTS queries that cannot inject
syntax."""

from __future__ import annotations

import pytest

from roundtable_desktop.domain.tokens import estimate_tokens
from roundtable_desktop.kinds.debate.retrieval.index import Doc, RetrievalIndex
from roundtable_desktop.kinds.debate.retrieval.rank import pack_vector, rrf_fuse, unpack_vector
from roundtable_desktop.kinds.debate.retrieval.text import chunk_text, clip_tokens, fts_query


def test_rrf_fuses_two_rankings_as_worked_out_by_hand():
    # keyword: A B C, semantic: C A B; k = 60, 0.4 keyword / 0.6 semantic:
    #   A = 0.4/61 + 0.6/62 = 0.0065574 + 0.0096774 = 0.0162348
    #   C = 0.4/63 + 0.6/61 = 0.0063492 + 0.0098361 = 0.0161853
    #   B = 0.4/62 + 0.6/63 = 0.0064516 + 0.0095238 = 0.0159754
    a, b, c = 1, 2, 3
    fused = rrf_fuse([a, b, c], [c, a, b])
    assert [doc for doc, _ in fused] == [a, c, b]
    assert [round(score, 7) for _, score in fused] == [0.0162348, 0.0161853, 0.0159754]


def test_rrf_gives_a_document_missing_from_one_list_only_the_other_lists_share():
    # D is only in the semantic list, at rank 1: 0.6/61 = 0.0098361, below A's two shares.
    fused = dict(rrf_fuse([1, 2], [4, 1]))
    assert fused[4] == pytest.approx(0.6 / 61)
    assert fused[2] == pytest.approx(0.4 / 62)
    assert fused[1] == pytest.approx(0.4 / 61 + 0.6 / 62)


def _index(*docs: Doc) -> tuple[RetrievalIndex, list[int]]:
    index = RetrievalIndex.memory()
    return index, index.add(list(docs))


def test_the_index_fuses_bm25_and_cosine_over_the_same_pool():
    index, (licence, audit, weights) = _index(
        Doc("message", "ana", "Licensing frontier models slows reckless releases.", 1),
        Doc("message", "ben", "Independent audits of frontier labs catch what licences miss.", 1),
        Doc("message", "cy", "Open weights let anyone check the claims.", 1),
    )
    index.set_vectors([licence, audit, weights], [[1, 0, 0], [0, 0.6, 0.8], [0, 0, 1]])
    hits = index.search("licensing frontier models", kind="message", vector=[0, 0, 1])
    by_id = {h.id: h for h in hits}
    # keyword: licence 1, audit 2 (only "frontier"); semantic: weights 1, audit 2, licence 3
    assert (by_id[licence].keyword_rank, by_id[licence].semantic_rank) == (1, 3)
    assert (by_id[audit].keyword_rank, by_id[audit].semantic_rank) == (2, 2)
    assert (by_id[weights].keyword_rank, by_id[weights].semantic_rank) == (None, 1)
    assert by_id[licence].score == pytest.approx(0.4 / 61 + 0.6 / 63)
    assert by_id[audit].score == pytest.approx(0.4 / 62 + 0.6 / 62)
    assert by_id[weights].score == pytest.approx(0.6 / 61)
    assert [h.id for h in hits] == [audit, licence, weights]


def test_without_vectors_the_ranking_is_keyword_only():
    index, (first, second, _) = _index(
        Doc("corpus", "ana", "Audits audits audits: measured audits decide.", source="u1"),
        Doc("corpus", "ana", "One audit is a start.", source="u2"),
        Doc("corpus", "ana", "Nothing about the topic here.", source="u3"),
    )
    hits = index.search("audit", kind="corpus", owner="ana", vector=[1.0, 0.0])
    assert [h.id for h in hits] == [first, second]
    assert all(h.semantic_rank is None for h in hits)
    assert hits[0].source == "u1"


def test_an_excluded_owner_is_outside_the_pool_of_both_lists():
    index, ids = _index(
        Doc("message", "ana", "Licences for frontier models now.", 1),
        Doc("message", "ben", "Licences for frontier models later.", 1),
    )
    index.set_vectors(ids, [[1, 0], [0, 1]])
    hits = index.search("licences frontier", kind="message", exclude_owner="ana",
                        vector=[1, 0])  # the vector points at ana's message
    assert [h.owner for h in hits] == ["ben"]


def test_a_query_of_fts_syntax_is_searched_as_words():
    index, ids = _index(Doc("message", "ana", "NEAR the AND gate, quote \" marks", 1))
    query = 'NEAR(gate) AND "quote" OR marks*'
    assert fts_query(query) == '"near" OR "gate" OR "quote" OR "marks"'
    assert [h.id for h in index.search(query, kind="message")] == ids
    assert index.search("", kind="message") == []


def test_vectors_are_stored_normalized_as_float32():
    blob = pack_vector([3.0, 4.0])
    assert len(blob) == 8
    assert list(unpack_vector(blob)) == pytest.approx([0.6, 0.8])


def test_a_long_post_is_cut_at_sentence_ends_into_chunks_of_about_200_tokens():
    sentences = [f"Sentence number {i} says something about audits and licences." for i in
                 range(120)]
    chunks = chunk_text(" ".join(sentences))
    assert len(chunks) > 3
    assert all(estimate_tokens(c) <= 200 for c in chunks)
    assert all(c.endswith(".") for c in chunks)
    assert " ".join(chunks) == " ".join(sentences)


def test_a_snippet_is_clipped_at_a_word_end_to_its_budget():
    text = " ".join(f"word{i}" for i in range(500))
    clipped = clip_tokens(text, 200)
    assert estimate_tokens(clipped) <= 200 and clipped.endswith("…")
    assert text.startswith(clipped[:-1])
