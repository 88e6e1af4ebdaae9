"""Runs one actor's parsed roundtable tool calls against the meeting state, in order.

Checks each call (tool exists, the caller's role may use it, arity, argument types,
placeholders, known ids), applies the seed 001 semantics, records every call in the
transcript and every refusal or error in the caller's feedback. Feedback keeps the call
in brief (`brief_call`: long strings clipped, no raw line), so a refused call with a
huge argument cannot swell the state or the caller's next context window; how many
calls one reply may make is the protocol's limit (MAX_CALLS_PER_REPLY).

Must never call a model (it takes no client), never advance the turn (the protocol does
that on `passTurn()`), and never let a source's exception text reach the user unless it
is a SourceError (whose message is written for users).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from pydantic import BaseModel, Field

from roundtable_desktop.domain.tools import Arg, ToolCall, ToolResult, ToolStatus
from roundtable_desktop.domain.transcript import TranscriptKind
from roundtable_desktop.kinds.roundtable.catalog import Candidate, Suggestion, WatchItem
from roundtable_desktop.kinds.roundtable.meeting import (
    MeetingState,
    Note,
    TranscriptLine,
)
from roundtable_desktop.kinds.roundtable.sources.base import CandidateSource, SourceResult
from roundtable_desktop.kinds.roundtable.tool_arguments import (
    Refusal,
    candidate_id,
    check_arity,
    clip,
    fact_id,
    keyword,
    positive_count,
    text,
)
from roundtable_desktop.kinds.roundtable.tools import ROUNDTABLE_TOOLS, ToolSpec
from roundtable_desktop.sources.errors import SourceError

McpSearch = Callable[[str], Awaitable[SourceResult]]

MAX_TEXT = 2000  # longer notes and lines are truncated, and the result says so
# One reply's calls that run; the rest are dropped, with one line saying how many (a
# runaway reply of 5,000 CALL: lines must not become 5,000 refusals in the state).
MAX_CALLS_PER_REPLY = 32
_TRANSCRIPT_ARG = 160  # a tool line in the transcript quotes at most this much of a string
_BRIEF_CHARS = 600  # ... and about this much of all its arguments together


class ExecutionReport(BaseModel):
    """What running one reply's calls did. The protocol reads the flags to decide what
    happens next (advance on `passed`, re-infer on `await_results`, stop on `ended`).

    `changed_parts` is the union of the results' `changed`, plus "transcript" whenever a
    call was recorded and "feedback" when a refusal or error was fed back to the caller.
    Calls after `passTurn()` in the same reply still run: the protocol advances after."""

    results: list[ToolResult] = Field(default_factory=list)
    passed: bool = False
    await_results: bool = False
    ended: bool = False
    changed_parts: set[str] = Field(default_factory=set)


class _Run:
    """One execution: the state, the caller, the data sources and the report so far."""

    def __init__(
        self,
        state: MeetingState,
        actor_id: str,
        source: CandidateSource,
        mcp_search: McpSearch | None,
    ) -> None:
        self.state = state
        self.actor_id = actor_id
        self.source = source
        self.mcp_search = mcp_search
        self.report = ExecutionReport()


async def execute_calls(
    state: MeetingState,
    actor_id: str,
    calls: list[ToolCall],
    *,
    source: CandidateSource,
    mcp_search: McpSearch | None = None,
) -> ExecutionReport:
    """Runs `calls` for `actor_id` in order, mutating `state`; never calls a model."""
    run = _Run(state, actor_id, source, mcp_search)
    for call in calls:
        try:
            spec = _admit(run, call)
            result = await _HANDLERS[spec.name](run, spec, call)
        except Refusal as refusal:
            result = ToolResult(call=call, status=refusal.status, message=refusal.message)
        _record(run, result)
    return run.report


def _admit(run: _Run, call: ToolCall) -> ToolSpec:
    """The spec for `call` if the meeting is open and the caller may use it."""
    if run.state.ended:
        raise Refusal("the meeting has ended")
    spec = ROUNDTABLE_TOOLS.get(call.name)
    if spec is None:
        raise Refusal(f"unknown tool {call.name[:60]}")
    actor = run.state.actor_by_id(run.actor_id)
    if actor is None:
        raise Refusal(f"unknown actor {run.actor_id[:60]}")
    if not spec.allows(actor.role):
        only = " and ".join(sorted(r.value.capitalize() for r in spec.roles))
        raise Refusal(f"{spec.name} is for the {only} only")
    check_arity(spec, call, run.state)
    return spec


def _record(run: _Run, result: ToolResult) -> None:
    state, report = run.state, run.report
    report.results.append(result)
    report.changed_parts.update(result.changed)
    shown = _transcript_render(result.call)
    if result.status == ToolStatus.OK:
        if result.call.name != "addTranscript":  # its spoken line is the record
            state.transcript.append(_line(run, shown, TranscriptKind.TOOL))
    else:
        state.transcript.append(
            _line(run, f"refused: {shown} — {result.message}", TranscriptKind.REFUSAL)
        )
        brief = result.model_copy(update={"call": brief_call(result.call)})
        state.feedback.setdefault(run.actor_id, []).append(brief)
        report.changed_parts.add("feedback")
    report.changed_parts.add("transcript")


def _line(run: _Run, text_: str, kind: TranscriptKind) -> TranscriptLine:
    return TranscriptLine(actor_id=run.actor_id, text=text_, kind=kind, turn=run.state.turn)


def _transcript_render(call: ToolCall) -> str:
    """The call as the transcript shows it: private notes hidden, long strings shortened.
    The transcript is in every actor's payload, so it must not carry a private note."""
    if call.name == "addActorNote":
        return "addActorNote(<private note>)"
    return brief_call(call).render()


def brief_call(call: ToolCall) -> ToolCall:
    """`call` as feedback and the transcript keep it: no raw line, the name and each string
    argument shortened, and the arguments past about _BRIEF_CHARS characters counted
    ("…4,960 more") rather than listed."""
    args: list[Arg] = []
    used = 0
    for index, arg in enumerate(call.args):
        if isinstance(arg.value, str):
            arg = Arg(value=clip(arg.value, _TRANSCRIPT_ARG), bare=arg.bare)
        used += len(str(arg.value)) + 2
        if used > _BRIEF_CHARS:
            args.append(Arg(value=f"…{len(call.args) - index:,} more", bare=True))
            break
        args.append(arg)
    return ToolCall(name=call.name[:60], args=args, form=call.form)


def _ok(call: ToolCall, message: str, *changed: str) -> ToolResult:
    return ToolResult(call=call, status=ToolStatus.OK, message=message, changed=list(changed))


# --- candidates -----------------------------------------------------------------------


async def _fetch(run: _Run, spec: ToolSpec, call: ToolCall) -> ToolResult:
    query = text(call.args[0], spec.params[0]) if call.args else ""
    via_mcp = spec.name == "fetchCandidatesMCP"
    if via_mcp and run.mcp_search is None:
        raise Refusal(
            "MCP not connected: connect in the MCP panel or use fetchCandidates",
            ToolStatus.ERROR,
        )
    origin = "MCP" if via_mcp else run.source.name
    try:
        if run.mcp_search is not None and via_mcp:
            found = await run.mcp_search(query)
        else:
            found = await run.source.search(query or None)
    except SourceError as error:
        raise Refusal(
            f"{str(error).rstrip('.')}; the candidate list is unchanged", ToolStatus.ERROR
        ) from None
    except Exception as error:  # a source bug must not end the meeting nor leak details
        raise Refusal(
            f"{origin} failed unexpectedly ({type(error).__name__}); the candidate list is "
            "unchanged",
            ToolStatus.ERROR,
        ) from None
    notice = f" ({found.notice})" if found.notice else ""
    shown_query = f' for "{clip(query, 80)}"' if query else ""
    if not found.candidates:
        raise Refusal(
            f"no candidates found{shown_query}; the candidate list is unchanged{notice}",
            ToolStatus.ERROR,
        )
    state = run.state
    state.candidates = list(found.candidates)
    state.candidate_source = found.source
    state.candidate_query = query
    state.candidate_notice = found.notice
    changed = ["candidates", *(["ranked"] if _prune_ranked(state) else [])]
    message = f"fetched {len(found.candidates)} candidates{shown_query} from {found.source}"
    return _ok(call, message + notice, *changed)


async def _filter(run: _Run, spec: ToolSpec, call: ToolCall) -> ToolResult:
    words = [keyword(a, spec.params[0]) for a in call.args]
    state = run.state
    if not state.candidates:
        raise Refusal("there are no candidates to filter: fetch some with fetchCandidates")
    lowered = [w.lower() for w in words]
    kept = [c for c in state.candidates if any(w in _searchable(c) for w in lowered)]
    if not kept:
        raise Refusal("no candidate matched; list unchanged", ToolStatus.ERROR)
    before = len(state.candidates)
    state.candidates = kept
    changed = ["candidates", *(["ranked"] if _prune_ranked(state) else [])]
    return _ok(call, f"kept {len(kept)} of {before} candidates", *changed)


def _searchable(c: Candidate) -> str:
    return " ".join([c.title, c.description, c.channel, *c.tags]).lower()


def _prune_ranked(state: MeetingState) -> bool:
    """Drops ranked ids that no longer name a candidate or suggestion."""
    kept = [i for i in state.ranked if state.candidate(i) is not None]
    changed = kept != state.ranked
    state.ranked = kept
    return changed


async def _rank(run: _Run, spec: ToolSpec, call: ToolCall) -> ToolResult:
    ids = _known_ids(run, spec, call)
    run.state.ranked = ids
    return _ok(call, f"ranked {len(ids)} candidates", "ranked")


def _known_ids(run: _Run, spec: ToolSpec, call: ToolCall) -> list[str]:
    """Every id known, duplicates dropped; one unknown id refuses the whole call."""
    ids = [candidate_id(a, spec.params[0], run.state) for a in call.args]
    return list(dict.fromkeys(ids))


async def _update_suggestions(run: _Run, spec: ToolSpec, call: ToolCall) -> ToolResult:
    top_n = positive_count(call.args[0], spec.params[0])
    state = run.state
    if not state.ranked:
        raise Refusal("nothing is ranked: rank candidates first with rankCandidates")
    picks = state.ranked[:top_n]
    for cid in picks:
        _propose(state, cid, run.actor_id)
    short = f" (only {len(picks)} ranked)" if top_n > len(picks) else ""
    return _ok(call, f"committed {len(picks)} suggestions{short}", "suggestions")


def _propose(state: MeetingState, cid: str, actor_id: str) -> None:
    existing = next((s for s in state.suggestions if s.candidate.id == cid), None)
    if existing is not None:
        if actor_id not in existing.proposed_by:
            existing.proposed_by.append(actor_id)
        return
    candidate = state.candidate(cid)
    if candidate is not None:
        state.suggestions.append(Suggestion(candidate=candidate, proposed_by=[actor_id]))


async def _mark_seen(run: _Run, spec: ToolSpec, call: ToolCall) -> ToolResult:
    state = run.state
    cid = candidate_id(call.args[0], spec.params[0], state)
    candidate = state.candidate(cid)
    assert candidate is not None  # candidate_id() refuses unknown ids
    state.candidates = [c for c in state.candidates if c.id != cid]
    state.ranked = [i for i in state.ranked if i != cid]
    state.watch_history.append(WatchItem(title=candidate.title, video_id=cid))
    return _ok(call, f"marked {cid} as seen", "candidates", "ranked", "watch_history")


# --- facts ----------------------------------------------------------------------------


async def _set_fact(run: _Run, spec: ToolSpec, call: ToolCall) -> ToolResult:
    fact = run.state.fact(fact_id(call.args[0], spec.params[0], run.state))
    assert fact is not None  # fact_id() refuses unknown ids
    expanded = spec.name == "expandFact"
    if fact.expanded == expanded:
        return _ok(call, f"fact {fact.id} was already {'expanded' if expanded else 'collapsed'}")
    fact.expanded = expanded
    return _ok(call, f"fact {fact.id} {'expanded' if expanded else 'collapsed'}", "facts")


# --- notes and transcript -------------------------------------------------------------


def _note_text(spec: ToolSpec, call: ToolCall) -> tuple[str, str]:
    """The text to store and a remark when it was truncated."""
    value = text(call.args[0], spec.params[0])
    if not value:
        raise Refusal(f"empty {spec.params[0].name}: write the text in double quotes")
    if len(value) > MAX_TEXT:
        return value[:MAX_TEXT], f" (truncated to {MAX_TEXT} characters)"
    return value, ""


async def _actor_note(run: _Run, spec: ToolSpec, call: ToolCall) -> ToolResult:
    value, remark = _note_text(spec, call)
    note = Note(author=run.actor_id, text=value, turn=run.state.turn)
    run.state.notes.setdefault(run.actor_id, []).append(note)
    return _ok(call, "note added" + remark, "notes")


async def _whiteboard(run: _Run, spec: ToolSpec, call: ToolCall) -> ToolResult:
    value, remark = _note_text(spec, call)
    run.state.whiteboard.append(Note(author=run.actor_id, text=value, turn=run.state.turn))
    return _ok(call, "whiteboard note added" + remark, "whiteboard")


async def _transcript(run: _Run, spec: ToolSpec, call: ToolCall) -> ToolResult:
    value, remark = _note_text(spec, call)
    run.state.transcript.append(_line(run, value, TranscriptKind.SPOKEN))
    return _ok(call, "line added to the transcript" + remark, "transcript")


# --- turn and meeting -----------------------------------------------------------------


async def _pass_turn(run: _Run, spec: ToolSpec, call: ToolCall) -> ToolResult:
    run.report.passed = True
    return _ok(call, "turn passed")


async def _await_results(run: _Run, spec: ToolSpec, call: ToolCall) -> ToolResult:
    run.report.await_results = True
    return _ok(call, "you will see the results in another inference this turn")


async def _end_meeting(run: _Run, spec: ToolSpec, call: ToolCall) -> ToolResult:
    run.state.ended = True
    run.report.ended = True
    return _ok(call, "meeting ended", "ended")


async def _finalize(run: _Run, spec: ToolSpec, call: ToolCall) -> ToolResult:
    state = run.state
    ids = _known_ids(run, spec, call)
    previous = {s.candidate.id: s for s in state.suggestions}
    final: list[Suggestion] = []
    for cid in ids:
        old = previous.get(cid)
        proposers = list(old.proposed_by) if old else []
        if run.actor_id not in proposers:
            proposers.append(run.actor_id)
        candidate = old.candidate if old else state.candidate(cid)
        assert candidate is not None  # _known_ids() refuses unknown ids
        final.append(Suggestion(candidate=candidate, proposed_by=proposers))
    state.ranked = ids
    state.suggestions = final
    state.final_ids = ids
    state.ended = True
    run.report.ended = True
    message = f"meeting finalized with {len(ids)} suggestions"
    return _ok(call, message, "ranked", "suggestions", "ended")


Handler = Callable[[_Run, ToolSpec, ToolCall], Awaitable[ToolResult]]

_HANDLERS: dict[str, Handler] = {
    "fetchCandidates": _fetch,
    "fetchCandidatesMCP": _fetch,
    "expandFact": _set_fact,
    "collapseFact": _set_fact,
    "filterCandidates": _filter,
    "rankCandidates": _rank,
    "updateSuggestions": _update_suggestions,
    "markSeen": _mark_seen,
    "addActorNote": _actor_note,
    "addWhiteboard": _whiteboard,
    "addTranscript": _transcript,
    "passTurn": _pass_turn,
    "awaitResults": _await_results,
    "endMeeting": _end_meeting,
    "finalizeMeeting": _finalize,
}
