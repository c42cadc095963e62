"""The four shipped scenarios load, name only the node map's places, and play on a node map."""

from __future__ import annotations

from pathlib import Path

import pytest

from bellica.engine.magna_graecia.model import Link, NodeMap, Place
from bellica.engine.magna_graecia.rules import default_rules
from bellica.engine.magna_graecia.scenario import SCENARIOS, load_scenario, scenario_path
from bellica.engine.magna_graecia.turn import new_game
from bellica.geo.errors import InputError

R = default_rules()

NAMED = {"Syracuse", "Akragas", "Gela", "Kamarina", "Selinus", "Heraclea Minoa", "Motya", "Lilybaeum", "Drepana",
         "Eryx", "Segesta", "Entella", "Panormus", "Solus", "Himera", "Thermae", "Cephaloedium", "Halaesa", "Tyndaris",
         "Mylae", "Messana", "Tauromenium", "Naxos", "Catana", "Leontini", "Henna", "Agyrion", "Morgantina", "Acrae",
         "Helorus"}


def node_places() -> dict[str, Place]:
    """The places of the one node map (sicily-nodes.toml), with their years: the scenarios keep no list of their own."""
    from bellica.etl.nodes import load_node_file

    spec = load_node_file(scenario_path("sicily-nodes"))
    return {p.name: Place(p.name, bool(p.coastal), p.fortified, p.commands, p.from_year, p.until_year)
            for p in spec.places}


PLACES = node_places()


def place_stands(name: str, year: int) -> bool:
    return PLACES[name].stands(year)


def test_place_years_come_from_the_node_map():
    assert NAMED <= set(PLACES)
    assert place_stands("Motya", -397) and not place_stands("Motya", -396)
    assert place_stands("Lilybaeum", -396) and not place_stands("Lilybaeum", -397)
    assert not place_stands("Himera", -408) and place_stands("Thermae", -407) and not place_stands("Thermae", -408)
    assert not place_stands("Naxos", -402) and place_stands("Tauromenium", -396) and not place_stands("Tauromenium", -397)
    assert place_stands("Tyndaris", -396)
    assert not place_stands("Drepana", -264) and place_stands("Drepana", -260) and not place_stands("Selinus", -249)


@pytest.mark.parametrize("name", SCENARIOS)
def test_shipped_scenarios_load_with_notes(name):
    s = load_scenario(scenario_path(name), known_types=R.elements.types, places=PLACES)
    assert s.places() <= set(PLACES) and all(place_stands(p, s.year) for p in s.places())
    assert s.note and all(s.notes.values()) and len(s.notes) >= len(s.sides)
    assert all(side.army for side in s.sides)


def test_side_orders_and_three_sided_alliances():
    got = {n: load_scenario(scenario_path(n)) for n in SCENARIOS}
    assert got["dionysian"].order == ("Syracuse", "Carthage") and got["dionysian"].year == -397
    assert got["pyrrhic"].order == ("Pyrrhus", "Carthage", "Mamertines")
    assert got["first-punic"].order == ("Rome", "Carthage", "Syracuse")
    assert got["second-punic"].order == ("Rome", "Carthage", "Syracuse")
    assert ("Carthage", "Syracuse") in got["first-punic"].alliances


def sicily(year: int) -> NodeMap:
    """Every place, coastal and fortified with two commands, in a ring: enough to set a scenario up."""
    names = sorted(n for n in PLACES if place_stands(n, year))
    places = {n: Place(n, coastal=True, fortified=True, commands=2) for n in names}
    links = tuple(Link(a, b, k) for a, b in zip(names, names[1:] + names[:1]) for k in ("land", "sea"))
    return NodeMap(places, links)


@pytest.mark.parametrize("name", SCENARIOS)
def test_shipped_scenarios_set_up(name):
    sc = load_scenario(scenario_path(name))
    state, ev = new_game(sc, sicily(sc.year), R)
    assert state.order == sc.order and state.turn == 1 and state.phasing == sc.order[0]
    for side in sc.sides:
        assert state.cities[side.capital].holder == side.name
        if side.fleet_np:
            assert state.fleet(side.name).np == side.fleet_np
        for c in side.allied_cities:
            assert state.cities[c].ally == side.name
    for city, n in sc.city_commands.items():
        if city not in {x.capital for x in sc.sides}:
            assert len([c for c in state.commands if c.city == city]) == n


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "s.toml"
    p.write_text(text)
    return p


GOOD_SIDES = '''
[[side]]
name = "A"
capital = "Syracuse"
capital_strength = 0
start = "Syracuse"
[[side.command]]
general = "Cv(O)"
elements = { "Sp(O)" = 4 }
[[side]]
name = "B"
capital = "Motya"
capital_strength = 1
start = "Motya"
[[side.command]]
general = "Cv(O)"
elements = { "Sp(O)" = 4 }
'''


@pytest.mark.parametrize("head, extra, message", [
    ('year = -397', '', r"\[scenario\] lacks 'name'"),
    ('name = "x"\ntitle = "x"\nyear = 397', '', r"year = 397: give the year as a negative number BC"),
    ('name = "x"\ntitle = "x"\nyear = -300', '', r"Motya does not stand in 300 BC"),
    ('name = "x"\ntitle = "x"\nyear = -397', '[[city]]\nname = "Roma"\ncommands = 1', r"'Roma' is not a place of the node map"),
    ('name = "x"\ntitle = "x"\nyear = -397', '[[city]]\nname = "Gela"\ncommands = 5', r"commands = 5: give 0 to 3"),
    ('name = "x"\ntitle = "x"\nyear = -397', '[[alliance]]\nsides = ["A", "C"]', r"alliance #1 \['A', 'C'\]: give two different sides"),
])
def test_bad_scenarios_are_one_line(tmp_path, head, extra, message):
    with pytest.raises(InputError, match=message):
        load_scenario(write(tmp_path, f"[scenario]\n{head}\n{GOOD_SIDES}\n{extra}\n"), places=PLACES)


HEAD = 'name = "x"\ntitle = "x"\nyear = -397'


@pytest.mark.parametrize("old, new, message", [
    ('name = "A"', 'name = ""', r"side #1 \(\): name = '': give the side's name as a non-empty quoted string"),
    ('name = "A"', 'name = 7', r"name = 7: give the side's name as a non-empty quoted string"),
    ('"Sp(O)" = 4', '"Sp(O)" = 99999999999999999999', r"Sp\(O\) = 99999999999999999999: give a whole number of elements from 1 to 1000"),
    ('start = "Syracuse"', 'start = "Syracuse"\nallied_cities = ' + '["Gela", "Akragas", "Gela"]',
     r"allied_cities names Gela more than once: name each city once"),
])
def test_hostile_sides_are_refused_in_one_line(tmp_path, old, new, message):
    with pytest.raises(InputError, match=message):
        load_scenario(write(tmp_path, f"[scenario]\n{HEAD}\n{GOOD_SIDES.replace(old, new, 1)}\n"), places=PLACES)


def test_unknown_element_and_missing_file(tmp_path):
    bad = GOOD_SIDES.replace('"Sp(O)" = 4 }\n[[side]]', '"Zz(O)" = 4 }\n[[side]]', 1)
    with pytest.raises(InputError, match="element 'Zz\\(O\\)' is not a DBM type"):
        load_scenario(write(tmp_path, f'[scenario]\nname = "x"\ntitle = "x"\nyear = -397\n{bad}'), known_types=R.elements.types)
    with pytest.raises(InputError, match="cannot be read"):
        load_scenario(tmp_path / "none.toml")
