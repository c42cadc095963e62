"""Each of the four Magna Graecia scenarios plays a whole first campaign turn (every side's
player-turn in the scenario's order, the three-sided ones included) by the scripted policy of
bellica/demo_magna_graecia.py, and `verify --readjudicate` reproduces it.  One hex map of Sicily
is built for the module (the four scenarios share its bbox); its time is make bench's."""

from __future__ import annotations


import pytest

from bellica.engine.core.campaign import Campaign
from bellica.engine.core.readjudicate import readjudicate
from bellica.engine.magna_graecia.ruleset import state_of

#: the scenarios' sides in move order, their capitals and friendly pairs, as docs/rules/magna-graecia.md states them
SHEETS = {
    "dionysian": ({"Syracuse": "Syracuse", "Carthage": "Motya"}, set()),
    "pyrrhic": ({"Pyrrhus": "Syracuse", "Carthage": "Lilybaeum", "Mamertines": "Messana"},
                {frozenset({"Carthage", "Mamertines"})}),
    "first-punic": ({"Rome": "Messana", "Carthage": "Lilybaeum", "Syracuse": "Syracuse"},
                    {frozenset({"Carthage", "Syracuse"})}),
    "second-punic": ({"Rome": "Lilybaeum", "Carthage": "Heraclea Minoa", "Syracuse": "Syracuse"},
                     {frozenset({"Carthage", "Syracuse"})}),
}


@pytest.fixture(scope="module")
def sicily(tmp_path_factory, scenario_map):
    """The hex map of the scenarios' bbox (all four share it), built once a run (tests/conftest.py scenario_map)."""
    return scenario_map("magna-graecia/dionysian", tmp_path_factory.mktemp("mg-map") / "sicily6.duckdb")


def test_the_demo_knows_every_scenario():
    from bellica.demo_magna_graecia import SCENARIO_TARGETS, SCENARIOS, scenario_path

    assert SCENARIOS == tuple(SHEETS)
    for name, (capitals, _) in SHEETS.items():
        assert set(SCENARIO_TARGETS[name]) == set(capitals)
    assert scenario_path("build/magna-graecia.duckdb", "pyrrhic").name == "magna-graecia-pyrrhic.duckdb"


@pytest.mark.parametrize("name", list(SHEETS))
def test_turn_one_of_each_scenario_plays_and_readjudicates(name, sicily, tmp_path):
    from bellica.demo_magna_graecia import build_demo_campaign, play_first_turn

    path = build_demo_campaign(tmp_path / f"{name}.duckdb", scenario=f"magna-graecia/{name}", map_path=sicily)
    capitals, friends = SHEETS[name]
    lines = play_first_turn(path, name)
    assert lines[-1].startswith("next: ")
    with Campaign.open(path, read_only=True) as c:
        ended = [e.data["side"] for e in c.events() if e.kind == "player_turn_ended"]
        state = state_of(c.snapshot())
        moved = {e.data.get("side") for e in c.events() if e.kind in ("moved", "fleet_moved")}
    assert state.order == tuple(capitals)
    assert {s: state.sides[s].capital for s in state.order} == capitals
    pairs = {frozenset({a, b}) for a in state.order for b in state.order if a < b and state.friends(a, b)}
    assert pairs == friends
    assert ended == list(capitals)  # every side, in the scenario's order
    assert state.turn == 2 and state.current == 0
    assert moved == set(capitals)  # each side marched on its target
    assert readjudicate(path) > len(capitals)  # again, on top of the demo's own check
