"""What `run` prints is shown, never obeyed: escape sequences, controls and bidi controls
from a model, a server or the store are stripped, and a terminal that is not UTF-8 gets
"?" instead of a traceback (issue 9, case 9)."""

from __future__ import annotations

import io

import pytest

from roundtable_desktop.cli.main import main, session_table
from roundtable_desktop.cli.output import MeetingPrinter, emit_text
from roundtable_desktop.domain.calls import CallOutcome, CallStatus
from roundtable_desktop.domain.events import CallFinished, Notice, TokenReceived, ToolRan
from roundtable_desktop.domain.text import terminal_text
from roundtable_desktop.domain.tools import Arg, ToolCall, ToolResult, ToolStatus
from roundtable_desktop.store.records import SessionInfo

HOSTILE = {
    "clear-screen": "\x1b[2J\x1b[H",
    "set-title": "\x1b]0;owned\x07",
    "set-title-st": "\x1b]2;owned\x1b\\",
    "bell": "\x07",
    "backspace": "\x08\x08\x08",
    "carriage-return": "\r",
    "c1-csi": "\x9b2J",
    "right-to-left-override": "\u202e",
    "delete": "\x7f",
}
UNSAFE = set("\x1b\x07\x08\r\x9b\u202e\x7f")


def _unsafe(text: str) -> set[str]:
    return UNSAFE & set(text)


@pytest.mark.parametrize("attack", HOSTILE.values(), ids=HOSTILE.keys())
def test_terminal_text_strips_what_a_terminal_would_obey(attack):
    shown = terminal_text(f"before {attack}after")
    assert _unsafe(shown) == set()
    assert shown.startswith("before ") and shown.endswith("after")


def test_terminal_text_drops_the_whole_escape_sequence_not_just_its_escape():
    assert terminal_text("a\x1b[31;1mred\x1b[0m b \x1b]0;title\x07c") == "ared b c"


def test_terminal_text_keeps_tabs_newlines_and_ordinary_unicode():
    text = "Tab\there\nnext line — ✓ ünïcödé 日本語 🙂"
    assert terminal_text(text) is text


def test_terminal_text_replaces_a_lone_surrogate():
    assert terminal_text("a\ud800b") == "a\ufffdb"


def _printer_output(*events) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    printer = MeetingPrinter(out=out, err=err)
    for event in events:
        printer(event)
    return out.getvalue(), err.getvalue()


def test_streamed_tokens_are_printed_without_escape_sequences():
    out, _ = _printer_output(*(TokenReceived(call_id="c", text=t, count=i)
                               for i, t in enumerate(["hi ", *HOSTILE.values(), " there"])))
    assert _unsafe(out) == set() and out.startswith("hi ") and out.endswith(" there")


def test_tool_results_and_notices_are_printed_without_escape_sequences():
    call = ToolCall(name="addWhiteboard", args=[Arg(value="\x1b[2Jwiped\u202e")])
    out, err = _printer_output(
        ToolRan(actor_id="a", result=ToolResult(call=call, status=ToolStatus.OK,
                                                message="\x07done")),
        Notice(level="error", message="server said \x1b]0;owned\x07 no", hint="\x08hint"),
        CallFinished(call_id="c", actor_id="a",
                     outcome=CallOutcome(status=CallStatus.FAILED, error="\x1b[2J")),
    )
    assert _unsafe(out + err) == set()
    assert "wiped" in out and "server said  no" in err


def test_a_terminal_that_is_not_utf8_gets_question_marks_not_a_traceback():
    raw = io.BytesIO()
    ascii_terminal = io.TextIOWrapper(raw, encoding="ascii", errors="strict")
    emit_text(ascii_terminal, "── ✓ done\n")
    assert raw.getvalue() == b"?? ? done\n"


def test_the_session_list_strips_controls_from_titles():
    row = SessionInfo(id="0123456789ab", kind="roundtable\x1b[2J", scenario="default",
                      title="\x9b2Jtitle\u202e",
                      created_at=0.0, updated_at=0.0, status="active", call_count=0)
    table = "\n".join(session_table([row]))
    assert _unsafe(table) == set() and "title" in table


def test_a_cli_run_prints_a_hostile_reply_inert(fake_openai, tmp_path, monkeypatch, capsys):
    fake_openai.reset()
    attack = "".join(HOSTILE.values())
    fake_openai.script([{"kind": "ok", "chunk_size": 2,
                         "text": f'{attack}\nCALL: addWhiteboard("{attack}visible")\n'
                                 "CALL: passTurn()"}])
    monkeypatch.setenv("ROUNDTABLE_API_KEY", "sk-test")
    code = main(["run", "--base-url", fake_openai.base_url, "--model", "m", "--turns", "1",
                 "--db", str(tmp_path / "t.sqlite3")])
    captured = capsys.readouterr()
    assert code == 0
    assert _unsafe(captured.out + captured.err) == set()
    assert "visible" in captured.out
