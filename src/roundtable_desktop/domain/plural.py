"""Counts in words for people to read: "1 call", "2 calls", "0 calls", "1,024 tokens".

One function so every count shown in the window, the command line and the exports agrees.
Must stay English-only and small: no locale rules, no number words.
"""

from __future__ import annotations


def count_of(count: int, singular: str, plural: str | None = None) -> str:
    """`count` with the noun that agrees with it; the plural is `singular` + "s" unless
    given (count_of(2, "reply", "replies"))."""
    noun = singular if count == 1 else (plural or f"{singular}s")
    return f"{count:,} {noun}"
