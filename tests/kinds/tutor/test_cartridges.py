"""Cartridges: the bundled exercises load; a broken one is refused naming the file and
every invalid field at once; the safety block is required."""

from __future__ import annotations

import json

import pytest

from roundtable_desktop.cli.main import main
from roundtable_desktop.kinds.tutor.cartridge import (
    CartridgeError,
    cartridge_paths,
    load_cartridge,
    parse_cartridge,
)
from tests.kinds.tutor.conftest import TIP, cartridge_data


def test_at_least_three_bundled_cartridges_load_and_one_is_lithuanian():
    cartridges = [load_cartridge(path) for path in cartridge_paths()]
    assert len(cartridges) >= 3
    assert "lt" in {c.language for c in cartridges}
    assert {c.task_id for c in cartridges} == {p.stem for p in cartridge_paths()}


def test_every_bundled_cartridge_has_static_freeform_and_end_phases():
    for path in cartridge_paths():
        kinds = {phase.type for phase in load_cartridge(path).phases}
        assert kinds == {"static", "freeform", "end"}, path.name


def test_a_cartridge_without_safety_is_refused_naming_the_file_and_the_field(tmp_path):
    data = cartridge_data()
    del data["safety"]
    path = tmp_path / "unsafe.json"
    path.write_text(json.dumps(data), encoding="utf-8")

    with pytest.raises(CartridgeError) as caught:
        load_cartridge(path)

    assert caught.value.file == "unsafe.json"
    assert "unsafe.json" in caught.value.message
    assert any(p.startswith("safety: required") for p in caught.value.problems)


def test_the_loader_reports_every_invalid_field_at_once():
    data = cartridge_data()
    del data["title"]
    data["phases"][1]["min_exchanges"] = 0
    data["safety"]["intensity_ceiling"] = 9
    data["evaluation"]["patterns_embedded"][0]["signals"] = []

    with pytest.raises(CartridgeError) as caught:
        parse_cartridge(data, "broken.json")

    wheres = {p.split(":")[0] for p in caught.value.problems}
    assert wheres == {"title", "phases.1.min_exchanges", "evaluation.patterns_embedded.0.signals",
                      "safety.intensity_ceiling"}


def test_names_that_refer_to_nothing_are_all_reported():
    data = cartridge_data()
    data["language"] = "xx"
    data["ai_transitions"]["on_partial"] = "nowhere"
    data["phases"][1]["max_exchanges"] = 1
    data["evaluation"]["checklist"][0]["pattern"] = "ghost"

    with pytest.raises(CartridgeError) as caught:
        parse_cartridge(data, "refs.json")

    text = " | ".join(caught.value.problems)
    for where in ("language", "ai_transitions.on_partial", "phases.1.max_exchanges",
                  "evaluation.checklist.0.pattern"):
        assert where in text


def test_an_unknown_field_is_refused_rather_than_ignored():
    data = cartridge_data()
    data["safety"]["intensity_cieling"] = 2

    with pytest.raises(CartridgeError, match="intensity_cieling"):
        parse_cartridge(data, f"{TIP}.json")


def test_a_file_that_is_not_json_is_named(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(CartridgeError, match=r"bad\.json"):
        load_cartridge(path)


def test_starting_a_cartridge_without_safety_is_refused_in_one_line(bundle, tmp_path, capsys):
    data = cartridge_data()
    del data["safety"]
    (bundle / "resources" / "tutor" / "cartridges" / "no_safety.json").write_text(
        json.dumps(data), encoding="utf-8")

    code = main(["run", "--kind", "tutor", "--offline", "--db", str(tmp_path / "t.sqlite3"),
                 "--scenario", "no_safety"])

    err = capsys.readouterr().err
    assert code == 2
    assert "no_safety.json" in err and "safety: required" in err
