"""Classical mode, one turn at a time against a scripted model: the most urgent agent
speaks; when everyone listens the turn is silent; a listener cuts in between two
sentences (the speech call cancelled after sentence one, the interrupter speaking next,
the transcript marked); re-planning stops at its cap."""

from __future__ import annotations

import asyncio

from roundtable_desktop.domain.calls import CallStatus
from roundtable_desktop.domain.events import CallFinished, CallStarted, StateChanged
from roundtable_desktop.domain.words import sentences
from roundtable_desktop.engine.base import Action
from roundtable_desktop.kinds.debate.classical.session import choose_speaker
from roundtable_desktop.kinds.debate.classical.speech import (
    SentenceSplitter,
)
from roundtable_desktop.kinds.debate.classical.state import ClassicalTurn, PlanRecord
from roundtable_desktop.kinds.debate.session import DebateSession
from tests.kinds.debate.classical_client import RoutedClient, plan
from tests.kinds.debate.conftest import make_session, run_steps

MARA, DEV, INES = "Mara Okafor", "Dev Lindqvist", "Ines Barros"


def _at_first_turn(client: RoutedClient, **options) -> DebateSession:
    """A classical debate with its claims and stances drawn offline, then the scripted
    model for the turns."""
    session = make_session(mode="classical", **options)
    assert run_steps(session, until="turn")
    session.client = client
    return session


def _turn(session: DebateSession) -> bool:
    return asyncio.run(session.perform(Action(id="turn")))


def test_a_classical_debate_goes_from_its_stances_to_turns():
    session = make_session(mode="classical")
    assert run_steps(session, until="turn")
    assert session.state.mode == "classical" and session.state.phase == "turn"
    assert session.next_step() == Action(id="turn")
    assert "classical" in session.summary().title


def test_the_most_urgent_agent_speaks():
    client = RoutedClient()
    client.on("plan", MARA, plan("speak", 0.4)).on("plan", DEV, plan("speak", 0.9))
    client.on("plan", INES, plan("interrupt", 0.6))
    client.on("speech", DEV, "One point. Two points.")
    session = _at_first_turn(client)
    assert _turn(session)
    turn = session.state.classical.turns[0]
    assert turn.speaker == "dev-lindqvist" and turn.urgency == 0.9
    assert turn.sentences == ["One point.", "Two points."] and not turn.silent
    assert len(client.sent("speech")) == 1
    assert {p.agent for p in session.state.classical.plans if p.after_sentence == 0} == \
        {a.id for a in session.state.agents}


def test_a_tie_goes_to_the_agent_who_has_spoken_least():
    session = _at_first_turn(RoutedClient())
    c = session.state.classical
    c.turns.append(ClassicalTurn(index=1, speaker="mara-okafor", sentences=["Hi."]))
    tied = [PlanRecord(agent="mara-okafor", turn=2, action="speak", urgency=0.7),
            PlanRecord(agent="dev-lindqvist", turn=2, action="speak", urgency=0.7)]
    assert choose_speaker(session.state, tied).agent == "dev-lindqvist"


def test_when_everyone_listens_the_turn_is_silent(events_of):
    client = RoutedClient()  # every plan: listen
    session = _at_first_turn(client)
    events = events_of(session)
    assert _turn(session)
    turn = session.state.classical.turns[0]
    assert turn.silent and turn.speaker is None and not turn.sentences
    assert client.sent("speech") == []
    assert any(isinstance(e, StateChanged) and e.part == "narration" and "silence" in e.detail
               for e in events)
    assert any(e.kind == "silent" for e in session.summary().transcript)


def test_a_listener_cuts_in_between_two_sentences(events_of):
    client = RoutedClient()
    client.on("plan", DEV, plan("speak", 0.6))
    client.on("speech", DEV, "First point here. Second point never ends")
    client.hold_after[DEV] = "Second "  # the stream stalls mid-sentence two
    # At the turn's start Mara listens; after Dev's first sentence she cuts in.
    client.on("plan", MARA, plan("listen", 0.2), plan("interrupt", 0.9, "Stop Dev."))
    client.on("speech", MARA, "Dev, that is wrong. Here is why.")
    session = _at_first_turn(client)
    events = events_of(session)
    assert _turn(session)

    c = session.state.classical
    first = c.turns[0]
    assert first.speaker == "dev-lindqvist"
    assert first.sentences == ["First point here."]
    assert first.interrupted_by == "mara-okafor" and first.cut_off == "Second"
    speech = next(e for e in events if isinstance(e, CallStarted) and e.purpose == "speech")
    done = next(e for e in events if isinstance(e, CallFinished) and e.call_id == speech.call_id)
    assert done.outcome.status == CallStatus.CANCELLED
    assert done.outcome.text == "First point here. Second "  # the record keeps it all
    assert done.outcome.error == "Interrupted by Mara Okafor."
    assert any(isinstance(e, StateChanged) and e.part == "interruption"
               and e.detail == "mara-okafor>dev-lindqvist" for e in events)

    before = len(client.requests)
    assert session.pending_payloads()[0].request.purpose == "speech"
    assert _turn(session)
    second = c.turns[1]
    assert second.speaker == "mara-okafor" and second.interrupts == "dev-lindqvist"
    assert second.sentences == ["Dev, that is wrong.", "Here is why."]
    assert client.sent("speech")[-1].messages[-1].content.count("YOU CUT IN ON: Dev")
    # The interrupter had the floor: the turn began with her speech, not a plan round.
    assert client.requests[before].purpose == "speech"
    assert all(r.purpose != "plan" or "SPEAKER: Mara" in r.user_text()
               for r in client.requests[before:])
    texts = [e.text for e in session.summary().transcript if e.channel.startswith("classical")]
    assert texts[0] == "First point here. — cut off by Mara Okafor"
    assert texts[1].startswith("(cutting in on Dev Lindqvist) Dev, that is wrong.")


def test_an_interrupter_needs_more_urgency_than_the_speaker():
    client = RoutedClient()
    client.on("plan", DEV, plan("speak", 0.8))
    client.on("speech", DEV, "First point here. Second point. Third point.")
    client.on("plan", MARA, plan("listen", 0.2), plan("interrupt", 0.7))
    session = _at_first_turn(client)
    assert _turn(session)
    turn = session.state.classical.turns[0]
    assert turn.interrupted_by is None and len(turn.sentences) == 3


def _plans_during_speech(events) -> list[str]:
    return [e.label for e in events if isinstance(e, CallStarted) and e.purpose == "plan"
            and "after sentence" in e.label]


def test_re_planning_stops_after_the_capped_number_of_sentences(events_of):
    client = RoutedClient()
    client.on("plan", DEV, plan("speak", 0.9))
    client.on("speech", DEV, "One. Two. Three. Four. Five.")
    session = _at_first_turn(client, replan_sentences=2)
    events = events_of(session)
    assert _turn(session)
    turn = session.state.classical.turns[0]
    listeners = len(session.state.agents) - 1
    assert turn.replans == 2 and len(turn.sentences) == 5
    labels = _plans_during_speech(events)
    assert len(labels) == 2 * listeners
    assert {label.rsplit("(", 1)[1] for label in labels} == {"after sentence 1)",
                                                            "after sentence 2)"}


def test_no_re_planning_when_the_cap_is_zero(events_of):
    client = RoutedClient()
    client.on("plan", DEV, plan("speak", 0.9))
    client.on("speech", DEV, "One. Two. Three.")
    session = _at_first_turn(client, replan_sentences=0)
    events = events_of(session)
    assert _turn(session)
    assert _plans_during_speech(events) == []
    assert session.state.classical.turns[0].replans == 0


def test_the_speakers_update_moves_the_blackboard_and_fills_the_sidebar():
    client = RoutedClient()
    client.on("plan", DEV, plan("speak", 0.9))
    client.on("speech", DEV, "One point.")
    client.on("update", DEV, '{"stances": [{"claim": "c1", "stance": "uncertain", '
                             '"confidence": 0.3}], "new_cruxes": [{"claim": "c1", "text": '
                             '"Whether incident counts are comparable across labs"}], '
                             '"flip_triggers": [], "cited": ["e1"]}')
    session = _at_first_turn(client)
    assert _turn(session)
    s = session.state
    now = s.latest_stance("dev-lindqvist", "c1")
    assert (now.stance, now.confidence, now.round) == ("uncertain", 0.3, 1)
    assert any("incident counts" in c.text for c in s.cruxes)
    entry = s.classical.sidebar[0]
    assert entry.turn == 1 and entry.agent == "dev-lindqvist" and entry.kind == "citation"
    assert entry.snippet in {a.text for a in s.agent("dev-lindqvist").contract.anchors}
    assert entry.snippet not in " ".join(s.classical.turns[0].sentences)  # not inline


def test_sentences_end_at_a_stop_followed_by_space_not_inside_numbers_or_abbreviations():
    splitter = SentenceSplitter()
    found = []
    for piece in ["Rates fell 0.", "7 points, e.g. in the U.S. market", ". Did ", "they? Yes",
                  "!\" she said. Then"]:
        found += splitter.feed(piece)
    assert found == ["Rates fell 0.7 points, e.g. in the U.S. market.", "Did they?",
                     "Yes!\"", "she said."]
    assert splitter.flush() == "Then"
    assert sentences("One. Two") == ["One.", "Two"]


def test_stop_during_a_speech_keeps_its_whole_sentences_and_marks_the_turn(events_of):
    client = RoutedClient()
    client.on("plan", DEV, plan("speak", 0.9))
    client.on("speech", DEV, "First point here. Second point never ends")
    client.hold_after[DEV] = "Second "
    session = _at_first_turn(client, replan_sentences=0)
    events = events_of(session)

    async def run() -> bool:
        task = asyncio.ensure_future(session.perform(Action(id="turn")))
        while not (session.state.classical.live and session.state.classical.live.sentences):
            await asyncio.sleep(0)
        await asyncio.sleep(0.01)  # the stream reaches its stall
        assert await session.perform(Action(id="stop"))
        return await task

    assert not asyncio.run(run())
    turn = session.state.classical.turns[0]
    assert turn.sentences == ["First point here."] and turn.interrupted_by is None
    assert turn.failed == "Stopped by the user." and turn.cut_off == "Second"
    done = [e for e in events if isinstance(e, CallFinished) and e.purpose == "speech"]
    assert done[0].outcome.status == CallStatus.CANCELLED
    assert session.state.classical.next_speaker is None
