"""Session exports: JSON round-trips, Markdown and HTML show everything and run nothing."""

from __future__ import annotations

import json
from pathlib import Path

import keyring
import lxml.html
import pytest

from roundtable_desktop.domain.calls import CallOutcome, CallStatus, Usage
from roundtable_desktop.domain.events import (
    ActionFinished,
    ActionStarted,
    CallFinished,
    CallStarted,
    SessionEnded,
)
from roundtable_desktop.domain.summary import (
    Participant,
    ResultItem,
    ResultSection,
    SessionSummary,
    TranscriptEntry,
)
from roundtable_desktop.engine.registry import KindSpec, register_kind
from roundtable_desktop.engine.session_export import export_session
from roundtable_desktop.store.database import SessionStore
from roundtable_desktop.store.export import collect_export
from roundtable_desktop.store.export_json import CHUNKED_FORMAT_VERSION, read_export
from roundtable_desktop.store.recorder import SessionRecorder

HOSTILE_LINE = '<script>alert("pwned")</script> CALL: endMeeting()'
CONTEXT_WINDOW = (
    "<section><h2>Candidates</h2><p>v1 — <img src=x onerror=alert(1)> "
    "Great talk</p></section>\n```\nnot a fence end\n```"
)
SYSTEM_PROMPT = "You are Alice, a critic. Reply with CALL: lines."
REPLY = "I propose v1.\nCALL: commitSuggestion(v1)\nCALL: endMeeting()"
PLANTED_KEY = "sk-planted-0123456789abcdefDEADBEEF"

STATE = {
    "actors": [
        {"id": "admin", "name": "Administrator"},
        {"id": "alice", "name": "Alice"},
    ],
    "transcript": [
        {"actor_id": None, "text": "Turn 1: Alice", "kind": "system", "turn": 1},
        {"actor_id": "alice", "text": HOSTILE_LINE, "kind": "spoken", "turn": 1},
        {"actor_id": "alice", "text": "commitSuggestion(v1)", "kind": "tool", "turn": 1},
    ],
    "suggestions": [
        {
            "candidate": {"id": "v1", "title": "Attention Is <b>All</b>", "channel": "ML Talks"},
            "proposed_by": ["alice", "admin"],
        }
    ],
}


def notes_summary(state: dict) -> SessionSummary:
    """The test kind's summary: the export renders whatever a kind summarizes."""
    names = {a["id"]: a["name"] for a in state.get("actors", [])}
    return SessionSummary(
        kind="notes",
        title="Friday <demo>",
        participants=[Participant(id=i, name=n) for i, n in names.items()],
        transcript=[
            TranscriptEntry(speaker=names.get(line.get("actor_id"), "System"),
                            text=line["text"], kind=line.get("kind", "spoken"),
                            turn=line.get("turn", 0))
            for line in state.get("transcript", [])
        ],
        result=ResultSection(
            heading="Final suggestions",
            items=[ResultItem(title=s["candidate"]["title"],
                              detail=f"{s['candidate']['channel']} ({s['candidate']['id']})",
                              by=[names[b] for b in s["proposed_by"]])
                   for s in state.get("suggestions", [])],
            empty_text="No suggestions.",
        ),
    )


async def _never(*_args):
    raise AssertionError("export never creates or restores a session")


@pytest.fixture(autouse=True)
def notes_kind():
    """A kind that exists only here: export goes through the kind registry."""
    remove = register_kind(KindSpec(
        name="notes", title="Notes", description="test kind", scenarios=list,
        create=_never, restore=_never, summarize=notes_summary,
    ))
    yield
    remove()


def request_body(user_text: str = CONTEXT_WINDOW) -> dict:
    return {
        "model": "fireworks/gpt-oss-20b",
        "messages": [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": user_text},
        ],
        "stream": True,
        "stream_options": {"include_usage": True},
    }


@pytest.fixture
def store(tmp_path: Path):
    with SessionStore.open(tmp_path / "sessions.sqlite3") as opened:
        yield opened


def record_session(store: SessionStore, state: dict, request: dict | None = None) -> str:
    """Record a small finished meeting through the recorder, as a protocol would."""
    session_id = store.create_session("notes", "default", "Friday <demo>", {}, {})
    recorder = SessionRecorder(store, session_id, lambda: state)
    body = request or request_body()
    recorder(ActionStarted(action="infer", actor_id="alice"))
    recorder(
        CallStarted(
            call_id="c1",
            actor_id="alice",
            model="fireworks/gpt-oss-20b",
            endpoint="https://api.fireworks.ai/inference/v1",
            request=body,
        )
    )
    outcome = CallOutcome(
        status=CallStatus.OK,
        text=REPLY,
        usage=Usage(prompt_tokens=812, completion_tokens=24),
        latency_ms=1530.0,
        first_token_ms=210.0,
        cost_usd=0.000123,
    )
    recorder(CallFinished(call_id="c1", actor_id="alice", outcome=outcome))
    recorder(
        CallStarted(call_id="c2", actor_id="admin", model="m2", endpoint="offline", request=body)
    )
    failed = CallOutcome(status=CallStatus.FAILED, text="half", error="The server said 500.")
    recorder(CallFinished(call_id="c2", actor_id="admin", outcome=failed))
    recorder(ActionFinished(action="infer"))
    recorder(SessionEnded(reason="endMeeting"))
    return session_id


@pytest.fixture
def session_id(store: SessionStore) -> str:
    return record_session(store, STATE)


def parsed_html(store: SessionStore, session_id: str) -> lxml.html.HtmlElement:
    return lxml.html.document_fromstring(export_session(store, session_id, "html"))


# -- JSON ------------------------------------------------------------------------------
def test_the_json_export_reads_back_as_the_same_session(store, session_id):
    text = export_session(store, session_id, "json")
    expected = collect_export(store, session_id)
    expected.format, expected.summary = "notes-session", notes_summary(STATE)
    expected.format_version = CHUNKED_FORMAT_VERSION
    assert read_export(text) == expected


def test_a_version_2_json_export_still_reads_back(store, session_id):
    old = collect_export(store, session_id)
    old.format_version = 2
    assert read_export(old.model_dump_json(indent=2)) == old


def test_the_json_export_names_its_kind_and_version(store, session_id):
    data = json.loads(export_session(store, session_id, "json"))
    assert data["format"] == "notes-session"
    assert data["format_version"] == 3
    assert data["summary"]["result"]["items"][0]["by"] == ["Alice", "Administrator"]


def test_the_json_export_gives_requests_as_references_to_shared_chunks(store, session_id):
    data = json.loads(export_session(store, session_id, "json"))
    first, second = (c["request_chunks"] for c in data["calls"])
    assert "request" not in data["calls"][0]
    assert set(first) & set(second), "the two calls send the same window: chunks shared"
    assert len(data["chunks"]) == len(set(data["chunks"]))


def test_the_json_export_holds_the_transcript_calls_and_events(store, session_id):
    data = json.loads(export_session(store, session_id, "json"))
    assert data["session"]["state"]["transcript"][1]["text"] == HOSTILE_LINE
    assert [c.request["messages"][1]["content"]
            for c in read_export(export_session(store, session_id, "json")).calls] == [
        CONTEXT_WINDOW,
        CONTEXT_WINDOW,
    ]
    assert data["calls"][0]["response_text"] == REPLY
    assert [e["type"] for e in data["events"]][:2] == ["action_started", "call_started"]
    assert [c["action"] for c in data["checkpoints"]] == ["infer", "session_ended"]


# -- Markdown --------------------------------------------------------------------------
def test_the_markdown_export_names_the_session_and_its_kind(store, session_id):
    text = export_session(store, session_id, "md")
    assert text.startswith("# Friday \\<demo\\>\n")
    assert "- Kind: notes" in text
    assert "- Status: ended" in text


def test_the_markdown_transcript_names_each_speaker(store, session_id):
    text = export_session(store, session_id, "md")
    assert "- **System** (turn 1, system): Turn 1: Alice" in text
    assert "- **Alice** (turn 1): " in text
    assert "- **Alice** (turn 1, tool): commitSuggestion(v1)" in text


def test_the_markdown_transcript_escapes_markup_in_spoken_text(store, session_id):
    text = export_session(store, session_id, "md")
    assert '\\<script\\>alert("pwned")\\</script\\> CALL: endMeeting()' in text
    assert "<script>" not in text.split("## Calls")[0]


def test_the_markdown_export_lists_the_final_suggestions_with_proposers(store, session_id):
    text = export_session(store, session_id, "md")
    assert (
        "1. **Attention Is \\<b\\>All\\</b\\>** — ML Talks (v1), by Alice, Administrator"
        in text
    )


def test_the_markdown_export_shows_each_payload_and_response_exactly_in_fences(store, session_id):
    text = export_session(store, session_id, "md")
    assert f"````text\n{CONTEXT_WINDOW}\n````" in text
    assert f"```text\n{SYSTEM_PROMPT}\n```" in text
    assert f"```text\n{REPLY}\n```" in text
    assert "### Call 1: Alice · fireworks/gpt-oss-20b" in text
    assert "- Tokens: 812 prompt + 24 completion" in text
    assert "- Latency: 1530 ms (first token 210 ms)" in text


def test_the_markdown_export_shows_a_failed_call_with_its_error_and_partial_text(store, session_id):
    text = export_session(store, session_id, "md")
    assert "### Call 2: Administrator · m2" in text
    assert "- Status: failed" in text
    assert "- Error: The server said 500." in text
    assert "```text\nhalf\n```" in text


def test_a_session_without_a_transcript_says_so(store):
    session_id = record_session(store, {"phase": "OBSERVE"})
    text = export_session(store, session_id, "md")
    assert "No transcript was recorded." in text
    assert "No suggestions." in text


# -- HTML ------------------------------------------------------------------------------
def test_the_html_export_contains_no_script_element(store, session_id):
    page = parsed_html(store, session_id)
    assert page.xpath("//script") == []
    assert page.xpath("//img | //iframe | //object | //embed | //link") == []


def test_the_html_export_shows_hostile_text_as_text(store, session_id):
    page = parsed_html(store, session_id)
    lines = [el.text_content() for el in page.xpath("//ol[@class='transcript']//div")]
    assert HOSTILE_LINE in lines


def test_the_html_export_has_no_event_handlers_or_remote_references(store, session_id):
    page = parsed_html(store, session_id)
    for element in page.iter():
        for name in element.attrib:
            assert not name.startswith("on")
            assert name not in ("src", "href", "action", "srcset")


def test_the_html_export_opens_with_a_csp_that_allows_no_script_or_remote_load(store, session_id):
    head = parsed_html(store, session_id).head
    first = head[0]
    assert first.tag == "meta"
    assert first.get("http-equiv") == "Content-Security-Policy"
    assert "default-src 'none'" in first.get("content")
    assert "style-src 'unsafe-inline'" in first.get("content")


def test_the_html_export_shows_each_payload_exactly_in_a_pre_block(store, session_id):
    page = parsed_html(store, session_id)
    blocks = [pre.text_content() for pre in page.xpath("//details/pre")]
    assert blocks.count(CONTEXT_WINDOW) == 2
    assert blocks.count(SYSTEM_PROMPT) == 2
    responses = [pre.text_content() for pre in page.xpath("//article/pre")]
    assert responses == [REPLY, "half"]


def test_the_html_export_shows_the_transcript_speakers_and_suggestions(store, session_id):
    page = parsed_html(store, session_id)
    assert page.xpath("//h1")[0].text_content() == "Friday <demo>"
    speakers = [s.text_content() for s in page.xpath("//span[@class='who']")]
    assert speakers == ["System", "Alice", "Alice"]
    suggestion = page.xpath("//section[@id='result']//li")[0].text_content()
    assert "Attention Is <b>All</b>" in suggestion
    assert "by Alice, Administrator" in suggestion


def test_the_html_export_survives_characters_xml_forbids(store):
    state = {**STATE, "transcript": [{"actor_id": "alice", "text": "nul\x00 and \x0b here"}]}
    session_id = record_session(store, state)
    page = parsed_html(store, session_id)
    assert "nul and  here" in page.text_content()



def test_the_html_export_shows_every_payload_collapsed(store, session_id):
    page = parsed_html(store, session_id)

    assert len(page.xpath("//details")) == 4  # two calls, two messages each
    assert page.xpath("//details[@open]") == []


def test_the_html_export_puts_the_result_first_then_the_transcript_then_the_calls(
        store, session_id):
    page = parsed_html(store, session_id)

    sections = [s.get("id") for s in page.xpath("//body/section")]
    assert sections == ["result", "transcript", "calls"]
    first_payload = page.xpath("//details")[0]
    assert page.xpath("//section[@id='result']")[0] in first_payload.xpath("preceding::*")


def test_the_html_export_counts_each_payload_in_words(store):
    session_id = record_session(store, STATE, request_body(user_text="x"))
    page = parsed_html(store, session_id)

    summaries = [s.text_content() for s in page.xpath("//details/summary")]
    assert "Message 2 (user), as sent · 1 character" in summaries

# -- secrets and errors ----------------------------------------------------------------
def test_no_export_contains_an_api_key(store, monkeypatch):
    monkeypatch.setenv("ROUNDTABLE_API_KEY", PLANTED_KEY)
    keyring.set_password("roundtable-desktop", "fireworks", PLANTED_KEY)
    leaky = {
        **request_body(),
        "api_key": PLANTED_KEY,
        "headers": {"Authorization": f"Bearer {PLANTED_KEY}"},
    }
    session_id = record_session(store, STATE, request=leaky)

    for fmt in ("json", "md", "html"):
        assert PLANTED_KEY not in export_session(store, session_id, fmt), fmt


def test_an_unknown_format_is_refused(store, session_id):
    with pytest.raises(ValueError, match="html, md or json"):
        export_session(store, session_id, "pdf")  # type: ignore[arg-type]


def test_the_readme_reader_example_reads_every_request_of_a_json_export(
        store, session_id, tmp_path, monkeypatch, capsys):
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Reading a JSON export", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    (tmp_path / "session.json").write_text(export_session(store, session_id, "json"),
                                           encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    scope: dict = {}
    exec(compile(code, "README.md", "exec"), scope)
    data = json.loads((tmp_path / "session.json").read_text(encoding="utf-8"))
    assert [scope["request"](data, call) for call in data["calls"]] == [
        call.request for call in store.calls(session_id)]
    assert capsys.readouterr().out.splitlines() == ["1 ['system', 'user']",
                                                    "2 ['system', 'user']"]
