"""The rules of a shipped scenario (its scenario.toml [rules] over the ruleset file), for tests."""

from __future__ import annotations

import tomllib

from bellica.datasets import SCENARIOS_DIR
from bellica.datasets.rules import load_rules
from bellica.engine.vae_victis.rules import Rules


def scenario_rules_table(name: str) -> dict:
    with (SCENARIOS_DIR / name / "scenario.toml").open("rb") as f:
        return tomllib.load(f).get("rules", {})


def scenario_rules(name: str) -> Rules:
    return Rules.from_mapping(load_rules(overrides=scenario_rules_table(name)))


def first_punic_war_rules() -> Rules:
    return scenario_rules("first-punic-war")
