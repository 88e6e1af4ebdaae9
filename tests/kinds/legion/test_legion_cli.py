"""`roundtable run --kind legion` headless: the seed's script offline, --say with a
channel, --mcp-config with a stdio server, and the export of a legion session."""

from __future__ import annotations

import json
import sys

import pytest

from roundtable_desktop.cli.main import main
from roundtable_desktop.paths import resources_dir

SEED_SCRIPT = resources_dir() / "legion" / "scripts" / "seed_three_turns.txt"
SAMPLE = str(resources_dir() / "legion" / "sample_project")


@pytest.fixture
def db(tmp_path):
    return tmp_path / "sessions.sqlite3"


def test_the_seeds_script_offline_ends_with_the_tool_used_and_the_files_in_alphas_reply(
        db, capsys):
    code = main(["run", "--kind", "legion", "--offline", "--delay", "0", "--db", str(db),
                 "--script", str(SEED_SCRIPT)])
    out = capsys.readouterr().out
    assert code == 0
    assert '✓ file_system.list_files({"path":"components/"})' in out
    reply = out.rpartition("── Alpha · offline ──")[2]
    for name in ("AnalyticsDashboard.tsx", "ApiKeyManager.tsx", "AutoChatControls.tsx"):
        assert name in reply
    assert "Alpha → Rowan" in out


def test_say_names_a_channel_and_the_group_answers(db, capsys):
    code = main(["run", "--kind", "legion", "--offline", "--delay", "0", "--db", str(db),
                 "--say", "#war-room Alpha, Beta, Gamma: hello team!", "--turns", "1"])
    out = capsys.readouterr().out
    assert code == 0
    for minion in ("Alpha", "Beta", "Gamma"):
        assert f"── {minion} · offline ──" in out


def test_mcp_config_brings_a_stdio_servers_tools_named_server_tool(db, tmp_path, capsys):
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"files": {
        "command": sys.executable,
        "args": ["-m", "roundtable_desktop.kinds.legion.file_server", SAMPLE]}}}))
    code = main(["run", "--kind", "legion", "--scenario", "starship", "--offline", "--delay",
                 "0", "--db", str(db), "--mcp-config", str(config), "--say",
                 "#commander-nova Nova, what files are in the `components` directory?"])
    out = capsys.readouterr().out
    assert code == 0
    assert "files.list_files" in out
    assert "✓ files.list_files" in out
    assert "ChatInput.tsx" in out.rpartition("── Nova · offline ──")[2]


def test_a_bad_mcp_config_is_one_clear_line(db, tmp_path, capsys):
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"files": {"args": []}}}))
    code = main(["run", "--kind", "legion", "--offline", "--db", str(db), "--mcp-config",
                 str(config), "--say", "hi"])
    err = capsys.readouterr().err
    assert code == 2 and "mcpServers.files" in err and "Traceback" not in err


def test_an_unknown_legion_scenario_names_the_ones_that_exist(db, capsys):
    code = main(["run", "--kind", "legion", "--scenario", "nope", "--offline", "--db", str(db)])
    err = capsys.readouterr().err
    assert code == 2 and "default" in err and "starship" in err


def test_the_export_shows_channels_messages_with_diaries_and_score_trajectories(
        db, tmp_path, capsys):
    main(["run", "--kind", "legion", "--offline", "--delay", "0", "--db", str(db), "--quiet",
          "--script", str(SEED_SCRIPT)])
    out = tmp_path / "legion.md"
    assert main(["export", "--db", str(db), "--format", "md", "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "(\\#commander-alpha, turn 1): hi" in text  # each line names its channel
    assert "plan:" in text and "mode " in text  # each minion message's diary
    assert "file_system.list_files" in text
    assert "50 → 51" in text  # Alpha's score trajectory for the Commander


def test_a_legion_session_continues_with_its_channels_and_scores(db, capsys):
    main(["run", "--kind", "legion", "--offline", "--delay", "0", "--db", str(db), "--quiet",
          "--say", "hi"])
    out = capsys.readouterr().out
    sid = out.split("Session ")[1].split()[0]
    code = main(["run", "--continue", sid, "--offline", "--delay", "0", "--db", str(db),
                 "--say", "ur amazing ily"])
    out = capsys.readouterr().out
    assert code == 0
    trajectory = out.split("Alpha → Rowan: ")[1].splitlines()[0]
    assert trajectory.count("→") >= 2  # 50 → after "hi" → after the praise


def test_kinds_lists_legion_and_its_scenarios(capsys):
    assert main(["kinds"]) == 0
    out = capsys.readouterr().out
    assert "legion" in out and "scenario starship" in out and "scenario newsroom" in out


def test_calls_that_stream_at_once_are_printed_whole_not_interleaved():
    import io

    from roundtable_desktop.cli.output import MeetingPrinter
    from roundtable_desktop.domain.calls import CallOutcome, CallStatus
    from roundtable_desktop.domain.events import CallFinished, CallStarted, TokenReceived

    out = io.StringIO()
    printer = MeetingPrinter(out=out)
    printer.names = {"a": "Alpha", "b": "Beta", "c": "Gamma"}

    def start(cid):
        printer(CallStarted(call_id=cid, actor_id=cid, model="m", endpoint="e", request={}))

    def token(cid, text):
        printer(TokenReceived(call_id=cid, text=text))

    def finish(cid):
        printer(CallFinished(call_id=cid, actor_id=cid,
                             outcome=CallOutcome(status=CallStatus.OK)))

    start("a"), start("b"), start("c")
    token("a", "A1 "), token("b", "B1 "), token("c", "C1 "), token("a", "A2")
    finish("c")  # Gamma ends first, while Alpha still streams
    token("b", "B2")
    finish("a"), finish("b")
    text = out.getvalue()
    assert "A1 A2" in text and "B1 B2" in text and "C1 " in text
    assert text.index("Alpha") < text.index("A2") < text.index("Gamma") < text.index("Beta")


def test_run_options_set_the_reply_speed_and_whether_the_app_draws_who_speaks(db, capsys):
    from roundtable_desktop.store.database import SessionStore

    code = main(["run", "--kind", "legion", "--offline", "--delay", "0", "--db", str(db),
                 "--reply-speed", "0", "--app-draws-speakers", "on",
                 "--say", "#war-room hello team!", "--turns", "1"])
    assert code == 0
    with SessionStore.open(db) as store:
        record = store.get_session(store.list_sessions()[0].id)
    assert record.state["legion"]["speed"] == 0
    assert record.state["legion"]["app_draws_speakers"] is True


def test_a_reply_speed_out_of_range_is_refused_in_one_sentence(db, capsys):
    code = main(["run", "--kind", "legion", "--offline", "--db", str(db),
                 "--reply-speed", "99", "--say", "hi", "--turns", "1"])
    assert code != 0
    assert "--reply-speed must be a factor from 0 to 10." in capsys.readouterr().err
