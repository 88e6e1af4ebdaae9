"""Specification of the roundtable tool registry and executor: each tool's effect on the
meeting state, each refusal, and what is recorded in the transcript and feedback."""

from __future__ import annotations

import ast
import asyncio
import inspect
from pathlib import Path

import pytest

from roundtable_desktop.domain.tools import ToolCall, ToolResult, ToolStatus
from roundtable_desktop.kinds.roundtable import tool_executor as executor
from roundtable_desktop.kinds.roundtable.actors import Actor, Role, UserProfile
from roundtable_desktop.kinds.roundtable.catalog import Candidate, Fact, Suggestion
from roundtable_desktop.kinds.roundtable.meeting import MeetingState, TranscriptKind
from roundtable_desktop.kinds.roundtable.sources.base import SourceResult
from roundtable_desktop.kinds.roundtable.tool_arguments import is_placeholder
from roundtable_desktop.kinds.roundtable.tool_executor import ExecutionReport, execute_calls
from roundtable_desktop.kinds.roundtable.tools import ROUNDTABLE_TOOLS, tools_for_role
from roundtable_desktop.sources.errors import SourceError
from roundtable_desktop.tools.parser import parse_reply


def candidate(cid: str, title: str, **fields: object) -> Candidate:
    return Candidate(id=cid, title=title, **fields)


LIBRARY = [
    candidate("llm01", "Building LLM agents", channel="AI Talks", tags=["llm", "agents"]),
    candidate("scifi2", "Dune: a review", channel="SciFi Weekly", description="Arrakis"),
    candidate("web003", "CSS grid in ten minutes", description="for the web developer"),
    candidate("cook04", "Pasta at home", channel="Kitchen"),
]
FETCHED = [
    candidate("new001", "Space opera audiobooks", tags=["science fiction"]),
    candidate("new002", "RAG from scratch", channel="LLM Lab"),
]


class FakeSource:
    """A CandidateSource with fixed answers that remembers the queries it was asked."""

    name = "fake"

    def __init__(
        self,
        found: list[Candidate] | None = None,
        *,
        error: Exception | None = None,
        notice: str = "",
    ) -> None:
        self.found = FETCHED if found is None else found
        self.error = error
        self.notice = notice
        self.queries: list[str | None] = []

    async def search(self, query: str | None, limit: int = 12) -> SourceResult:
        self.queries.append(query)
        if self.error is not None:
            raise self.error
        return SourceResult(candidates=self.found, source="fake", notice=self.notice)

    def lookup(self, video_id: str) -> Candidate | None:
        return next((c for c in self.found if c.id == video_id), None)


@pytest.fixture
def state() -> MeetingState:
    return MeetingState(
        user=UserProfile(name="Sam", summary="web developer", interests=["LLM", "sci-fi"]),
        actors=[
            Actor(id="admin", name="Administrator", role=Role.ADMINISTRATOR),
            Actor(id="ada", name="Ada", interests=["LLM agents"]),
            Actor(id="bob", name="Bob"),
        ],
        candidates=list(LIBRARY),
        facts=[
            Fact(id="f1", title="Interests", detail="LLM, sci-fi"),
            Fact(id="f2", title="History", detail="watched Dune", expanded=True),
        ],
        turn=4,
    )


def run(
    state: MeetingState,
    actor_id: str,
    reply: str,
    *,
    source: FakeSource | None = None,
    mcp_search=None,
) -> ExecutionReport:
    parsed = parse_reply(reply, ROUNDTABLE_TOOLS)
    assert parsed.issues == []
    return asyncio.run(
        execute_calls(
            state, actor_id, parsed.calls, source=source or FakeSource(), mcp_search=mcp_search
        )
    )


def only(report: ExecutionReport) -> ToolResult:
    (result,) = report.results
    return result


# --- registry -------------------------------------------------------------------------

SEED_TOOLS = {
    "fetchCandidates", "fetchCandidatesMCP", "expandFact", "collapseFact", "filterCandidates",
    "rankCandidates", "updateSuggestions", "markSeen", "addActorNote", "addWhiteboard",
    "addTranscript", "passTurn", "awaitResults", "endMeeting", "finalizeMeeting",
}  # fmt: skip


def test_registry_holds_every_tool_of_the_meeting_demo() -> None:
    assert set(ROUNDTABLE_TOOLS) == SEED_TOOLS


def test_participants_do_not_see_the_administrator_tools() -> None:
    names = {spec.name for spec in tools_for_role(Role.PARTICIPANT)}
    assert names == SEED_TOOLS - {"endMeeting", "finalizeMeeting"}


def test_the_administrator_sees_every_tool() -> None:
    assert {spec.name for spec in tools_for_role(Role.ADMINISTRATOR)} == SEED_TOOLS


def test_only_fetch_and_expand_bring_data() -> None:
    bringing = {name for name, spec in ROUNDTABLE_TOOLS.items() if spec.data_bringing}
    assert bringing == {"fetchCandidates", "fetchCandidatesMCP", "expandFact"}


def test_every_doc_line_is_one_sentence() -> None:
    for spec in ROUNDTABLE_TOOLS.values():
        assert spec.doc.endswith(".") and spec.doc.count(". ") == 0, spec.name


def test_examples_use_the_meetings_real_ids(state: MeetingState) -> None:
    assert ROUNDTABLE_TOOLS["rankCandidates"].example(state) == (
        "CALL: rankCandidates(llm01, scifi2, web003)"
    )
    assert ROUNDTABLE_TOOLS["expandFact"].example(state) == "CALL: expandFact(f1)"
    assert ROUNDTABLE_TOOLS["collapseFact"].example(state) == "CALL: collapseFact(f2)"


@pytest.mark.parametrize("name", sorted(SEED_TOOLS))
def test_every_example_parses_back_and_is_not_refused_as_a_placeholder(
    state: MeetingState, name: str
) -> None:
    example = ROUNDTABLE_TOOLS[name].example(state)
    (call,) = parse_reply(example, ROUNDTABLE_TOOLS).calls
    assert call.name == name and call.form == "canonical"
    result = only(run(state, "admin", example))
    assert "placeholder" not in result.message and "unknown" not in result.message


@pytest.mark.parametrize("name", sorted(SEED_TOOLS))
def test_examples_on_an_empty_meeting_use_plausible_literals(name: str) -> None:
    empty = MeetingState(user=UserProfile(name="Sam", summary="x"), actors=[])
    (call,) = parse_reply(ROUNDTABLE_TOOLS[name].example(empty), ROUNDTABLE_TOOLS).calls
    assert not any(is_placeholder(str(v)) for v in call.values())


# --- candidates -----------------------------------------------------------------------


def test_fetch_replaces_the_candidate_list_and_records_the_query(state: MeetingState) -> None:
    source = FakeSource()
    result = only(run(state, "ada", 'CALL: fetchCandidates("space opera")', source=source))
    assert result.status == ToolStatus.OK
    assert source.queries == ["space opera"]
    assert [c.id for c in state.candidates] == ["new001", "new002"]
    assert (state.candidate_source, state.candidate_query) == ("fake", "space opera")
    assert "candidates" in result.changed


def test_fetch_without_a_query_searches_with_none(state: MeetingState) -> None:
    source = FakeSource()
    run(state, "ada", "CALL: fetchCandidates()", source=source)
    assert source.queries == [None]


def test_fetch_failure_keeps_the_list_and_reports_the_message(state: MeetingState) -> None:
    source = FakeSource(error=SourceError("YouTube quota exceeded."))
    result = only(run(state, "ada", 'CALL: fetchCandidates("dune")', source=source))
    assert result.status == ToolStatus.ERROR
    assert "YouTube quota exceeded" in result.message
    assert state.candidates == LIBRARY


def test_an_unexpected_source_exception_keeps_the_list_and_hides_its_text(
    state: MeetingState,
) -> None:
    source = FakeSource(error=RuntimeError("GET https://x?key=SECRET failed"))
    result = only(run(state, "ada", 'CALL: fetchCandidates("dune")', source=source))
    assert result.status == ToolStatus.ERROR
    assert "SECRET" not in result.message and "RuntimeError" in result.message
    assert state.candidates == LIBRARY


def test_fetch_records_the_source_notice(state: MeetingState) -> None:
    source = FakeSource(notice="no YouTube key: showing mock data")
    result = only(run(state, "ada", 'CALL: fetchCandidates("dune")', source=source))
    assert "no YouTube key: showing mock data" in result.message


def test_fetch_with_no_results_keeps_the_list(state: MeetingState) -> None:
    result = only(run(state, "ada", 'CALL: fetchCandidates("x")', source=FakeSource([])))
    assert result.status == ToolStatus.ERROR
    assert state.candidates == LIBRARY


def test_fetch_drops_ranked_ids_that_are_gone(state: MeetingState) -> None:
    state.ranked = ["llm01", "scifi2"]
    result = only(run(state, "ada", 'CALL: fetchCandidates("rag")'))
    assert state.ranked == []
    assert "ranked" in result.changed


def test_fetch_mcp_without_a_connection_says_how_to_connect(state: MeetingState) -> None:
    result = only(run(state, "ada", 'CALL: fetchCandidatesMCP("dune")'))
    assert result.status == ToolStatus.ERROR
    assert result.message == "MCP not connected: connect in the MCP panel or use fetchCandidates"
    assert state.candidates == LIBRARY


def test_fetch_mcp_uses_the_mcp_search(state: MeetingState) -> None:
    asked: list[str] = []

    async def mcp_search(query: str) -> SourceResult:
        asked.append(query)
        return SourceResult(candidates=FETCHED[:1], source="mcp")

    result = only(run(state, "ada", 'CALL: fetchCandidatesMCP("dune")', mcp_search=mcp_search))
    assert result.status == ToolStatus.OK and asked == ["dune"]
    assert [c.id for c in state.candidates] == ["new001"]
    assert state.candidate_source == "mcp"


def test_filter_keeps_candidates_matching_any_keyword_in_any_field(state: MeetingState) -> None:
    # "agents" is a tag, "scifi weekly" a channel, "WEB DEVELOPER" a description
    run(state, "ada", 'CALL: filterCandidates("agents", "scifi weekly", "WEB DEVELOPER")')
    assert [c.id for c in state.candidates] == ["llm01", "scifi2", "web003"]


def test_filter_with_no_match_keeps_the_list(state: MeetingState) -> None:
    result = only(run(state, "ada", 'CALL: filterCandidates("opera")'))
    assert result.status == ToolStatus.ERROR
    assert result.message == "no candidate matched; list unchanged"
    assert state.candidates == LIBRARY


def test_rank_sets_the_ranking_in_order(state: MeetingState) -> None:
    result = only(run(state, "ada", "CALL: rankCandidates(web003, llm01)"))
    assert state.ranked == ["web003", "llm01"]
    assert result.changed == ["ranked"]


def test_rank_refuses_the_whole_call_when_one_id_is_unknown(state: MeetingState) -> None:
    state.ranked = ["cook04"]
    result = only(run(state, "ada", "CALL: rankCandidates(llm01, nosuch9)"))
    assert result.status == ToolStatus.REFUSED
    assert "unknown candidate id nosuch9" in result.message
    assert state.ranked == ["cook04"]


def test_update_suggestions_commits_the_top_n_ranked(state: MeetingState) -> None:
    state.ranked = ["scifi2", "llm01", "web003"]
    run(state, "ada", "CALL: updateSuggestions(2)")
    assert [(s.candidate.id, s.proposed_by) for s in state.suggestions] == [
        ("scifi2", ["ada"]),
        ("llm01", ["ada"]),
    ]


def test_update_suggestions_merges_proposers(state: MeetingState) -> None:
    state.suggestions = [Suggestion(candidate=LIBRARY[1], proposed_by=["bob"])]
    state.ranked = ["scifi2", "web003"]
    run(state, "ada", "CALL: updateSuggestions(2)")
    assert [(s.candidate.id, s.proposed_by) for s in state.suggestions] == [
        ("scifi2", ["bob", "ada"]),
        ("web003", ["ada"]),
    ]


def test_update_suggestions_accepts_a_number_in_a_string(state: MeetingState) -> None:
    state.ranked = ["scifi2", "llm01"]
    assert only(run(state, "ada", 'CALL: updateSuggestions("1")')).status == ToolStatus.OK
    assert [s.candidate.id for s in state.suggestions] == ["scifi2"]


@pytest.mark.parametrize("bad", ["0", "-1", '"three"', "true", "2.5"])
def test_update_suggestions_needs_a_positive_whole_number(state: MeetingState, bad: str) -> None:
    state.ranked = ["scifi2"]
    result = only(run(state, "ada", f"CALL: updateSuggestions({bad})"))
    assert result.status == ToolStatus.REFUSED
    assert "positive whole number" in result.message
    assert state.suggestions == []


def test_update_suggestions_before_ranking_is_refused(state: MeetingState) -> None:
    result = only(run(state, "ada", "CALL: updateSuggestions(3)"))
    assert "rank candidates first with rankCandidates" in result.message


def test_mark_seen_moves_a_candidate_to_the_watch_history(state: MeetingState) -> None:
    state.ranked = ["scifi2", "llm01"]
    result = only(run(state, "ada", "CALL: markSeen(scifi2)"))
    assert "scifi2" not in [c.id for c in state.candidates]
    assert state.ranked == ["llm01"]
    assert [(w.title, w.video_id) for w in state.watch_history] == [("Dune: a review", "scifi2")]
    assert set(result.changed) == {"candidates", "ranked", "watch_history"}


# --- facts ----------------------------------------------------------------------------


def test_expand_and_collapse_flip_a_fact(state: MeetingState) -> None:
    report = run(state, "ada", "CALL: expandFact(f1)\nCALL: collapseFact(f2)")
    assert [f.expanded for f in state.facts] == [True, False]
    assert report.changed_parts >= {"facts"}


def test_an_unknown_fact_id_is_refused_by_name(state: MeetingState) -> None:
    result = only(run(state, "ada", "CALL: expandFact(f9)"))
    assert result.status == ToolStatus.REFUSED and "unknown fact id f9" in result.message


# --- notes and transcript -------------------------------------------------------------


def test_actor_note_goes_to_the_callers_private_notes(state: MeetingState) -> None:
    run(state, "ada", 'CALL: addActorNote("check sci-fi coverage")')
    (note,) = state.notes["ada"]
    assert (note.author, note.text, note.turn) == ("ada", "check sci-fi coverage", 4)
    assert "bob" not in state.notes


def test_a_private_note_never_reaches_the_shared_transcript(state: MeetingState) -> None:
    run(state, "ada", 'CALL: addActorNote("my secret plan")\nCALL: addActorNote("")')
    assert not any("secret" in line.text for line in state.transcript)


def test_whiteboard_note_is_shared(state: MeetingState) -> None:
    run(state, "bob", 'addWhiteboard: "shortlist: llm01, scifi2"')
    (note,) = state.whiteboard
    assert (note.author, note.text) == ("bob", "shortlist: llm01, scifi2")


def test_transcript_line_is_spoken_by_the_caller(state: MeetingState) -> None:
    run(state, "bob", 'CALL: addTranscript("I back llm01.")')
    assert [(t.actor_id, t.text, t.kind) for t in state.transcript] == [
        ("bob", "I back llm01.", TranscriptKind.SPOKEN)
    ]


@pytest.mark.parametrize("tool", ["addActorNote", "addWhiteboard", "addTranscript"])
def test_empty_text_is_refused(state: MeetingState, tool: str) -> None:
    result = only(run(state, "ada", f'CALL: {tool}("   ")'))
    assert result.status == ToolStatus.REFUSED and "empty" in result.message


def test_very_long_notes_are_truncated_and_the_result_says_so(state: MeetingState) -> None:
    result = only(run(state, "ada", f'CALL: addWhiteboard("{"x" * 5000}")'))
    assert len(state.whiteboard[0].text) == 2000
    assert "truncated to 2000 characters" in result.message


# --- turn and meeting -----------------------------------------------------------------


def test_pass_turn_reports_a_pass_without_advancing_the_turn(state: MeetingState) -> None:
    report = run(state, "ada", "CALL: passTurn()")
    assert report.passed and (state.current, state.turn) == (0, 4)


def test_await_results_asks_for_another_inference(state: MeetingState) -> None:
    assert run(state, "ada", "CALL: awaitResults()").await_results


def test_the_administrator_ends_the_meeting(state: MeetingState) -> None:
    report = run(state, "admin", "CALL: endMeeting()")
    assert report.ended and state.ended
    assert "ended" in report.changed_parts


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        ("CALL: endMeeting()", "endMeeting is for the Administrator only"),
        ("CALL: finalizeMeeting(llm01)", "finalizeMeeting is for the Administrator only"),
    ],
)
def test_participants_may_not_end_the_meeting(
    state: MeetingState, reply: str, message: str
) -> None:
    result = only(run(state, "ada", reply))
    assert (result.status, result.message) == (ToolStatus.REFUSED, message)
    assert not state.ended and state.final_ids == []


def test_finalize_ranks_commits_exactly_those_ids_and_ends(state: MeetingState) -> None:
    state.suggestions = [
        Suggestion(candidate=LIBRARY[3], proposed_by=["bob"]),
        Suggestion(candidate=LIBRARY[1], proposed_by=["ada"]),
    ]
    report = run(state, "admin", "CALL: finalizeMeeting(scifi2, llm01)")
    assert [(s.candidate.id, s.proposed_by) for s in state.suggestions] == [
        ("scifi2", ["ada", "admin"]),
        ("llm01", ["admin"]),
    ]
    assert state.ranked == state.final_ids == ["scifi2", "llm01"]
    assert state.ended and report.ended


def test_after_the_meeting_ends_every_call_is_refused(state: MeetingState) -> None:
    report = run(state, "admin", 'CALL: endMeeting()\nCALL: addWhiteboard("late")')
    assert report.results[1].message == "the meeting has ended"
    assert state.whiteboard == []
    later = only(run(state, "ada", "CALL: passTurn()"))
    assert later.status == ToolStatus.REFUSED and later.message == "the meeting has ended"


# --- refusals -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "shown"),
    [
        ("CALL: markSeen(videoId)", "(videoId): use a real candidate id from the list"),
        ('CALL: markSeen("videoId")', "(videoId): use a real candidate id from the list"),
        ("CALL: markSeen(<video id>)", "(<video id>): use a real candidate id"),
        ("CALL: rankCandidates(id1, id2)", "(id1)"),
        ("CALL: rankCandidates(llm01, ...)", "(...)"),
        ("CALL: finalizeMeeting(id)", "(id)"),
        ("CALL: expandFact(<id>)", "(<id>): use a real fact id"),
        ("CALL: updateSuggestions(N)", "(N): give a number such as 3"),
        ("CALL: updateSuggestions(topN)", "(topN)"),
        ('CALL: updateSuggestions("N")', "(N)"),
        ("CALL: addActorNote(note)", "(note)"),
        ('CALL: addTranscript("line")', "(line)"),
        ("CALL: fetchCandidates(query)", "(query)"),
        ('CALL: filterCandidates("<keyword>")', "(<keyword>)"),
    ],
)
def test_placeholder_arguments_are_refused(state: MeetingState, reply: str, shown: str) -> None:
    result = only(run(state, "admin", reply))
    assert result.status == ToolStatus.REFUSED
    assert result.message.startswith("placeholder argument (")
    assert shown in result.message
    assert not state.ended and state.ranked == [] and state.whiteboard == []


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("CALL: updateSuggestions()", "updateSuggestions takes 1 argument (topN), got 0"),
        ("CALL: passTurn(1)", "passTurn takes no arguments, got 1"),
        ("CALL: rankCandidates()", "rankCandidates takes one or more arguments"),
        ('CALL: fetchCandidates("a", "b")', "fetchCandidates takes at most 1 argument"),
        ("CALL: markSeen(2.5)", "videoId must be a candidate id"),
        ("CALL: addWhiteboard(null)", "note must be text in double quotes"),
    ],
)
def test_wrong_arity_or_type_is_refused(state: MeetingState, reply: str, expected: str) -> None:
    result = only(run(state, "ada", reply))
    assert result.status == ToolStatus.REFUSED and expected in result.message


def test_an_arity_refusal_shows_a_real_example(state: MeetingState) -> None:
    result = only(run(state, "ada", "CALL: markSeen()"))
    assert result.message.endswith("for example CALL: markSeen(cook04)")


def test_unknown_tools_are_refused(state: MeetingState) -> None:
    call = ToolCall(name="launchRockets")
    report = asyncio.run(execute_calls(state, "ada", [call], source=FakeSource()))
    assert only(report).message == "unknown tool launchRockets"


def test_an_unknown_candidate_id_is_named(state: MeetingState) -> None:
    result = only(run(state, "ada", "CALL: markSeen(zzz999)"))
    assert "unknown candidate id zzz999" in result.message


def test_ids_of_committed_suggestions_are_known(state: MeetingState) -> None:
    state.suggestions = [Suggestion(candidate=FETCHED[0], proposed_by=["bob"])]
    assert only(run(state, "ada", "CALL: rankCandidates(new001)")).status == ToolStatus.OK


# --- recording ------------------------------------------------------------------------


def test_each_executed_call_is_a_tool_line_in_the_transcript(state: MeetingState) -> None:
    run(state, "ada", "CALL: rankCandidates(llm01, scifi2)")
    (line,) = state.transcript
    assert (line.kind, line.text, line.actor_id, line.turn) == (
        TranscriptKind.TOOL,
        "rankCandidates(llm01, scifi2)",
        "ada",
        4,
    )


def test_a_refusal_is_in_the_transcript_and_the_callers_feedback(state: MeetingState) -> None:
    run(state, "ada", "CALL: endMeeting()")
    (line,) = state.transcript
    assert line.kind == TranscriptKind.REFUSAL
    assert line.text == "refused: endMeeting() — endMeeting is for the Administrator only"
    (feedback,) = state.feedback["ada"]
    assert feedback.status == ToolStatus.REFUSED
    assert "bob" not in state.feedback


def test_errors_are_fed_back_too(state: MeetingState) -> None:
    run(state, "bob", 'CALL: fetchCandidatesMCP("dune")')
    assert state.feedback["bob"][0].status == ToolStatus.ERROR


def test_calls_run_in_order_and_a_refusal_does_not_stop_the_rest(state: MeetingState) -> None:
    report = run(
        state,
        "ada",
        "CALL: rankCandidates(nosuch1)\nCALL: rankCandidates(llm01)\nCALL: updateSuggestions(1)",
    )
    assert [r.status for r in report.results] == [
        ToolStatus.REFUSED,
        ToolStatus.OK,
        ToolStatus.OK,
    ]
    assert [s.candidate.id for s in state.suggestions] == ["llm01"]


def test_changed_parts_collects_what_the_calls_touched(state: MeetingState) -> None:
    report = run(state, "ada", 'CALL: expandFact(f1)\naddWhiteboard: "x"')
    assert report.changed_parts == {"facts", "whiteboard", "transcript"}


def test_the_executor_takes_no_model_client() -> None:
    params = set(inspect.signature(execute_calls).parameters)
    assert params == {"state", "actor_id", "calls", "source", "mcp_search"}
    tree = ast.parse(Path(executor.__file__).read_text(encoding="utf-8"))
    imported = [
        node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
    ] + [
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    ]
    assert not any(name.startswith("roundtable_desktop.llm") for name in imported)
