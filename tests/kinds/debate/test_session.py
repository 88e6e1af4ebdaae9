"""The debate session: claims, stances, rounds from the previous round's state only,
merges, the final table and the map; shown is sent for every payload; a broken reply is
repaired once and then counts as uncertain with the failure shown; the offline demo
converges, for some seed, on a claim that started split."""

from __future__ import annotations

import asyncio
import json

import pytest

from roundtable_desktop.context.request_document import messages_from_document
from roundtable_desktop.domain.events import CallFinished, CallStarted, Notice, SessionEnded
from roundtable_desktop.domain.tokens import estimate_tokens
from roundtable_desktop.engine.base import Action
from roundtable_desktop.kinds.debate.context import SOURCES
from roundtable_desktop.kinds.debate.requests import PURPOSES
from roundtable_desktop.kinds.debate.summary import result_sentence
from roundtable_desktop.llm.offline import OfflineClient
from tests.kinds.debate.conftest import AI_EIGHT, debate_policies, make_session, run_steps


def _round_of(label: str) -> int | None:
    head, _, tail = label.rpartition("· round ")
    return int(tail) if head and tail.isdigit() else None


def test_the_steps_run_in_order_to_the_map(events_of):
    session = make_session()
    events = events_of(session)
    phases = []
    while not session.ended:
        phases.append(session.next_step().id)
        assert asyncio.run(session.perform(session.next_step()))
    assert phases == ["claims", "stances", "round", "merge", "round", "merge", "round",
                      "merge", "final", "map"]  # 3 rounds per table, a merge after each
    assert any(isinstance(e, SessionEnded) for e in events)
    s = session.state
    assert 2 <= len(s.claims) <= 4 and s.map is not None
    assert len(s.merges) == 3 and s.stop_reason == "schedule"


def test_no_agent_payload_in_a_round_contains_another_agents_answer_of_that_round(events_of):
    session = make_session(hand=AI_EIGHT)
    events = events_of(session)
    assert run_steps(session)
    started = {e.call_id: e for e in events if isinstance(e, CallStarted)
               and e.purpose == "answer"}
    answers: dict[int, dict[str, str]] = {}
    for e in events:
        if isinstance(e, CallFinished) and e.call_id in started:
            call = started[e.call_id]
            round_no = _round_of(call.label)
            answers.setdefault(round_no, {})[call.actor_id] = \
                json.loads(e.outcome.text)["response"]
    assert len(answers) == 4  # three table rounds and the final table
    seen_later = False
    for call in started.values():
        round_no = _round_of(call.label)
        body = json.dumps(call.request, ensure_ascii=False)
        for agent, response in answers[round_no].items():
            if agent != call.actor_id:
                assert json.dumps(response, ensure_ascii=False)[1:-1] not in body
        earlier = answers.get(round_no - 1, {})
        seen_later |= any(json.dumps(r, ensure_ascii=False)[1:-1] in body
                          for a, r in earlier.items() if a != call.actor_id)
    assert seen_later  # the previous round's answers do reach the next round


def test_every_agent_answers_at_once_in_a_round(events_of):
    session = make_session(hand=AI_EIGHT, parallel=8)
    assert run_steps(session, until="round")
    events = events_of(session)
    asyncio.run(session.perform(Action(id="round")))
    order = [e.type for e in events if e.type in ("call_started", "call_finished")]
    assert order[:8] == ["call_started"] * 8


def test_eight_agents_sit_at_two_tables_that_cover_every_open_crux():
    session = make_session(hand=AI_EIGHT)
    assert run_steps(session, until="final")
    s = session.state
    for merge in s.merges:
        assert [len(t.agents) for t in merge.tables] == [4, 4]
        assert merge.uncovered == []
    assert 3 <= len(s.tables[0].agents) <= 5  # the final table


def test_shown_is_sent_for_every_payload_and_every_purpose(events_of):
    session = make_session()
    events = events_of(session)
    purposes = set()
    while not session.ended:
        payloads = session.pending_payloads()
        assert payloads
        for payload in payloads:
            assert messages_from_document(payload.document) == payload.request.messages
        before = len(events)
        assert asyncio.run(session.perform(session.next_step()))
        sent = [e for e in events[before:] if isinstance(e, CallStarted)]
        assert [e.request for e in sent] == [p.request.to_body() for p in payloads] or \
            sorted(json.dumps(e.request) for e in sent) == \
            sorted(json.dumps(p.request.to_body()) for p in payloads)
        purposes |= {e.purpose for e in sent}
    assert purposes == set(PURPOSES)


def test_each_context_source_is_a_marked_layer_within_its_budget():
    session = make_session()
    assert run_steps(session, until="merge")
    assert run_steps(session, until="round")
    budget = session.state.budget
    for payload in session.pending_payloads():
        layers = {layer.name: layer for layer in payload.layers}
        assert set(SOURCES) <= set(layers)
        for name in SOURCES:
            text = layers[name].text
            assert text.startswith("## ")
            assert text in payload.request.messages[0].content
            assert estimate_tokens(text) <= getattr(budget, name)
    blackboard = {p.actor_id: p for p in session.pending_payloads()}
    some = next(iter(blackboard.values()))
    assert "Cross-table disagreement" in some.request.messages[0].content


def test_a_tight_budget_clips_a_section_by_whole_lines():
    session = make_session()
    session.state.budget.corpus = 60
    assert run_steps(session, until="round")
    payload = session.pending_payloads()[0]
    corpus = next(layer for layer in payload.layers if layer.name == "corpus")
    assert estimate_tokens(corpus.text) <= 60
    assert corpus.text.count('- "') < len(session.state.agents[0].contract.anchors)


def test_a_broken_stance_reply_is_repaired_once_then_counts_as_uncertain(events_of):
    policies = debate_policies()
    real = policies.find("debate", "stance")

    def broken_for_mara(request, seed):
        if "You are Mara Okafor" in request.messages[0].content:
            return "I refuse to answer in JSON."
        return real(request, seed)

    policies.register("debate", "stance", broken_for_mara)
    policies.register("debate", "repair", lambda request, seed: "still { not json")
    session = make_session(OfflineClient(delay_s=0, policies=policies))
    events = events_of(session)
    assert run_steps(session, until="round")
    mara_calls = [e for e in events if isinstance(e, CallStarted)
                  and e.actor_id == "mara-okafor"]
    claims = len(session.state.claims)
    assert [e.purpose for e in mara_calls].count("stance") == claims
    assert [e.purpose for e in mara_calls].count("repair") == claims  # one repair each
    for claim in session.state.claims:
        stance = session.state.latest_stance("mara-okafor", claim.id)
        assert stance.stance == "uncertain" and stance.confidence == 0.0
        assert "counted as uncertain" in stance.failed
    assert any(isinstance(e, Notice) and e.level == "warning" and "Mara" in e.message
               for e in events)
    text = " ".join(t.text for t in session.summary().transcript)
    assert "counted as uncertain" in text


def test_a_broken_answer_counts_as_uncertain_on_every_claim_with_the_failure_shown():
    policies = debate_policies()
    real = policies.find("debate", "answer")
    policies.register("debate", "answer", lambda r, s: "nope" if "You are Dev Lindqvist"
                      in r.messages[0].content else real(r, s))
    policies.register("debate", "repair", lambda request, seed: "nope again")
    session = make_session(OfflineClient(delay_s=0, policies=policies))
    assert run_steps(session, until="merge")
    turn = next(t for t in session.state.rounds[0].turns if t.agent == "dev-lindqvist")
    assert turn.failed.startswith("counted as uncertain")
    assert all(session.state.latest_stance("dev-lindqvist", c.id).stance == "uncertain"
               for c in session.state.claims)


@pytest.mark.parametrize("deck", ["ai-regulation", "remote-work"])
def test_the_offline_demo_converges_on_a_claim_that_started_split_for_some_seed(deck):
    from roundtable_desktop.kinds.debate.deck import load_deck

    loaded = load_deck(deck)
    moved = []
    for seed in range(8):
        session = make_session(OfflineClient(delay_s=0, seed=seed,
                                             policies=debate_policies()),
                               deck=deck, hand=loaded.demo_hand, topic=loaded.demo_topic)
        assert run_steps(session)
        assert session.state.map is not None and session.state.map.cruxes
        for o in session.state.outcomes:
            start = next(m for m in session.state.metrics
                         if m.event == 0 and m.claim == o.claim)
            if o.status == "converged" and start.entropy_bits > 0.9:
                moved.append((seed, o.claim))
    assert moved  # a claim that started split converged in at least one run


def test_the_deal_action_re_deals_the_hand_before_the_claims():
    session = make_session()
    ids = ["mara-okafor", "dev-lindqvist", "ines-barros"]
    assert asyncio.run(session.perform(Action(id="deal", params={"cards": ids},
                                              text="New topic?")))
    assert [a.id for a in session.state.agents] == ids
    assert session.state.topic == "New topic?"
    assert run_steps(session, until="stances")
    spec = session.action_spec("deal")
    assert not spec.enabled and "claims are drawn" in spec.reason


def test_a_deal_with_a_bad_hand_param_is_refused_in_one_sentence():
    session = make_session()
    before = [a.id for a in session.state.agents]
    notices: list[Notice] = []
    session.bus.subscribe(lambda e: notices.append(e) if isinstance(e, Notice) else None)

    assert not asyncio.run(session.perform(Action(id="deal", params={"hand": ["x"]})))

    assert [n.message for n in notices] == ["Deal a hand takes no hand (it takes cards)."]
    assert [a.id for a in session.state.agents] == before


def test_a_step_where_no_reply_could_be_read_changes_nothing_and_fails():
    from tests.fakes.scripted_model import ScriptedClient

    session = make_session(ScriptedClient(default="not json at all"))
    session.state.claims = []
    ok = asyncio.run(session.perform(Action(id="claims")))
    assert ok is False and session.state.phase == "claims"
    assert run_steps(make_session(), until="stances")  # the offline model gets past it


def test_an_agents_payload_holds_its_own_contract_and_no_other_agents():
    session = make_session()
    assert run_steps(session, until="round")
    for payload in session.pending_payloads():
        system = payload.request.messages[0].content
        for agent in session.state.agents:
            mine = agent.id == payload.actor_id
            assert (agent.contract.personality in system) is mine
            assert (agent.contract.flip_conditions in system) is mine


def test_a_debate_capped_at_one_event_stops_at_the_safety_cap_and_says_so(events_of):
    session = make_session(max_events=1)
    events = events_of(session)
    assert run_steps(session)
    assert len(session.state.merges) == 1
    assert session.state.stop_reason == "cap"
    ended = next(e for e in events if isinstance(e, SessionEnded))
    assert ended.reason == result_sentence(session.state)
    assert ended.reason.startswith("Stopped at the cap of 1 event: c")
