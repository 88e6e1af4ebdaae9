"""The difference between two recorded requests, as a reader wants it: the request's
settings (model, sampling), the system prompt's layers by name, and the messages one by
one with the changed lines of each, never the raw JSON.

Used by compare (the two sides' requests of a step) and its report and window. Pure
functions over stored call records: must not read the store, import Qt or name a kind.
"""

from __future__ import annotations

import difflib
import json
from typing import Any, Literal

from pydantic import BaseModel, Field

from roundtable_desktop.store.records import CallRecord

Same = Literal["same", "changed", "only left", "only right"]
MAX_DIFF_LINES = 40  # changed lines shown per part at most (the rest is counted)


class PartDiff(BaseModel):
    """One part of the two requests: a setting, a layer or a message."""

    part: str  # "model", "layer persona", "message 3 (user)"
    state: Same
    lines: list[str] = Field(default_factory=list)  # "-old" / "+new" lines when changed
    more: int = 0  # changed lines left out


class RequestDiff(BaseModel):
    settings: list[PartDiff] = Field(default_factory=list)
    layers: list[PartDiff] = Field(default_factory=list)
    messages: list[PartDiff] = Field(default_factory=list)

    def changed(self) -> list[PartDiff]:
        return [p for p in (*self.settings, *self.layers, *self.messages)
                if p.state != "same"]

    def sentence(self) -> str:
        """One line: what differs, or that the requests are the same."""
        changed = self.changed()
        if not changed:
            return "The two requests are the same."
        names = ", ".join(p.part for p in changed[:6])
        more = f" and {len(changed) - 6} more" if len(changed) > 6 else ""
        return f"The requests differ in {names}{more}."


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False,
                                                           indent=1, sort_keys=True)


def _part(part: str, left: str | None, right: str | None) -> PartDiff:
    if left is None:
        lines = right.splitlines()[:5] if right else []
        return PartDiff(part=part, state="only right", lines=[f"+{line}" for line in lines])
    if right is None:
        return PartDiff(part=part, state="only left",
                        lines=[f"-{line}" for line in left.splitlines()[:5]])
    if left == right:
        return PartDiff(part=part, state="same")
    changed = [line for line in difflib.unified_diff(
        left.splitlines(), right.splitlines(), lineterm="", n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))]
    return PartDiff(part=part, state="changed", lines=changed[:MAX_DIFF_LINES],
                    more=max(0, len(changed) - MAX_DIFF_LINES))


def diff_requests(left: CallRecord, right: CallRecord) -> RequestDiff:
    """What differs between two recorded requests, part by part."""
    keys = [k for k in dict.fromkeys([*left.request, *right.request])
            if k not in ("messages", "stream", "stream_options")]
    settings = [_part(key, _text(left.request[key]) if key in left.request else None,
                      _text(right.request[key]) if key in right.request else None)
                for key in keys]
    left_layers = {layer.name: layer.text for layer in left.layers}
    right_layers = {layer.name: layer.text for layer in right.layers}
    layers = [_part(f"layer {name}", left_layers.get(name), right_layers.get(name))
              for name in dict.fromkeys([*left_layers, *right_layers])]
    lm, rm = left.messages(), right.messages()
    messages = []
    for i in range(max(len(lm), len(rm))):
        a = lm[i] if i < len(lm) else None
        b = rm[i] if i < len(rm) else None
        role = str((a or b or {}).get("role", "?"))
        messages.append(_part(f"message {i + 1} ({role})",
                              _text(a.get("content", "")) if a is not None else None,
                              _text(b.get("content", "")) if b is not None else None))
    return RequestDiff(settings=settings, layers=layers, messages=messages)


def diff_texts(left: str, right: str, part: str = "response") -> PartDiff:
    """Two responses (or any two texts) line by line."""
    return _part(part, left, right)
