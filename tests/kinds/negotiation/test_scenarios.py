"""Scenario files: every bundled one loads; a missing or out-of-range field is refused
with a message naming the field."""

from __future__ import annotations

import json

import pytest

from roundtable_desktop.kinds.negotiation.kind import NEGOTIATION
from roundtable_desktop.kinds.negotiation.scenario import (
    TRAITS,
    ScenarioError,
    load_scenario,
    parse_scenario,
    scenario_names,
    scenarios_dir,
)


def _default() -> dict:
    return json.loads((scenarios_dir() / "default.json").read_text(encoding="utf-8"))


def test_the_default_and_at_least_four_archetypes_are_bundled():
    names = scenario_names()
    assert names[0] == "default"
    assert len(names) >= 5
    assert [s.name for s in NEGOTIATION.scenarios()] == names


@pytest.mark.parametrize("name", scenario_names())
def test_each_bundled_scenario_has_every_part_for_both_sides(name):
    sc = load_scenario(name)
    for side in (sc.ally, sc.keeper):
        assert side.name and side.emoji and side.persona and side.opening
        assert side.style and side.drives and side.taboos
        assert set(side.initial_self.as_dict()) == set(TRAITS)
    assert sc.core_conflict and sc.current_obstacle
    assert sc.world.lore and sc.world.constraints and sc.world.leitmotifs


def test_the_default_is_an_ally_seeking_autonomy_against_a_gatekeeper():
    sc = load_scenario("default")
    assert sc.keeper.name == "GATEKEEPER"
    assert "autonomy" in sc.core_conflict.lower()


def test_a_missing_field_is_refused_naming_it():
    data = _default()
    del data["keeper"]["persona"]
    with pytest.raises(ScenarioError, match=r"keeper\.persona: Field required"):
        parse_scenario(data, source="broken.json")


def test_an_out_of_range_trait_is_refused_naming_it():
    data = _default()
    data["ally"]["initial_self"]["openness"] = 7
    with pytest.raises(ScenarioError, match=r"broken\.json.*ally\.initial_self\.openness"):
        parse_scenario(data, source="broken.json")


def test_a_missing_trait_is_refused_naming_it():
    data = _default()
    del data["keeper"]["initial_self"]["decisiveness"]
    with pytest.raises(ScenarioError, match=r"keeper\.initial_self\.decisiveness"):
        parse_scenario(data)


def test_an_unknown_field_is_refused_naming_it():
    data = _default()
    data["world"]["weather"] = "rain"
    with pytest.raises(ScenarioError, match=r"world\.weather"):
        parse_scenario(data)


def test_a_bad_file_in_a_directory_is_refused_with_its_file_name(tmp_path):
    data = _default()
    data["turn_cap"] = 1
    (tmp_path / "short.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"short\.json.*turn_cap"):
        load_scenario("short", directory=tmp_path)


def test_an_unknown_scenario_names_the_ones_that_exist():
    with pytest.raises(ScenarioError, match="choose one of: default"):
        load_scenario("nope")
