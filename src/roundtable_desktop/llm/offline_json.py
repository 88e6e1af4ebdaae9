"""The offline model's JSON replies: a valid instance of any request's JSON schema, made up
from the request itself.

Reads the schemas pydantic's `model_json_schema()` produces: `$defs`/`$ref`, `const`,
`enum`, `anyOf`/`oneOf` (with null), `allOf`, objects with `required` and
`additionalProperties`, arrays with `items`/`prefixItems`/`minItems`/`maxItems`/
`uniqueItems`, integers and numbers with (exclusive) bounds and `multipleOf`, strings with
`minLength`/`maxLength` and the common formats. A string `pattern` is not honoured.
Values are drawn by a generator seeded with the client's seed and a hash of the request's
messages, so one input always gives the same reply and different inputs differ; strings
are made of words from the last user message so offline sessions look alive.
Must not do I/O or read anything but the request.
"""

from __future__ import annotations

import hashlib
import html
import json
import math
import random
import re
import uuid
from decimal import Decimal
from typing import Any

from roundtable_desktop.domain.calls import ChatRequest
from roundtable_desktop.domain.words import WORD
from roundtable_desktop.llm.response_format import schema_of_format

# Optional parts and list lengths shrink past this depth, so recursive schemas end.
MAX_DEPTH = 4
_HARD_DEPTH = 12
_TAG = re.compile(r"<[^>]*>")
_FILLER = ("offline", "idea", "plan", "note", "point", "option", "agree", "maybe",
           "next", "step", "choice", "reason")
# A JSON request with no schema (bare `json_object`) gets an object with one reply field.
_BARE_OBJECT: dict[str, Any] = {
    "type": "object",
    "properties": {"reply": {"type": "string"}},
    "required": ["reply"],
}


def json_reply(request: ChatRequest, seed: int) -> str:
    """A JSON text valid against the request's schema (or a small object without one)."""
    schema = request.response_schema or schema_of_format(request.response_format) or _BARE_OBJECT
    rng = random.Random(input_seed(request, seed))
    value = SchemaInstance(schema, rng, reply_words(request)).make()
    return json.dumps(value, ensure_ascii=False)


def input_seed(request: ChatRequest, seed: int) -> int:
    """The client seed mixed with a hash of every message as sent."""
    digest = hashlib.sha256(str(seed).encode())
    for message in request.messages:
        digest.update(b"\0" + message.role.encode() + b"\0" + message.content.encode())
    return int.from_bytes(digest.digest()[:8], "big")


def reply_words(request: ChatRequest, limit: int = 400) -> list[str]:
    """Distinct words of the last user message (markup removed), topped up from the other
    messages when it has few, else a small filler vocabulary."""
    words = _words(request.user_text(), limit)
    if len(words) < 3:
        everything = "\n".join(m.content for m in request.messages)
        words = _words(everything, limit)
    return words or list(_FILLER)


def _words(text: str, limit: int) -> list[str]:
    text = html.unescape(_TAG.sub(" ", text))
    seen: dict[str, None] = {}
    for match in WORD.finditer(text):  # as written: the words become text a reader sees
        word = match.group(0)
        if 3 <= len(word) <= 24 and word[0].isalpha():
            seen.setdefault(word, None)
            if len(seen) >= limit:
                break
    return list(seen)


class SchemaInstance:
    """Makes one instance of `schema`; `rng` decides every choice."""

    def __init__(self, schema: dict[str, Any], rng: random.Random, words: list[str]) -> None:
        self.root = schema
        self.rng = rng
        self.words = words or list(_FILLER)

    def make(self) -> Any:
        return self.value(self.root, 0)

    # -- dispatch ---------------------------------------------------------------------
    def value(self, schema: Any, depth: int) -> Any:
        schema = self.resolve(schema)
        if "const" in schema:
            return schema["const"]
        if isinstance(schema.get("enum"), list) and schema["enum"]:
            return self.rng.choice(schema["enum"])
        for key in ("anyOf", "oneOf"):
            if isinstance(schema.get(key), list) and schema[key]:
                return self.value(self.branch(schema[key], depth), depth)
        if isinstance(schema.get("allOf"), list):
            merged = {k: v for k, v in schema.items() if k != "allOf"}
            for part in schema["allOf"]:
                merged.update(self.resolve(part))
            return self.value(merged, depth)
        kind = schema.get("type")
        if isinstance(kind, list):
            kinds = [k for k in kind if k != "null"] or ["null"]
            kind = self.rng.choice(kinds)
        if kind is None:
            kind = _implied_type(schema)
        make = {
            "object": self.object, "array": self.array, "string": self.string,
            "integer": self.integer, "number": self.number,
        }.get(kind)
        if make is not None:
            return make(schema, depth)
        if kind == "boolean":
            return self.rng.random() < 0.5
        if kind == "null":
            return None
        return self.phrase(1, 4)  # no constraint at all (`Any`)

    def resolve(self, schema: Any) -> dict[str, Any]:
        """Follow `$ref`s; keywords beside a `$ref` (description, default) are kept."""
        if not isinstance(schema, dict):
            return {}
        node: dict[str, Any] = schema
        for _ in range(32):
            ref = node.get("$ref")
            if not isinstance(ref, str):
                return node
            target = self._pointer(ref)
            node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        return node

    def _pointer(self, ref: str) -> dict[str, Any]:
        node: Any = self.root
        for part in ref.removeprefix("#").strip("/").split("/"):
            if not part:
                continue
            part = part.replace("~1", "/").replace("~0", "~")
            node = node.get(part) if isinstance(node, dict) else None
        return {k: v for k, v in node.items() if k != "$defs"} if isinstance(node, dict) else {}

    def branch(self, options: list[Any], depth: int) -> Any:
        """One alternative; null now and then, and always when deep and null is allowed."""
        nulls = [o for o in options if self.resolve(o).get("type") == "null"]
        others = [o for o in options if o not in nulls]
        if nulls and (not others or depth >= MAX_DEPTH or self.rng.random() < 0.25):
            return nulls[0]
        return self.rng.choice(others)

    # -- containers -------------------------------------------------------------------
    def object(self, schema: dict[str, Any], depth: int) -> dict[str, Any]:
        properties = schema.get("properties")
        properties = properties if isinstance(properties, dict) else {}
        required = set(schema.get("required") or ())
        out: dict[str, Any] = {}
        for name, sub in properties.items():
            optional_kept = depth < MAX_DEPTH and self.rng.random() < 0.6
            if (name in required or optional_kept) and depth < _HARD_DEPTH:
                out[name] = self.value(sub, depth + 1)
        extra = schema.get("additionalProperties")
        if not properties and isinstance(extra, dict):
            low = int(schema.get("minProperties", 0))
            high = int(schema.get("maxProperties", low + 3))
            count = self._count(low, high, depth)
            for word in self._distinct_words(count):
                out[word] = self.value(extra, depth + 1)
        return out

    def array(self, schema: dict[str, Any], depth: int) -> list[Any]:
        prefix = schema.get("prefixItems")
        prefix = prefix if isinstance(prefix, list) else []
        low = int(schema.get("minItems", 0))
        high = int(schema.get("maxItems", max(low, len(prefix)) + 3))
        items = schema.get("items")
        if prefix and not isinstance(items, dict):  # a fixed tuple
            return [self.value(sub, depth + 1) for sub in prefix]
        count = max(self._count(low, high, depth), len(prefix))
        out = [self.value(sub, depth + 1) for sub in prefix]
        item_schema = items if isinstance(items, dict) else {}
        seen = {_key(v) for v in out}
        tries = 0
        while len(out) < count and tries < count * 10 + 10:
            tries += 1
            candidate = self.value(item_schema, depth + 1)
            if schema.get("uniqueItems"):
                if _key(candidate) in seen:
                    continue
                seen.add(_key(candidate))
            out.append(candidate)
        return out

    def _count(self, low: int, high: int, depth: int) -> int:
        """How many items: at least one when allowed (so replies say something), at most
        three more than the minimum, and only the minimum when deep."""
        high = max(low, high)
        if depth >= MAX_DEPTH:
            return low
        return self.rng.randint(max(low, min(1, high)), min(high, low + 3))

    # -- scalars ----------------------------------------------------------------------
    def string(self, schema: dict[str, Any], depth: int) -> str:
        made = self._formatted(schema.get("format"))
        if made is not None:
            return made
        low = max(0, int(schema.get("minLength", 0)))
        high = schema.get("maxLength")
        high = None if high is None else max(low, int(high))
        text = self.phrase(1, 8, max_chars=high) or self.rng.choice(self.words)
        while len(text) < low:
            text = f"{text} {self.rng.choice(self.words)}".strip()
        if high is not None and len(text) > high:
            text = text[:high].rstrip()
        return text.ljust(low, "x")

    def _formatted(self, fmt: Any) -> str | None:
        rng = self.rng
        if fmt == "date-time":
            return (f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T"
                    f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00Z")
        if fmt == "date":
            return f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        if fmt == "time":
            return f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00"
        if fmt == "uuid":
            return str(uuid.UUID(int=rng.getrandbits(128), version=4))
        if fmt == "email":
            return f"{self._ascii_word()}@example.org"
        if fmt in ("uri", "url", "iri"):
            return f"https://example.org/{self._ascii_word()}"
        return None

    def integer(self, schema: dict[str, Any], depth: int) -> int:
        low, high = _bounds(schema, integer=True)
        step = schema.get("multipleOf")
        if isinstance(step, int | float) and step > 0:
            first, last = math.ceil(low / step), math.floor(high / step)
            if first <= last:
                return int(self.rng.randint(first, last) * step)
        return self.rng.randint(int(low), int(high))

    def number(self, schema: dict[str, Any], depth: int) -> float:
        low, high = _bounds(schema, integer=False)
        step = schema.get("multipleOf")
        if isinstance(step, int | float) and step > 0:
            first, last = math.ceil(low / step), math.floor(high / step)
            if first <= last:
                # Rounded to the step's own decimals: 7 * 0.1 is 0.7, not 0.7000000000000001.
                return round(self.rng.randint(first, last) * step, _decimals(step))
        value = round(self.rng.uniform(low, high), 2)
        return value if low <= value <= high else (low + high) / 2

    # -- words ------------------------------------------------------------------------
    def phrase(self, fewest: int, most: int, max_chars: int | None = None) -> str:
        """Distinct words of the input, whole words only while they fit `max_chars`."""
        count = min(self.rng.randint(fewest, most), len(self.words))
        text = ""
        for word in self.rng.sample(self.words, count):
            longer = f"{text} {word}" if text else word
            if max_chars is not None and len(longer) > max_chars:
                break
            text = longer
        return text

    def _distinct_words(self, count: int) -> list[str]:
        pool = list(dict.fromkeys(self.words))
        picked = self.rng.sample(pool, min(count, len(pool)))
        return picked + [f"{self.rng.choice(pool)}_{i}" for i in range(count - len(picked))]

    def _ascii_word(self) -> str:
        ascii_words = [w.lower() for w in self.words if re.fullmatch(r"[A-Za-z]+", w)]
        return self.rng.choice(ascii_words or list(_FILLER))


def _implied_type(schema: dict[str, Any]) -> str | None:
    if "properties" in schema or "additionalProperties" in schema:
        return "object"
    if "items" in schema or "prefixItems" in schema:
        return "array"
    if any(k in schema for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")):
        return "number"
    if any(k in schema for k in ("minLength", "maxLength", "format")):
        return "string"
    return None


def _bounds(schema: dict[str, Any], *, integer: bool) -> tuple[float, float]:
    """The inclusive range to draw from; an open side is ten away from the other."""
    low: float | None = schema.get("minimum")
    high: float | None = schema.get("maximum")
    ex_low, ex_high = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
    if isinstance(ex_low, int | float) and not isinstance(ex_low, bool):
        inner = math.floor(ex_low) + 1 if integer else ex_low + _nudge(ex_low, ex_high)
        low = inner if low is None else max(low, inner)
    if isinstance(ex_high, int | float) and not isinstance(ex_high, bool):
        inner = math.ceil(ex_high) - 1 if integer else ex_high - _nudge(ex_low, ex_high)
        high = inner if high is None else min(high, inner)
    if low is None:
        low = 0 if high is None else high - 10
    if high is None:
        high = low + 10
    if integer:
        low, high = math.ceil(low), math.floor(high)
    return (low, high) if low <= high else (low, low)


def _nudge(low: Any, high: Any) -> float:
    """How far inside an exclusive bound to stay: a hundredth of the range, at most 0.01."""
    if isinstance(low, int | float) and isinstance(high, int | float) and high > low:
        return min(0.01, (high - low) / 100)
    return 0.01


def _decimals(step: float) -> int:
    exponent = Decimal(repr(float(step))).normalize().as_tuple().exponent
    return max(0, -exponent) if isinstance(exponent, int) else 0


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)
