"""The province builder's towns, barrier lines and reach (docs/provinces.md), on the synthetic map of
test_provinces.py: a disk with sea in the west, a ridge of peaks at 0 <= x < 1.1, farmland elsewhere."""

from __future__ import annotations

import h3
import pytest

from bellica.etl.provinces import scenario_spec, spec_from_dict
from bellica.geo.errors import InputError
from tests.etl.test_provinces import CENTRE, RES, STEP, _allocate, _owners, _xy, cell_near, hexmap, lonlat, province_toml  # noqa: F401

ORIGIN = h3.latlng_to_cell(*CENTRE, RES)


def _haversine(a: str, b: str) -> float:
    return h3.great_circle_distance(h3.cell_to_latlng(a), h3.cell_to_latlng(b), unit="km")


def _lon(x: float) -> float:
    return round(h3.cell_to_latlng(ORIGIN)[1] + x * STEP, 6)


def test_a_town_seeds_its_province(hexmap):
    path, _cells = hexmap
    town = cell_near(5.0, -1.0)  # between Bruttium and Campania
    assert _owners(_allocate(path, province_toml()))[town] != "Aemilia"
    lon, lat = lonlat(town)
    text = province_toml().replace('name = "Aemilia"\n', f'name = "Aemilia"\ntowns = [{{ name = "Far", lon = {lon}, lat = {lat} }}]\n')
    result = _allocate(path, text)
    owners = _owners(result)
    assert owners[town] == "Aemilia"
    assert ("Aemilia", town, "town", False) in result.cells
    assert all(owners.get(n) == "Aemilia" for n in h3.grid_ring(town, 1))  # it grows from the town


def test_a_barrier_line_stops_growth(hexmap):
    path, cells = hexmap
    y0, y1 = h3.cell_to_latlng(ORIGIN)[0] - 1, h3.cell_to_latlng(ORIGIN)[0] + 1
    between = [c for c, (k, t) in cells.items() if t == "farmlands" and 1.1 <= _xy(c, ORIGIN)[0] < 2.0]
    assert between
    free = _owners(_allocate(path, province_toml()))
    assert all(free[c] in ("Bruttium", "Campania") for c in between)
    line = f'[[barrier]]\nname = "River"\nline = [[{_lon(2.4)}, {y0}], [{_lon(2.4)}, {y1}]]\n'
    walled = _allocate(path, province_toml(line))
    owners = _owners(walled)
    assert not any(c in owners for c in between)  # east of the ridge, west of the river: nobody's
    assert walled.unassigned > len(between)


def test_reach_caps_growth(hexmap):
    path, _cells = hexmap
    capital = cell_near(5.0, 2.0)
    text = province_toml().replace('name = "Bruttium"\n', 'name = "Bruttium"\nreach_km = 8\n')
    owners = _owners(_allocate(path, text))
    mine = [c for c, p in owners.items() if p == "Bruttium"]
    assert capital in mine and 1 < len(mine) <= 7
    assert all(_haversine(c, capital) <= 8 for c in mine)
    everyone = _allocate(path, province_toml("[allocation]\nreach_km = 8\n"))
    assert sum(p["hex_count"] for p in everyone.provinces) <= 3 * 7 and everyone.unassigned > 0


@pytest.mark.parametrize("extra, message", [
    ('[[barrier]]\nname = "R"\nline = [[12.5, 41.9]]\n', "two points or more"),
    ('[[barrier]]\nname = "R"\nline = [[12.5, 41.9], [12.6, 95.0]]\n', "not a lon/lat"),
    ('[allocation]\nreach_km = 0\n', "not positive"),
])
def test_bad_barrier_or_reach_is_one_line(extra, message):
    with pytest.raises(InputError, match=message) as err:
        spec_from_dict(__import__("tomllib").loads(province_toml(extra)))
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("towns, message", [
    ('"Tarquinii"', "must be a list"),
    ('[{ name = "Tarquinii", lon = 11.7 }]', "name, lon and lat"),
    ('[{ name = "Tarquinii", lon = 211.7, lat = 42.2 }]', "not a lon/lat"),
])
def test_bad_towns_are_one_line(towns, message):
    text = province_toml().replace('name = "Aemilia"\n', f'name = "Aemilia"\ntowns = {towns}\n')
    with pytest.raises(InputError, match=message) as err:
        spec_from_dict(__import__("tomllib").loads(text))
    assert "\n" not in str(err.value)


def test_the_scenarios_give_towns_reach_and_barriers():
    from bellica.datasets import SCENARIOS_DIR

    # mare-nostrum: Gibraltar, the Halycus (the Punic west of Sicily) and the four closing the Aetolian League's land; trossian: six rivers and straits and the Dardanelles
    for name, rivers in (("rise-of-rome", 0), ("mare-nostrum", 6), ("trossian", 7)):
        spec = scenario_spec(SCENARIOS_DIR / name / "provinces.toml")
        assert all(p.towns for p in spec.provinces)
        assert spec.reach_km and len(spec.lines) == rivers and spec.exceptions
