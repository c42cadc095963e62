"""The shipped Trossian scenario (datasets/scenarios/trossian): it loads, it is consistent, and
its province file builds on the embedded data at resolution 4 with the adjacency it declares."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections import Counter

import duckdb
import h3
import pytest

from bellica.engine.trossian.model import state_from_dict, state_to_dict
from bellica.engine.trossian.rules import default_rules
from bellica.engine.trossian.scenario import DEFAULT_SCENARIO, builder_file, default_scenario, load_scenario
from bellica.engine.trossian.turn import new_game
from bellica.geo.errors import InputError

R = default_rules()
S = default_scenario()
FREEZING = {"Sea of Azov", "Kerch Strait", "Odessa Shelf", "Dnieper-Bug Liman"}


def test_loads_with_four_nations_and_the_four_freezing_lanes():
    assert 3 <= len(S.nations) <= 5
    assert {n for n, lane in S.lanes.items() if lane.freezes} == FREEZING
    for lane in FREEZING:                                  # each has ports to winter in
        assert any(t.port and t.lane == lane for t in S.towns.values())


def test_every_name_is_real():
    for pair in S.borders | S.roads:
        assert pair <= set(S.provinces)
    assert S.roads <= S.borders
    for pair in S.lane_links:
        assert pair <= set(S.lanes)
    for t in S.towns.values():
        assert t.province in S.provinces and (not t.lane or t.lane in S.lanes)
        assert t.name in S.provinces[t.province].towns
    for p in S.provinces.values():
        assert set(p.coast) <= set(S.lanes)
        assert p.home in (None, *S.nations)
        assert S.holders[p.name] in (None, *S.nations)
    for n in S.nations.values():
        assert S.holders[n.capital] == n.name and S.provinces[n.capital].city
    # every lane reachable from every other; every province from every other
    for graph, links in ((S.lanes, S.lane_links), (S.provinces, S.borders)):
        seen, todo = set(), [next(iter(graph))]
        while todo:
            x = todo.pop()
            if x not in seen:
                seen.add(x)
                todo += [y for pair in links if x in pair for y in pair]
        assert seen == set(graph)


def test_inside_the_embedded_data_extent():
    west, south, east, north = S.meta["bbox"]
    assert -11 <= west < east <= 50 and 22.5 <= south < north <= 52
    for t in S.towns.values():
        assert west <= t.lon <= east and south <= t.lat <= north, t.name


def test_new_game_follows_the_census():
    st = new_game(S, R)
    assert (st.year, st.phase) == (1806, 0)
    for a in st.armies:
        assert S.provinces[a.province].city and st.control[a.province] == a.nation    # begin in a town province
        assert a.has_hq
    berths = Counter(n.berth for n in st.navies)
    assert max(berths.values()) <= R.navies.port_capacity
    for c in st.couriers:
        assert c.where == S.nations[c.nation].capital
    assert json.loads(json.dumps(state_to_dict(st))) == state_to_dict(st)
    assert state_from_dict(state_to_dict(st)) == st


def test_treasury_of_the_start():
    from bellica.engine.trossian.treasury import income
    st = new_game(S, R)
    totals = {n: sum(income(S, st, R, n).values()) for n in S.nations}
    assert totals == {"Russia": 36, "Ottoman Porte": 46, "Danubian Principalities": 20, "Crimean Khanate": 26}


@pytest.mark.parametrize("file, old, new, message", [
    ("world.toml", '["Don", "Kuban"],                 # the Kuban line',
     '["Don", "Taman"],', "do not border"),
    ("world.toml", 'lane = "Kerch Strait" },', 'lane = "Kerch Sound" },', "lane 'Kerch Sound'"),
    ("forces.toml", 'port = "Sinop"', 'port = "Odessa"', "port 'Odessa'"),
    ("forces.toml", '"hq:guard", "heavy_cavalry:guard"', '"hq:guard", "horse_artillery"', "horse_artillery"),
    ("cards.toml", 'effect = "mud"', 'effect = "snow"', "effect 'snow'"),
])
def test_bad_scenario_is_one_line(tmp_path, file, old, new, message):
    folder = tmp_path / "trossian"
    shutil.copytree(DEFAULT_SCENARIO, folder)
    text = (folder / file).read_text()
    assert old in text
    (folder / file).write_text(text.replace(old, new, 1))
    with pytest.raises(InputError) as err:
        load_scenario(folder)
    assert "\n" not in str(err.value) and message in str(err.value)


def test_province_file_builds_at_resolution_4(tmp_path):
    """bellica map build + bellica map provinces on the embedded data: the builder's adjacency is
    world.toml's borders, its sea-area adjacency world.toml's lane links."""
    db = tmp_path / "blacksea.duckdb"
    bbox = ",".join(str(v) for v in S.meta["bbox"])
    run = [sys.executable, "-m", "bellica.cli"]
    r = subprocess.run([*run, "map", "build", "--bbox", bbox, "--res", str(S.meta["resolution"]), "--out", str(db),
                        "-q"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    spec = tmp_path / "map.toml"
    spec.write_text(builder_file(DEFAULT_SCENARIO))
    r = subprocess.run([*run, "map", "provinces", str(db), str(spec)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    con = duckdb.connect(str(db), read_only=True)
    try:
        built = {frozenset(p) for p in con.execute("SELECT DISTINCT a, b FROM province_adjacency").fetchall()}
        seas = {frozenset(p) for p in con.execute("SELECT a, b FROM sea_area_adjacency").fetchall()}
        names = {r[0] for r in con.execute("SELECT name FROM provinces").fetchall()}
        parts = dict(con.execute("SELECT name, parts FROM provinces").fetchall())
        cells = dict(con.execute("SELECT cell, province FROM province_cells").fetchall())
    finally:
        con.close()
    assert names == set(S.provinces)
    assert built == S.borders
    assert seas == S.lane_links
    assert all(n >= 1 for n in parts.values())
    # the hexes of the towns that fix the 1806 borders of the Principalities and the Budjak
    # (docs/rules/trossian.md, "The map's borders") are their own province's
    for town in ("Iasi", "Focsani", "Kishinev", "Bender", "Akkerman", "Bucharest", "Craiova"):
        t = S.towns[town]
        assert cells.get(h3.latlng_to_cell(t.lat, t.lon, S.meta["resolution"])) == t.province, town


def test_borders_of_1806():
    """The borders chosen from history (docs/rules/trossian.md, "The map's borders"); the test
    above checks that the province builder's hexes give exactly world.toml's borders."""
    for pair in (("Moldavia", "Wallachia"), ("Moldavia", "Bessarabia"), ("Moldavia", "Budjak"),
                 ("Moldavia", "Dobruja"), ("Bessarabia", "Budjak"), ("Oltenia", "Serbia"), ("Rumelia", "Serbia"),
                 ("Rumelia", "Vidin")):
        assert frozenset(pair) in S.borders, pair
    for pair in (("Transylvania", "Bessarabia"), ("Transylvania", "Budjak"), ("Wallachia", "Bessarabia"),
                 ("Wallachia", "Budjak")):
        assert frozenset(pair) not in S.borders, pair            # Moldavia lies between


def _first_phase(seed):
    from bellica.engine.trossian import battles, movement, navies, turn
    from bellica.engine.trossian.dice import Dice

    dice = Dice(seed=seed)
    st = new_game(S, R)
    st, log = turn.begin_phase(S, st, R, dice)
    dniester = next(a for a in st.armies if a.name == "Army of the Dniester")
    st, ev = movement.move_army(S, st, R, dniester.id, ["Bessarabia", "Moldavia"])       # by road: 1 + 1
    log += ev
    sinop = next(n for n in st.navies if n.port == "Sinop")
    kaffa = next(n for n in st.navies if n.port == "Kaffa")
    st, ev = navies.navy_actions(S, st, R, sinop.id, [("put_out",), ("sail", "Crimean Coast")])
    log += ev
    st, ev = navies.navy_actions(S, st, R, kaffa.id, [("put_out",)])
    log += ev
    st, ev = turn.contact(S, st, R, dice)
    log += ev
    assert [b.province for b in st.battles] == ["Moldavia"]
    assert any(e.kind == "sea_battle_rolls" for e in ev)
    st, ev = battles.resolve_battle(S, st, R, st.battles[0].id, "a", {}, dice)
    log += ev
    st, ev = turn.end_phase(S, st, R)
    return st, log + ev, dice


def test_a_seeded_first_phase_on_the_black_sea_is_reproducible():
    st, log, dice = _first_phase(11)
    assert (st.year, st.phase) == (1806, 1)
    assert all(len(n.schedule) in (1, 2) for n in st.nations.values())
    assert state_to_dict(_first_phase(11)[0]) == state_to_dict(st)               # same seed, same phase
    assert dice.log and all(1 <= r.value <= r.sides for r in dice.log)
