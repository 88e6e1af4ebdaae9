"""The legion's state model and scenarios: bundled scenarios, validation that names the
bad field, scores clamped, mode bands, the seeded chance to speak."""

from __future__ import annotations

import json

import pytest

from roundtable_desktop.kinds.legion.scenario import (
    ScenarioError,
    load_scenario,
    new_state,
    parse_scenario,
    scenario_files,
)
from roundtable_desktop.kinds.legion.state import (
    ChannelType,
    Diary,
    Minion,
    PerceptionPlan,
    clamp_score,
    mode_for,
)
from roundtable_desktop.kinds.legion.summary import legion_summary
from roundtable_desktop.kinds.legion.turn import checked_mode, speaking_roll


def test_three_bundled_scenarios_have_distinct_personas_and_starting_scores():
    names = [p.stem for p in scenario_files()]
    assert {"default", "newsroom", "starship"} <= set(names)
    personas, starts = set(), set()
    for name in names:
        scenario = load_scenario(name)
        personas |= {m.persona for m in scenario.minions}
        starts.add(tuple(sorted((m.name, json.dumps(m.scores, sort_keys=True))
                                for m in scenario.minions)))
    assert len(personas) == sum(len(load_scenario(n).minions) for n in names)
    assert len(starts) == len(names)


def test_a_state_has_a_dm_per_minion_the_groups_and_a_minions_only_channel():
    state = new_state("default")
    ids = {c.id: c.type for c in state.channels}
    for minion in state.minions:
        assert ids[f"commander-{minion.id}"] == ChannelType.DM
    assert ids["war-room"] == ChannelType.GROUP
    assert ids["minions-only"] == ChannelType.MINIONS
    assert state.minion("Alpha").scores["Rowan"] == 50


def test_a_bad_scenario_is_refused_naming_the_field():
    data = json.loads((scenario_files()[0]).read_text())
    data["minions"][0]["scores"] = {"Rowan": 150}
    with pytest.raises(ScenarioError, match=r"minions\.0\.scores"):
        parse_scenario(data, where="bad.json")


def test_an_unknown_field_is_refused_by_name():
    data = json.loads((scenario_files()[0]).read_text())
    data["minons"] = []
    with pytest.raises(ScenarioError, match="minons"):
        parse_scenario(data, where="bad.json")


def test_a_group_naming_an_unknown_minion_is_refused():
    data = json.loads((scenario_files()[0]).read_text())
    data["groups"][0]["members"].append("Zed")
    with pytest.raises(ScenarioError, match="Zed"):
        parse_scenario(data, where="bad.json")


@pytest.mark.parametrize(("given", "kept"), [(150, 100), (-5, 1), (0, 1), ("72", 72),
                                             (66.6, 67), ("lots", 50), (None, 50)])
def test_scores_are_clamped_to_1_100(given, kept):
    assert clamp_score(given) == kept


def test_a_plan_clamps_every_score_it_carries():
    plan = PerceptionPlan.model_validate({
        "opinionUpdates": [{"participantName": "Rowan", "newScore": 400}],
        "finalOpinions": {"Rowan": -3, "Beta": "abc"}, "action": "speak"})
    assert plan.opinionUpdates[0].newScore == 100
    assert plan.finalOpinions == {"Rowan": 1, "Beta": 50}
    assert plan.action == "SPEAK"


@pytest.mark.parametrize(("score", "mode"), [(1, "Hostile/Minimal"), (20, "Hostile/Minimal"),
                                             (21, "Wary/Reluctant"), (45, "Wary/Reluctant"),
                                             (46, "Neutral/Standard"), (65, "Neutral/Standard"),
                                             (66, "Friendly/Proactive"),
                                             (86, "Obsessed/Eager"), (100, "Obsessed/Eager")])
def test_the_mode_follows_the_band_of_the_score(score, mode):
    assert mode_for(score) == mode


def test_a_mode_outside_the_scores_band_is_corrected_and_noted():
    minion = Minion(id="alpha", name="Alpha", persona="p", scores={"Rowan": 90})
    diary = Diary(minion="Alpha", channel="c", about=1)
    plan = PerceptionPlan(action="SPEAK", selectedResponseMode="Hostile/Minimal")
    fixed = checked_mode(plan, minion, "Rowan", diary)
    assert fixed.selectedResponseMode == "Obsessed/Eager"
    assert "Hostile/Minimal" in diary.notes[0] and "90" in diary.notes[0]


def test_a_mode_in_the_band_is_kept_without_a_note():
    minion = Minion(id="alpha", name="Alpha", persona="p", scores={"Rowan": 70})
    diary = Diary(minion="Alpha", channel="c", about=1)
    plan = PerceptionPlan(action="SPEAK", selectedResponseMode="friendly/proactive")
    assert checked_mode(plan, minion, "Rowan", diary).selectedResponseMode == \
        "Friendly/Proactive"
    assert diary.notes == []


def test_the_speaking_draw_is_the_same_for_the_same_seed_message_and_minion():
    first = [speaking_roll(7, m, "beta") for m in range(1, 50)]
    again = [speaking_roll(7, m, "beta") for m in range(1, 50)]
    other_seed = [speaking_roll(8, m, "beta") for m in range(1, 50)]
    assert first == again
    assert first != other_seed
    assert all(1 <= r <= 100 for r in first)


def test_the_bundled_scenarios_say_the_app_draws_nothing_and_the_summary_says_who_decided():
    for name in ("default", "newsroom", "starship"):
        assert load_scenario(name).app_draws_speakers is False
        state = new_state(name)
        assert not state.app_draws_speakers
        assert legion_summary(state).result.text.endswith(
            "Unaddressed minions chose for themselves whether to speak.")
    state.app_draws_speakers = True
    assert legion_summary(state).result.text.endswith(
        "The app drew which unaddressed minions spoke.")
