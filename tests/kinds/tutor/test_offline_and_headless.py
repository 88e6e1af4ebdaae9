"""The offline trickster reads its payload, and a headless run goes from a choice through
a transition to the debrief, stored, exported and continued through the registry."""

from __future__ import annotations

import json

from roundtable_desktop.cli.main import main
from roundtable_desktop.domain.calls import ChatRequest
from roundtable_desktop.engine.headless import HumanLine, choice_line, human_lines
from roundtable_desktop.engine.launch import reopen_session
from roundtable_desktop.engine.registry import kind_names, kind_spec
from roundtable_desktop.engine.replay_state import replay_session
from roundtable_desktop.engine.session_export import export_session
from roundtable_desktop.kinds.tutor.offline import trickster_debrief, trickster_reply
from roundtable_desktop.kinds.tutor.offline_bank import bank_for
from roundtable_desktop.kinds.tutor.prompts import transition_tool_spec
from roundtable_desktop.kinds.tutor.session import TutorSession
from roundtable_desktop.kinds.tutor.state import Exchange
from roundtable_desktop.llm.offline import OfflineClient
from roundtable_desktop.store.database import SessionStore
from tests.kinds.tutor.conftest import CHAIN, TIP, make_tutor

NAMES_TWO = "That is too good to be true, and the deadline is pure pressure."


def pending_request(student_lines: list[str], scenario: str = TIP, **kw) -> ChatRequest:
    tutor = make_tutor(scenario=scenario, **kw)
    tutor.choose(0)
    for n, line in enumerate(student_lines):
        tutor.state.exchanges.append(Exchange(role="student", text=line, phase="chat"))
        if n < len(student_lines) - 1:
            tutor.state.exchanges.append(Exchange(role="trickster", text="hm", phase="chat"))
    return tutor.session.pending_payloads()[0].request


# -- the offline policy -----------------------------------------------------------------
def test_the_offline_trickster_embeds_a_listed_technique_in_character():
    reply = trickster_reply(pending_request(["hello"]), seed=0)
    bank = bank_for(["too_good", "scarcity", "borrowed_authority"], "en")
    lines = [line for p in ("too_good", "scarcity", "borrowed_authority")
             for line in bank.pattern(p, "use")]
    assert any(line in reply.text for line in lines)
    assert not reply.tool_calls


def test_the_offline_trickster_speaks_lithuanian_for_the_lithuanian_cartridge():
    reply = trickster_reply(pending_request(["labas"], scenario=CHAIN), seed=0)
    assert any(ch in reply.text for ch in "ąčęėįšųūž")


def test_the_offline_trickster_offers_the_transition_when_a_technique_is_named():
    before = trickster_reply(pending_request([NAMES_TWO]), seed=0)
    after = trickster_reply(pending_request(["hello", NAMES_TWO]), seed=0)
    assert before.tool_calls == ()  # one line: min_exchanges not reached, no tool offered
    assert [json.loads(c.arguments) for c in after.tool_calls] == [{"signal": "understood"}]


def test_with_one_technique_named_the_offline_trickster_says_partial():
    reply = trickster_reply(pending_request(["hello", "This is too good to be true."]), 0)
    assert json.loads(reply.tool_calls[0].arguments) == {"signal": "partial"}


def test_in_prompt_mode_the_offline_trickster_writes_the_call_line():
    request = pending_request(["hello", NAMES_TWO], tool_mode="prompt")
    assert request.tools is None
    assert trickster_reply(request, 0).text.endswith('CALL: transition_phase("understood")')


def test_the_offline_trickster_varies_with_the_seed_and_the_input():
    request = pending_request(["hello"])
    texts = {trickster_reply(request, seed).text for seed in range(8)}
    texts |= {trickster_reply(pending_request([f"hello {n}"]), 0).text for n in range(8)}
    assert len(texts) >= 4


def test_the_offline_debrief_quotes_the_students_own_lines():
    tutor = make_tutor()
    tutor.choose(0)
    tutor.state.exchanges += [Exchange(role="student", text=NAMES_TWO, phase="chat"),
                              Exchange(role="trickster", text="hm", phase="chat")]
    tutor.state.phase = "reveal"
    debrief = trickster_debrief(tutor.session.pending_payloads()[0].request, 0)
    assert f'"{NAMES_TWO}"' in debrief
    for name in ("Too good to be true", "Scarcity and deadline", "Borrowed authority"):
        assert name in debrief


def test_the_offline_policy_reads_the_tool_from_the_request_not_the_state():
    request = pending_request(["hello", NAMES_TWO])
    stripped = request.model_copy(update={"tools": None})
    assert trickster_reply(stripped, 0).tool_calls == ()
    assert request.tools == [transition_tool_spec()]


# -- the registry and headless ------------------------------------------------------------------
def test_tutor_is_a_built_kind_with_a_scenario_per_cartridge():
    assert "tutor" in kind_names()
    assert {s.name for s in kind_spec("tutor").scenarios()} >= {TIP, CHAIN,
                                                                 "fake_quote_screenshot"}


def run(db, *args: str) -> int:
    return main(["run", "--kind", "tutor", "--offline", "--delay", "0", "--db", str(db), *args])


def test_a_headless_run_goes_through_a_transition_to_the_debrief(tmp_path, capsys):
    db = tmp_path / "t.sqlite3"
    code = run(db, "--scenario", TIP, "--choice", "2", "--say", "Who is the cousin?",
               "--say", NAMES_TWO)
    out = capsys.readouterr().out
    assert code == 0
    assert "Debrief (final):" in out and "✓" in out
    with SessionStore.open(db) as store:
        session_id = store.latest_session_id()
        state = store.get_session(session_id).state["tutor"]
        md = export_session(store, session_id, "md")
    assert state["choices"][0]["index"] == 1 and state["ended"]
    assert [t["signal"] for t in state["transitions"]] == ["choice", "understood"]
    assert "## Debrief (final)" in md and "(understood, the trickster's tool" in md


def test_the_lithuanian_exercise_runs_headless_to_its_debrief(tmp_path, capsys):
    db = tmp_path / "t.sqlite3"
    code = run(db, "--scenario", CHAIN, "--choice", "1", "--say", "Kas tau tai pasakė?",
               "--say", "Čia tik gąsdinimas ir skuba, nepersiųsiu.")
    assert code == 0 and "Atpažinai" in capsys.readouterr().out


def test_a_choice_out_of_range_is_refused_and_nothing_is_chosen(tmp_path, capsys):
    db = tmp_path / "t.sqlite3"
    run(db, "--scenario", TIP, "--choice", "7")
    assert "There is no choice 7: this phase has 3." in capsys.readouterr().err
    with SessionStore.open(db) as store:
        # The student's choice comes first: with no line given, nothing was done yet.
        state = store.get_session(store.list_sessions(with_empty=True)[0].id).state["tutor"]
    assert state["choices"] == [] and state["phase"] == "message"


def test_a_choice_where_no_choice_is_offered_is_refused_and_nothing_is_sent(tmp_path,
                                                                              capsys):
    db = tmp_path / "t.sqlite3"
    run(db, "--scenario", TIP, "--choice", "1", "--choice", "1")
    err = capsys.readouterr().err
    (line,) = [line for line in err.splitlines() if "choice" in line.lower()]
    assert "no choices" in line and line.rstrip().endswith(".") and line.count(". ") == 0
    with SessionStore.open(db) as store:
        session_id = store.latest_session_id()
        state = store.get_session(session_id).state["tutor"]
        calls = store.calls(session_id)
    assert len(state["choices"]) == 1 and state["exchanges"] == []
    assert calls == []  # the model was not asked: "1" was never sent as the student's line


def test_a_stopped_run_continues_from_the_stored_state(tmp_path, capsys):
    db = tmp_path / "t.sqlite3"
    assert run(db, "--scenario", TIP, "--choice", "1", "--say", "hello") == 0
    with SessionStore.open(db) as store:
        session_id = store.latest_session_id()
        handle = reopen_session(session_id, store=store, client=OfflineClient(delay_s=0))
        session = handle.session
        assert isinstance(session, TutorSession)
        assert session.awaiting_human() == "Student"
        assert session.state.exchange_count() == 1 and session.state.snapshot is not None
        handle.close()
    assert main(["run", "--continue", session_id[:8], "--offline", "--delay", "0",
                 "--db", str(db), "--say", NAMES_TWO]) == 0
    with SessionStore.open(db) as store:
        assert store.get_session(session_id).state["tutor"]["ended"]


def test_replay_restores_each_checkpoint_of_an_exercise(tmp_path):
    db = tmp_path / "t.sqlite3"
    assert run(db, "--scenario", TIP, "--choice", "1", "--say", "hello",
               "--say", NAMES_TWO) == 0
    with SessionStore.open(db) as store:
        checkpoints = store.checkpoints(store.latest_session_id())
    sessions = [replay_session("tutor", c.state) for c in checkpoints]
    assert all(isinstance(s, TutorSession) for s in sessions)
    progress = [s.progress() for s in sessions if s is not None]
    assert progress == sorted(progress) and sessions[-1] is not None and sessions[-1].ended


def test_a_choice_line_is_an_option_for_the_human_seat():
    assert choice_line("2") == HumanLine(text="2", option=1)
    assert list(human_lines(["first", choice_line("1"), "  "])) == [
        HumanLine("first"), HumanLine(text="1", option=0)]


def test_the_budget_option_sets_the_tutor_sessions_budget(tmp_path):
    from roundtable_desktop.cli.main import main
    from roundtable_desktop.store.database import SessionStore

    db = tmp_path / "t.sqlite3"
    main(["run", "--kind", "tutor", "--offline", "--scenario", "too_good_tip",
          "--budget", "1234", "--turns", "1", "--db", str(db), "--quiet"])
    with SessionStore.open(db) as store:
        # The student's choice comes first: with no line given, nothing was done yet.
        state = store.get_session(store.list_sessions(with_empty=True)[0].id).state
    assert '"budget_tokens": 1234' in json.dumps(state)
