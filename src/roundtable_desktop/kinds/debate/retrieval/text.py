"""Text for the retrieval index: chunks of about 200 tokens, and FTS5 queries from prose.

`chunk_text` cuts a post into chunks at sentence ends (a sentence longer than a chunk is
cut at word ends), so a chunk reads as a quote. `fts_query` turns any text (a crux, the
claims) into an FTS5 query that ORs its content words, each quoted: no text a model or a
corpus wrote can become FTS5 syntax. Must not touch a database.
"""

from __future__ import annotations

from roundtable_desktop.domain.tokens import estimate_tokens
from roundtable_desktop.domain.words import content_words, sentences

CHUNK_TOKENS = 200
MAX_QUERY_TERMS = 32


def chunk_text(text: str, max_tokens: int = CHUNK_TOKENS) -> list[str]:
    """`text` in chunks of at most about `max_tokens` tokens, cut at sentence ends."""
    chunks: list[str] = []
    current: list[str] = []
    for sentence in _pieces(text, max_tokens):
        # Measured joined: the spaces between sentences count too.
        if current and estimate_tokens(" ".join([*current, sentence])) > max_tokens:
            chunks.append(" ".join(current))
            current = []
        current.append(sentence)
    if current:
        chunks.append(" ".join(current))
    return chunks


def _pieces(text: str, max_tokens: int) -> list[str]:
    """Sentences, with any longer than a chunk cut at word ends."""
    out: list[str] = []
    for sentence in sentences(" ".join(text.split())):
        if estimate_tokens(sentence) <= max_tokens:
            out.append(sentence)
            continue
        words: list[str] = []
        for word in sentence.split(" "):
            if words and estimate_tokens(" ".join([*words, word])) > max_tokens:
                out.append(" ".join(words))
                words = []
            words.append(word)
        if words:
            out.append(" ".join(words))
    return out


def clip_tokens(text: str, max_tokens: int) -> str:
    """`text` cut at a word end to about `max_tokens` tokens, with "…" when cut."""
    text = " ".join(text.split())
    if estimate_tokens(text) <= max_tokens:
        return text
    words = text.split(" ")
    low, high = 0, len(words)
    while low < high:  # the most words that fit
        mid = (low + high + 1) // 2
        if estimate_tokens(" ".join(words[:mid])) <= max_tokens - 1:
            low = mid
        else:
            high = mid - 1
    return " ".join(words[:low]) + "…"


def query_terms(text: str) -> list[str]:
    """The distinct content words of `text` (two letters or more), lower-cased, in order of
    first use. Stop words are left out: BM25 would weigh them low anyway, but without them
    the query stays short."""
    return list(dict.fromkeys(content_words(text, min_length=2)))[:MAX_QUERY_TERMS]


def fts_query(text: str) -> str:
    """An FTS5 query matching any content word of `text` ("" when it has none)."""
    return " OR ".join(f'"{term}"' for term in query_terms(text))
