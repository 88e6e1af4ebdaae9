"""Median time of one retrieval query over 300 and 3,000 chunks of one persona.

The index keeps vectors as float32 BLOBs and ranks by cosine in Python (this Python's
sqlite3 cannot load a vector extension; kinds/debate/retrieval/index.py says why), so this measures
what that costs: a hybrid query (FTS5 BM25 and cosine over the same pool, fused by RRF)
and a keyword-only one, on chunks of about 200 tokens with 256-dimension vectors (the
offline model's hashed embeddings) and, with `--dims 1536`, random vectors of a real
model's size. Not a test: run it with
`.venv/bin/python bench/retrieval.py [--queries 50] [--dims 256]`.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from roundtable_desktop.kinds.debate.retrieval.index import Doc, RetrievalIndex
from roundtable_desktop.llm.embeddings import hashed_embedding

# 1,728 made-up words used with Zipf frequencies, as prose uses words.
_SYLLABLES = ["ka", "lo", "mi", "ra", "te", "su", "no", "vi", "de", "ba", "po", "ze"]
WORDS = [a + b + c for a in _SYLLABLES for b in _SYLLABLES for c in _SYLLABLES]
WEIGHTS = [1.0 / (rank + 1) for rank in range(len(WORDS))]


def _text(rng: random.Random, sentences: int = 12) -> str:
    words = rng.choices(WORDS, weights=WEIGHTS, k=sentences * 11)
    return " ".join(" ".join(words[i:i + 11]).capitalize() + "."
                    for i in range(0, len(words), 11))


def _vector(rng: random.Random, text: str, dims: int) -> list[float]:
    if dims == 256:
        return hashed_embedding(text)
    return [rng.gauss(0.0, 1.0) for _ in range(dims)]


def measure(chunks: int, queries: int, dims: int) -> tuple[float, float]:
    """Median milliseconds of a hybrid and of a keyword-only query."""
    rng = random.Random(chunks)
    index = RetrievalIndex.memory()
    texts = [_text(rng) for _ in range(chunks)]
    ids = index.add([Doc(kind="corpus", owner="persona", text=t, source=f"u{i}")
                     for i, t in enumerate(texts)])
    index.set_vectors(ids, [_vector(rng, t, dims) for t in texts])
    asks = [_text(rng, 1) for _ in range(queries)]
    vectors = [_vector(rng, q, dims) for q in asks]
    hybrid, keyword = [], []
    for ask, vector in zip(asks, vectors, strict=True):
        start = time.perf_counter()
        index.search(ask, kind="corpus", owner="persona", vector=vector, limit=8)
        hybrid.append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        index.search(ask, kind="corpus", owner="persona", limit=8)
        keyword.append((time.perf_counter() - start) * 1000)
    index.close()
    return statistics.median(hybrid), statistics.median(keyword)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--dims", type=int, default=256)
    args = parser.parse_args()
    for chunks in (300, 3000):
        hybrid, keyword = measure(chunks, args.queries, args.dims)
        print(f"{chunks:>5} chunks, {args.dims} dims: median query {hybrid:.2f} ms hybrid, "
              f"{keyword:.2f} ms keyword-only ({args.queries} queries)")


if __name__ == "__main__":
    main()
