"""The roundtable session's saved state as UTF-8 JSON bytes, made fast for every step.

The store saves the state after each action, twice a turn, and most of it has not
changed: the candidate list (the largest part) rarely does, and the transcript and the
whiteboard only grow. `SavedStateEncoder` keeps the candidate list's JSON while the list
holds the same (frozen) candidates, and each transcript and whiteboard line's JSON by its
content, and joins them with the other fields, giving the bytes pydantic gives for the
whole `_Saved` model. Bytes, not str: the store takes them as they are, so nothing
decodes and re-encodes a large state.
Must not change the state or decide what is saved (that is `RoundtableSession.state_dict`).
"""

from __future__ import annotations

import operator
from typing import Any

from pydantic import BaseModel, TypeAdapter

from roundtable_desktop.context.layers import PromptSnapshot
from roundtable_desktop.domain.catalog import Candidate
from roundtable_desktop.domain.meeting import MeetingState, Note, TranscriptLine


class _Saved(BaseModel):
    """What `state_dict()` holds, for pydantic's fast JSON encoder."""

    meeting: MeetingState
    prompts: PromptSnapshot | None
    model: str
    provider: str


class _SavedRest(BaseModel):
    """`_Saved` after its first field, in the same order."""

    prompts: PromptSnapshot | None
    model: str
    provider: str


_CANDIDATES = TypeAdapter(list[Candidate])
# Lists of flat lines (every field a plain value), encoded line by line.
_LINES: dict[str, type[BaseModel]] = {"transcript": TranscriptLine, "whiteboard": Note}
_MEMO_LIMIT = 20_000  # lines remembered before the memo starts over


def _segments() -> list[str | set[str]]:
    """MeetingState's fields in order: a name for each field encoded apart, a set for
    each run of fields pydantic encodes in one go."""
    segments: list[str | set[str]] = []
    for name in MeetingState.model_fields:
        if name == "candidates" or name in _LINES:
            segments.append(name)
        elif segments and isinstance(segments[-1], set):
            segments[-1].add(name)
        else:
            segments.append({name})
    return segments


_SEGMENTS = _segments()


def saved_json(meeting: MeetingState, prompts: PromptSnapshot | None, model: str,
               provider: str) -> bytes:
    """The whole `_Saved` model as pydantic encodes it: the reference."""
    return _Saved.__pydantic_serializer__.to_json(
        _Saved(meeting=meeting, prompts=prompts, model=model, provider=provider))


class SavedStateEncoder:
    """`saved_json`, byte for byte, with what did not change encoded only once."""

    def __init__(self) -> None:
        # Candidates are frozen: the same objects in the same order encode the same; the
        # tuple keeps them alive, so no id is reused while cached.
        self._candidates: tuple[Candidate, ...] = ()
        self._candidates_json = b"[]"
        # Each line's JSON by object, kept with the field values it was made from: lines
        # are not frozen, so one whose fields changed is encoded again. Holding the line
        # keeps its id from being reused.
        self._lines: dict[int, tuple[BaseModel, dict[str, Any], bytes]] = {}

    def encode(self, meeting: MeetingState, prompts: PromptSnapshot | None, model: str,
               provider: str) -> bytes:
        serializer = MeetingState.__pydantic_serializer__
        parts = []
        for segment in _SEGMENTS:
            if isinstance(segment, set):
                parts.append(serializer.to_json(meeting, include=segment)[1:-1])
            elif segment == "candidates":
                parts.append(b'"candidates":' + self._candidates_text(meeting.candidates))
            else:
                parts.append(b'"%s":%s' % (segment.encode(), self._lines_text(
                    _LINES[segment], getattr(meeting, segment))))
        rest = _SavedRest.__pydantic_serializer__.to_json(
            _SavedRest(prompts=prompts, model=model, provider=provider))
        return b'{"meeting":{' + b",".join(parts) + b"}," + rest[1:]

    def _candidates_text(self, candidates: list[Candidate]) -> bytes:
        seen = self._candidates
        if len(seen) != len(candidates) or not all(map(operator.is_, seen, candidates)):
            self._candidates = tuple(candidates)
            self._candidates_json = _CANDIDATES.dump_json(candidates)
        return self._candidates_json

    def _lines_text(self, model: type[BaseModel], lines: list[Any]) -> bytes:
        if len(self._lines) > _MEMO_LIMIT:
            self._lines.clear()
        serializer = model.__pydantic_serializer__
        memo = self._lines
        out = []
        for line in lines:
            seen = memo.get(id(line))
            # The same object with the same field values (lines are not frozen).
            if seen is not None and seen[0] is line and seen[1] == line.__dict__:
                out.append(seen[2])
                continue
            text = serializer.to_json(line)
            memo[id(line)] = (line, dict(line.__dict__), text)
            out.append(text)
        return b"[" + b",".join(out) + b"]"
