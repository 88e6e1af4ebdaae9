"""The secrets this process knows (API keys), and `scrub`, which takes them out of text.

Whoever reads a key remembers it here (the key store, the model client, the YouTube
source); every text that is stored, printed, exported or sent on in a payload goes
through `scrub` at its point of entry. A secret is replaced by "[redacted]" wherever it
appears whole, and so is any piece of at least MIN_FRAGMENT characters that starts or
ends like it: a key cut by some length limit (an error message shortened to 300
characters, a quote clipped to 80) is caught by its first or last characters.
`SecretFilter` does the same for a text that arrives in pieces (a streamed reply), holding
back only the few characters that could still turn into a secret.

Lives in domain because llm/, sources/, store/ and the CLI all need it and may not import
each other. Must not log, print or return a secret, and must not import anything outside
the standard library.
"""

from __future__ import annotations

import re
import threading

REDACTED = "[redacted]"
MIN_SECRET_CHARS = 8  # shorter values cannot be told from ordinary words: not remembered
MIN_FRAGMENT = 8  # a cut-off head or tail of a secret this long is redacted too

_lock = threading.Lock()
_secrets: set[str] = set()
_patterns: list[re.Pattern[str]] = []
_fragments: tuple[str, ...] = ()  # the first and last MIN_FRAGMENT characters of each
_longest = 0


def remember_secret(value: str | None) -> None:
    """Scrub `value` from now on (surrounding whitespace ignored; short values ignored)."""
    if not value:
        return
    secret = value.strip()
    if len(secret) < MIN_SECRET_CHARS:
        return
    with _lock:
        if secret in _secrets:
            return
        _secrets.add(secret)
        _rebuild()


def forget_secrets() -> None:
    """Forget every remembered secret (tests start each case clean)."""
    with _lock:
        _secrets.clear()
        _rebuild()


def known_secret_count() -> int:
    return len(_secrets)


def _rebuild() -> None:
    global _patterns, _fragments, _longest
    ordered = sorted(_secrets, key=len, reverse=True)
    _patterns = [_pattern(s) for s in ordered]
    _fragments = tuple({f for s in ordered for f in (s[:MIN_FRAGMENT], s[-MIN_FRAGMENT:])})
    _longest = max((len(s) for s in ordered), default=0)


def _pattern(secret: str) -> re.Pattern[str]:
    """The secret whole, or a head of it (>= MIN_FRAGMENT chars), or a tail of it.

    For "abcdefghij" the head is `abcdefgh(?:i(?:j)?)?` and the tail `(?:(?:a)?b)?cdefghij`:
    nested optional groups, so a head only grows by the secret's next character."""
    rest = secret[MIN_FRAGMENT:]
    head = (re.escape(secret[:MIN_FRAGMENT])
            + "".join(f"(?:{re.escape(c)}" for c in rest) + ")?" * len(rest))
    before = secret[:-MIN_FRAGMENT]
    tail = ("(?:" * len(before) + "".join(f"{re.escape(c)})?" for c in before)
            + re.escape(secret[-MIN_FRAGMENT:]))
    return re.compile(f"{re.escape(secret)}|{head}|{tail}")


def scrub(text: str) -> str:
    """`text` with every known secret, and every cut-off head or tail of one, redacted."""
    fragments = _fragments
    if not fragments or not text or not any(f in text for f in fragments):
        return text  # the common case: a few C-speed substring tests, no copy
    for pattern in _patterns:
        text = pattern.sub(REDACTED, text)
    return text


def scrub_bytes(data: bytes) -> bytes:
    """`scrub` for UTF-8 bytes (keys are ASCII, so JSON encoding leaves them as they are)."""
    fragments = _fragments
    if not fragments or not any(f.encode() in data for f in fragments):
        return data
    return scrub(data.decode("utf-8", errors="surrogateescape")).encode(
        "utf-8", errors="surrogateescape"
    )


class SecretFilter:
    """Scrubs a text that arrives in pieces: `feed` returns what may be shown now,
    `flush` the rest at the end. A secret split across pieces is still caught: the tail
    of what has arrived is held back while it could be the start of a secret."""

    def __init__(self) -> None:
        self._held = ""

    def feed(self, piece: str) -> str:
        text = self._held + piece
        if not _fragments:
            self._held = ""
            return text
        keep = _open_tail(text)
        ready, self._held = text[: len(text) - keep], text[len(text) - keep :]
        return scrub(ready)

    def flush(self) -> str:
        text, self._held = self._held, ""
        return scrub(text)


def _open_tail(text: str) -> int:
    """How many characters at the end of `text` could still grow into a secret (or a
    redactable head of one): the longest end of `text` found inside a known secret."""
    secrets = tuple(_secrets)
    for size in range(min(len(text), _longest), 0, -1):
        end = text[-size:]
        if any(end in s for s in secrets):
            return size
    return 0
