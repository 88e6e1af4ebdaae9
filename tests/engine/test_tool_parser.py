"""Specification of the tool-call parser: canonical lines, every tolerated drift, every
kind of issue, and that no input whatsoever makes it raise."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from roundtable_desktop.domain.text import storable_text
from roundtable_desktop.domain.tools import ToolCall
from roundtable_desktop.kinds.roundtable.tools import ROUNDTABLE_TOOLS
from roundtable_desktop.tools.parser import ParsedReply, parse_reply

KNOWN = tuple(ROUNDTABLE_TOOLS)


def parse(text: str) -> ParsedReply:
    return parse_reply(text, KNOWN)


def summary(call: ToolCall) -> tuple[str, list, str]:
    return (call.name, call.values(), call.form)


# (reply text, expected (name, values, form) per call, expected substrings of issue reasons)
CASES = [
    # --- canonical ---------------------------------------------------------------------
    pytest.param("CALL: passTurn()", [("passTurn", [], "canonical")], [], id="no-args"),
    pytest.param("CALL: expandFact(f3)", [("expandFact", ["f3"], "canonical")], [], id="fact-id"),
    pytest.param(
        "CALL: markSeen(dQw4w9WgXcQ)",
        [("markSeen", ["dQw4w9WgXcQ"], "canonical")],
        [],
        id="youtube-id",
    ),
    pytest.param(
        "CALL: markSeen(v-12_x)", [("markSeen", ["v-12_x"], "canonical")], [], id="dash-id"
    ),
    pytest.param(
        'CALL: fetchCandidates("space opera audiobooks")',
        [("fetchCandidates", ["space opera audiobooks"], "canonical")],
        [],
        id="json-string",
    ),
    pytest.param(
        "CALL: updateSuggestions(3)",
        [("updateSuggestions", [3], "canonical")],
        [],
        id="integer",
    ),
    pytest.param(
        "CALL: rankCandidates(a1, b2, c3)",
        [("rankCandidates", ["a1", "b2", "c3"], "canonical")],
        [],
        id="several-ids",
    ),
    pytest.param(
        "CALL: rankCandidates(true, false, null, 2.5, -1)",
        [("rankCandidates", [True, False, None, 2.5, -1], "canonical")],
        [],
        id="json-literals",
    ),
    pytest.param(
        'CALL: addWhiteboard("RAG, agents (and evals); later")',
        [("addWhiteboard", ["RAG, agents (and evals); later"], "canonical")],
        [],
        id="string-with-commas-parens-semicolon",
    ),
    pytest.param(
        r'CALL: addWhiteboard("she said \"hi\" \\ ok")',
        [("addWhiteboard", ['she said "hi" \\ ok'], "canonical")],
        [],
        id="escaped-quotes",
    ),
    pytest.param(
        'CALL: addWhiteboard("caf\\u00e9 ☕ 日本")',
        [("addWhiteboard", ["café ☕ 日本"], "canonical")],
        [],
        id="unicode",
    ),
    pytest.param("   CALL: passTurn()", [("passTurn", [], "canonical")], [], id="indented"),
    pytest.param("CALL:passTurn()", [("passTurn", [], "canonical")], [], id="no-space-after-colon"),
    pytest.param(
        "CALL: rankCandidates(a1, b2,)",
        [("rankCandidates", ["a1", "b2"], "canonical")],
        [],
        id="trailing-comma",
    ),
    # --- drifted forms -----------------------------------------------------------------
    pytest.param(
        "CALL: fetchCandidates('space opera')",
        [("fetchCandidates", ["space opera"], "single_quotes")],
        [],
        id="single-quotes",
    ),
    pytest.param(
        "CALL: addActorNote('it\\'s \"fine\", really')",
        [("addActorNote", ['it\'s "fine", really'], "single_quotes")],
        [],
        id="single-quotes-escaped",
    ),
    pytest.param("CALL: passTurn();", [("passTurn", [], "trailing_semicolon")], [], id="semicolon"),
    pytest.param("CALL passTurn()", [("passTurn", [], "no_colon")], [], id="no-colon"),
    pytest.param("call: passTurn()", [("passTurn", [], "lowercase")], [], id="lowercase"),
    pytest.param(
        "Call updateSuggestions(2)",
        [("updateSuggestions", [2], "lowercase+no_colon")],
        [],
        id="lowercase-no-colon",
    ),
    pytest.param("- CALL: passTurn()", [("passTurn", [], "list_marker")], [], id="dash-item"),
    pytest.param("1. CALL: passTurn()", [("passTurn", [], "list_marker")], [], id="numbered"),
    pytest.param("* CALL: passTurn()", [("passTurn", [], "list_marker")], [], id="star-item"),
    pytest.param("`CALL: passTurn()`", [("passTurn", [], "backticks")], [], id="backticks"),
    pytest.param(
        "- `CALL: expandFact(f1)`;",
        [("expandFact", ["f1"], "list_marker+backticks+trailing_semicolon")],
        [],
        id="marker-backticks-semicolon",
    ),
    pytest.param("**CALL:** passTurn()", [("passTurn", [], "emphasis")], [], id="bold"),
    pytest.param("```\nCALL: passTurn()\n```", [("passTurn", [], "fenced")], [], id="code-fence"),
    pytest.param(
        "Plan:\n```text\nCALL: expandFact(f1)\nCALL: updateSuggestions(2)\n```\nDone.",
        [("expandFact", ["f1"], "fenced"), ("updateSuggestions", [2], "fenced")],
        [],
        id="code-fence-with-language",
    ),
    pytest.param(
        "CALL: passTurn(); CALL: awaitResults()",
        [("passTurn", [], "same_line"), ("awaitResults", [], "same_line")],
        [],
        id="two-calls-one-line",
    ),
    pytest.param(
        "CALL: expandFact(f1); collapseFact(f2);",
        [
            ("expandFact", ["f1"], "same_line"),
            ("collapseFact", ["f2"], "trailing_semicolon+same_line"),
        ],
        [],
        id="two-calls-one-prefix",
    ),
    pytest.param(
        'addActorNote: "check sci-fi coverage next turn"',
        [("addActorNote", ["check sci-fi coverage next turn"], "label")],
        [],
        id="label-actor-note",
    ),
    pytest.param(
        'addWhiteboard: "Shortlist: a1, b2 (both LLM)"',
        [("addWhiteboard", ["Shortlist: a1, b2 (both LLM)"], "label")],
        [],
        id="label-whiteboard",
    ),
    pytest.param(
        "addWhiteboard: shortlist is a1, b2",
        [("addWhiteboard", ["shortlist is a1, b2"], "label+unquoted")],
        [],
        id="label-unquoted",
    ),
    pytest.param(
        'addTranscript: "I back a1 for the LLM interest."',
        [("addTranscript", ["I back a1 for the LLM interest."], "label")],
        [],
        id="label-transcript",
    ),
    pytest.param(
        '- CALL: addWhiteboard: "x wins"',
        [("addWhiteboard", ["x wins"], "list_marker+label")],
        [],
        id="label-after-call",
    ),
    pytest.param("CALL: passturn()", [("passTurn", [], "name_case")], [], id="name-case"),
    pytest.param(
        "CALL: updateSuggestions(topN=3)",
        [("updateSuggestions", [3], "keyword_args")],
        [],
        id="keyword-argument",
    ),
    pytest.param(
        'CALL: rankCandidates(["a1", "b2"])',
        [("rankCandidates", ["a1", "b2"], "array_args")],
        [],
        id="array-argument",
    ),
    pytest.param(
        "CALL: addWhiteboard(Focus on RAG (not agents))",
        [("addWhiteboard", ["Focus on RAG (not agents)"], "unquoted")],
        [],
        id="unquoted-text-in-parens",
    ),
    pytest.param("passTurn()", [("passTurn", [], "no_prefix")], [], id="no-prefix"),
    pytest.param("CALL: passTurn", [("passTurn", [], "no_parens")], [], id="no-parens"),
    # --- placeholders are passed through (the executor refuses them) ------------------
    pytest.param(
        "CALL: updateSuggestions(N)",
        [("updateSuggestions", ["N"], "canonical")],
        [],
        id="placeholder-N",
    ),
    pytest.param(
        "CALL: rankCandidates(<id>, ...)",
        [("rankCandidates", ["<id>", "..."], "canonical")],
        [],
        id="placeholder-angle-and-ellipsis",
    ),
    # --- prose is ignored --------------------------------------------------------------
    pytest.param("I think a1 is best.\nThe list looks fine.", [], [], id="prose"),
    pytest.param("updateSuggestions(3) would commit them", [], [], id="prose-naming-tool"),
    pytest.param("Call me when the list is ready.", [], [], id="prose-starting-with-call"),
    pytest.param(
        "Here is my plan:\nCALL: expandFact(f1)\nThat's all.",
        [("expandFact", ["f1"], "canonical")],
        [],
        id="prose-around-call",
    ),
    pytest.param("", [], [], id="empty-reply"),
    # --- issues ------------------------------------------------------------------------
    pytest.param("CALL: launchRockets()", [], ["unknown tool launchRockets"], id="unknown-tool"),
    pytest.param("CALL: rankCandidates(a1, b2", [], ["unbalanced parentheses"], id="unbalanced"),
    pytest.param(
        'CALL: addWhiteboard("oops)', [], ["unterminated string"], id="unterminated-string"
    ),
    pytest.param(
        "CALL: fetchCandidates('oops)",
        [],
        ["unterminated string"],
        id="unterminated-single-quoted",
    ),
    pytest.param("CALL:", [], ["no tool name after CALL"], id="empty-call"),
    pytest.param("CALL: 42()", [], ["no tool name"], id="numeric-name"),
    pytest.param(
        "CALL: passTurn() because I am done",
        [("passTurn", [], "canonical")],
        ["unexpected text after the call"],
        id="trailing-prose",
    ),
    pytest.param(
        "CALL: fetchCandidates(space opera)",
        [],
        ["expected , or ) after argument 1"],
        id="unquoted-text-for-non-prose-tool",
    ),
    pytest.param(
        'CALL: rankCandidates({"id": "a1"})',
        [],
        ["objects are not supported"],
        id="object-argument",
    ),
    pytest.param('CALL: rankCandidates([["a1"]])', [], ["nested values"], id="nested-array"),
    pytest.param("CALL: rankCandidates(a1,,b2)", [], ["empty argument"], id="empty-argument"),
    pytest.param(r'CALL: addWhiteboard("bad \q escape")', [], ["bad string"], id="bad-escape"),
    pytest.param("CALL: markSeen(a.b)", [], ["cannot read argument 1"], id="unreadable-token"),
    pytest.param("CALL: expandFact(<f1)", [], ["unclosed <"], id="unclosed-angle"),
    pytest.param("CALL: passTurn now", [], ["expected ( after passTurn"], id="no-paren"),
    pytest.param("addWhiteboard:", [], ["no text after addWhiteboard:"], id="empty-label"),
    pytest.param(
        "CALL: foo(); CALL: passTurn()",
        [("passTurn", [], "same_line")],
        ["unknown tool foo"],
        id="unknown-then-known",
    ),
    # --- hostile input -----------------------------------------------------------------
    pytest.param(
        'CALL: addWhiteboard("a\x00b")',
        [("addWhiteboard", ["a\x00b"], "canonical")],
        [],
        id="nul-in-string",
    ),
    pytest.param("CALL: \x00\x00()", [], ["no tool name"], id="nul-as-name"),
    pytest.param("CALL: passTurn(\u202e)", [], ["cannot read argument 1"], id="bidi-control"),
]


@pytest.mark.parametrize(("text", "calls", "issues"), CASES)
def test_parse_reply(text: str, calls: list, issues: list[str]) -> None:
    reply = parse(text)
    assert [summary(c) for c in reply.calls] == calls
    assert len(reply.issues) == len(issues), reply.issues
    for issue, expected in zip(reply.issues, issues, strict=True):
        assert expected in issue.reason


def test_bare_ids_are_marked_bare_and_strings_are_not() -> None:
    (call,) = parse('CALL: rankCandidates(a1, "b2", 3)').calls
    assert [a.bare for a in call.args] == [True, False, False]


def test_raw_keeps_the_original_line() -> None:
    line = "  - `CALL: expandFact(f1)`;"
    (call,) = parse(f"prose\n{line}\nmore prose").calls
    assert call.raw == line


def test_every_call_on_a_line_keeps_that_line_as_raw() -> None:
    line = "CALL: passTurn(); CALL: awaitResults()"
    assert [c.raw for c in parse(line).calls] == [line, line]


def test_calls_keep_the_order_of_the_reply() -> None:
    reply = parse("CALL: expandFact(f1)\naddWhiteboard: note\nCALL: passTurn()")
    assert [c.name for c in reply.calls] == ["expandFact", "addWhiteboard", "passTurn"]


def test_only_known_tools_become_calls() -> None:
    reply = parse_reply("CALL: passTurn()\nCALL: endMeeting()", ["passTurn"])
    assert [c.name for c in reply.calls] == ["passTurn"]
    assert reply.issues[0].reason == "unknown tool endMeeting"


def test_a_100_kb_string_argument_is_read_whole() -> None:
    note = "x" * 100_000
    (call,) = parse(f'CALL: addWhiteboard("{note}")').calls
    assert call.values() == [note]


def test_an_issue_quotes_at_most_500_characters_of_its_line() -> None:
    reply = parse("CALL: rankCandidates(" + "a, " * 40_000)
    assert len(reply.issues) == 1
    assert len(reply.issues[0].line) <= 500


# --- properties that hold for any input ----------------------------------------------
_MAX_ISSUE_LINE = 500
_KNOWN_LOWER = tuple(name.lower() for name in KNOWN)


def assert_holds_for_any_reply(text: str, reply: ParsedReply) -> None:
    """What parse_reply promises whatever the text: only known tools, each call and issue
    tied to a line of the text, a `CALL:` line never silently dropped, and a line with
    neither "call" nor a tool name in it ignored."""
    lines = text.splitlines()
    answered: set[str] = set()
    for call in reply.calls:
        assert call.name in KNOWN
        assert call.raw in lines
        assert call.name.lower() in call.raw.lower()
        answered.add(call.raw)
    for issue in reply.issues:
        assert issue.reason
        assert len(issue.line) <= _MAX_ISSUE_LINE
        quoted = [line for line in lines if issue.line in (line, line[: _MAX_ISSUE_LINE - 1] + "…")]
        assert quoted, issue
        answered.update(quoted)
    for line in lines:
        lower = line.lower()
        if line.strip().startswith("CALL:"):
            assert line in answered, f"a CALL: line was dropped: {line!r}"
        if "call" not in lower and not any(name in lower for name in _KNOWN_LOWER):
            assert line not in answered, f"prose became a call or an issue: {line!r}"


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("CALL: " + "(" * 100_000, id="100k-open-parens"),
        pytest.param("CALL: rankCandidates(" + "[" * 100_000, id="100k-deep-array"),
        pytest.param("CALL: addWhiteboard(" + '"\\' * 50_000, id="100k-escapes"),
        pytest.param("CALL: " + "a(" * 50_000, id="100k-nested-calls"),
        pytest.param("call " * 20_000, id="100k-call-words"),
        pytest.param("\x00" * 100_000, id="100k-nul"),
        pytest.param("CALL: passTurn();" * 6_000, id="6000-calls-one-line"),
        pytest.param("addWhiteboard: " + "\ud800" * 1000, id="lone-surrogates"),
        pytest.param("```\n" * 1000, id="many-fences"),
    ],
)
def test_hostile_input_never_raises(text: str) -> None:
    assert_holds_for_any_reply(text, parse(text))


# Call-shaped fragments glued to arbitrary code points (lone surrogates included), so the
# generated text often gets deep into the parser rather than being plain prose.
_PIECES = (
    "CALL:", "CALL ", "call:", "Call:", *KNOWN, "passturn", "endMeeting", "addWhiteboard:",
    "(", ")", '"', "'", "\\", ",", ";", "`", "```", "\n", "\r\n", " ", "a1", "f3", "3", "-1",
    "2.5", "[", "]", "{", "}", "<", ">", "...", "=", "x=", "\x00", "é", "日本", "\u2028",
    "\u202e", "🙂", "\ud800", "1.", "- ", "**", "true", "null",
)  # fmt: skip
_ANY_CHAR = st.characters(codec=None, categories=None, exclude_categories=())
REPLY_TEXT = st.lists(
    st.one_of(st.sampled_from(_PIECES), st.text(_ANY_CHAR, max_size=4)), max_size=40
).map("".join)

# Canonical lines and the (name, values) each must come out as, wherever it sits.
CANONICAL = [
    ("CALL: passTurn()", ("passTurn", [])),
    ("CALL: expandFact(f3)", ("expandFact", ["f3"])),
    ("CALL: rankCandidates(a1, b2, c3)", ("rankCandidates", ["a1", "b2", "c3"])),
    ('CALL: fetchCandidates("space opera")', ("fetchCandidates", ["space opera"])),
]


@settings(max_examples=400, deadline=None)
@given(REPLY_TEXT)
def test_any_text_parses_without_raising_into_known_calls_and_issues(text: str) -> None:
    assert_holds_for_any_reply(text, parse(text))


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=400))
def test_any_bytes_after_call_parse_into_a_call_or_an_issue(blob: bytes) -> None:
    text = "CALL: " + blob.decode("utf-8", errors="surrogateescape")
    reply = parse(text)
    assert_holds_for_any_reply(text, reply)
    assert reply.calls or reply.issues


@settings(max_examples=300, deadline=None)
@given(REPLY_TEXT, REPLY_TEXT, st.sampled_from(CANONICAL))
def test_a_canonical_call_line_is_found_wherever_it_sits(
    before: str, after: str, case: tuple[str, tuple[str, list]]
) -> None:
    line, (name, values) = case
    reply = parse(f"{before}\n{line}\n{after}")
    found = [c for c in reply.calls if c.raw == line]
    assert [(c.name, c.values()) for c in found] == [(name, values)]
    assert found[0].form in ("canonical", "fenced")  # inside a ``` block it says so


@settings(max_examples=300, deadline=None)
@given(REPLY_TEXT, REPLY_TEXT, st.text(_ANY_CHAR, max_size=200))
def test_any_note_in_a_canonical_string_argument_comes_back_exactly(
    before: str, after: str, note: str
) -> None:
    # Exactly, but storable: a lone surrogate (escaped in the JSON) comes back as U+FFFD.
    line = f"CALL: addWhiteboard({json.dumps(note)})"
    reply = parse(f"{before}\n{line}\n{after}")
    assert [c.values() for c in reply.calls if c.raw == line] == [[storable_text(note)]]


def test_a_lone_surrogate_escaped_in_an_argument_comes_back_as_the_replacement_character():
    reply = parse('CALL: addWhiteboard("a\\ud800b")')
    assert [c.values() for c in reply.calls] == [["a\ufffdb"]]
