"""The interactive replay page: self-contained, every request byte for byte, and as small as
the store (requests as references into one chunk table)."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import lxml.html
import pytest

from roundtable_desktop.domain.calls import CallOutcome, CallStatus, Usage
from roundtable_desktop.domain.events import (
    ActionFinished,
    ActionStarted,
    CallFinished,
    CallStarted,
)
from roundtable_desktop.domain.prompts import LayerText
from roundtable_desktop.domain.summary import (
    Participant,
    ResultItem,
    ResultSection,
    SessionSummary,
)
from roundtable_desktop.engine.registry import register_kind
from roundtable_desktop.engine.session_export import export_session
from roundtable_desktop.engine.spec import KindSpec, ReplayPanel
from roundtable_desktop.store.database import SessionStore
from roundtable_desktop.store.export_json import read_export
from roundtable_desktop.store.recorder import SessionRecorder

# Text a page must show as text: markup, a script, a lone surrogate's stand-in, a CR.
ODD = '<script>alert("x")</script></script><!-- é 漢字 😀 \r\n\t"quoted" \\ back'
SYSTEM = "You are Ada.\n\nReply with CALL: lines."


def board_summary(state: dict) -> SessionSummary:
    return SessionSummary(
        kind="board", title="Board",
        participants=[Participant(id="ada", name="Ada <the first>")],
        result=ResultSection(heading="Lines written",
                             items=[ResultItem(title=item["line"])
                                    for item in state.get("board", [])],
                             empty_text="No lines."),
    )


async def _never(*_args):
    raise AssertionError("export never creates or restores a session")


@pytest.fixture(autouse=True)
def board_kind():
    remove = register_kind(KindSpec(
        name="board", title="Board", description="test kind", scenarios=list,
        create=_never, restore=_never, summarize=board_summary,
        replay_panels=(ReplayPanel("Whiteboard", ("board",)),),
    ))
    yield
    remove()


@pytest.fixture
def store(tmp_path: Path):
    with SessionStore.open(tmp_path / "sessions.sqlite3") as opened:
        yield opened


# One line longer than the store's longest chunk, of characters of 2 to 4 bytes: the
# store cuts it inside a character, and that chunk is exported as base64.
LONG_LINE = "é漢😀" * 5000


def record_board(store: SessionStore, turns: int, extra: str = "") -> str:
    """A session whose every request carries a whiteboard one line longer than the last."""
    state: dict = {"board": []}
    session_id = store.create_session("board", "default", "Board <meeting>", {}, {})
    recorder = SessionRecorder(store, session_id, lambda: state)
    for n in range(turns):
        board = "\n".join(item["line"] for item in state["board"])
        body = {"model": "m", "stream": True, "messages": [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": f"{ODD}{extra}\nWhiteboard:\n{board}\nTurn {n}."}]}
        recorder(ActionStarted(action="infer", actor_id="ada"))
        recorder(CallStarted(call_id=f"{session_id}-{n}", actor_id="ada", model="m",
                             endpoint="offline",
                             request=body, label=f"Turn {n}",
                             layers=[LayerText(name="role", source="board/role.md",
                                               text="You are Ada.")]))
        state["board"] = [*state["board"], {"line": f"Line {n}: one more line for the board."}]
        recorder(CallFinished(call_id=f"{session_id}-{n}", actor_id="ada", outcome=CallOutcome(
            status=CallStatus.OK, text=f"CALL: add({n})", usage=Usage(prompt_tokens=10,
                                                                      completion_tokens=2))))
        recorder(ActionFinished(action="infer"))
    return session_id


def page_data(page: str) -> dict:
    doc = lxml.html.document_fromstring(page)
    (block,) = doc.xpath("//script[@id='rt-data']")
    return json.loads(block.text)


def request_of(data: dict, step: dict) -> dict:
    """The request as the page's script rebuilds it (the README's reader)."""
    if "request" in step:
        return step["request"]
    raw = b"".join(c.encode() if isinstance(c, str) else base64.b64decode(c["base64"])
                   for c in (data["chunks"][i] for i in step["request_chunks"]))
    header, _, contents = raw.decode().partition("\n")
    lengths, body = json.loads(header)
    at = 0
    for message, n in zip(body["messages"], lengths, strict=True):
        if n is not None:
            message["content"], at = contents[at:at + n], at + n
    return body


def test_the_page_gives_every_request_back_byte_for_byte(store):
    session_id = record_board(store, 6)
    data = page_data(export_session(store, session_id, "replay"))
    sent = [call.request for call in store.calls(session_id)]
    assert [request_of(data, step) for step in data["steps"]] == sent


def test_a_chunk_cut_inside_a_character_comes_back_whole(store):
    session_id = record_board(store, 2, extra=LONG_LINE)
    data = page_data(export_session(store, session_id, "replay"))
    assert any(isinstance(chunk, dict) for chunk in data["chunks"]), "a base64 chunk"
    sent = [call.request for call in store.calls(session_id)]
    assert [request_of(data, step) for step in data["steps"]] == sent
    exported = read_export(export_session(store, session_id, "json"))
    assert [call.request for call in exported.calls] == sent


def test_the_page_loads_nothing_and_runs_only_its_own_script(store):
    page = export_session(store, record_board(store, 2), "replay")
    doc = lxml.html.document_fromstring(page)
    head = doc.find("head")
    assert head[0].get("http-equiv") == "Content-Security-Policy"
    policy = head[0].get("content")
    assert "default-src 'none'" in policy and "script-src 'sha256-" in policy
    assert "unsafe-inline" not in policy.split("script-src")[1].split(";")[0]
    assert not doc.xpath("//*[@src or @href or @srcset or @action]")
    assert not doc.xpath("//link | //iframe | //object | //embed | //img")
    scripts = doc.xpath("//script")
    assert [s.get("type") for s in scripts] == ["application/json", None]
    assert "url(" not in "".join(doc.xpath("//style/text()"))


def test_untrusted_text_cannot_end_the_data_block(store):
    page = export_session(store, record_board(store, 2), "replay")
    data_block = page.split('id="rt-data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in data_block
    assert ODD in request_of(page_data(page), page_data(page)["steps"][0])["messages"][1][
        "content"]


def test_the_page_shows_the_kinds_panels_and_result(store):
    page = export_session(store, record_board(store, 3), "replay")
    data = page_data(page)
    assert data["panels"] == [{"title": "Whiteboard", "path": ["board"]}]
    assert [step["state"] is not None for step in data["steps"]] == [True] * 3
    doc = lxml.html.document_fromstring(page)
    result = doc.get_element_by_id("rt-result").text_content()
    assert "Lines written" in result and "Line 2: one more line" in result


def test_the_page_grows_linearly_with_the_session(store):
    small = len(export_session(store, record_board(store, 40), "replay"))
    large = len(export_session(store, record_board(store, 160), "replay"))
    # Whole requests would grow ~16 times (4x the turns, each ~4x longer): chunks ~4-6x.
    assert large < 7 * small


def test_a_key_stored_before_it_was_known_is_in_no_page_or_json_export(store, monkeypatch):
    key = "sk-later-0123456789abcdefDEADBEEF"
    session_id = record_board(store, 3)
    call = store.calls(session_id)[0]
    assert call.request  # recorded before the key was known: the store holds it raw
    recorder = SessionRecorder(store, session_id, lambda: {"board": [{"line": key}]})
    recorder(ActionStarted(action="infer", actor_id="ada"))
    recorder(CallStarted(call_id="leak", actor_id="ada", model="m", endpoint="offline",
                         request={"model": "m", "messages": [
                             {"role": "user", "content": f"my key is {key}\nthanks"}]}))
    recorder(ActionFinished(action="infer"))
    monkeypatch.setenv("ROUNDTABLE_API_KEY", key)
    for fmt in ("replay", "json"):
        assert key not in export_session(store, session_id, fmt), fmt
    data = page_data(export_session(store, session_id, "replay"))
    shown = request_of(data, data["steps"][-1])["messages"][0]["content"]
    exported = read_export(export_session(store, session_id, "json")).calls
    assert len(data["steps"]) == len(exported) == 4, "the call is redacted, not left out"
    assert shown.startswith("my key is ") and shown.endswith("\nthanks")
    assert exported[-1].request["messages"][0]["content"] == shown
