"""Magna Graecia as a campaign: made by `bellica campaign new`'s functions on the real node map of
Sicily, a whole 18-turn season of the Dionysian scenario played by the scripted policy of
bellica/demo_magna_graecia.py through the ruleset's steps, and `verify --readjudicate` reproducing it."""

from __future__ import annotations

import shutil

import pytest

from bellica.engine.core.campaign import Campaign
from bellica.engine.core.machine import StepRefused
from bellica.engine.core.readjudicate import readjudicate
from bellica.engine.magna_graecia.movement import reachable, reachable_by_sea
from bellica.engine.magna_graecia.ruleset import play, state_of, view
from bellica.geo.errors import InputError


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    from bellica.demo_magna_graecia import build_demo_campaign

    folder = tmp_path_factory.mktemp("mg")
    return build_demo_campaign(folder / "dionysian.duckdb")


@pytest.fixture(scope="module")
def sicily(tmp_path_factory, scenario_map):
    """The hex map of the scenarios' bbox (all four share it), built once a run (tests/conftest.py scenario_map)."""
    return scenario_map("magna-graecia/dionysian", tmp_path_factory.mktemp("mg-map") / "sicily6.duckdb")


@pytest.fixture
def campaign(fresh, tmp_path):
    out = tmp_path / "c.duckdb"
    shutil.copy(fresh, out)
    return out


def test_the_board_is_the_node_tables(fresh):
    with Campaign.open(fresh, read_only=True) as c:
        places = c.board.nmap.places
        rows = dict(c.con.execute("SELECT name, commands FROM nodes").fetchall())
        # one source: the node tables of the scenario's year (Tauromenium from 396, Thermae from 407: not in 397's
        # map for Tauromenium; Thermae stands)
        assert set(places) == set(rows) and "Thermae" in places and "Tauromenium" not in places
        assert all(places[n].commands == rows[n] for n in places)
        assert c.con.execute("SELECT value FROM scenario_meta WHERE key = 'ruleset'").fetchone()[0] == "magna-graecia"


def test_refusals_out_of_turn_and_bad_input(campaign):
    with Campaign.open(campaign) as c:
        c.start(seed=1)
        with pytest.raises(StepRefused, match="it is Syracuse's turn, not Carthage's"):
            play(c, "move", {"side": "Carthage", "command": 40, "path": ["Solus"]})
        with pytest.raises(StepRefused, match="cannot move: command 36: .* movement points"):
            play(c, "move", {"side": "Syracuse", "command": 36, "path": ["Leontini", "Catana"]})
        with pytest.raises(InputError, match="'Roma' is not a place"):
            play(c, "move", {"side": "Syracuse", "command": 36, "path": ["Roma"]})
        with pytest.raises(StepRefused, match="movement phase"):
            play(c, "end_turn", {"side": "Syracuse"})
        assert c.con.execute("SELECT count(*) FROM events WHERE kind = 'step'").fetchone()[0] == 0


def test_the_views_agree_with_the_rules(campaign):
    with Campaign.open(campaign) as c:
        c.start(seed=1)
        state = state_of(c.snapshot())
        for cid in (36, 38):
            want = set(reachable(state, c.board.nmap, c.rules, cid))
            got = {r[0] for r in c.con.execute(f"SELECT node FROM mg_reach WHERE command = {cid}").fetchall()}
            assert got == want
        want = set(reachable_by_sea(state, c.board.nmap, c.rules, "Syracuse"))
        got = {r[0] for r in c.con.execute("SELECT node FROM mg_fleet_reach WHERE side = 'Syracuse'").fetchall()}
        assert got == want
        n = c.con.execute("SELECT counters, fleet_np FROM mg_node_counters WHERE node = 'Syracuse' "
                          "AND owner = 'Syracuse'").fetchone()
        assert n == (4, 20)


#: The season's plan: where each side marches, by turns (cities between the capitals, so no capital falls and all
#: 18 turns are played).
PLAN = ((6, {"Syracuse": "Akragas", "Carthage": "Thermae"}), (12, {"Syracuse": "Selinus", "Carthage": "Henna"}),
        (18, {"Syracuse": "Panormus", "Carthage": "Gela"}))


def test_a_whole_season_replays(campaign):
    from bellica.demo_magna_graecia import play_turn

    with Campaign.open(campaign) as c:
        c.start(seed=5)
        for _ in range(40):
            state = state_of(c.snapshot())
            if state.phase == "over":
                break
            play_turn(c, next(targets for last, targets in PLAN if state.turn <= last))
        state = state_of(c.snapshot())
        assert state.phase == "over" and state.turn == 18
        kinds = {e.kind for e in c.events()}
        assert {"moved", "fleet_moved", "alliance_roll", "city_joins", "battle_result", "recovery", "retreated",
                "siege_begun", "season_over", "dice"} <= kinds
        turns = [e.data["turn"] for e in c.events() if e.kind == "player_turn_begun"]
        assert max(turns) == 18 and len([e for e in c.events() if e.kind == "player_turn_ended"]) == 36
        assert c.snapshot().campaign("winner")
        assert view(c)["phase"] == "over"
        with pytest.raises(StepRefused, match="season is over"):
            play(c, "end_movement", {"side": "Syracuse"})
        c.verify()
    readjudicate(campaign)


@pytest.mark.parametrize("name, order", [("pyrrhic", ["Pyrrhus", "Carthage", "Mamertines"]),
                                         ("first-punic", ["Rome", "Carthage", "Syracuse"]),
                                         ("second-punic", ["Rome", "Carthage", "Syracuse"])])
def test_every_scenario_makes_a_campaign(sicily, tmp_path, name, order):
    from bellica.demo_magna_graecia import build_demo_campaign, play_turn

    path = build_demo_campaign(tmp_path / f"{name}.duckdb", scenario=f"magna-graecia/{name}", map_path=sicily)
    with Campaign.open(path) as c:
        c.start(seed=3)
        assert list(state_of(c.snapshot()).order) == order
        assert all(node in c.board.nmap.places for node in c.board.scenario.places())
        for _ in order:
            play_turn(c)
        assert state_of(c.snapshot()).turn == 2
        c.verify()
    readjudicate(path)
