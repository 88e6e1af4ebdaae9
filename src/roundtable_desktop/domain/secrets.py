"""The secrets this process knows (API keys), and `scrub`, which takes them out of text.

Whoever reads a key remembers it here (the key store, the model client, the YouTube and
X sources); every text that is stored, printed, exported or sent on in a payload goes
through `scrub` at its point of entry, and again where it leaves (the request as sent,
the export as written, the line as printed), after whatever normalised it on the way.

A secret is replaced by "[redacted]" wherever it appears whole, and so is a cut-off head
or tail of it (a key cut by some length limit: an error message shortened to 300
characters, a quote clipped to 80) when that piece is long and rare enough to be no
ordinary word: at least MIN_FRAGMENT characters, holding a digit and a letter or a
capital inside a word (`_rare`). A secret whose ends are plain words (a test key ending in
"transition") is only redacted whole, so "transition_phase" stays as it is.

A secret in disguise is redacted too: written with characters inside it that a later
step strips (C0/C1 controls, zero-width and bidi format characters, U+FFFE/U+FFFF: what
the XML, label and terminal sanitizers of domain/text.py drop), with `\\uXXXX` JSON
escapes or `&#N;` character references that a later decode turns back into it, or in
compatibility forms (fullwidth letters) that NFKC folds to it. `scrub` looks for keys in
what those steps would make of the text (`revealed`), and redacts the whole disguised
stretch of the original.

`SecretFilter` does the same for a text that arrives in pieces (a streamed reply), holding
back only the few characters that could still turn into a secret.

Cost: a text is searched for the anchors (C-speed `in`); whether anything could be hidden
in it is a few passes in C over its UTF-8 (`_utf8_may_hide`), and only its non-ASCII
characters are looked at one by one. The last large texts found clean are remembered by
identity, so a request looked at as it is sent and again as it is stored, or a state part
the store gets again unchanged, is not searched twice.

Lives in domain because llm/, sources/, store/ and the CLI all need it and may not import
each other. Must not log, print or return a secret, and must not import anything outside
the standard library.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from typing import Any

REDACTED = "[redacted]"
MIN_SECRET_CHARS = 8  # shorter values cannot be told from ordinary words: not remembered
MIN_FRAGMENT = 16  # a cut-off head or tail of a secret this long (and rare) is redacted too

# What some later step strips from a text, so a key with these inside comes back whole:
# C0 controls (tab and line feed are kept everywhere, so they split a key for good), C1
# controls and DEL, the format characters (zero-width, bidi, soft hyphen, BOM, tags ...)
# and the two non-characters XML refuses.
_IGNORABLE_CLASS = (
    "\x00-\x08\x0b-\x1f\x7f-\x9f\xad\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2"
    "\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
    "\ufffe\uffff\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f"
)
IGNORABLE = re.compile(f"[{_IGNORABLE_CLASS}]")
# A character written as an escape some later step may decode: a JSON `\uXXXX`, an HTML
# or XML numeric character reference.
# An escaped backslash is matched as such, so the "u" after it starts no escape.
_ESCAPE = re.compile(
    r"\\\\|\\u([0-9a-fA-F]{4})|&#(?:[xX]([0-9a-fA-F]{1,6})|([0-9]{1,7}));")
_ESCAPE_AT_END = re.compile(
    r"(?:\\u[0-9a-fA-F]{4}|&#(?:[xX][0-9a-fA-F]{1,6}|[0-9]{1,7});)\Z")
_OPEN_ESCAPE_AT_END = re.compile(
    r"(?:\\(?:u[0-9a-fA-F]{0,3})?|&(?:#(?:[xX][0-9a-fA-F]{0,6}|[0-9]{0,7})?)?)\Z")
_DIGIT = re.compile(r"[0-9]")
_LETTER = re.compile(r"[A-Za-z]")
_INNER_CAPITAL = re.compile(r"[a-z0-9][A-Z]")

_lock = threading.Lock()
_secrets: set[str] = set()  # changed under the lock only; readers use what _rebuild publishes
# Each secret (longest first, so a secret inside a longer one is not cut) with the length
# of its head and tail anchors: the shortest rare end of at least MIN_FRAGMENT characters,
# or the whole secret when no end is rare.
_known: tuple[tuple[str, int, int], ...] = ()
_probes: tuple[str, ...] = ()  # every anchor: a text holding none holds no secret
_probe_bytes: tuple[bytes, ...] = ()
_secret_texts: tuple[str, ...] = ()
_longest = 0
_generation = 0


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


def secrets_known() -> bool:
    """Whether any secret is remembered (scrubbing can change a text at all)."""
    return bool(_probes)


def forget_secrets() -> None:
    """Forget every remembered secret (tests start each case clean)."""
    with _lock:
        _secrets.clear()
        _rebuild()


def _rare(piece: str) -> bool:
    """Whether `piece` looks like a key and not like words: a digit among letters, or a
    capital right after a small letter or a digit."""
    return bool(_DIGIT.search(piece) and _LETTER.search(piece)) or \
        _INNER_CAPITAL.search(piece) is not None


def _anchor_length(secret: str, *, tail: bool) -> int:
    for size in range(MIN_FRAGMENT, len(secret)):
        if _rare(secret[-size:] if tail else secret[:size]):
            return size
    return len(secret)


def _rebuild() -> None:
    global _known, _probes, _probe_bytes, _secret_texts, _longest, _generation
    ordered = sorted(_secrets, key=len, reverse=True)
    known = tuple((s, _anchor_length(s, tail=False), _anchor_length(s, tail=True))
                  for s in ordered)
    _probes = tuple({p for s, head, tail in known for p in (s[:head], s[len(s) - tail:])})
    _probe_bytes = tuple(p.encode("utf-8", errors="surrogatepass") for p in _probes)
    _secret_texts = tuple(ordered)
    _longest = max((len(s) for s in ordered), default=0)
    _known = known
    # Last: a text found clean under the old secrets is looked at again (scrub reads the
    # generation before the probes, so it never marks a text clean for secrets it missed).
    _generation += 1


def scrub(text: str) -> str:
    """`text` with every known secret, plain or in disguise, and every long rare cut-off
    head or tail of one, redacted."""
    generation = _generation  # before the probes: see _rebuild
    probes = _probes
    if not probes or not text or _seen_clean(text, generation):
        return text
    found = text
    if any(p in found for p in probes):  # a few C-speed substring tests
        found = _redact(found, _spans(found))
    if _may_hide(found) and any(p in revealed(found) for p in probes):
        found = _redact_disguised(found)
    if found is text:
        _note_clean(text, generation)
    return found


# The last large texts found clean, by identity (each kept, so its id is not reused) and
# for the secrets known then: a request's text is looked at as it is sent and again as it
# is stored, and the store is handed the unchanged parts of a state as the same objects
# turn after turn.
_CLEAN_MIN_CHARS = 4096
_CLEAN_KEPT = 64
_CLEAN_MAX_CHARS = 8_000_000  # in all: what is kept here is kept alive
_clean_chars = 0
_clean: dict[int, tuple[str | bytes, int]] = {}
_clean_lock = threading.Lock()


def _seen_clean(text: str | bytes, generation: int) -> bool:
    if len(text) < _CLEAN_MIN_CHARS:
        return False
    seen = _clean.get(id(text))
    return seen is not None and seen[0] is text and seen[1] == generation


def _note_clean(text: str | bytes, generation: int) -> None:
    global _clean_chars
    if not _CLEAN_MIN_CHARS <= len(text) <= _CLEAN_MAX_CHARS:
        return
    with _clean_lock:
        old = _clean.pop(id(text), None)
        _clean_chars -= len(old[0]) if old else 0
        _clean[id(text)] = (text, generation)
        _clean_chars += len(text)
        while len(_clean) > _CLEAN_KEPT or _clean_chars > _CLEAN_MAX_CHARS:
            _clean_chars -= len(_clean.pop(next(iter(_clean)))[0])


def scrub_value(value: Any) -> Any:
    """A JSON-like value (decoded from a reply) with every string in it scrubbed, keys
    of objects too; the same object when nothing changed."""
    if not _probes:
        return value
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, dict):
        items = [(scrub_value(k), scrub_value(v)) for k, v in value.items()]
        if all(k is k0 and v is v0 for (k, v), (k0, v0) in zip(items, value.items(),
                                                                 strict=True)):
            return value
        return dict(items)
    if isinstance(value, list | tuple):
        values = [scrub_value(v) for v in value]
        if all(v is v0 for v, v0 in zip(values, value, strict=True)):
            return value
        return type(value)(values) if isinstance(value, tuple) else values
    return value


def revealed(text: str) -> str:
    """What later steps could make of `text`: escapes decoded, stripped characters
    dropped, compatibility forms folded (NFKC)."""
    if "\\u" in text or "&#" in text:
        text = _ESCAPE.sub(_decoded, text)
    text = IGNORABLE.sub("", text)
    if not unicodedata.is_normalized("NFKC", text):
        text = unicodedata.normalize("NFKC", text)
    return text


def _may_hide(text: str) -> bool:
    """False when no later step could change `text` (so it hides no key): no escape, no
    character one strips, nothing NFKC folds."""
    if text.isascii():
        return _utf8_may_hide(text.encode("ascii"))
    return _utf8_may_hide(text.encode("utf-8", errors="surrogatepass"))


def _utf8_may_hide(data: bytes) -> bool:
    """`_may_hide` for UTF-8: a few passes in C over the bytes; only the non-ASCII
    characters (few, in most text) are looked at one by one."""
    # One-byte searches first: they run at memchr speed, two-byte ones far slower.
    if (b"\\" in data and b"\\u" in data) or (b"#" in data and b"&#" in data):
        return True
    if len(data.translate(None, _ASCII_CONTROLS)) != len(data):
        return True
    if data.isascii():
        return False
    # Deleting the ASCII bytes leaves the other characters' sequences whole, side by side.
    wide = data.translate(None, _ASCII_BYTES).decode("utf-8", errors="replace")
    if IGNORABLE.search(wide) is not None:
        return True
    # A no-break space and an ellipsis fold to no key's characters (and are common).
    return not unicodedata.is_normalized("NFKC", wide.replace("\u2026", "").replace(
        "\xa0", ""))


def _decoded(match: re.Match[str]) -> str:
    """The character an escape stands for (an escaped backslash stays as it is)."""
    hex_code = match.group(1) or match.group(2)
    if hex_code is None and match.group(3) is None:
        return match.group()
    code = int(hex_code, 16) if hex_code else int(match.group(3))
    return chr(code) if code <= 0x10FFFF else "\ufffd"


def _spans(text: str) -> list[tuple[int, int]]:
    """Every stretch of `text` that is a known secret, or a head or tail of one at least
    as long as its anchor: found from the anchors (C-speed `find`), then grown one
    character at a time."""
    spans: list[tuple[int, int]] = []
    for secret, head_len, tail_len in _known:
        head = secret[:head_len]
        start = text.find(head)
        while start != -1:
            end = start + head_len
            while end < len(text) and end - start < len(secret) \
                    and text[end] == secret[end - start]:
                end += 1
            spans.append((start, end))
            start = text.find(head, end)
        if tail_len >= len(secret):
            continue  # no rare tail: the whole secret was found from its head
        tail, tail_at = secret[-tail_len:], len(secret) - tail_len
        end = text.find(tail)
        while end != -1:
            start, at = end, tail_at
            while start > 0 and at > 0 and text[start - 1] == secret[at - 1]:
                start, at = start - 1, at - 1
            spans.append((start, end + tail_len))
            end = text.find(tail, end + 1)
    return spans


def _redact(text: str, spans: list[tuple[int, int]]) -> str:
    """Each of `spans` of `text` (overlapping ones merged) becomes REDACTED."""
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


def _redact_disguised(text: str) -> str:
    """Find secrets in what `text` reveals and redact the stretches of `text` they came
    from, with whatever was inside them."""
    chars: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    i, n = 0, len(text)
    while i < n:
        char, j = text[i], i + 1
        if char in "\\&" and (match := _ESCAPE.match(text, i)) is not None:
            char, j = _decoded(match), match.end()
        if len(char) > 1 or IGNORABLE.match(char) is None:
            folded = char if char.isascii() else unicodedata.normalize("NFKC", char)
            for piece in folded:
                chars.append(piece)
                starts.append(i)
                ends.append(j)
        i = j
    skeleton = "".join(chars)
    return _redact(text, [(starts[s], ends[e - 1]) for s, e in _spans(skeleton) if e > s])


def scrub_bytes(data: bytes) -> bytes:
    """`scrub` for UTF-8 bytes (JSON: a key written with escapes inside it is found too)."""
    generation = _generation  # before the probes: see _rebuild
    if not _probes or _seen_clean(data, generation):
        return data
    if any(p in data for p in _probe_bytes) or _utf8_may_hide(data):
        text = data.decode("utf-8", errors="surrogateescape")
        cleaned = scrub(text)
        if cleaned is not text:
            return cleaned.encode("utf-8", errors="surrogateescape")
    _note_clean(data, generation)
    return data


_ASCII_CONTROLS = bytes(range(0x20)).replace(b"\n", b"").replace(b"\t", b"") + b"\x7f"
_ASCII_BYTES = bytes(range(0x80))


class SecretFilter:
    """Scrubs a text that arrives in pieces: `feed` returns what may be shown now,
    `flush` the rest at the end. A secret split across pieces is still caught: the tail
    of what has arrived is held back while it could be the start of a secret (in
    disguise too)."""

    def __init__(self) -> None:
        self._held = ""

    def feed(self, piece: str) -> str:
        text = self._held + piece
        if not _probes:
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
    redactable head of one): the longest end of `text` whose revealed form is found
    inside a known secret, an escape still being written included."""
    known = _secret_texts
    longest = _longest
    end = len(text)
    opened = _OPEN_ESCAPE_AT_END.search(text, max(0, end - 10))
    if opened is not None and opened.end() > opened.start():
        end = opened.start()  # a `\\u00` or `&#1` cut by the piece: wait for the rest
    held = len(text) - end
    folded = ""
    budget = 4 * longest + 16  # stripped characters count too: a flood of them is let go
    i = end
    while i > 0 and budget > 0:
        budget -= 1
        escape = _ESCAPE_AT_END.search(text, max(0, i - 12), i)
        if escape is not None and (whole := _ESCAPE.fullmatch(escape.group())) is not None:
            char, start = _decoded(whole), escape.start()
        else:
            char, start = text[i - 1], i - 1
        if IGNORABLE.match(char) is None:
            grown = (char if char.isascii() else unicodedata.normalize("NFKC", char)) + folded
            if len(grown) > longest or not any(grown in s for s in known):
                break
            folded = grown
        i = start
        held = len(text) - i
    return held
