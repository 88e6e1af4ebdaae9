"""Fit messages into a token budget by dropping the oldest exchange pairs.

The system prompt and the context window (the first user message) are never trimmed:
if they alone exceed the budget the call is refused with `BudgetExceeded`.
Must not change message text.
"""

from __future__ import annotations

from pydantic import BaseModel

from roundtable_desktop.context.tokens import estimate_tokens
from roundtable_desktop.domain.calls import ChatMessage
from roundtable_desktop.domain.refusal import Refusal

DEFAULT_BUDGET = 100_000


class BudgetExceeded(Refusal):
    """The fixed part of a request is larger than the budget."""

    def __init__(self, message: str,
                 hint: str = "Collapse facts or shorten prompts, then infer again.") -> None:
        super().__init__(message, hint)


class FittedMessages(BaseModel):
    messages: list[ChatMessage]
    dropped_pairs: int
    tokens: int


def fit_to_budget(
    head: list[ChatMessage],
    history: list[ChatMessage],
    tail: list[ChatMessage] | None = None,
    budget: int = DEFAULT_BUDGET,
    chars_per_token: float | None = None,
) -> FittedMessages:
    """`head` (system prompt) and `tail` (the context window / new message) always go;
    `history` loses its oldest pairs until everything fits. `chars_per_token` is the
    text's language ratio for the estimate (None: the default estimator)."""
    tail = tail or []
    ratio = chars_per_token
    fixed_tokens = sum(estimate_tokens(m.content, ratio) for m in (*head, *tail))
    if fixed_tokens > budget:
        raise BudgetExceeded(
            f"The system prompt and context window need about {fixed_tokens:,} tokens, "
            f"over the budget of {budget:,}. Shorten the prompt or collapse some items."
        )
    kept = list(history)
    dropped = 0
    total = fixed_tokens + sum(estimate_tokens(m.content, ratio) for m in kept)
    while kept and total > budget:
        pair, kept = kept[:2], kept[2:]
        total -= sum(estimate_tokens(m.content, ratio) for m in pair)
        dropped += 1
    return FittedMessages(messages=[*head, *kept, *tail], dropped_pairs=dropped, tokens=total)
