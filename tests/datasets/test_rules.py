"""load_rules: the ruleset file is the schema; a scenario's [rules] is validated key by key."""

from __future__ import annotations

import math

import pytest

from bellica.datasets.rules import canonical_faction, load_rules, resolve_factions, rules_from_rows, rules_rows
from bellica.geo.errors import InputError


def test_defaults_carry_the_seeds_numbers():
    r = load_rules()
    assert r["movement"]["points_per_round"] == 12 and r["movement"]["terrain_mp"]["mountains"] == 12
    assert r["sieges"]["resilience"]["city"] == 2 and r["battles"]["max_fp"] == 1600
    assert r["battles"]["allies"] == {}  # allies are the scenario's


def test_override_merges_one_key():
    r = load_rules(overrides={"sieges": {"resilience": {"city": 3}}})
    assert r["sieges"]["resilience"]["city"] == 3 and r["sieges"]["resilience"]["town"] == -1


@pytest.mark.parametrize("overrides, message", [
    ({"movement": {"points_per_round": -12}}, r"\[rules\] movement.points_per_round = -12: give a whole number >= 1"),
    ({"movement": {"points_per_round": True}}, r"movement.points_per_round = true: give a whole number >= 1"),
    ({"movement": {"points_per_round": 12.5}}, r"movement.points_per_round = 12.5: give a whole number"),
    ({"sieges": {"attrition_beyond_mp": math.nan}}, r"sieges.attrition_beyond_mp = nan: give a whole number"),
    ({"battles": {"allies_max_mp": math.inf}}, r"battles.allies_max_mp = inf: give a whole number >= 0"),
    ({"movement": {"points": 12}}, r"movement.points: no such rule; the keys here are"),
    ({"movement_points": 12}, r"movement_points: no such rule"),
    ({"options": {"setup_tie": "coin"}}, r'options.setup_tie = "coin": give one of "lower_strength", "lower_id", "umpire"'),
    ({"movement": {"terrain_mp": {"hills": 0}}}, r"movement.terrain_mp.hills = 0: give a whole number >= 1"),
    ({"movement": {"terrain_mp": 3}}, r"movement.terrain_mp = 3: give a table"),
    ({"battles": {"allies": {"Carthago": "Numidian"}}}, r"battles.allies.Carthago = \"Numidian\": give a list of strings"),
    ({"movement": {"min_move_mp": 5, "max_move_mp": 4}}, r"min_move_mp = 5 is above movement.max_move_mp = 4"),
])
def test_bad_values_are_one_line_naming_key_value_and_fix(overrides, message):
    with pytest.raises(InputError, match=message):
        load_rules(overrides=overrides)


def test_negative_modifiers_are_allowed_where_the_seed_has_them():
    assert load_rules(overrides={"sieges": {"resilience": {"hills": -2}}})["sieges"]["resilience"]["hills"] == -2


def test_unknown_ruleset():
    with pytest.raises(InputError, match="ruleset 'chess' does not exist: use one of .*vae-victis-ii"):
        load_rules("chess")


def test_rows_round_trip():
    r = load_rules(overrides={"battles": {"allies": {"Carthago": ["Numidian 341-56 BC"]}}})
    rows = rules_rows(r)
    assert ("sieges.resilience.city", "2") in rows and ("battles.allies.Carthago", '["Numidian 341-56 BC"]') in rows
    assert rules_from_rows(rows) == r
    empty = load_rules()
    assert ("battles.allies", "{}") in rules_rows(empty) and rules_from_rows(rules_rows(empty)) == empty


def test_faction_resolution():
    assert canonical_faction("carthago", ["Carthago", "Roma"]) == "Carthago"
    with pytest.raises(InputError, match=r"faction 'Kartago' is not one of the scenario's factions \(Carthago, Roma\)"):
        canonical_faction("Kartago", ["Carthago", "Roma"])
    r = load_rules(overrides={"battles": {"allies": {"carthago": ["Numidian 341-56 BC"]},
                                          "conditional_allies": {"faction": "roma"}}})
    out = resolve_factions(r, ["Carthago", "Roma"])
    assert out["battles"]["allies"] == {"Carthago": ["Numidian 341-56 BC"]}
    assert out["battles"]["conditional_allies"]["faction"] == "Roma"


def test_validation_table_is_the_files_own_and_cannot_be_overridden():
    """The checks are data of the ruleset file ([validation]), not rules values: they are not
    stored with the campaign's rules and a scenario cannot loosen them."""
    assert "validation" not in load_rules()
    with pytest.raises(InputError, match=r"validation: no such rule"):
        load_rules(overrides={"validation": {"signed": ["movement.*"]}})


def test_consistency_checks_come_from_the_validation_table():
    with pytest.raises(InputError, match=r"movement.min_move_mp = 5 is above movement.max_move_mp = 4"):
        load_rules(overrides={"movement": {"min_move_mp": 5, "max_move_mp": 4}})
    with pytest.raises(InputError, match=r"battles.map_priority names swamp without a battles.map_names entry"):
        load_rules(overrides={"battles": {"map_priority": ["farmlands", "swamp"]}})
