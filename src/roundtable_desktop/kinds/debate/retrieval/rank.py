"""Ranking for the retrieval index: vectors as float32 BLOBs, cosine, and reciprocal rank
fusion (seed 004, retrieval V2).

Vectors are stored normalized, as little-endian float32, so cosine is a dot product.
`rrf_fuse` is `score(d) = w_kw / (k + rank_kw(d)) + w_sem / (k + rank_sem(d))` over the
1-based ranks of both lists, k = 60, 40% keyword and 60% semantic by default (persona
opinions use varied words, so meaning counts for more than exact terms); a document
missing from a list gets nothing from it. Ties keep the keyword list's order, then the
semantic one's, so a ranking is the same on every run. `similarities` scores many rows
at once: with numpy (installed with pyqtgraph) as one matrix product, else in pure Python
(the same numbers, more slowly). Must not touch a database.
"""

from __future__ import annotations

import math
import sys
from array import array
from collections.abc import Sequence
from functools import cache
from operator import mul
from types import ModuleType

RRF_K = 60
KEYWORD_WEIGHT = 0.4
SEMANTIC_WEIGHT = 0.6


def normalized(vector: Sequence[float]) -> list[float]:
    """`vector` scaled to length 1 (a zero vector stays zero)."""
    norm = math.sqrt(sum(x * x for x in vector))
    return [x / norm for x in vector] if norm > 0 else [0.0 for _ in vector]


def pack_vector(vector: Sequence[float]) -> bytes:
    """A normalized float32 little-endian BLOB of `vector`."""
    data = array("f", normalized(vector))
    if sys.byteorder != "little":
        data.byteswap()
    return data.tobytes()


def unpack_vector(blob: bytes) -> array[float]:
    data = array("f")
    data.frombytes(blob)
    if sys.byteorder != "little":
        data.byteswap()
    return data


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """Cosine of two normalized vectors of one length (0.0 when the lengths differ)."""
    if len(a) != len(b):
        return 0.0
    total: float = sum(map(mul, a, b))
    return total


@cache
def _numpy() -> ModuleType | None:
    """numpy, imported on the first ranking rather than at start-up (it takes ~150 ms),
    or None: it comes with pyqtgraph, but the engine must not need it."""
    try:
        import numpy
    except ImportError:  # pragma: no cover - exercised where numpy is absent
        return None
    return numpy


def similarities(blobs: Sequence[bytes], query: Sequence[float]) -> list[float]:
    """Cosine of each stored (normalized) vector to normalized `query`; every blob must
    hold a vector of the query's length."""
    if not blobs:
        return []
    numpy = _numpy()
    if numpy is not None:
        matrix = numpy.frombuffer(b"".join(blobs), dtype="<f4").reshape(len(blobs), -1)
        scores: list[float] = (matrix @ numpy.asarray(query, dtype="<f4")).tolist()
        return scores
    return [cosine(unpack_vector(blob), query) for blob in blobs]


def rrf_fuse(
    keyword: Sequence[int], semantic: Sequence[int], *, k: int = RRF_K,
    keyword_weight: float = KEYWORD_WEIGHT, semantic_weight: float = SEMANTIC_WEIGHT,
) -> list[tuple[int, float]]:
    """Document ids with their fused scores, best first, from two rankings (best first)."""
    scores: dict[int, float] = {}
    for weight, ranking in ((keyword_weight, keyword), (semantic_weight, semantic)):
        for rank, doc in enumerate(ranking, start=1):
            scores[doc] = scores.get(doc, 0.0) + weight / (k + rank)
    order: dict[int, int] = {}
    for i, doc in enumerate([*keyword, *semantic]):
        order.setdefault(doc, i)
    return sorted(scores.items(), key=lambda item: (-item[1], order[item[0]]))
