"""A ruleset's own scenarios (Ruleset.scenarios): `bellica campaign new/check --scenario NAME` and
`bellica campaign scenarios` find the scenarios an installed ruleset ships in its own distribution,
by name, with no file of bellica edited (issue 20, part 6; the whole installed game is
tests/cli/test_installed_ruleset.py)."""

from __future__ import annotations

import json

import pytest

from bellica.engine.core import ruleset as registry
from bellica.engine.core.ruleset import Ruleset, ruleset_scenarios
from tests.cli.test_rise_of_rome_cli import bellica

PROVINCES = """[scenario]
name = "far-war"
title = "A war far away"
ruleset = "far-war"
bbox = [21.4, 36.6, 24.2, 38.8]

[[province]]
name = "Attica"
lon = 23.7275
lat = 37.9838
"""


@pytest.fixture
def shipped(tmp_path, monkeypatch):
    """A ruleset (registered as an installed one would be) shipping a province scenario folder and
    a folder of node-scenario files."""
    (tmp_path / "far-war").mkdir()
    (tmp_path / "far-war" / "provinces.toml").write_text(PROVINCES)
    (tmp_path / "far-nodes").mkdir()
    (tmp_path / "far-nodes" / "north.toml").write_text('[scenario]\ntitle = "The north"\nruleset = "far-war"\n'
                                                        'nodes = "n.toml"\nyear = -300\nbbox = [21.4, 36.6, 24.2, 38.8]\n')
    (tmp_path / "far-nodes" / "n.toml").write_text("")

    class FarWar(Ruleset):
        name = "far-war"
        scenarios = tmp_path

    monkeypatch.setitem(registry._REGISTRY, "far-war", FarWar())
    return tmp_path


def test_a_rulesets_scenarios_by_name(shipped):
    found = ruleset_scenarios()
    assert found["far-war"] == shipped / "far-war"
    assert found["far-nodes/north"] == shipped / "far-nodes" / "north.toml"
    assert "far-nodes/n" not in found  # the node file itself is no scenario
    assert not any(path.is_relative_to(registry.Path(__file__).parents[2] / "datasets") for path in found.values())


def test_campaign_commands_take_an_installed_rulesets_scenario(shipped, capsys, tmp_path):
    from bellica.commands.campaign import installed_scenario

    assert installed_scenario("far-war") == str(shipped / "far-war")
    assert installed_scenario("far-nodes/north.toml") == str(shipped / "far-nodes" / "north.toml")
    assert installed_scenario("rise-of-rome") == "rise-of-rome"  # bellica's own: as given
    assert installed_scenario("nowhere") == "nowhere"  # left to the loaders' one-line error
    code, out, err = bellica(capsys, "campaign", "scenarios", "--json")
    assert code == 0, err
    listed = {s["name"]: s["title"] for s in json.loads(out)}
    assert listed["far-war"] == "A war far away" and listed["far-nodes/north"] == "The north"
    assert "rise-of-rome" in listed
    code, out, err = bellica(capsys, "campaign", "check", "--scenario", "far-war")
    # Found by name: the ruleset (which has no scenario loader) is what refuses it, not the lookup.
    assert "no scenario.toml there" not in err and "far-war" in out + err
