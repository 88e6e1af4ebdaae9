"""Seat edits keep the meeting's rules: one administrator seated first, 2..7 actors, unique
ids; a refused edit changes nothing; an accepted one is in the next payload."""

from __future__ import annotations

import asyncio

import pytest

from roundtable_desktop.kinds.roundtable.actors import Actor, Role
from roundtable_desktop.kinds.roundtable.edit import (
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
