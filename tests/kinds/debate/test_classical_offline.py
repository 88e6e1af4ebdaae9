"""Classical mode offline: the demo hand's default run has an interruption; some runs
have silent turns; the plan policy reads its payload and answers valid JSON; every
plan, speech and update call shows what it sends; a restored session ends as an
uninterrupted one does; `run --mode classical` prints the turns and the export lists
them with their interruptions."""

from __future__ import annotations

import asyncio
import json

import pytest

from roundtable_desktop.cli.main import main
from roundtable_desktop.context.request_document import messages_from_document, render_request
from roundtable_desktop.domain.calls import ChatRequest
from roundtable_desktop.domain.events import CallStarted
from roundtable_desktop.engine.launch import reopen_session, start_session
from roundtable_desktop.engine.registry import SessionContext, kind_spec
from roundtable_desktop.engine.session_export import export_session
from roundtable_desktop.kinds.debate.classical.offline import (
    CLASSICAL_POLICIES,
    classical_plan,
)
from roundtable_desktop.kinds.debate.classical.requests import plan_request
from roundtable_desktop.kinds.debate.classical.session import PURPOSES
from roundtable_desktop.kinds.debate.classical.state import ActionPlan, ClassicalTurn
from roundtable_desktop.kinds.debate.offline import POLICIES
from roundtable_desktop.kinds.debate.session import DebateSession
from roundtable_desktop.kinds.debate.state import AgentStance, DebateState
from roundtable_desktop.llm.offline import OfflineClient, OfflinePolicies
from roundtable_desktop.store.database import SessionStore
from tests.kinds.debate.conftest import AI_SIX, TOPIC, make_session, run_steps


def _client(seed: int = 0) -> OfflineClient:
    policies = OfflinePolicies()
    for purpose, policy in {**POLICIES, **CLASSICAL_POLICIES}.items():
        policies.register("debate", purpose, policy)
    return OfflineClient(delay_s=0, seed=seed, policies=policies)


def _classical(seed: int = 0, **options) -> DebateSession:
    return make_session(_client(seed), mode="classical", **options)


def test_the_demo_hands_default_run_has_an_interruption_and_ends_with_a_map():
    session = _classical()
    assert run_steps(session)
    c = session.state.classical
    assert session.state.map is not None and session.state.stop_reason
    assert len(c.interruptions()) >= 1
    cut = c.interruptions()[0]
    after = next(t for t in c.turns if t.index == cut.index + 1)
    assert after.speaker == cut.interrupted_by and after.interrupts == cut.speaker


def test_some_offline_runs_have_a_silent_turn():
    silent = 0
    for seed in range(4):
        session = _classical(seed)
        assert run_steps(session)
        silent += len(session.state.classical.silent_turns())
    assert silent >= 1


def _turn_state() -> DebateSession:
    session = _classical()
    assert run_steps(session, until="turn")
    return session


def _opposed_pair(state: DebateState) -> tuple[str, str]:
    for a in state.agents:
        for b in state.agents:
            if any({getattr(state.latest_stance(a.id, c.id), "stance", ""),
                    getattr(state.latest_stance(b.id, c.id), "stance", "")} == {"pro", "con"}
                   for c in state.claims):
                return a.id, b.id
    raise AssertionError("no two agents disagree")


def test_a_named_opponent_usually_cuts_in_above_the_speakers_urgency():
    session = _turn_state()
    s = session.state
    speaker, listener = _opposed_pair(s)
    first = s.agent(listener).name.split()[0]
    live = ClassicalTurn(index=1, speaker=speaker, urgency=0.6,
                         sentences=[f"{first}, your numbers are simply wrong."])
    request, _ = plan_request(s, session.snapshot(), "offline", s.agent(listener), 1, live)
    plans = [ActionPlan.model_validate_json(classical_plan(request, seed))
             for seed in range(20)]
    cuts = [p for p in plans if p.action == "interrupt"]
    assert cuts and all(p.urgency > 0.6 for p in cuts)
    unnamed = live.model_copy(update={"sentences": ["The numbers are simply wrong."]})
    request, _ = plan_request(s, session.snapshot(), "offline", s.agent(listener), 1, unnamed)
    others = [ActionPlan.model_validate_json(classical_plan(request, seed)).action
              for seed in range(20)]
    assert others.count("interrupt") < len(cuts)


def test_an_agent_that_agrees_with_the_speaker_does_not_cut_in():
    session = _turn_state()
    s = session.state
    speaker, listener = s.agents[0].id, s.agents[1].id
    for claim in s.claims:  # the two agree on everything
        for agent in (speaker, listener):
            s.stances.append(AgentStance(agent=agent, claim=claim.id, stance="pro",
                                         confidence=0.8, round=0))
    first = s.agent(listener).name.split()[0]
    live = ClassicalTurn(index=1, speaker=speaker, urgency=0.5,
                         sentences=[f"{first}, you and I see this the same way."])
    request, _ = plan_request(s, session.snapshot(), "offline", s.agent(listener), 1, live)
    actions = {ActionPlan.model_validate_json(classical_plan(request, seed)).action
               for seed in range(20)}
    assert "interrupt" not in actions


def test_every_plan_speech_and_update_call_shows_what_it_sends(events_of):
    session = _classical()
    assert run_steps(session, until="turn")
    pending = session.pending_payloads()
    assert pending and all(p.request.purpose == "plan" for p in pending)
    events = events_of(session)
    assert asyncio.run(session.perform(session.next_step()))
    started = [e for e in events if isinstance(e, CallStarted)]
    first_plans = [e.request for e in started if e.purpose == "plan"][:len(pending)]
    assert sorted(map(json.dumps, first_plans)) == \
        sorted(json.dumps(p.request.to_body()) for p in pending)
    assert run_steps(session)
    purposes = set()
    for e in started + [e for e in events if isinstance(e, CallStarted)]:
        request = ChatRequest.model_validate(e.request)
        assert messages_from_document(render_request(request, e.layers)) == request.messages
        purposes.add(e.purpose)
    assert set(PURPOSES) <= purposes
    for payload in pending:
        assert messages_from_document(payload.document) == payload.request.messages


def test_a_pending_interrupters_speech_is_the_request_sent(events_of):
    session = _classical()
    assert run_steps(session, until="turn")
    for _ in range(session.state.classical.max_turns):
        if session.state.classical.next_speaker is not None:
            break
        assert asyncio.run(session.perform(session.next_step()))
    assert session.state.classical.next_speaker is not None
    [payload] = session.pending_payloads()
    assert payload.request.purpose == "speech"
    assert messages_from_document(payload.document) == payload.request.messages
    events = events_of(session)
    assert asyncio.run(session.perform(session.next_step()))
    first = next(e for e in events if isinstance(e, CallStarted))
    assert first.request == payload.request.to_body()


def _restore(session: DebateSession, seed: int) -> DebateSession:
    data = json.loads(session.state_json())
    ctx = SessionContext(client=_client(seed), model="offline", provider="offline")
    restored = kind_spec("debate").restore(ctx, data)
    assert isinstance(restored, DebateSession)
    restored.set_parallel(8)
    return restored


def test_a_restored_classical_session_is_the_same_state_and_ends_the_same():
    whole = _classical()
    assert run_steps(whole)
    halfway = _classical()
    assert run_steps(halfway, until="turn")
    while halfway.state.classical.next_speaker is None:  # stop with an interrupter waiting
        assert asyncio.run(halfway.perform(halfway.next_step()))
    restored = _restore(halfway, 0)
    assert restored.state == halfway.state
    assert run_steps(restored)
    assert restored.state.model_dump(mode="json") == whole.state.model_dump(mode="json")


def _run(db, *extra: str) -> int:
    return main(["run", "--kind", "debate", "--mode", "classical", "--offline", "--delay",
                 "0", "--db", str(db), "--deck", "ai-regulation", "--hand", ",".join(AI_SIX),
                 "--topic", TOPIC, *extra])


def test_run_mode_classical_prints_the_turns_and_ends(tmp_path, capsys):
    assert _run(tmp_path / "d.sqlite3") == 0
    out = capsys.readouterr().out
    assert "• Turn 1: " in out
    assert "interrupted by" in out and " cut in on " in out
    assert "Disagreement map (final)" in out


def test_mode_is_refused_for_a_kind_without_it(tmp_path, capsys):
    code = main(["run", "--kind", "tutor", "--mode", "classical", "--offline",
                 "--db", str(tmp_path / "t.sqlite3")])
    assert code == 2
    assert "no --mode option" in capsys.readouterr().err


@pytest.mark.parametrize("fmt", ["md", "json"])
def test_the_export_lists_the_classical_transcript_with_its_interruptions(tmp_path, capsys,
                                                                          fmt):
    db = tmp_path / "d.sqlite3"
    assert _run(db, "--quiet") == 0
    capsys.readouterr()
    with SessionStore.open(db) as store:
        sid = store.list_sessions()[0].id
        text = export_session(store, sid, fmt)
    if fmt == "json":
        entries = json.loads(text)["summary"]["transcript"]
        assert any(e["kind"] == "interrupted" and "cut off by" in e["text"] for e in entries)
        assert any(e["channel"] == "classical · turn 1" for e in entries)
        return
    assert "cut off by" in text and "(cutting in on" in text


def test_a_stored_classical_session_reopens_with_the_same_state(tmp_path):
    with SessionStore.open(tmp_path / "d.sqlite3") as store:
        handle = asyncio.run(start_session(
            "debate", store=store, client=_client(), model="offline", provider="offline",
            deck="ai-regulation", hand=",".join(AI_SIX), topic=TOPIC, mode="classical"))
        session = handle.session

        async def to_the_map() -> None:  # one loop: the session's call slots belong to it
            while session.state.phase != "map":
                assert await session.perform(session.next_step())

        asyncio.run(to_the_map())
        before = session.state.model_dump(mode="json")
        handle.close()
        again = reopen_session(handle.session_id, store=store, client=_client())
    restored = again.session
    assert restored.state.model_dump(mode="json") == before
    assert restored.state.mode == "classical" and restored.state.classical.turns
    assert restored.pending_payloads()[0].request.purpose == "map"
