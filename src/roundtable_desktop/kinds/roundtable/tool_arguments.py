"""Argument checks for roundtable tools: placeholders, arity, types and known ids.

Each check returns the converted value or raises `Refusal`, whose message the actor sees
in its next context window. Must not change meeting state.
"""

from __future__ import annotations

import re

from roundtable_desktop.domain.tools import Arg, ToolCall, ToolStatus
from roundtable_desktop.kinds.roundtable.meeting import MeetingState
from roundtable_desktop.kinds.roundtable.tools import Param, ToolSpec
from roundtable_desktop.llm.json_numbers import whole_number


def clip(value: str, limit: int) -> str:
    return value if len(value) <= limit else value[: limit - 1] + "…"


class Refusal(Exception):
    """A call that is not run (REFUSED) or that failed (ERROR); the message is for the
    actor, who sees it in its next context window."""

    def __init__(self, message: str, status: ToolStatus = ToolStatus.REFUSED) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


# Parameter names and template words a model copies instead of a real value.
_PLACEHOLDER_WORDS = frozenset(
    {
        "id", "ids", "idn", "n", "topn", "videoid", "videoids", "youtubeid", "candidateid",
        "candidateids", "factid", "factids", "query", "searchquery", "note", "line", "text",
        "keyword", "keywords", "string", "value", "number", "count", "arg", "args",
    }
)  # fmt: skip
_NUMBERED_PLACEHOLDER = re.compile(r"(?:id|videoid|candidateid|factid|keyword|arg|n)[0-9]+")
_NOT_WORD = re.compile(r"[\W_]+")
_SMALL_COUNT = re.compile(r"\s*[0-9]{1,9}\s*")


def is_placeholder(value: str) -> bool:
    """True for `N`, `videoId`, `id1`, `<id>`, `...` and the like."""
    stripped = value.strip()
    if len(stripped) > 2 and stripped[0] == "<" and stripped[-1] == ">":
        return True
    key = _NOT_WORD.sub("", stripped.lower())
    if not key:
        return bool(stripped)  # nothing but punctuation: "...", "…", "?"
    return key in _PLACEHOLDER_WORDS or _NUMBERED_PLACEHOLDER.fullmatch(key) is not None


def check_arity(spec: ToolSpec, call: ToolCall, state: MeetingState) -> None:
    got = len(call.args)
    most = spec.max_args
    if spec.min_args <= got and (most is None or got <= most):
        return
    names = ", ".join(p.name for p in spec.params)
    if most is None:
        wanted = f"one or more arguments ({names})"
    elif most == 0:
        wanted = "no arguments"
    elif spec.min_args == 0:
        wanted = f"at most {most} argument ({names})"
    else:
        wanted = f"{most} argument{'s' if most > 1 else ''} ({names})"
    raise Refusal(f"{spec.name} takes {wanted}, got {got}: for example {spec.example(state)}")


def text(arg: Arg, param: Param) -> str:
    """A text argument, stripped; empty is allowed here and refused by the caller."""
    value = arg.value
    if value is None or isinstance(value, bool):
        raise Refusal(f"{param.name} must be text in double quotes")
    result = str(value).strip()
    if result and is_placeholder(result):
        raise Refusal(f"placeholder argument ({clip(result, 40)}): write the actual {param.name}")
    return result


def keyword(arg: Arg, param: Param) -> str:
    result = text(arg, param)
    if not result:
        raise Refusal("empty keyword: give a word such as a topic from the facts")
    return result


def candidate_id(arg: Arg, param: Param, state: MeetingState) -> str:
    """A known candidate id (in the list or in the suggestions)."""
    found = _id_text(arg, param, "candidate")
    if state.candidate(found) is not None:
        return found
    shown = clip(found, 60)
    if is_placeholder(found):
        raise Refusal(f"placeholder argument ({shown}): use a real candidate id from the list")
    raise Refusal(f"unknown candidate id {shown}: use an id from the candidate list")


def fact_id(arg: Arg, param: Param, state: MeetingState) -> str:
    found = _id_text(arg, param, "fact")
    if state.fact(found) is not None:
        return found
    shown = clip(found, 60)
    if is_placeholder(found):
        raise Refusal(f"placeholder argument ({shown}): use a real fact id from the facts")
    raise Refusal(f"unknown fact id {shown}: use an id from the facts")


def _id_text(arg: Arg, param: Param, what: str) -> str:
    value = arg.value
    if value is None or isinstance(value, bool | float):
        raise Refusal(f"{param.name} must be a {what} id")
    return str(value).strip()


def positive_count(arg: Arg, param: Param) -> int:
    """A whole number >= 1; `3`, `3.0` and `"3"` all count."""
    value = arg.value
    count: int | None = None
    if isinstance(value, int | float):
        count = whole_number(value)  # no bool, NaN, infinity or 400 digits
    elif isinstance(value, str):
        if is_placeholder(value):
            raise Refusal(f"placeholder argument ({clip(value, 40)}): give a number such as 3")
        count = int(value) if _SMALL_COUNT.fullmatch(value) else None
    if count is None or count < 1:
        raise Refusal(f"{param.name} must be a positive whole number such as 3")
    return count
