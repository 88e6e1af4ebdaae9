"""Offline play end to end, export, restore and the headless CLI."""

from __future__ import annotations

import asyncio
import json
from collections import deque

import pytest

from roundtable_desktop.cli.main import main
from roundtable_desktop.domain.calls import ChatMessage, ChatRequest
from roundtable_desktop.engine.base import Action
from roundtable_desktop.engine.headless import drive_headless, human_lines
from roundtable_desktop.engine.launch import reopen_session, start_session
from roundtable_desktop.engine.registry import SessionContext, kind_spec, summarize_stored
from roundtable_desktop.engine.session_export import export_session
from roundtable_desktop.kinds.negotiation.offline import offline_draft, offline_observer
from roundtable_desktop.kinds.negotiation.scenario import scenario_names
from roundtable_desktop.kinds.negotiation.session import NegotiationSession
from roundtable_desktop.llm.offline import OfflineClient
from roundtable_desktop.store.database import SessionStore


@pytest.mark.parametrize("scenario", scenario_names())
@pytest.mark.parametrize("seed", [0, 1])
def test_every_bundled_scenario_reaches_an_adjudication_offline_within_its_turn_cap(
        make_game, scenario, seed):
    # Seeds 0-3 and the spread of outcomes (stalls included): test_offline_demo.py.
    game = make_game(scenario, seed=seed)
    asyncio.run(drive_headless(game.session, game.state.scenario.turn_cap, deque()))
    assert game.state.adjudication is not None
    assert game.state.turn_count <= game.state.scenario.turn_cap
    assert game.state.kpis.observer_failures == game.state.kpis.planner_failures == 0


def test_offline_replies_differ_turn_by_turn(make_game):
    game = make_game()
    asyncio.run(drive_headless(game.session, 20, deque()))
    texts = [e.text for e in game.state.messages()[2:]]
    assert len(set(texts)) == len(texts)


def test_another_seed_plays_another_game(make_game):
    first, second = make_game(seed=0), make_game(seed=1)
    for g in (first, second):
        asyncio.run(drive_headless(g.session, 20, deque()))
    assert [e.text for e in first.state.messages()] != [e.text for e in second.state.messages()]


def _draft_request(system: str, last: str = "We need proof.") -> ChatRequest:
    return ChatRequest(model="m", purpose="reply", kind="negotiation", messages=[
        ChatMessage(role="system", content=system), ChatMessage(role="user", content=last)])


def _system(traits: dict[str, float], focus: str) -> str:
    profile = "\n".join(f"- {k}: {v:.1f}" for k, v in traits.items())
    return (f"BASE_PERSONA:\nx\n\nCONTEXT: Turn 3 of at most 24.\n\nWORLD_LEITMOTIFS: red lamp; "
            f"spare key\n\nTRAIT_PROFILE:\n{profile}\n\nFOCUS_THIS_TURN: {focus}")


def test_the_offline_draft_follows_the_focus_act_and_the_trait_profile():
    keeperish = {"openness": 1, "agreeableness": 1, "authority": 5}
    allyish = {"openness": 5, "agreeableness": 5, "authority": 1}
    challenge = offline_draft(_draft_request(_system(keeperish, "[CHALLENGE] Push back")), 0)
    commit = offline_draft(_draft_request(_system(keeperish, "[COMMIT] Accept it")), 0)
    ally = offline_draft(_draft_request(_system(allyish, "[CHALLENGE] Push back")), 0)
    assert len({challenge, commit, ally}) == 3
    assert "red lamp" in challenge or "spare key" in challenge or "proof" in challenge


def test_the_offline_observer_reads_the_modeled_sides_lines():
    def model(lines: str) -> dict:
        request = ChatRequest(model="m", purpose="observer", kind="negotiation", messages=[
            ChatMessage(role="user", content=f"Model KEEPER (K).\nCHAT SNIPPET (most recent "
                                             f"turns):\n{lines}")])
        return json.loads(offline_observer(request, 0))["dims"]

    hard = model("KEEPER: Denied. Unacceptable.\nALLY: Please.\nKEEPER: Rejected again.")
    soft = model("KEEPER: I agree, granted.\nALLY: Thanks.\nKEEPER: I propose we begin.")
    assert hard["authority"] > soft["authority"]
    assert hard["agreeableness"] < soft["agreeableness"]


async def _recorded_game(store, turns: int = 20, **options):
    handle = await start_session("negotiation", store=store, client=OfflineClient(delay_s=0),
                                 model="offline", provider="offline", **options)
    await drive_headless(handle.session, turns, human_lines(options.pop("lines", [])))
    return handle


def test_export_shows_the_transcript_with_acts_the_trajectories_and_the_adjudication(store):
    handle = asyncio.run(_recorded_game(store))
    text = export_session(store, handle.session_id, "md")
    assert "## Adjudication (final)" in text
    assert "RELEASED:" in text
    assert "Belief trajectories" in text and "GATEKEEPER · authority:" in text
    assert "\\[PROPOSE\\]" in text or "[PROPOSE]" in text
    assert "Final model of GATEKEEPER" in text and "Influence" in text


def test_a_stored_state_summarizes_and_restores_to_continue(store):
    handle = asyncio.run(_recorded_game(store, turns=3))
    record = store.get_session(handle.session_id)
    summary = summarize_stored("negotiation", record.state)
    assert summary is not None and len(summary.transcript) == 5  # 2 openings + 3 messages
    store.unlock_session(handle.session_id)
    again = reopen_session(handle.session_id, store=store, client=OfflineClient(delay_s=0))
    assert again.session.state.turn_count == 3
    assert again.session.state == handle.session.state
    asyncio.run(again.session.perform(Action(id="take_turn")))
    assert again.session.state.turn_count == 4


def test_a_turn_cut_while_waiting_for_a_pick_resumes_at_the_pick():
    ctx = SessionContext(client=OfflineClient(delay_s=0), model="offline", provider="offline",
                         options={"flow": "confirm"})
    session = asyncio.run(kind_spec("negotiation").create(ctx, "default"))
    asyncio.run(session.perform(Action(id="take_turn")))
    data = json.loads(session.state_json())
    data["negotiation"]["current"]["phase"] = "DRAFT"  # killed mid-draft
    restored = NegotiationSession.restore(data, client=OfflineClient(delay_s=0))
    assert restored.state.current.phase == "PLAN"
    assert restored.next_step().id == "pick_option"


def test_the_human_seat_speaks_the_scripted_lines(store):
    handle = asyncio.run(_recorded_game(store, turns=2, human="KEEPER",
                                        lines=["Denied. Bring evidence first."]))
    messages = handle.session.state.messages()
    assert (messages[-1].who, messages[-1].text, messages[-1].human) == (
        "KEEPER", "Denied. Bring evidence first.", True)


def test_cli_offline_run_of_20_turns_reaches_an_adjudication(tmp_path, capsys):
    db = tmp_path / "s.sqlite3"
    code = main(["run", "--kind", "negotiation", "--offline", "--turns", "20", "--delay", "0",
                 "--db", str(db), "--quiet"])
    out = capsys.readouterr().out
    assert code == 0
    assert "Adjudication (final)" in out and "RELEASED" in out


def test_cli_flow_and_scenario_options(tmp_path, capsys):
    db = tmp_path / "s.sqlite3"
    code = main(["run", "--kind", "negotiation", "--scenario", "tenant", "--flow", "confirm",
                 "--offline", "--turns", "2", "--delay", "0", "--db", str(db), "--quiet"])
    assert code == 0
    store = SessionStore.open(db)
    try:
        state = store.get_session(store.latest_session_id()).state["negotiation"]
    finally:
        store.close()
    assert (state["flow"], state["scenario_name"], state["turn_count"]) == ("confirm", "tenant", 2)
    capsys.readouterr()
    code = main(["run", "--kind", "roundtable", "--flow", "auto", "--offline", "--turns", "1",
                 "--delay", "0", "--db", str(db), "--quiet"])
    assert code == 2
    assert "no flow modes" in capsys.readouterr().err


def test_say_lines_speak_for_the_ally_when_no_seat_is_human(make_game):
    game = make_game()
    lines = human_lines(["I propose one supervised evening a week.", "Then a fortnight."])
    result = asyncio.run(kind_spec("negotiation").drive(game.session, 6, lines))
    said = [(e.who, e.text, e.human) for e in game.state.messages()[2:]]
    assert said[0] == ("ALLY", "I propose one supervised evening a week.", True)
    assert said[2] == ("ALLY", "Then a fortnight.", True)
    assert said[1][0] == "KEEPER" and not said[1][2]
    assert "no scripted line left" in result.message


def test_a_say_line_can_name_the_keepers_seat(make_game):
    game = make_game()
    lines = human_lines(["#KEEPER Denied. Bring records."])
    asyncio.run(kind_spec("negotiation").drive(game.session, 2, lines))
    assert game.state.sides["KEEPER"].human and not game.state.sides["ALLY"].human
    assert game.state.messages()[-1].text == "Denied. Bring records."
