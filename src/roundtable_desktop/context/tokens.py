"""Token estimates: a real tokenizer when one is installed, else about 4 characters a token.

Must not do I/O beyond trying the optional tokenizer import once.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache


@lru_cache(maxsize=1)
def _counter() -> tuple[str, Callable[[str], int]]:
    try:
        import tiktoken  # optional; not a dependency

        enc = tiktoken.get_encoding("o200k_base")
        return "tiktoken", lambda text: len(enc.encode(text, disallowed_special=()))
    except Exception:
        return "estimate", lambda text: (len(text) + 3) // 4


def estimate_tokens(text: str) -> int:
    return _counter()[1](text)


def counter_name() -> str:
    """'tiktoken' when counted with a real tokenizer, 'estimate' otherwise."""
    return _counter()[0]
