"""The roundtable session's saved state as UTF-8 JSON bytes, made fast for every step.

The store saves the state after each action, twice a turn, and most of it has not
changed: the candidate list (the largest part) rarely does, and the transcript and the
whiteboard only grow. `SavedStateEncoder` keeps the candidate list's JSON while the list
holds the same (frozen) candidates, and the JSON of each transcript and whiteboard line
(frozen too) while the list starts with the same lines, encoding only the lines added;
it joins them with the other fields, giving the bytes pydantic gives for the whole
`_Saved` model. Bytes, not str: the store takes them as they are, so nothing
decodes and re-encodes a large state.
Must not change the state or decide what is saved (that is `RoundtableSession.state_dict`).
"""

from __future__ import annotations

import operator

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
        # Per list of lines: the (frozen) lines last encoded and their JSON, in order.
        self._lines: dict[str, tuple[tuple[BaseModel, ...], list[bytes]]] = {}

    def encode(self, meeting: MeetingState, prompts: PromptSnapshot | None, model: str,
               provider: str) -> bytes:
        serializer = MeetingState.__pydantic_serializer__
        # One join at the end: the state is ~150 KB, and each `+` would copy all of it.
        out = [b'{"meeting":{']
        for i, segment in enumerate(_SEGMENTS):
            if i:
                out.append(b",")
            if isinstance(segment, set):
                out.append(serializer.to_json(meeting, include=segment)[1:-1])
                continue
            out.append(b'"%s":' % segment.encode())
            out.append(self._candidates_text(meeting.candidates) if segment == "candidates"
                       else self._lines_text(segment, getattr(meeting, segment)))
        rest = _SavedRest.__pydantic_serializer__.to_json(
            _SavedRest(prompts=prompts, model=model, provider=provider))
        out.append(b"},")
        out.append(rest[1:])
        return b"".join(out)

    def _candidates_text(self, candidates: list[Candidate]) -> bytes:
        seen = self._candidates
        if len(seen) != len(candidates) or not all(map(operator.is_, seen, candidates)):
            self._candidates = tuple(candidates)
            self._candidates_json = _CANDIDATES.dump_json(candidates)
        return self._candidates_json

    def _lines_text(self, name: str, lines: list[BaseModel]) -> bytes:
        seen, texts = self._lines.get(name, ((), []))
        # Lists only grow in place: when the new one starts with the same objects, only
        # the lines after them are encoded (identity compared in C, line by line).
        if len(lines) >= len(seen) and all(map(operator.is_, seen, lines)):
            new = lines[len(seen):]
        else:
            new, texts = lines, []
        if new:
            serializer = _LINES[name].__pydantic_serializer__
            texts = texts + [serializer.to_json(line) for line in new]
            self._lines[name] = (tuple(lines), texts)
        return b"[" + b",".join(texts) + b"]"
