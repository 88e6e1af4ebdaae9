"""Token estimates for context budgets: re-exports the one estimator in domain/tokens.py
so callers of `context.tokens` keep working. Must not define a second estimator.
"""

from __future__ import annotations

from roundtable_desktop.domain.tokens import counter_name, estimate_prompt_tokens, estimate_tokens

__all__ = ["counter_name", "estimate_prompt_tokens", "estimate_tokens"]
