"""The roundtable tool registry: each tool's name, parameters, allowed roles, doc line and
an example call built from the meeting's real ids.

Examples are generated at render time from the state so the context window never teaches
placeholder arguments (seed 001: "tool arguments must be real values"). Must not execute
tools or parse replies; must not read untrusted titles or descriptions into examples
(only ids that look like ids are used).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from itertools import islice

from roundtable_desktop.kinds.roundtable.actors import Role
from roundtable_desktop.kinds.roundtable.meeting import MeetingState


class ParamType(StrEnum):
    """What an argument must be; the executor converts and checks by this."""

    TEXT = "text"  # a note, a transcript line, a search query
    KEYWORD = "keyword"
    CANDIDATE_ID = "candidate_id"
    FACT_ID = "fact_id"
    COUNT = "count"  # a positive whole number


class Arity(StrEnum):
    REQUIRED = "required"
    OPTIONAL = "optional"
    VARIADIC = "variadic"  # one or more


@dataclass(frozen=True)
class Param:
    name: str
    type: ParamType
    arity: Arity = Arity.REQUIRED


ExampleBuilder = Callable[[MeetingState], str]


@dataclass(frozen=True)
class ToolSpec:
    """One tool. `example(state)` returns a full canonical line such as
    `CALL: expandFact(f2)`, using ids that exist in `state` when there are any."""

    name: str
    params: tuple[Param, ...]
    roles: frozenset[Role]
    doc: str
    build_example: ExampleBuilder
    data_bringing: bool = False

    def example(self, state: MeetingState) -> str:
        return f"CALL: {self.name}({self.build_example(state)})"

    def signature(self) -> str:
        """`name(a, b?, c, ...)`: for people reading the registry, not for the payload."""
        parts: list[str] = []
        for p in self.params:
            if p.arity == Arity.OPTIONAL:
                parts.append(f"{p.name}?")
            elif p.arity == Arity.VARIADIC:
                parts.append(f"{p.name}, ...")
            else:
                parts.append(p.name)
        return f"{self.name}({', '.join(parts)})"

    def allows(self, role: Role) -> bool:
        return role in self.roles

    @property
    def min_args(self) -> int:
        return sum(1 for p in self.params if p.arity != Arity.OPTIONAL)

    @property
    def max_args(self) -> int | None:
        """None when the last parameter is variadic."""
        if any(p.arity == Arity.VARIADIC for p in self.params):
            return None
        return len(self.params)


# --- example builders -----------------------------------------------------------------

# Real YouTube ids, used only when the meeting has no candidates yet.
_FALLBACK_IDS = ("aircAruvnKk", "kCc8FmEb1nY", "zjkBMFhNj_g")
_FALLBACK_QUERY = "LLM agents explained"
_FALLBACK_KEYWORDS = ("LLM", "science fiction")
_SAFE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_NUMBER_LIKE = re.compile(r"-?[0-9]+")
_JSON_WORDS = frozenset({"true", "false", "null"})


# Examples are rebuilt for every payload from the same few ids and texts: remember them.
@lru_cache(maxsize=1024)
def id_literal(value: str) -> str:
    """How an id is written in a call: bare when the parser reads it back as the same
    string, otherwise as a JSON string."""
    readable = _SAFE_ID.fullmatch(value) and not _NUMBER_LIKE.fullmatch(value)
    if readable and value not in _JSON_WORDS:
        return value
    return json.dumps(value, ensure_ascii=False)


def _candidate_ids(state: MeetingState, k: int) -> list[str]:
    # The first k safe ids: stop there rather than scan a long list every payload.
    ids = list(islice((c.id for c in state.candidates if _SAFE_ID.fullmatch(c.id)), k))
    return ids or list(_FALLBACK_IDS[:k])


def _committed_ids(state: MeetingState, k: int) -> list[str]:
    ids = [s.candidate.id for s in state.suggestions if _SAFE_ID.fullmatch(s.candidate.id)]
    ids = ids or [i for i in state.ranked if _SAFE_ID.fullmatch(i)]
    return ids[:k] or _candidate_ids(state, k)


def _interests(state: MeetingState) -> list[str]:
    actor_interests = state.actors[state.current].interests if state.actors else []
    found = [i.strip()[:40] for i in actor_interests + state.user.interests if i.strip()]
    return list(dict.fromkeys(found))


def _query(state: MeetingState) -> str:
    interests = _interests(state)
    return " ".join(interests[:2]) if interests else _FALLBACK_QUERY


def _fact_id(state: MeetingState, *, expanded: bool) -> str:
    """The first safe id of a fact in that state, else the first safe id, else "f1"."""
    safe = [f for f in state.facts if _SAFE_ID.fullmatch(f.id)]
    return next((f.id for f in safe if f.expanded == expanded), safe[0].id if safe else "f1")


def _ids(ids: list[str]) -> str:
    return ", ".join(id_literal(i) for i in ids)


@lru_cache(maxsize=1024)
def _text(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _ex_fetch(state: MeetingState) -> str:
    return _text(_query(state))


def _ex_filter(state: MeetingState) -> str:
    keywords = _interests(state)[:2] or list(_FALLBACK_KEYWORDS)
    return ", ".join(_text(k) for k in keywords)


def _ex_top_n(state: MeetingState) -> str:
    available = len(state.ranked) or len(state.candidates)
    return str(min(3, available) if available else 3)


def _ex_mark_seen(state: MeetingState) -> str:
    # The last safe id: scan from the end rather than the whole list every payload.
    last = next((c.id for c in reversed(state.candidates) if _SAFE_ID.fullmatch(c.id)), None)
    return id_literal(last if last is not None else _FALLBACK_IDS[0])


def _ex_actor_note(state: MeetingState) -> str:
    picks = " and ".join(_candidate_ids(state, 2))
    return _text(f"Proposed {picks}; next turn check that every interest is covered.")


def _ex_whiteboard(state: MeetingState) -> str:
    return _text(f"Shortlist so far: {', '.join(_committed_ids(state, 3))}.")


def _ex_transcript(state: MeetingState) -> str:
    first = _committed_ids(state, 1)[0]
    return _text(f"I put {first} first because it matches the user's main interest.")


def _no_args(state: MeetingState) -> str:
    return ""


# --- the registry ---------------------------------------------------------------------

_EVERYONE = frozenset({Role.ADMINISTRATOR, Role.PARTICIPANT})
_ADMIN = frozenset({Role.ADMINISTRATOR})

_SPECS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "fetchCandidates",
        (Param("query", ParamType.TEXT, Arity.OPTIONAL),),
        _EVERYONE,
        "Replace the candidate list with videos found for a query built from visible facts.",
        _ex_fetch,
        data_bringing=True,
    ),
    ToolSpec(
        "fetchCandidatesMCP",
        (Param("query", ParamType.TEXT),),
        _EVERYONE,
        "Replace the candidate list with videos found through the connected MCP server.",
        _ex_fetch,
        data_bringing=True,
    ),
    ToolSpec(
        "expandFact",
        (Param("factId", ParamType.FACT_ID),),
        _EVERYONE,
        "Show a fact card's detail; only expanded facts are in the context window.",
        lambda s: id_literal(_fact_id(s, expanded=False)),
        data_bringing=True,
    ),
    ToolSpec(
        "collapseFact",
        (Param("factId", ParamType.FACT_ID),),
        _EVERYONE,
        "Hide a fact card's detail from the context window.",
        lambda s: id_literal(_fact_id(s, expanded=True)),
    ),
    ToolSpec(
        "filterCandidates",
        (Param("keyword", ParamType.KEYWORD, Arity.VARIADIC),),
        _EVERYONE,
        "Keep only candidates whose title, description, tags or channel contain any keyword.",
        _ex_filter,
    ),
    ToolSpec(
        "rankCandidates",
        (Param("candidateId", ParamType.CANDIDATE_ID, Arity.VARIADIC),),
        _EVERYONE,
        "Set your ranked picks by listing candidate ids in order; others leave the ranking.",
        lambda s: _ids(_candidate_ids(s, 3)),
    ),
    ToolSpec(
        "updateSuggestions",
        (Param("topN", ParamType.COUNT),),
        _EVERYONE,
        "Commit the top N ranked candidates to the Suggestions panel.",
        _ex_top_n,
    ),
    ToolSpec(
        "markSeen",
        (Param("videoId", ParamType.CANDIDATE_ID),),
        _EVERYONE,
        "Remove a candidate the user has already seen and add it to the watch history.",
        _ex_mark_seen,
    ),
    ToolSpec(
        "addActorNote",
        (Param("note", ParamType.TEXT),),
        _EVERYONE,
        "Append a private note that only you will see on your next turn.",
        _ex_actor_note,
    ),
    ToolSpec(
        "addWhiteboard",
        (Param("note", ParamType.TEXT),),
        _EVERYONE,
        "Append a shared note that every actor sees on later turns.",
        _ex_whiteboard,
    ),
    ToolSpec(
        "addTranscript",
        (Param("line", ParamType.TEXT),),
        _EVERYONE,
        "Say one meaningful, goal-relevant line into the meeting transcript.",
        _ex_transcript,
    ),
    ToolSpec(
        "passTurn",
        (),
        _EVERYONE,
        "End your turn and hand over to the next actor; emit only this if you add nothing.",
        _no_args,
    ),
    ToolSpec(
        "awaitResults",
        (),
        _EVERYONE,
        "Ask to see the fetched results in another inference within your turn.",
        _no_args,
    ),
    ToolSpec(
        "endMeeting",
        (),
        _ADMIN,
        "Conclude the meeting and freeze further turns.",
        _no_args,
    ),
    ToolSpec(
        "finalizeMeeting",
        (Param("candidateId", ParamType.CANDIDATE_ID, Arity.VARIADIC),),
        _ADMIN,
        "Rank these candidate ids, commit them as the final suggestions and end the meeting.",
        lambda s: _ids(_committed_ids(s, 3)),
    ),
)

ROUNDTABLE_TOOLS: dict[str, ToolSpec] = {spec.name: spec for spec in _SPECS}


def tools_for_role(role: Role) -> list[ToolSpec]:
    """The tools a role may use, in registry order; the context window shows only these."""
    return [spec for spec in ROUNDTABLE_TOOLS.values() if spec.allows(role)]
