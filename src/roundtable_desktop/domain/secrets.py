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

import threading

REDACTED = "[redacted]"
MIN_SECRET_CHARS = 8  # shorter values cannot be told from ordinary words: not remembered
MIN_FRAGMENT = 8  # a cut-off head or tail of a secret this long is redacted too

_lock = threading.Lock()
_secrets: set[str] = set()  # changed under the lock only; readers use what _rebuild publishes
_known: tuple[str, ...] = ()  # longest first, so a secret inside a longer one is not cut
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


def _rebuild() -> None:
    global _known, _fragments, _longest
    ordered = tuple(sorted(_secrets, key=len, reverse=True))
    _fragments = tuple({f for s in ordered for f in (s[:MIN_FRAGMENT], s[-MIN_FRAGMENT:])})
    _longest = max((len(s) for s in ordered), default=0)
    _known = ordered


def scrub(text: str) -> str:
    """`text` with every known secret, and every cut-off head or tail of one, redacted."""
    fragments = _fragments
    if not fragments or not text or not any(f in text for f in fragments):
        return text  # the common case: a few C-speed substring tests, no copy
    for secret in _known:
        text = _redact(text, secret)
    return text


def _redact(text: str, secret: str) -> str:
    """Each stretch of `text` that is the secret, or a head or tail of it at least
    MIN_FRAGMENT long, becomes REDACTED. Found from the secret's first and last
    MIN_FRAGMENT characters (C-speed `find`), then grown one character at a time."""
    spans: list[tuple[int, int]] = []
    head = secret[:MIN_FRAGMENT]
    start = text.find(head)
    while start != -1:
        end = start + MIN_FRAGMENT
        while end < len(text) and end - start < len(secret) and text[end] == secret[end - start]:
            end += 1
        spans.append((start, end))
        start = text.find(head, end)
    tail, tail_at = secret[-MIN_FRAGMENT:], len(secret) - MIN_FRAGMENT
    end = text.find(tail)
    while end != -1:
        start, at = end, tail_at
        while start > 0 and at > 0 and text[start - 1] == secret[at - 1]:
            start, at = start - 1, at - 1
        spans.append((start, end + MIN_FRAGMENT))
        end = text.find(tail, end + 1)
    if not spans:
        return text
    out: list[str] = []
    done = 0
    for start, end in sorted(spans):
        if end <= done:
            continue  # inside a stretch already redacted
        if start >= done:
            out.append(text[done:start])
            out.append(REDACTED)
        done = end
    out.append(text[done:])
    return "".join(out)


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
    known = _known
    for size in range(min(len(text), _longest), 0, -1):
        end = text[-size:]
        if any(end in s for s in known):
            return size
    return 0
