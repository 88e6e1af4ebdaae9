"""The draft call (purpose `reply`): the seed's labelled system prompt, the observer's model
of the other side as JSON, the self profile, the windowed history and the sampling."""

from __future__ import annotations

import json
import re

import pytest

from roundtable_desktop.engine.base import ActionUnavailable
from roundtable_desktop.kinds.negotiation.scenario import TRAITS
from roundtable_desktop.paths import bundle_root

LAYERS = ["BASE_PERSONA", "PACT", "CONTEXT", "YOUR_LAST_ACT", "COUNTERPART_INTENT",
          "ANTI_MIRROR_CUE", "MODEL_OF_OTHER", "STYLE", "DISCOURAGE_PHRASES", "WORLD_LORE",
          "WORLD_CONSTRAINTS", "WORLD_LEITMOTIFS", "YOUR_ROLE_DRIVES", "YOUR_ROLE_TABOOS",
          "TRAIT_PROFILE", "FOCUS_THIS_TURN"]


def _model_of_other(system: str) -> dict:
    match = re.search(r"^MODEL_OF_OTHER\(JSON\): (\{.*\})$", system, re.MULTILINE)
    assert match, system
    return json.loads(match.group(1))


def _trait_profile(system: str) -> dict[str, float]:
    block = system.split("TRAIT_PROFILE:\n", 1)[1].split("\n\n", 1)[0]
    return {k: float(v) for k, v in re.findall(r"^- (\w+): ([\d.]+)$", block, re.MULTILINE)}


def test_the_system_prompt_is_every_labelled_layer_in_the_seeds_order(game):
    game.do("take_turn")
    sent = game.client.of("reply")[0]
    system = sent.messages[0].content
    positions = [system.index(name if name != "MODEL_OF_OTHER" else "MODEL_OF_OTHER(JSON):")
                 for name in LAYERS]
    assert positions == sorted(positions)
    assert system.startswith("BASE_PERSONA:\n" + game.state.sides["ALLY"].persona)


def test_each_layer_is_marked_in_the_pending_payload(game):
    game.edit("set_flow", flow="confirm")  # confirm: the turn waits at PLAN
    game.do("take_turn")
    payload = game.session.pending_payloads()[0]
    assert [layer.name for layer in payload.layers] == LAYERS
    assert "pact.md" in next(x.source for x in payload.layers if x.name == "PACT")
    marked = re.findall(r'data-layer="([A-Z_]+)"', payload.document)
    assert marked == LAYERS


def test_the_draft_carries_the_observers_current_model_of_the_other_side_with_11_traits(game):
    game.do("take_turn")
    sent = game.client.of("reply")[0]
    shown = _model_of_other(sent.messages[0].content)
    assert list(shown) == list(TRAITS)
    # The observer ran in MODEL before the draft: the JSON is its model of the KEEPER now.
    assert shown == game.state.sides["KEEPER"].observed.dims.as_dict()
    assert game.state.sides["KEEPER"].observed.turn == 1


def test_the_other_sides_model_changes_in_the_next_draft_when_the_observer_changes_it(game):
    game.do("take_turn")
    game.do("take_turn")
    first, second = game.client.of("reply")[:2]
    assert _model_of_other(second.messages[0].content) == \
        game.state.sides["ALLY"].observed.dims.as_dict()
    assert _model_of_other(first.messages[0].content) != \
        _model_of_other(second.messages[0].content)


def test_a_moved_self_slider_is_in_the_very_next_request(game):
    game.edit("set_traits", seat="ALLY", traits={"openness": 1, "risk": 4.5})
    pending = game.session.pending_payloads()[-1].request
    assert _trait_profile(pending.messages[0].content)["openness"] == 1.0
    game.do("take_turn")
    sent = game.client.of("reply")[0]
    profile = _trait_profile(sent.messages[0].content)
    assert profile["openness"] == 1.0 and profile["risk"] == 4.5
    assert profile["logic"] == 3.0  # untouched traits keep the scenario's value


def test_a_slider_moved_while_waiting_for_a_pick_is_in_the_draft_sent(game):
    game.edit("set_flow", flow="confirm")
    game.do("take_turn")
    game.edit("set_traits", seat="ALLY", traits={"empathy": 1})
    assert _trait_profile(game.session.pending_payloads()[0].request.messages[0].content)[
        "empathy"] == 1.0
    game.do("pick_option", option=0)
    assert _trait_profile(game.client.of("reply")[0].messages[0].content)["empathy"] == 1.0


def test_a_moved_slider_is_recorded_in_the_log_with_a_snapshot(game):
    game.edit("set_traits", seat="KEEPER", traits={"authority": 2})
    entry = game.state.log[-1]
    assert entry.type == "TRAITS" and entry.keeper_self["authority"] == 2


def test_history_holds_at_most_10_messages_own_as_assistant_other_as_user(game):
    game.client.answer("adjudicate", lambda r, s: '{"outcome": "continue", "reason": "On."}')
    for _ in range(12):
        game.do("take_turn")
    sent = game.client.of("reply")[-1]
    side = "KEEPER" if len(game.client.of("reply")) % 2 == 0 else "ALLY"
    history = sent.messages[1:]
    assert len(history) == 10
    expected = [m for m in game.state.messages()[:-1]][-10:]
    assert [m.content for m in history] == [e.text for e in expected]
    assert [m.role for m in history] == [
        "assistant" if e.who == side else "user" for e in expected]


def test_the_first_draft_sees_both_opening_lines(game):
    game.do("take_turn")
    roles = [m.role for m in game.client.of("reply")[0].messages]
    assert roles == ["system", "assistant", "user"]


def test_sampling_defaults_are_the_seeds(game):
    game.do("take_turn")
    body = game.client.of("reply")[0].to_body()
    assert (body["temperature"], body["top_p"], body["presence_penalty"],
            body["frequency_penalty"], body["max_tokens"]) == (0.8, 0.9, 0.1, 0.2, 90)


def test_sampling_and_model_are_per_side(game):
    game.edit("set_sampling", seat="ALLY", sampling={"temperature": 0.3, "max_tokens": 60})
    game.edit("set_model", seat="ALLY", model="ally-model")
    game.do("take_turn")
    game.do("take_turn")
    ally, keeper = (r.to_body() for r in game.client.of("reply")[:2])
    assert (ally["model"], ally["temperature"], ally["max_tokens"]) == ("ally-model", 0.3, 60)
    assert (keeper["model"], keeper["temperature"], keeper["max_tokens"]) == \
        ("test-model", 0.8, 90)


def test_focus_this_turn_is_the_chosen_option_with_its_act(game):
    game.edit("set_flow", flow="confirm")
    game.do("take_turn")
    option = game.state.current.options[2]
    game.do("pick_option", option=2)
    system = game.client.of("reply")[0].messages[0].content
    assert system.endswith(f"FOCUS_THIS_TURN: [{option.act}] {option.text}")
    assert game.state.kpis.directive_history["ALLY"] == [f"[{option.act}] {option.text}"]


def test_a_bad_setting_is_refused_in_one_sentence_and_changes_nothing(game):
    before = game.state.sides["ALLY"].self_profile
    with pytest.raises(ActionUnavailable, match="charm"):
        game.edit("set_traits", seat="ALLY", traits={"charm": 3})
    with pytest.raises(ActionUnavailable, match=r"needs a seat: ALLY or KEEPER \(got 'NOBODY'\)"):
        game.edit("set_traits", seat="NOBODY", traits={"openness": 3})
    assert game.state.sides["ALLY"].self_profile == before


def test_a_prompt_layer_is_overridable_per_scenario(tmp_path, monkeypatch, make_game):
    root = tmp_path / "bundle"
    (root / "prompts" / "scenarios" / "tenant").mkdir(parents=True)
    (root / "prompts" / "scenarios" / "tenant" / "pact.md").write_text("Keep it civil.",
                                                                         encoding="utf-8")
    (root / "prompts" / "negotiation").symlink_to(bundle_root() / "prompts" / "negotiation")
    (root / "resources").symlink_to(bundle_root() / "resources")
    monkeypatch.setenv("ROUNDTABLE_BUNDLE_ROOT", str(root))
    game = make_game("tenant")
    game.do("take_turn")
    system = game.client.of("reply")[0].messages[0].content
    assert "PACT: Keep it civil." in system


def test_a_new_session_model_is_used_by_every_side_without_its_own(game):
    game.session.model = "new-model"
    game.do("take_turn")
    assert {r.model for r in game.client.requests} == {"new-model"}
