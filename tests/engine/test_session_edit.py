"""The one way an editor changes a session's state: `SessionProtocol.edit`, shown with the
test-only panel kind. An edit is checked like an action, applied by the kind, announced
like an action (and so checkpointed), and a refused edit says why and changes nothing."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from pydantic import ValidationError

from roundtable_desktop.domain.events import (
    ActionFinished,
    ActionStarted,
    Event,
    StateChanged,
)
from roundtable_desktop.domain.refusal import Refusal
from roundtable_desktop.engine.base import Action, ActionUnavailable, Edit
from roundtable_desktop.engine.launch import SessionHandle, start_session
from roundtable_desktop.store.database import SessionStore
from tests.fakes.held_client import while_a_call_runs
from tests.fakes.panel_kind import (
    PanelSession,
    panel_kind,  # noqa: F401 (autouse: the panel kind)
)
from tests.fakes.scripted_model import ScriptedClient

VERDICT = '{"stance": "for", "confidence": 0.7, "reason": "Agendas save time."}'


@pytest.fixture
def store(tmp_path: Path):
    with SessionStore.open(tmp_path / "panel.sqlite3") as opened:
        yield opened


@pytest.fixture
def handle(store: SessionStore) -> SessionHandle:
    return asyncio.run(start_session("panel", store=store, client=ScriptedClient(
        default=VERDICT), model="m", provider="offline"))


def panel(handle: SessionHandle) -> PanelSession:
    assert isinstance(handle.session, PanelSession)
    return handle.session


def recorded(session: PanelSession) -> list[Event]:
    events: list[Event] = []
    session.bus.subscribe(events.append)
    return events


def test_an_edit_changes_the_state_and_is_announced_like_an_action(handle):
    session = panel(handle)
    events = recorded(session)

    done = session.edit(Edit(id="set_topic", params={"topic": "Tea or coffee?"}))

    assert session.state.topic == "Tea or coffee?"
    assert [type(e) for e in events] == [ActionStarted, StateChanged, ActionFinished]
    assert events[0].action == events[2].action == "set_topic"
    assert events[1].part == "topic"
    assert events[2].ok
    assert events[2].message == done.message == "The topic is now 'Tea or coffee?'."


def test_an_edit_is_checkpointed_by_the_store(handle, store):
    panel(handle).edit(Edit(id="set_topic", params={"topic": "Tea or coffee?"}))

    last = store.checkpoints(handle.session_id)[-1]
    assert last.action == "set_topic"
    assert last.state["panel"]["topic"] == "Tea or coffee?"


def test_the_next_payload_sees_an_edit_at_once(handle):
    session = panel(handle)
    session.edit(Edit(id="set_topic", params={"topic": "Tea or coffee?"}))
    assert "Tea or coffee?" in session.pending_payloads()[0].request.messages[0].content


def test_an_edit_refused_while_a_call_runs_says_why_and_changes_nothing(handle):
    session = panel(handle)
    events = recorded(session)

    refused = while_a_call_runs(session, Action(id="ask"), lambda: session.edit(
        Edit(id="set_topic", params={"topic": "Mid-call topic"})))

    assert isinstance(refused, ActionUnavailable)
    assert refused.message == "A call is running; wait for it or press Stop."
    assert session.state.topic != "Mid-call topic"
    assert not [e for e in events if isinstance(e, ActionStarted) and e.action == "set_topic"]


def test_the_edits_offered_while_a_call_runs_say_which_wait(handle):
    session = panel(handle)
    specs = while_a_call_runs(session, Action(id="ask"), session.edits)
    assert not isinstance(specs, Refusal)
    by_id = {s.id: s for s in specs}
    assert not by_id["set_topic"].enabled and "call is running" in by_id["set_topic"].reason
    assert by_id["set_rounds"].enabled


def test_an_edit_that_may_run_beside_a_call_is_made_while_one_runs(handle, store):
    session = panel(handle)
    done = while_a_call_runs(session, Action(id="ask"), lambda: session.edit(
        Edit(id="set_rounds", params={"rounds": 5})))
    assert not isinstance(done, Refusal)
    assert session.state.rounds == 5
    assert any(c.action == "set_rounds" for c in store.checkpoints(handle.session_id))


def test_an_edit_of_an_ended_session_is_refused_with_the_kinds_reason(handle):
    session = panel(handle)
    session.state.ended = True
    with pytest.raises(ActionUnavailable, match="The panel has ended"):
        session.edit(Edit(id="set_rounds", params={"rounds": 3}))


def test_an_unknown_edit_is_refused_by_name(handle):
    with pytest.raises(ActionUnavailable, match="Unknown edit 'set_mood'"):
        panel(handle).edit(Edit(id="set_mood"))


@pytest.mark.parametrize(("params", "sentence"), [
    ({}, "Topic needs topic."),
    ({"topic": "x", "mood": "calm"}, "Topic takes no mood (it takes topic)."),
    ({"topic": ""}, "Topic: topic is not usable (string should have at least 1 character)."),
    ({"topic": 42}, "Topic: topic is not usable (input should be a valid string)."),
])
def test_a_bad_params_value_is_refused_in_one_sentence(handle, params, sentence):
    session = panel(handle)
    events = recorded(session)
    with pytest.raises(ActionUnavailable) as refused:
        session.edit(Edit(id="set_topic", params=params))
    assert refused.value.message == sentence
    assert events == []


def test_an_edit_the_kind_refuses_changes_nothing_and_emits_nothing(handle):
    session = panel(handle)
    session.state.round = 3
    events = recorded(session)
    with pytest.raises(ActionUnavailable, match="Round 3 is already under way"):
        session.edit(Edit(id="set_rounds", params={"rounds": 2}))
    assert session.state.rounds == 2 and events == []


def test_edits_are_not_toolbar_actions(handle):
    session = panel(handle)
    assert "set_topic" not in {s.id for s in session.actions()}
    with pytest.raises(ActionUnavailable, match="Unknown action 'set_topic'"):
        asyncio.run(session.perform(Action(id="set_topic")))


def test_an_action_takes_a_kinds_arguments_only_as_params():
    assert Action(id="send", params={"channel": "ops"}).params == {"channel": "ops"}
    with pytest.raises(ValidationError, match="channel"):
        Action(id="send", channel="ops")  # type: ignore[call-arg]
