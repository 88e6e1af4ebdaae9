"""Structured replies: a model's reply text turned into a pydantic model, or one clear error.

Models wrap their JSON in code fences and prose, leave trailing commas, write Python's
True/None, use single or smart quotes, add comments, or stop mid-object. `parse_structured`
finds the JSON blocks in the reply with a scanner that respects strings, decodes each
strictly and, failing that, with `json_repair`, unwraps a one-key wrapper
(`{"result": {...}}`) or a one-item array only when the inner value validates and the
outer one does not (or does only because its key is no field and every field has a
default), and validates with the model (extra keys are ignored unless the model forbids
them). Every string decoded is scrubbed of known secrets (a key written with `\\u`
escapes is whole only once decoded). Any bad input ends as a `StructuredReplyError`
(never RecursionError, ValueError or a library's own exception): replies are capped in
size and nesting depth.

Pure: no I/O and no state. Must not call a model; engine/structured_call.py re-asks.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, TypeVar

import json_repair
from pydantic import BaseModel, RootModel, ValidationError

from roundtable_desktop.domain.secrets import scrub_value
from roundtable_desktop.llm.response_format import compact_schema_json
from roundtable_desktop.llm.response_format import json_instruction as _object_instruction

T = TypeVar("T", bound=BaseModel)

# A structured reply is a few KB (a model looping until max_tokens, some 16 KB); beyond
# this it is not what was asked for, and json_repair's worst case (an unterminated string)
# costs about 0.5 s per 64 KB.
MAX_REPLY_CHARS = 64_000
# Deeper than any schema we ask for; keeps json and json_repair far from Python's
# recursion limit (json_repair uses about four frames per level).
MAX_DEPTH = 64
# Bracketed prose ("[1]", "{name}") yields blocks too; look at this many at most.
MAX_BLOCKS = 32
# Unterminated blocks are retried from their next opening bracket at most this often.
MAX_RESCANS = 4
# Wrappers unwrapped at most this deep: {"response": {"data": {...}}}.
MAX_UNWRAP = 3
_MAX_ERRORS_SHOWN = 4
_MAX_DETAIL_CHARS = 400

_SIGNIFICANT = re.compile(r'[{}\[\]"\\]')
_OPENING = re.compile(r"[{\[]")
_INVISIBLE = "\ufeff\u200b\u200c\u200d\u2060"


class StructuredReplyError(Exception):
    """A reply that could not be read as the expected JSON.

    `message` is one sentence for the user; `detail` is the short problem statement that
    goes back to the model in the re-ask prompt.
    """

    def __init__(self, message: str, detail: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.detail = detail or message


def parse_structured(text: str, model: type[T]) -> T:
    """The reply `text` as an instance of `model`; StructuredReplyError when it is not."""
    if not isinstance(text, str):
        raise StructuredReplyError("The reply was empty.", "The reply was empty.")
    text = text.strip().strip(_INVISIBLE).strip()
    if not text:
        raise StructuredReplyError("The reply was empty.", "The reply was empty.")
    if len(text) > MAX_REPLY_CHARS:
        raise StructuredReplyError(
            f"The reply was too long to read as JSON ({len(text):,} characters; the limit "
            f"is {MAX_REPLY_CHARS:,}).",
            "The reply was far too long. Reply with the JSON object only.",
        )
    blocks = find_json_blocks(text)
    if not blocks:
        raise StructuredReplyError(
            "The reply was not valid JSON: it contained no JSON object.",
            "The reply contained no JSON object.",
        )
    best: _Failure | None = None
    strict_ok: set[int] = set()
    repair_budget = MAX_REPLY_CHARS
    # Strict decoding first, over every block in order; json_repair only after that,
    # because it turns almost any bracketed prose into some value.
    for repair in (False, True):
        for index, block in enumerate(blocks):
            if block.too_deep:
                best = _better(best, _TOO_DEEP)
                continue
            if repair:
                # A block strict JSON read needs no repair; and the blocks rescanned
                # inside a cut-off block must not multiply json_repair's cost.
                if index in strict_ok or len(block.text) > repair_budget:
                    continue
                repair_budget -= len(block.text)
            value = _decode(block.text, repair=repair)
            if value is _UNREADABLE:
                continue
            if not repair:
                strict_ok.add(index)
            try:
                return _validate_unwrapping(value, model)
            except _Mismatch as exc:
                best = _better(best, exc.failure)
    if best is None:
        raise StructuredReplyError("The reply was not valid JSON.",
                                   "The reply was not valid JSON.")
    raise StructuredReplyError(best.message, best.detail)


def json_instruction(model: type[BaseModel]) -> str:
    """One short paragraph for a prompt: reply with one JSON value matching `model`."""
    schema = model.model_json_schema()
    if schema.get("type") == "array":
        return ("Reply with one JSON array only, with no text or code fences around it, "
                f"matching this JSON schema: {compact_schema_json(schema)}")
    return _object_instruction(schema)


# -- finding the JSON -------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class JsonBlock:
    """One bracketed span of the reply: balanced, or running to the end (cut off)."""

    text: str
    closed: bool
    too_deep: bool


def find_json_blocks(text: str) -> list[JsonBlock]:
    """The top-level `{...}` / `[...]` spans of `text`, in order, quotes respected.

    Brackets inside double-quoted strings do not count. A span that never closes runs to
    the end of the text (a cut-off reply); it is also scanned again from its next opening
    bracket, in case the first bracket was prose ("see [1: ... {json}").
    """
    blocks: list[JsonBlock] = []
    start_at = 0
    for _ in range(MAX_RESCANS + 1):
        reopened = _scan(text, start_at, blocks)
        if reopened is None or len(blocks) >= MAX_BLOCKS:
            break
        start_at = reopened
    return blocks[:MAX_BLOCKS]


def _scan(text: str, pos: int, blocks: list[JsonBlock]) -> int | None:
    """Append the blocks from `pos` on; the position to rescan from when the last block
    never closed, else None."""
    depth = deepest = 0
    start = -1
    in_string = False
    while len(blocks) < MAX_BLOCKS:
        match = _SIGNIFICANT.search(text, pos)
        if match is None:
            break
        char, pos = match.group(), match.end()
        if in_string:
            if char == "\\":
                pos += 1  # the escaped character, whatever it is
            elif char == '"':
                in_string = False
        elif depth == 0:
            if char in "{[":
                start, depth, deepest = match.start(), 1, 1
        elif char == '"':
            in_string = True
        elif char in "{[":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "}]":
            depth -= 1
            if depth == 0:
                blocks.append(JsonBlock(text[start:pos], True, deepest > MAX_DEPTH))
    if depth > 0 and len(blocks) < MAX_BLOCKS:
        too_deep = deepest > MAX_DEPTH
        blocks.append(JsonBlock(text[start:], False, too_deep))
        # Inside a too-deep block every later opening is too deep as well.
        return None if too_deep else _next_opening(text, start + 1)
    return None


def _next_opening(text: str, pos: int) -> int | None:
    match = _OPENING.search(text, pos)
    return match.start() if match else None


# -- decoding -----------------------------------------------------------------------------

_UNREADABLE = object()


def _decode(block: str, *, repair: bool) -> Any:
    """The block's JSON value (an object or array), or _UNREADABLE."""
    if not repair:
        try:
            value = json.loads(block)
        except (ValueError, RecursionError):  # JSONDecodeError is a ValueError
            return _UNREADABLE
    else:
        try:
            value = json_repair.repair_json(block, return_objects=True, skip_json_loads=True)
        except Exception:
            # The library's internals failing on input it cannot make sense of (it wraps
            # RecursionError in ValueError, and has raised IndexError and others before):
            # whatever it is, the reply is unreadable, not the session broken.
            return _UNREADABLE
    # json_repair answers "" for hopeless input, and may turn prose into a bare string.
    # Decoding turned escapes into characters: a key written with them is only now itself.
    return scrub_value(value) if isinstance(value, dict | list) else _UNREADABLE


# -- validating -------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class _Failure:
    distance: int  # smaller is closer to right: the error shown is the closest attempt's
    message: str
    detail: str


_TOO_DEEP = _Failure(1_000_000, "The reply's JSON was nested too deeply to read.",
                     f"The JSON was nested more than {MAX_DEPTH} levels deep.")


def _better(current: _Failure | None, new: _Failure) -> _Failure:
    return new if current is None or new.distance < current.distance else current


class _Mismatch(Exception):
    def __init__(self, failure: _Failure) -> None:
        super().__init__(failure.message)
        self.failure = failure


def _validate_unwrapping(value: Any, model: type[T], levels: int = MAX_UNWRAP) -> T:
    """`value` validated; when it does not fit, its one-key wrapper's inner value (or a
    one-item array's item), up to MAX_UNWRAP levels. The outermost value's error is
    reported unless an inner one comes closer.

    A one-key object whose key is none of the model's fields is a wrapper even when it
    validates (a model whose fields all have defaults accepts anything): its inner value
    is preferred when that validates too.
    """
    try:
        outer = _validate(value, model)
    except _Mismatch as exc:
        failure = exc.failure
    else:
        if levels == 0 or not _is_foreign_wrapper(value, model):
            return outer
        try:
            return _validate_unwrapping(_unwrapped(value), model, levels - 1)
        except _Mismatch:
            return outer
    for _ in range(levels):
        value = _unwrapped(value)
        if value is None:
            break
        try:
            return _validate(value, model)
        except _Mismatch as exc:
            failure = _better(failure, exc.failure)
    raise _Mismatch(failure)


def _is_foreign_wrapper(value: Any, model: type[BaseModel]) -> bool:
    if not isinstance(value, dict) or len(value) != 1 or _unwrapped(value) is None:
        return False
    if issubclass(model, RootModel):
        return False
    names = set(model.model_fields)
    names.update(f.alias for f in model.model_fields.values() if f.alias)
    return next(iter(value)) not in names


def _unwrapped(value: Any) -> Any:
    if isinstance(value, dict) and len(value) == 1:
        inner = next(iter(value.values()))
    elif isinstance(value, list) and len(value) == 1:
        inner = value[0]
    else:
        return None
    return inner if isinstance(inner, dict | list) else None


def _validate(value: Any, model: type[T]) -> T:
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        errors = exc.errors(include_url=False, include_context=False, include_input=False)
        detail = _summarize(errors)
        # A value of the wrong shape altogether (bracketed prose read as a list) is
        # further off than an object with a few fields wrong.
        distance = sum(1 if error.get("loc") else 1_000 for error in errors)
        raise _Mismatch(_Failure(distance, f"The reply's JSON did not match: {detail}",
                                 detail)) from None
    except (ValueError, TypeError, RecursionError) as exc:
        # A model's own validator raising something pydantic did not wrap.
        detail = f"{type(exc).__name__}: {exc}"[:_MAX_DETAIL_CHARS]
        raise _Mismatch(_Failure(1, f"The reply's JSON did not match: {detail}",
                                 detail)) from None


def _summarize(errors: list[Any]) -> str:
    """'stance: Input should be 'pro', 'con' or 'uncertain'; rationale: Field required'."""
    parts = []
    for error in errors[:_MAX_ERRORS_SHOWN]:
        where = ".".join(str(part) for part in error.get("loc", ())) or "(the whole reply)"
        parts.append(f"{where}: {error.get('msg', 'invalid')}")
    more = len(errors) - _MAX_ERRORS_SHOWN
    if more > 0:
        parts.append(f"and {more} more")
    summary = "; ".join(parts)
    if len(summary) > _MAX_DETAIL_CHARS:
        summary = summary[: _MAX_DETAIL_CHARS - 1] + "…"
    return summary
