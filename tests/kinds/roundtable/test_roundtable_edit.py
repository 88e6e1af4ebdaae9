"""Seat edits keep the meeting's rules: one administrator seated first, 2..7 actors, unique
ids; a refused edit changes nothing; an accepted one is in the next payload."""

from __future__ import annotations

import asyncio

import pytest

from roundtable_desktop.domain.events import Event, StateChanged
from roundtable_desktop.engine.base import Action, ActionUnavailable, Edit
from roundtable_desktop.kinds.roundtable.actors import Actor, Role
from roundtable_desktop.kinds.roundtable.edit import (
    EDIT_ACTION,
    MAX_ACTORS,
    ActorEditError,
    add_actor,
    new_actor_id,
    remove_actor,
    update_actor,
)
from roundtable_desktop.kinds.roundtable.meeting import MeetingState
from roundtable_desktop.kinds.roundtable.session import RoundtableSession
from roundtable_desktop.kinds.roundtable.setup import new_meeting_state
from roundtable_desktop.kinds.roundtable.sources.mock_catalog import MockCatalog
from roundtable_desktop.llm.offline import OfflineClient
from tests.engine_fixtures import start_recorded
from tests.fakes.held_client import while_a_call_runs


@pytest.fixture
def state() -> MeetingState:
    return asyncio.run(new_meeting_state(MockCatalog.load()))


def _guest(state: MeetingState, name: str = "Guest") -> Actor:
    return Actor(id=new_actor_id(state), name=name, goal="Find one good video.")


def test_an_edited_goal_is_in_the_next_payload(state):
    session = RoundtableSession(state, client=OfflineClient(delay_s=0),
                                source=MockCatalog.load())
    update_actor(state, state.actor.id, goal="Only talks about orbital mechanics.")

    assert "Only talks about orbital mechanics." in session.pending_payloads()[0].document


def test_interests_may_be_given_as_comma_separated_text(state):
    actor = update_actor(state, state.actors[1].id, interests=" rag,  evals ,, agents ")

    assert actor.interests == ["rag", "evals", "agents"]


def test_an_empty_model_means_the_session_default(state):
    assert update_actor(state, state.actors[1].id, model="  ").model is None


def test_the_administrator_cannot_be_demoted(state):
    before = state.model_copy(deep=True)

    with pytest.raises(ActorEditError, match="administrator"):
        update_actor(state, state.actors[0].id, role=Role.PARTICIPANT)

    assert state == before


def test_a_second_administrator_is_refused(state):
    with pytest.raises(ActorEditError, match="Only one administrator"):
        update_actor(state, state.actors[1].id, role="administrator")


def test_unknown_fields_and_bad_values_are_refused_with_a_reason(state):
    with pytest.raises(ActorEditError, match="editable fields"):
        update_actor(state, state.actors[1].id, secret="x")
    with pytest.raises(ActorEditError, match="needs a name"):
        update_actor(state, state.actors[1].id, name="  ")
    with pytest.raises(ActorEditError, match="Unknown role"):
        update_actor(state, state.actors[1].id, role="king")


def test_adding_seats_stops_at_seven(state):
    while len(state.actors) < MAX_ACTORS:
        add_actor(state, _guest(state))

    with pytest.raises(ActorEditError, match="at most 7"):
        add_actor(state, _guest(state))


def test_an_added_actor_needs_a_fresh_valid_id(state):
    with pytest.raises(ActorEditError, match="already seated"):
        add_actor(state, Actor(id=state.actors[1].id, name="Twin"))
    with pytest.raises(ActorEditError, match="not valid"):
        add_actor(state, Actor.model_construct(id="Bad Id", name="X", role=Role.PARTICIPANT))


def test_removing_an_actor_keeps_the_current_speaker(state):
    state.current = 2
    speaker = state.actor.id
    gone = state.actors[1].id
    state.notes[gone] = []

    remove_actor(state, gone)

    assert state.actor.id == speaker
    assert gone not in state.notes


def test_the_current_speaker_and_the_administrator_stay_seated(state):
    with pytest.raises(ActorEditError, match="administrator"):
        remove_actor(state, state.actors[0].id)
    state.current = 1
    with pytest.raises(ActorEditError, match="turn"):
        remove_actor(state, state.actors[1].id)


def test_a_meeting_keeps_at_least_two_actors(state):
    while len(state.actors) > 2:
        remove_actor(state, state.actors[-1].id)

    with pytest.raises(ActorEditError, match="at least 2"):
        remove_actor(state, state.actors[-1].id)


def test_an_ended_meeting_cannot_be_edited(state):
    state.ended = True

    with pytest.raises(ActorEditError, match="ended"):
        update_actor(state, state.actors[1].id, goal="x")


# -- through the session's edit ------------------------------------------------------------
def _update(actor_id: str, **fields: object) -> Edit:
    return Edit(id=EDIT_ACTION, params={"change": "update", "actor_id": actor_id,
                                        "fields": fields})


def test_an_actor_edit_is_checkpointed_and_announced(store, catalog):
    handle = asyncio.run(start_recorded(store, OfflineClient(delay_s=0), catalog))
    session = handle.session
    events: list[Event] = []
    session.bus.subscribe(events.append)
    actor = session.state.actors[1]

    done = session.edit(_update(actor.id, goal="Keep the list short."))

    assert done.message == f"{actor.name} was edited."
    assert [(e.part, e.detail) for e in events if isinstance(e, StateChanged)] == [
        ("actors", done.message)]
    last = store.checkpoints(handle.session_id)[-1]
    assert last.action == "edit_actors"
    assert last.state["meeting"]["actors"][1]["goal"] == "Keep the list short."


def test_an_actor_edit_waits_while_a_call_runs_and_says_why(meeting):
    actor = meeting.state.actors[1]
    refused = while_a_call_runs(meeting, Action(id="infer"),
                                lambda: meeting.edit(_update(actor.id, goal="Mid-call.")))
    assert isinstance(refused, ActionUnavailable)
    assert "A call is running" in refused.message
    assert meeting.state.actors[1].goal != "Mid-call."


def test_a_guest_seat_is_added_and_removed_through_the_edit(meeting):
    before = len(meeting.state.actors)
    added = meeting.edit(Edit(id=EDIT_ACTION, params={"change": "add"}))
    assert len(meeting.state.actors) == before + 1
    assert meeting.state.actors[-1].id == added.actor_id
    assert "joined the table" in added.message

    gone = meeting.edit(Edit(id=EDIT_ACTION, params={"change": "remove",
                                                     "actor_id": added.actor_id}))
    assert len(meeting.state.actors) == before and "left the table" in gone.message


def test_a_rule_the_edit_breaks_is_refused_in_one_sentence(meeting):
    with pytest.raises(ActorEditError, match="administrator"):
        meeting.edit(_update(meeting.state.actors[0].id, role="participant"))
    with pytest.raises(ActionUnavailable, match="Edit actors needs the actor_id"):
        meeting.edit(Edit(id=EDIT_ACTION, params={"change": "remove"}))
    with pytest.raises(ActionUnavailable, match="change is not usable"):
        meeting.edit(Edit(id=EDIT_ACTION, params={"change": "paint"}))
