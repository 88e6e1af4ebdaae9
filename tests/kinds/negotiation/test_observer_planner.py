"""The observer (purpose `observer`) and the planner (purpose `planner`): what they are sent,
how their JSON is read, what happens when it cannot be, and forced diversity."""

from __future__ import annotations

import json

import pytest

from roundtable_desktop.domain.events import Notice
from roundtable_desktop.engine.base import ActionUnavailable
from roundtable_desktop.kinds.negotiation.scenario import TRAITS

GOOD_MODEL = json.dumps({
    "dims": dict.fromkeys(TRAITS, 2), "prior": "Guarded.", "posterior": "Still guarded.",
    "myth": "The last wall.", "tone": "cold", "rationale": "Refuses twice.",
})


def test_the_observer_is_a_neutral_analyst_given_the_last_8_messages_as_who_text(game):
    game.client.answer("adjudicate", lambda r, s: '{"outcome": "continue", "reason": "On."}')
    for _ in range(9):
        game.do("take_turn")
    request = game.client.of("observer")[-1]
    system, user = request.messages[0].content, request.messages[1].content
    assert "neutral analyst" in system and "demographics" in system
    assert "dims, prior, posterior, myth, tone, rationale" in system.replace('"', "") or \
        all(f'"{k}"' in system for k in ("dims", "prior", "posterior", "myth", "tone"))
    snippet = user.split("CHAT SNIPPET (most recent turns):\n", 1)[1].splitlines()
    recent = game.state.messages()[-9:-1]
    assert snippet == [f"{e.who}: {e.text}" for e in recent]
    assert request.response_format == {"type": "json_object"}


def test_the_observer_models_the_last_speaker_and_updates_its_model(game):
    game.client.answer_once("observer", GOOD_MODEL)
    game.do("take_turn")
    keeper = game.state.sides["KEEPER"].observed
    assert keeper.dims.as_dict() == dict.fromkeys(TRAITS, 2)
    assert (keeper.tone, keeper.myth, keeper.turn, keeper.error) == ("cold", "The last wall.",
                                                                      1, "")
    assert game.client.of("observer")[0].messages[1].content.startswith("Model KEEPER")


def test_observer_guidance_is_a_layer_of_its_prompt(game):
    game.edit("set_guidance", target="observer", text="Watch for bluffing.")
    game.do("take_turn")
    system = game.client.of("observer")[0].messages[0].content
    assert system.startswith("OBSERVER_GUIDANCE: Watch for bluffing.")


def test_a_broken_observer_reply_gets_one_repair_then_keeps_the_old_model(game):
    before = game.state.sides["KEEPER"].observed.dims
    game.client.answer_once("observer", "the keeper seems stern")
    game.client.answer_once("repair", "{still not json")
    game.do("take_turn")
    purposes = [r.purpose for r in game.client.requests]
    assert purposes[:2] == ["observer", "repair"]
    assert purposes.count("repair") == 1
    keeper = game.state.sides["KEEPER"].observed
    assert keeper.dims == before and keeper.error
    assert any(n.level == "warning" and "previous model is kept" in n.message
               for n in game.of_type(Notice))
    # The turn went on with the old model in the draft.
    assert game.state.turn_count == 1
    assert game.state.kpis.observer_failures == 1


def test_a_repaired_observer_reply_updates_the_model(game):
    game.client.answer_once("observer", "not json at all")
    game.client.answer_once("repair", GOOD_MODEL)
    game.do("take_turn")
    assert game.state.sides["KEEPER"].observed.tone == "cold"


def test_the_offline_repair_answers_as_the_call_it_repairs(game):
    game.client.answer_once("observer", "garbage")
    game.do("take_turn")
    assert game.state.sides["KEEPER"].observed.rationale.startswith("Of ")


def test_an_out_of_range_trait_from_the_observer_is_a_bad_reply(game):
    bad = json.loads(GOOD_MODEL)
    bad["dims"]["risk"] = 9
    game.client.answer_once("observer", json.dumps(bad))
    game.client.answer_once("repair", json.dumps(bad))
    game.do("take_turn")
    assert game.state.sides["KEEPER"].observed.error


def test_the_planner_gets_role_memo_chat_acts_conflict_and_obstacle(game):
    game.edit("set_guidance", target="planner", text="Be bold.")
    game.do("take_turn")
    request = game.client.of("planner")[0]
    user = request.messages[1].content
    for label in ("ROLE: ALLY", "MEMO: ", "CHAT SNIPPET:", "ANTI_MIRROR:", "LAST_SELF_ACT: NONE",
                  "LAST_OTHER_ACT: NONE", "CORE_CONFLICT: Ally seeks autonomy",
                  "CURRENT_OBSTACLE:", "FORCE_DIVERSITY: no"):
        assert label in user
    assert request.messages[0].content.startswith("PLANNER_GUIDANCE: Be bold.")
    assert request.response_schema["type"] == "array"


def test_planner_options_are_4_to_6_each_with_a_discourse_act(game):
    game.edit("set_flow", flow="confirm")
    game.do("take_turn")
    options = game.state.current.options
    assert 4 <= len(options) <= 6
    assert {o.act for o in options} <= {"ASK", "PROPOSE", "EVALUATE", "COMMIT", "CHALLENGE",
                                         "USE_CUNNING"}


def test_an_unreadable_planner_reply_offers_rule_made_options(game):
    game.client.answer_once("planner", "[]")
    game.client.answer_once("repair", "[{\"text\": \"x\"}]")
    game.edit("set_flow", flow="confirm")
    game.do("take_turn")
    assert len(game.state.current.options) == 6
    assert game.state.kpis.planner_failures == 1
    assert any("rule-made options" in n.message for n in game.of_type(Notice))


def test_a_tripped_loop_guard_forces_planner_diversity(game):
    same = "We are going around in circles and I say it again and again."
    game.client.answer("reply", lambda r, s: same)
    game.client.answer("adjudicate", lambda r, s: '{"outcome": "continue", "reason": "On."}')
    for _ in range(4):
        game.do("take_turn")
    assert game.state.kpis.loop_trips >= 1
    planner = game.client.of("planner")[-1]
    assert "FORCE_DIVERSITY: yes" in planner.messages[1].content
    assert "FORCE_DIVERSITY:" in planner.messages[0].content  # the diversity layer
    loop = [e for e in game.state.log if e.type == "LOOP"]
    assert loop and "must diversify" in loop[-1].text


def test_loop_guard_threshold_and_window_are_editable(game):
    game.edit("set_loop_guard", loop_guard={"threshold": 0.95, "window": 2, "max_trips": 5})
    assert (game.state.loop.threshold, game.state.loop.window, game.state.loop.max_trips) == \
        (0.95, 2, 5)
    game.do("take_turn")
    assert game.state.guards["ALLY"].window == 2
    with pytest.raises(ActionUnavailable, match="threshold"):
        game.edit("set_loop_guard", loop_guard={"threshold": 3})
