"""The phased sequencer: phases in order and recorded, flow modes, human turns, relay."""

from __future__ import annotations

import asyncio

import pytest

from roundtable_desktop.domain.events import (
    ActionFinished,
    CallStarted,
    PhaseChanged,
    StateChanged,
    TokenReceived,
)
from roundtable_desktop.engine.base import Action, ActionUnavailable
from roundtable_desktop.engine.launch import start_session
from roundtable_desktop.llm.offline import OfflineClient

AI_PHASES = ["MEMO_REFRESH", "OBSERVE", "MODEL", "PLAN", "DRAFT", "SPEAK", "SEND"]
HUMAN_PHASES = ["MEMO_REFRESH", "OBSERVE", "MODEL", "SEND"]


def test_an_ai_turn_runs_every_phase_in_order(game):
    game.do("take_turn")
    assert game.phases() == AI_PHASES
    assert [r.purpose for r in game.client.requests] == ["observer", "planner", "reply"]
    assert game.state.turn_count == 1 and game.state.turn_side == "KEEPER"
    assert game.state.current is None and game.state.phase == "IDLE"


def test_each_phase_event_names_the_side_and_the_turn(game):
    game.do("take_turn")
    seq = [e for e in game.of_type(PhaseChanged) if e.phase in AI_PHASES]
    assert {(e.actor_id, e.detail) for e in seq} == {("ALLY", "turn 1")}


def test_a_human_turn_skips_plan_draft_and_speak(make_game):
    game = make_game(human="ALLY")
    assert game.session.awaiting_human() == game.state.sides["ALLY"].name
    assert game.session.next_step() is None
    game.do("send", text="I propose that we start with one key.")
    assert game.phases() == HUMAN_PHASES
    assert [r.purpose for r in game.client.requests] == ["observer"]
    message = game.state.messages()[-1]
    assert (message.who, message.act, message.human) == ("ALLY", "PROPOSE", True)


def test_an_ai_seat_cannot_send_a_human_line_and_a_human_seat_cannot_take_an_ai_turn(make_game):
    game = make_game()
    specs = {s.id: s for s in game.session.actions()}
    assert not specs["send"].enabled and "AI seat" in specs["send"].reason
    game.edit("set_seat", seat="ALLY", human=True)
    specs = {s.id: s for s in game.session.actions()}
    assert not specs["take_turn"].enabled and "human seat" in specs["take_turn"].reason
    assert specs["send"].enabled


def test_confirm_mode_stops_at_plan_until_an_option_is_picked(game):
    game.edit("set_flow", flow="confirm")
    game.do("take_turn")
    assert game.phases() == AI_PHASES[:4]
    assert game.of_type(PhaseChanged)[-2].detail == "waiting for a pick"
    assert game.state.current.phase == "PLAN"
    assert 4 <= len(game.state.current.options) <= 6
    assert [r.purpose for r in game.client.requests] == ["observer", "planner"]
    pick = next(s for s in game.session.actions() if s.id == "pick_option")
    assert pick.enabled and len(pick.options) == len(game.state.current.options)
    assert not next(s for s in game.session.actions() if s.id == "take_turn").enabled


def test_confirm_mode_waits_before_send_with_the_draft_editable(game):
    game.edit("set_flow", flow="confirm")
    game.do("take_turn")
    game.do("pick_option", option=1)
    assert game.state.current.phase == "SPEAK" and game.state.current.draft
    assert game.state.turn_count == 0
    game.edit("edit_draft", text="Let us try one evening, and you keep the key.")
    assert game.state.sides["KEEPER"].input_text.startswith("Let us try one evening")
    game.do("send_draft")
    assert game.state.messages()[-1].text == "Let us try one evening, and you keep the key."
    assert game.state.messages()[-1].act == "PROPOSE"
    assert game.phases()[-1] == "SEND"


def test_headless_confirm_mode_steps_pick_then_send(game):
    game.edit("set_flow", flow="confirm")
    assert game.session.next_step().id == "take_turn"
    game.do("take_turn")
    step = game.session.next_step()
    assert step.id == "pick_option" and step.option is not None
    asyncio.run(game.session.perform(step))
    assert game.session.next_step().id == "send_draft"


def test_a_picked_option_that_does_not_exist_is_refused(game):
    game.edit("set_flow", flow="confirm")
    game.do("take_turn")
    assert game.do("pick_option", option=9) is False
    assert game.state.current.phase == "PLAN"


def test_the_reply_is_relayed_into_the_other_sides_input(game):
    game.do("take_turn")
    said = game.state.messages()[-1].text
    assert game.state.sides["KEEPER"].input_text == said
    assert StateChanged(part="relay", detail="KEEPER").part in {
        e.part for e in game.of_type(StateChanged) if e.detail == "KEEPER"}


def test_a_human_seat_sends_the_relayed_text_when_it_writes_nothing(game):
    game.edit("set_seat", seat="KEEPER", human=True)
    game.do("take_turn")
    relayed = game.state.sides["KEEPER"].input_text
    game.edit("edit_relay", seat="KEEPER", text=relayed + " Not today.")
    game.do("send")
    assert game.state.messages()[-1].text == relayed + " Not today."
    assert game.state.sides["KEEPER"].input_text == ""


def test_relay_off_leaves_the_other_input_alone(game):
    game.edit("set_relay", relay=False)
    game.do("take_turn")
    assert game.state.sides["KEEPER"].input_text == ""


def test_speak_says_which_side_to_read_aloud_with_its_text(game):
    game.edit("set_voice", seat="ALLY", voice="mock-voice", speak=True)
    game.do("take_turn")
    assert any(e.part == "speak" and e.detail == "ALLY" for e in game.of_type(StateChanged))
    ally = game.state.sides["ALLY"]
    assert (ally.voice, ally.speak, ally.last_text) == ("mock-voice", True,
                                                       game.state.messages()[-1].text)


def test_auto_flow_runs_capped_turns_and_stops_at_the_cap(game):
    game.edit("set_flow", flow="auto")
    game.do("auto", steps=3)
    assert game.state.turn_count == 3


def test_auto_pauses_at_a_human_seat(make_game):
    game = make_game(human="KEEPER")
    game.do("auto", steps=5)
    assert game.state.turn_count == 1
    assert game.session.awaiting_human() == game.state.sides["KEEPER"].name


def test_the_log_is_append_only_with_self_snapshots_on_each_message(game):
    game.do("take_turn")
    before = [e.model_dump() for e in game.state.log]
    game.do("take_turn")
    assert [e.model_dump() for e in game.state.log[:len(before)]] == before
    message = game.state.messages()[-1]
    assert message.ally_self == game.state.sides["ALLY"].self_profile.as_dict()
    assert message.keeper_self == game.state.sides["KEEPER"].self_profile.as_dict()


def test_last_acts_counterpart_intents_and_kpis_follow_each_message(game):
    game.do("take_turn")
    said = game.state.messages()[-1]
    assert game.state.sides["ALLY"].last_act == said.act
    assert game.state.sides["KEEPER"].counterpart_intent == said.intent
    assert game.state.kpis.messages["ALLY"] == 1
    assert game.state.kpis.acts["ALLY"] == {said.act: 1}
    assert len(game.state.kpis.directive_history["ALLY"]) == 1


def test_the_trait_history_has_a_point_per_turn_for_the_plots(game):
    game.do("take_turn")
    game.do("take_turn")
    points = game.state.trait_history
    assert [p.turn for p in points] == [0, 1, 2]
    assert points[-1].observed["ALLY"] == game.state.sides["ALLY"].observed.dims.as_dict()
    assert [p.turn for p in game.state.influence_history] == [0, 1, 2]


def test_phase_events_are_recorded_in_the_store(store):
    async def play():
        handle = await start_session("negotiation", store=store, client=OfflineClient(delay_s=0),
                                     model="offline", provider="offline")
        await handle.session.perform(Action(id="take_turn"))
        return handle.session_id

    session_id = asyncio.run(play())
    phases = [e.phase for e in store.events(session_id) if isinstance(e, PhaseChanged)]
    assert [p for p in phases if p in AI_PHASES] == AI_PHASES


def _stop_at_first_token_of(game, purpose: str) -> None:
    ids: set[str] = set()
    done: list[bool] = []

    def listen(event) -> None:
        if isinstance(event, CallStarted) and event.purpose == purpose and not done:
            ids.add(event.call_id)
        elif isinstance(event, TokenReceived) and event.call_id in ids:
            ids.clear()
            done.append(True)  # once
            game.session.stop()

    game.session.bus.subscribe(listen)


def test_stop_during_the_planner_ends_the_turn_without_drafting(game):
    _stop_at_first_token_of(game, "planner")
    assert game.do("take_turn") is False
    assert [r.purpose for r in game.client.requests] == ["observer", "planner"]
    assert game.state.current is None and game.state.turn_count == 0
    assert next(s for s in game.session.actions() if s.id == "take_turn").enabled


def test_stop_during_the_draft_waits_at_the_pick(game):
    _stop_at_first_token_of(game, "reply")
    assert game.do("take_turn") is False
    assert game.state.current.phase == "PLAN" and game.state.turn_count == 0
    assert game.session.next_step().id == "pick_option"
    assert game.do("pick_option") is True
    assert game.state.turn_count == 1


def test_settings_are_not_toolbar_actions_but_are_offered_to_the_docks(game):
    toolbar = {s.id for s in game.session.actions()}
    assert toolbar == {"take_turn", "pick_option", "send_draft", "adjudicate", "auto", "stop",
                       "send"}
    docks = {s.id for s in game.session.edits()}
    assert {"set_traits", "set_seat", "set_flow", "set_sampling", "set_model", "set_voice",
            "set_loop_guard", "set_guidance", "set_relay", "edit_relay", "set_policies",
            "edit_draft"} == docks


def test_editing_a_draft_is_refused_when_none_waits(game):
    with pytest.raises(ActionUnavailable, match="No draft is waiting"):
        game.edit("edit_draft", text="Hello")
    assert game.state.current is None


def test_a_setting_is_recorded_as_an_action_and_announced(game):
    game.edit("set_flow", flow="auto")
    assert game.state.flow == "auto"
    assert game.of_type(ActionFinished)[-1].action == "set_flow"
    assert any(e.part == "flow" and e.detail == "auto" for e in game.of_type(StateChanged))
