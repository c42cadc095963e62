"""Regression: allies follow the seed's "Allies in engagements" wording with the scenario's faction names.

The bug: the allies were keyed "carthago" and the Syracusan faction was "syracusae" while the
First Punic War's factions are "Carthago" and "Syracusae", so Carthago was never offered its
Numidian/Moorish allies and Greek (Western) allies were offered while Syracusae still held towns.
These tests use the scenario's own spelling and its own [rules] (datasets/scenarios/first-punic-war).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from bellica.datasets.rules import canonical_faction, load_rules
from bellica.engine.vae_victis.battles import allowed_allies
from bellica.engine.vae_victis.model import FactionInfo
from bellica.engine.vae_victis.rules import Rules
from bellica.geo.errors import InputError
from tests.engine.boards import sketch
from tests.engine.scenario_rules import first_punic_war_rules, scenario_rules_table

GREEK = "Greek (Western) 280-49 BC"
FACTIONS = {
    "Carthago": FactionInfo("Carthago", capitals=("Carthago",)),
    "Roma": FactionInfo("Roma", capitals=("Roma",)),
    "Syracusae": FactionInfo("Syracusae", player=False, capitals=("Syracusae",)),
}


def with_rules(tm, rules: Rules):
    return replace(tm, board=replace(tm.board, rules=rules))


@pytest.fixture(scope="module")
def sicily():
    tm = sketch(
        radius=3,
        factions=FACTIONS,
        structures=[("Syracusae", "city", "", "Roma"), ("Gela", "town", "3 3", "Syracusae"),
                    ("Carthago", "city", "9 9", "Carthago")],
    )
    return with_rules(tm, first_punic_war_rules())


def test_carthago_is_offered_numidian_and_moorish_allies(sicily):
    # Seed: "Carthago is allowed to select Numidian or Moorish 341-56 BC as allies."
    state = sicily.state([])
    assert allowed_allies(sicily.board, state, "Carthago", 0) == ("Numidian 341-56 BC", "Moorish 341-56 BC")
    assert allowed_allies(sicily.board, state, "Roma", 0) == ()


def test_greek_allies_only_once_syracusae_controls_no_town_or_city(sicily):
    # Seed: the controller of the City of Syracusae may select Greek (Western) allies
    # "provided that Syracusae no longer controls any Towns or Cities".
    held = sicily.state([])  # the Syracusan faction still holds Gela
    assert allowed_allies(sicily.board, held, "Roma", 6) == ()
    free = sicily.state([], control={"Gela": "Carthago"})
    assert allowed_allies(sicily.board, free, "Roma", 6) == (GREEK,)
    assert allowed_allies(sicily.board, free, "Roma", 6.5) == ()  # "not more than 6 MP" from its lines
    # only the controller of the City of Syracusae
    assert GREEK not in allowed_allies(sicily.board, free, "Carthago", 0)


def test_faction_names_in_rules_resolve_case_insensitively():
    rules = Rules.from_mapping(load_rules(overrides={"battles": {"allies": {"CARTHAGO": ["Numidian 341-56 BC"]},
                                                                 "conditional_allies": {"faction": "syracusae"}}}))
    board = with_rules(sketch(radius=1, factions=FACTIONS), rules).board
    assert board.rules.battles.allies == {"Carthago": ("Numidian 341-56 BC",)}
    assert board.rules.battles.conditional_allies.faction == "Syracusae"


def test_unknown_faction_in_rules_is_refused_naming_the_valid_ones():
    rules = Rules.from_mapping(load_rules(overrides={"battles": {"allies": {"Kartago": ["Numidian 341-56 BC"]}}}))
    with pytest.raises(InputError, match=r"'Kartago' is not one of the scenario's factions \(Carthago, Roma, Syracusae\)"):
        with_rules(sketch(radius=1, factions=FACTIONS), rules)
    with pytest.raises(InputError, match="Kartago"):
        canonical_faction("Kartago", FACTIONS)


def test_scenario_names_its_allies_as_its_factions_toml_does():
    import tomllib

    from bellica.datasets import SCENARIOS_DIR

    with (SCENARIOS_DIR / "first-punic-war" / "factions.toml").open("rb") as f:
        names = {x["name"] for x in tomllib.load(f)["faction"]}
    table = scenario_rules_table("first-punic-war")["battles"]
    assert set(table["allies"]) <= names and table["conditional_allies"]["faction"] in names
