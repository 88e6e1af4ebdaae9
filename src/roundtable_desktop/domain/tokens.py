"""Token estimates, the one estimator every layer uses (context budgets, the offline
model's usage, usage a server did not report): a real tokenizer when `tiktoken` is
installed, else about four characters a token. A caller that knows its text's language
may pass `chars_per_token` (Lithuanian runs about 3): the estimate is then that ratio,
whatever tokenizer is installed, so a budget behaves the same on every machine.

Lives in domain because context/ and llm/ both need it and may not import each other.
Must not do I/O beyond trying the optional tokenizer import once.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from functools import lru_cache


@lru_cache(maxsize=1)
def _counter() -> tuple[str, Callable[[str], int]]:
    try:
        import tiktoken  # optional; not a dependency

        enc = tiktoken.get_encoding("o200k_base")
        return "tiktoken", lambda text: len(enc.encode(text, disallowed_special=()))
    except Exception:
        return "estimate", lambda text: (len(text) + 3) // 4


def estimate_tokens(text: str, chars_per_token: float | None = None) -> int:
    """Tokens in `text` (0 for empty text); `chars_per_token` estimates by that ratio."""
    if not text:
        return 0
    if chars_per_token is not None and chars_per_token > 0:
        return max(1, math.ceil(len(text) / chars_per_token))
    return _counter()[1](text)


def estimate_prompt_tokens(contents: Iterable[str]) -> int:
    """Tokens in a request's message contents, each counted on its own as sent."""
    return sum(estimate_tokens(text) for text in contents)


def counter_name() -> str:
    """'tiktoken' when counted with a real tokenizer, 'estimate' otherwise."""
    return _counter()[0]
