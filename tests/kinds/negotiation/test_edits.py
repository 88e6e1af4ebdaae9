"""The negotiation's settings and draft text are edits (SessionProtocol.edit): checkpointed
and announced like an action; the settings may still be made while a turn's calls run,
the draft's text only while it waits to be sent."""

from __future__ import annotations

import pytest

from roundtable_desktop.domain.events import StateChanged
from roundtable_desktop.domain.refusal import Refusal
from roundtable_desktop.engine.base import Action, ActionUnavailable, Edit, Edited
from roundtable_desktop.engine.launch import record_session
from roundtable_desktop.store.database import SessionStore
from tests.fakes.held_client import while_a_call_runs


def test_a_setting_edit_is_checkpointed_and_announced(game, tmp_path):
    with SessionStore.open(tmp_path / "negotiation.sqlite3") as store:
        handle = record_session(game.session, kind="negotiation", store=store,
                                client=game.client, model="test-model", provider="offline")

        game.edit("set_sampling", seat="keeper", sampling={"temperature": 0.4})

        changed = game.of_type(StateChanged)[-1]
        assert (changed.part, changed.detail) == ("sampling", "KEEPER")
        last = store.checkpoints(handle.session_id)[-1]
        assert last.action == "set_sampling"
        assert last.state["negotiation"]["sides"]["KEEPER"]["sampling"]["temperature"] == 0.4
        handle.close()


def test_a_setting_may_still_be_made_while_a_turns_call_runs(game):
    done = while_a_call_runs(game.session, Action(id="take_turn"), lambda: game.session.edit(
        Edit(id="set_guidance", params={"target": "planner", "text": "Be brief."})))
    assert isinstance(done, Edited)
    assert game.state.planner_guidance == "Be brief."


def test_the_draft_edit_is_refused_while_a_call_runs_and_says_why(game):
    """No draft waits while a turn's calls run (the turn makes it), so that is the why."""
    refused = while_a_call_runs(game.session, Action(id="take_turn"), lambda: game.session.edit(
        Edit(id="edit_draft", params={"text": "Mid-call words."})))
    assert isinstance(refused, Refusal)
    assert refused.message == "No draft is waiting to be sent."


def test_a_waiting_draft_edited_is_announced_with_its_relay(game):
    game.edit("set_flow", flow="confirm")
    game.do("take_turn")
    game.do("pick_option", option=0)
    side = game.state.current.side

    done = game.edit("edit_draft", text="One evening, and you keep the key.")

    assert game.state.current.draft == "One evening, and you keep the key."
    assert [c.part for c in done.changes] == ["draft", "relay"] and done.actor_id == side


@pytest.mark.parametrize(("edit_id", "params", "sentence"), [
    ("set_guidance", {"target": "observer", "channel": "observer"},
     "Guidance takes no channel (it takes target, text)."),
    ("set_guidance", {"target": "judge"},
     "Guidance is for the observer or the planner (got 'judge')."),
    ("set_sampling", {"seat": "ALLY", "traits": {"temperature": 0.3}},
     "Sampling takes no traits (it takes seat, sampling)."),
    ("set_flow", {"flow": "sideways"}, "Flow mode must be one of manual, confirm, auto."),
    ("set_seat", {"seat": "ALLY"}, "Human or AI seat needs human."),
])
def test_a_bad_setting_is_refused_in_one_sentence(game, edit_id, params, sentence):
    with pytest.raises(ActionUnavailable) as refused:
        game.edit(edit_id, **params)
    assert refused.value.message == sentence
