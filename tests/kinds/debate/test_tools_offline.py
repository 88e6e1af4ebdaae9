"""Tools in the offline debate end to end (blitz and classical), with the deck's bundled
records server (the app's own `serve-debate-data`, plainly fictional records): the
offline agents pull when a dispute is factual or their flip condition names data, what
came back is in their next request (source 5) with its citation, and the map's evidence
ledger cites it."""

from __future__ import annotations

import asyncio

import pytest

from roundtable_desktop.domain.events import CallStarted, ToolRan
from roundtable_desktop.kinds.debate.data_records import data_dir, load_records, search
from roundtable_desktop.kinds.debate.offline_reading import section
from tests.kinds.debate.conftest import make_session, run_steps
from tests.kinds.debate.offline_runs import play


@pytest.fixture(scope="module")
def played():
    session = make_session(bundled_tools=True)
    events: list = []
    session.bus.subscribe(events.append)
    assert run_steps(session)
    asyncio.run(session.aclose())
    return session.state, events


def test_the_offline_agents_pull_from_the_bundled_records(played):
    state, events = played
    cited = [p for p in state.pulls if p.ok and p.citation]
    assert cited and all("(fictional)" in p.citation for p in cited)
    assert {p.tool.split(".")[0] for p in state.pulls} == {"deck_data"}
    assert len([e for e in events if isinstance(e, ToolRan)]) == len(state.pulls)


def test_what_came_back_is_in_the_agents_next_request_as_sent(played):
    state, events = played
    pull = next(p for p in state.pulls if p.ok and p.citation)
    name = state.agent(pull.agent).name
    later = [e for e in events if isinstance(e, CallStarted) and e.purpose == "answer"
             and e.label == f"{name} · round {pull.round + 1}"]
    assert len(later) == 1
    system = later[0].request["messages"][0]["content"]
    tools = section(system, "TOOL OUTPUTS")
    assert f"[cited: {pull.citation}]" in tools
    assert pull.text.splitlines()[1] in tools


def test_the_maps_evidence_ledger_cites_what_was_pulled(played):
    state, _ = played
    cited = {e.agent: e.cited for e in state.map.evidence_ledger}
    for pull in (p for p in state.pulls if p.ok and p.citation):
        name = state.agent(pull.agent).name
        assert f"{pull.tool}: {pull.citation}" in cited[name]


def test_every_bundled_deck_has_fictional_dated_records_of_each_kind():
    for path in sorted(data_dir().glob("*.json")):
        records = load_records(path)
        assert "invented" in records.notice
        assert {r.kind for r in records.items} == {"figures", "filings", "news"}
        assert all("(fictional)" in r.source and len(r.date) == 10 for r in records.items)
        assert search(records, "figures", "nothing matches this zzz") == []


def test_in_classical_mode_the_speakers_tool_calls_go_to_the_sidebar_and_its_next_speech():
    run = play("ai-regulation", 0, "classical", bundled_tools=True)
    state = run.session.state
    asyncio.run(run.session.aclose())
    entries = [e for e in state.classical.sidebar if e.kind == "tool"]
    assert entries and len(entries) == len(state.pulls)
    speeches = [e for e in run.events if isinstance(e, CallStarted)
                and e.purpose == "speech"]

    def turn_of(label: str) -> int:
        return int(label.rsplit(" ", 1)[1])

    spoke_again = [(p, e) for p in state.pulls if p.citation for e in speeches
                   if e.actor_id == p.agent and turn_of(e.label) > p.round]
    assert spoke_again  # seed 0: someone who pulled records spoke again
    pull, later = spoke_again[0]
    entry = next(e for e in entries if e.turn == pull.round and e.agent == pull.agent)
    assert entry.source == f"{pull.tool} — {pull.citation}"
    tools = section(later.request["messages"][0]["content"], "TOOL OUTPUTS")
    assert f"[cited: {pull.citation}]" in tools


def test_a_debate_stepped_under_a_new_event_loop_each_step_still_plays_to_its_end():
    # A script (or a comparison's test) may drive each step with its own asyncio.run:
    # a round's tool runs, cancelled when their loop closed, must not stop the merge.
    session = make_session(bundled_tools=True)
    for _ in range(30):
        if session.ended:
            break
        step = session.next_step()
        assert step is not None
        assert asyncio.run(session.perform(step))
    asyncio.run(session.aclose())
    assert session.ended
