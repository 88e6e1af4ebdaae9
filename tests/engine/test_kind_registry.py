"""Every kind on one engine: a kind registered only in tests runs through the registry end
to end (CLI, store, export, replay) and follows the shared lifecycle."""

from __future__ import annotations

import asyncio
import json
from collections import deque
from pathlib import Path

import pytest

from roundtable_desktop.cli.main import main
from roundtable_desktop.context.request_document import messages_from_document
from roundtable_desktop.domain.events import (
    ActionFinished,
    ActionStarted,
    CallStarted,
    Event,
    Notice,
)
from roundtable_desktop.engine.base import Action
from roundtable_desktop.engine.headless import HumanLine, drive_headless, human_lines
from roundtable_desktop.engine.launch import reopen_session, start_session
from roundtable_desktop.engine.registry import UnknownKind, kind_names, kind_spec
from roundtable_desktop.engine.replay_state import replay_session
from roundtable_desktop.engine.session_export import export_session
from roundtable_desktop.llm.offline import OfflineClient
from roundtable_desktop.store.database import SessionStore
from tests.fakes.panel_kind import (
    PanelSession,
    PanelState,
    panel_kind,  # noqa: F401 (autouse: the panel kind)
)
from tests.fakes.scripted_model import ScriptedClient

GOOD = '{"stance": "for", "confidence": 0.7, "reason": "Agendas save time."}'




@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "panel.sqlite3"


def start(store: SessionStore, client, **kw):
    return asyncio.run(start_session("panel", store=store, client=client, model="m",
                                     provider="offline", **kw))


def record(session: PanelSession) -> list[Event]:
    events: list[Event] = []
    session.bus.subscribe(events.append)
    return events


# -- the registry ------------------------------------------------------------------------
def test_the_registry_lists_the_built_kinds_and_a_registered_one():
    assert kind_names()[0] == "roundtable"
    assert "panel" in kind_names()


def test_an_unknown_kind_names_the_kinds_that_exist():
    with pytest.raises(UnknownKind, match="roundtable"):
        kind_spec("chess")


def test_roundtable_kinds_lists_every_kind_with_its_scenarios(capsys):
    assert main(["kinds"]) == 0
    out = capsys.readouterr().out
    assert "roundtable" in out and "scenario default" in out
    assert "panel" in out and "scenario tabs: Tabs or spaces?" in out
    assert "debate" in out and "scenario ai-regulation: AI regulation" in out


# -- shown is sent ------------------------------------------------------------------------
def test_each_pending_payload_document_gives_back_its_request_messages(tmp_path):
    with SessionStore.open(tmp_path / "s.sqlite3") as store:
        handle = start(store, OfflineClient(delay_s=0))
        payloads = handle.session.pending_payloads()
    assert len(payloads) == 2
    for payload in payloads:
        assert messages_from_document(payload.document) == payload.request.messages


def test_the_layers_of_the_system_prompt_are_on_each_call(tmp_path):
    with SessionStore.open(tmp_path / "s.sqlite3") as store:
        handle = start(store, OfflineClient(delay_s=0))
        events = record(handle.session)
        asyncio.run(handle.session.perform(Action(id="ask")))
    started = [e for e in events if isinstance(e, CallStarted)]
    assert [[layer.name for layer in e.layers] for e in started] == [["persona", "format"]] * 2
    assert {e.purpose for e in started} == {"stance"}


# -- the lifecycle ------------------------------------------------------------------------
def test_an_action_emits_started_and_finished_and_is_checkpointed(tmp_path):
    with SessionStore.open(tmp_path / "s.sqlite3") as store:
        handle = start(store, OfflineClient(delay_s=0))
        events = record(handle.session)
        assert asyncio.run(handle.session.perform(Action(id="ask"))) is True
        checkpoints = store.checkpoints(handle.session_id)
    assert isinstance(events[0], ActionStarted) and events[0].action == "ask"
    assert any(isinstance(e, ActionFinished) and e.ok for e in events)
    assert [c.action for c in checkpoints] == ["ask"]


def test_the_two_panelists_are_asked_at_the_same_time(tmp_path):
    client = ScriptedClient(GOOD, GOOD)
    with SessionStore.open(tmp_path / "s.sqlite3") as store:
        handle = start(store, client)
        events = record(handle.session)
        asyncio.run(handle.session.perform(Action(id="ask")))
    kinds = [e.type for e in events if e.type in ("call_started", "call_finished")]
    assert kinds[:2] == ["call_started", "call_started"]  # both sent before either ended


def test_an_unreadable_reply_is_repaired_once_then_refused_keeping_the_state(tmp_path):
    # One slot: Ada's call, then Bo's (waiting first), then Ada's repair.
    client = ScriptedClient("not json", GOOD, "still not json")
    with SessionStore.open(tmp_path / "s.sqlite3") as store:
        handle = start(store, client, parallel=1)
        events = record(handle.session)
        ok = asyncio.run(handle.session.perform(Action(id="ask")))
        calls = store.calls(handle.session_id)
    session = handle.session
    assert isinstance(session, PanelSession)
    assert ok is False
    assert [(c.actor_id, c.purpose) for c in calls] == [
        ("ada", "stance"), ("bo", "stance"), ("ada", "repair")]
    assert list(session.state.verdicts) == ["bo"]
    assert any(isinstance(e, Notice) and e.level == "warning" for e in events)
    assert any(isinstance(e, ActionFinished) and not e.ok for e in events)


def test_an_action_not_offered_now_is_refused_before_anything_is_recorded(tmp_path):
    with SessionStore.open(tmp_path / "s.sqlite3") as store:
        handle = start(store, OfflineClient(delay_s=0))
        events = record(handle.session)
        with pytest.raises(Exception, match="panelists answer first"):
            asyncio.run(handle.session.perform(Action(id="send", text="hi")))
    assert events == []


def test_auto_pauses_at_the_human_seat_and_says_so(tmp_path):
    with SessionStore.open(tmp_path / "s.sqlite3") as store:
        handle = start(store, OfflineClient(delay_s=0))
        events = record(handle.session)
        asyncio.run(handle.session.perform(Action(id="auto", steps=5)))
        checkpoints = [c.action for c in store.checkpoints(handle.session_id)]
    assert checkpoints == ["ask", "auto"]
    assert any(isinstance(e, Notice) and "You is a human seat" in e.message for e in events)


def test_every_action_carries_its_shortcut():
    session = PanelSession(PanelState(topic="t"), client=OfflineClient(delay_s=0))
    shortcuts = {spec.id: spec.shortcut for spec in session.actions()}
    assert shortcuts["ask"] == "Ctrl+Return" and shortcuts["stop"] == "Esc"


# -- headless ------------------------------------------------------------------------------
def test_scripted_lines_name_a_channel_with_a_hash():
    assert HumanLine.parse("#ops deploy now") == HumanLine(text="deploy now", channel="ops")
    assert HumanLine.parse("#nochannel") == HumanLine(text="#nochannel")
    assert list(human_lines(["a", " ", "b\n"])) == [HumanLine("a"), HumanLine("b")]


def test_the_headless_driver_gives_the_human_seat_its_lines_in_order(tmp_path):
    with SessionStore.open(tmp_path / "s.sqlite3") as store:
        handle = start(store, OfflineClient(delay_s=0))
        result = asyncio.run(drive_headless(handle.session, 5,
                                            deque([HumanLine("first"), HumanLine("second")])))
    session = handle.session
    assert isinstance(session, PanelSession)
    assert result.code == 0 and session.ended
    assert [line.text for line in session.state.lines if line.speaker == "You"] == [
        "first", "second"]


def test_a_cli_run_ends_cleanly_when_the_human_seat_has_no_line_left(db, capsys):
    code = main(["run", "--kind", "panel", "--offline", "--delay", "0", "--db", str(db),
                 "--say", "Only one line."])
    out = capsys.readouterr().out
    assert code == 0
    assert "You is a human seat and has no scripted line left" in out
    assert "Verdicts:" in out


def test_a_cli_run_takes_lines_from_a_script_file(db, tmp_path, capsys):
    script = tmp_path / "lines.txt"
    script.write_text("Agreed.\n\nNo more.\n", encoding="utf-8")
    code = main(["run", "--kind", "panel", "--offline", "--delay", "0", "--db", str(db),
                 "--script", str(script), "--parallel", "2"])
    out = capsys.readouterr().out
    assert code == 0 and "Verdicts (final):" in out


def test_a_cli_run_refuses_a_parallel_limit_out_of_range(db, capsys):
    code = main(["run", "--kind", "panel", "--offline", "--db", str(db), "--parallel", "0"])
    assert code == 2 and "--parallel must be from 1" in capsys.readouterr().err


def test_a_stopped_cli_run_continues_where_it_stopped(db, capsys):
    assert main(["run", "--kind", "panel", "--offline", "--delay", "0", "--db", str(db),
                 "--say", "one"]) == 0
    with SessionStore.open(db) as store:
        session_id = store.latest_session_id()
    assert session_id is not None
    assert main(["run", "--continue", session_id[:8], "--offline", "--delay", "0",
                 "--db", str(db), "--say", "two"]) == 0
    with SessionStore.open(db) as store:
        state = store.get_session(session_id).state["panel"]
    assert state["ended"] and [line["text"] for line in state["lines"]
                               if line["speaker"] == "You"] == ["one", "two"]


# -- store, export, replay ------------------------------------------------------------
@pytest.fixture
def finished_panel(db) -> str:
    assert main(["run", "--kind", "panel", "--offline", "--delay", "0", "--db", str(db),
                 "--say", "one", "--say", "two", "--quiet"]) == 0
    with SessionStore.open(db) as store:
        session_id = store.latest_session_id()
    assert session_id is not None
    return session_id


def test_the_json_export_names_the_kind_and_holds_its_result(db, finished_panel):
    with SessionStore.open(db) as store:
        data = json.loads(export_session(store, finished_panel, "json"))
    assert data["format"] == "panel-session" and data["format_version"] >= 2
    assert data["summary"]["result"]["heading"] == "Verdicts"
    assert len(data["summary"]["result"]["items"]) == 2
    assert len(data["calls"]) == 4 and {c["purpose"] for c in data["calls"]} == {"stance"}


def test_the_html_and_markdown_exports_show_the_kinds_result_before_the_calls(db, finished_panel):
    with SessionStore.open(db) as store:
        md = export_session(store, finished_panel, "md")
        html = export_session(store, finished_panel, "html")
    assert md.index("## Verdicts (final)") < md.index("## Transcript") < md.index("## Calls")
    assert html.index("Verdicts (final)") < html.index("Calls (4)")


def test_replay_restores_each_checkpoint_through_the_registry(db, finished_panel):
    with SessionStore.open(db) as store:
        checkpoints = store.checkpoints(finished_panel)
    sessions = [replay_session("panel", c.state) for c in checkpoints]
    assert all(isinstance(s, PanelSession) for s in sessions)
    rounds = [s.progress() for s in sessions if s is not None]
    assert rounds == sorted(rounds) and rounds[-1] == 3
    assert sessions[-1] is not None and sessions[-1].ended


def test_replay_of_a_kind_this_version_does_not_know_gives_none():
    assert replay_session("chess", {"board": []}) is None


def test_reopen_goes_through_the_registry(db, finished_panel):
    with SessionStore.open(db) as store:
        handle = reopen_session(finished_panel, store=store, client=OfflineClient(delay_s=0))
        assert isinstance(handle.session, PanelSession) and handle.kind == "panel"
