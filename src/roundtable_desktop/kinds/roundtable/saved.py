"""The roundtable session's saved state as UTF-8 JSON bytes, made fast for every step.

The store saves the state after each action, twice a turn, and most of it has not
changed: the candidate list (the largest part) rarely does, and the transcript and the
whiteboard only grow. `SavedStateEncoder` keeps the candidate list's JSON while the list
holds the same (frozen) candidates, and the JSON of each transcript, whiteboard and
private-note line (frozen too) while its list starts with the same lines, encoding only
the lines added;
it joins them with the other fields, giving the bytes pydantic gives for the whole
`_Saved` model. Bytes, not str: the store takes them as they are, so nothing
decodes and re-encodes a large state; and in pieces (`pieces`, the session's
`stored_state`; engine/base.py joins them for `state_json`), the unchanged ones the
same objects as before, so the store does not even compare them again.
Must not change the state or decide what is saved (that is `RoundtableSession.state_dict`).
"""

from __future__ import annotations

import operator
from collections.abc import Sequence

from pydantic import BaseModel, TypeAdapter
from pydantic_core import to_json

from roundtable_desktop.context.layers import PromptSnapshot
from roundtable_desktop.kinds.roundtable.catalog import Candidate
from roundtable_desktop.kinds.roundtable.meeting import MeetingState, Note, TranscriptLine


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
# Each actor's private notes: a dict of such lists.
_NOTES = "notes"
# The fields encoded apart; the others go to pydantic in runs.
_APART = frozenset({"candidates", _NOTES, *_LINES})


def _segments() -> list[str | set[str]]:
    """MeetingState's fields in order: a name for each field encoded apart, a set for
    each run of fields pydantic encodes in one go."""
    segments: list[str | set[str]] = []
    for name in MeetingState.model_fields:
        if name in _APART:
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
        # Per list of lines (a field's name, or ("notes", actor id)): the (frozen) lines
        # last encoded, and the list's JSON.
        self._lines: dict[object, tuple[Sequence[BaseModel], bytes]] = {}

    def pieces(self, meeting: MeetingState, prompts: PromptSnapshot | None, model: str,
               provider: str) -> list[bytes]:
        """`saved_json` in pieces whose join it is, what did not change the same objects as
        last time (the store then skips them, store/blobs.py)."""
        serializer = MeetingState.__pydantic_serializer__
        out = [b'{"meeting":{']
        for i, segment in enumerate(_SEGMENTS):
            if i:
                out.append(b",")
            if isinstance(segment, set):
                out.append(serializer.to_json(meeting, include=segment)[1:-1])
                continue
            out.append(b'"%s":' % segment.encode())
            if segment == "candidates":
                out.append(self._candidates_text(meeting.candidates))
            elif segment == _NOTES:
                out.append(self._notes_text(meeting.notes))
            else:
                out.append(self._lines_text(segment, getattr(meeting, segment),
                                            _LINES[segment]))
        rest = _SavedRest.__pydantic_serializer__.to_json(
            _SavedRest(prompts=prompts, model=model, provider=provider))
        out.append(b"},")
        out.append(rest[1:])
        return out

    def _candidates_text(self, candidates: list[Candidate]) -> bytes:
        seen = self._candidates
        if len(seen) != len(candidates) or not all(map(operator.is_, seen, candidates)):
            self._candidates = tuple(candidates)
            self._candidates_json = _CANDIDATES.dump_json(candidates)
        return self._candidates_json

    def _notes_text(self, notes: dict[str, list[Note]]) -> bytes:
        # A key is escaped as pydantic escapes it (an actor id is plain, a key need not be).
        return b"{%s}" % b",".join([
            b"%s:%s" % (to_json(actor_id), self._lines_text((_NOTES, actor_id), lines, Note))
            for actor_id, lines in notes.items()
        ])

    def _lines_text(self, key: object, lines: Sequence[BaseModel],
                    model: type[BaseModel]) -> bytes:
        seen, text = self._lines.get(key, ([], b"[]"))
        # Lists only grow in place: when the new one starts with the same lines, only the
        # lines after them are encoded and added to the text kept. The comparison runs in
        # C and takes each line's identity as equal (an equal frozen line encodes the same).
        kept = len(seen) if len(lines) >= len(seen) and lines[:len(seen)] == seen else 0
        if kept == len(lines) and kept == len(seen):
            return text
        serializer = model.__pydantic_serializer__
        added = b",".join([serializer.to_json(line) for line in lines[kept:]])
        if not kept:
            text = b"[%s]" % added
        elif added:
            text = b"".join([text[:-1], b",", added, b"]"])
        self._lines[key] = (lines[:], text)  # a copy: the list itself grows in place
        return text
