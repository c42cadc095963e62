"""Hex classification rules on tiny synthetic neighbourhoods."""

import numpy as np
import pandas as pd
import pytest

from bellica.etl.terrain import classify_kinds, classify_terrain, load_ocean, load_terrain_rules
from bellica.geo import hexgrid
from bellica.geo.errors import InputError, MissingInputError

RULES = load_terrain_rules()


def neighbourhood(lat=42.0, lng=13.0, k=2, res=5):
    centre = hexgrid.cell_at(lat, lng, res)
    cells = sorted(hexgrid.ring(centre, k))
    neighbors = pd.DataFrame(hexgrid.neighbor_table(cells), columns=["cell", "neighbor", "clock", "bearing"])
    latlng = [hexgrid.cell_center(c) for c in cells]
    frame = pd.DataFrame({"cell": cells, "lat": [p[0] for p in latlng], "lng": [p[1] for p in latlng]})
    return centre, frame, neighbors


def land_frame(frame, **columns):
    defaults = dict(land_fraction=1.0, lake_fraction=0.0, landmasses=1, keeps_island=False, keeps_lake=False)
    for k, v in {**defaults, **columns}.items():
        frame[k] = v
    return frame


def test_land_sea_coast_from_fractions():
    centre, frame, nb = neighbourhood()
    frame = land_frame(frame, land_fraction=0.0, landmasses=0)
    frame.loc[frame.cell == centre, "land_fraction"] = 0.7
    kinds = dict(zip(frame.cell, classify_kinds(frame, nb, rules=RULES)))
    assert kinds[centre] == "land"
    ring1 = hexgrid.ring(centre, 1) - {centre}
    assert all(kinds[c] == "coast" for c in ring1)
    assert all(kinds[c] == "sea" for c in set(frame.cell) - ring1 - {centre})


def test_small_island_is_kept_and_strait_stays_open():
    centre, frame, nb = neighbourhood()
    frame = land_frame(frame, land_fraction=0.0, landmasses=0)
    # a small island: 30 % of one hex, the largest share of its polygon
    frame.loc[frame.cell == centre, ["land_fraction", "keeps_island", "landmasses"]] = [0.3, True, 1]
    # a strait hex touching two land masses, 60 % land, stays water
    strait = sorted(hexgrid.ring(centre, 2) - hexgrid.ring(centre, 1))[0]
    frame.loc[frame.cell == strait, ["land_fraction", "landmasses"]] = [0.6, 2]
    kinds = dict(zip(frame.cell, classify_kinds(frame, nb, rules=RULES)))
    assert kinds[centre] == "land"
    assert kinds[strait] in ("sea", "coast")


def test_lake_kept_and_ocean_polygon():
    centre, frame, nb = neighbourhood(lat=36.5, lng=-7.5)  # west of Gibraltar: ocean by default
    frame = land_frame(frame, land_fraction=0.0, landmasses=0)
    kinds = classify_kinds(frame, nb, rules=RULES, ocean=load_ocean())
    assert set(kinds) == {"ocean"}
    centre, frame, nb = neighbourhood()
    frame = land_frame(frame)
    frame.loc[frame.cell == centre, ["land_fraction", "lake_fraction", "keeps_lake"]] = [0.7, 0.3, True]
    kinds = dict(zip(frame.cell, classify_kinds(frame, nb, rules=RULES)))
    assert kinds[centre] == "lake"


def test_a_kept_lake_too_small_to_see_leaves_its_land_hex_land():
    # Tarsus's hex at res 4: 97 % land, 3 % of a 53 km2 lake whose largest share it holds.  A kept
    # lake takes its hex only from kept_lake_min_fraction (0.1) of it; files without the key keep
    # every holder, as before the key existed.
    centre, frame, nb = neighbourhood()
    frame = land_frame(frame)
    frame.loc[frame.cell == centre, ["land_fraction", "lake_fraction", "keeps_lake"]] = [0.97, 0.03, True]
    assert RULES["kind"]["kept_lake_min_fraction"] == 0.1
    assert dict(zip(frame.cell, classify_kinds(frame, nb, rules=RULES)))[centre] == "land"
    old = {**RULES, "kind": {k: v for k, v in RULES["kind"].items() if k != "kept_lake_min_fraction"}}
    assert dict(zip(frame.cell, classify_kinds(frame, nb, rules=old)))[centre] == "lake"


def test_inland_hex_with_an_island_in_a_lake_stays_lake_not_sea():
    # Two "land masses" (the shore and an island in the lake) trigger the strait rule;
    # the hex holds 60 % land and 40 % lake and no sea, so it must not become sea.
    centre, frame, nb = neighbourhood()
    frame = land_frame(frame)
    frame.loc[frame.cell == centre, ["land_fraction", "lake_fraction", "landmasses"]] = [0.6, 0.4, 2]
    kinds = dict(zip(frame.cell, classify_kinds(frame, nb, rules=RULES)))
    assert kinds[centre] == "lake"


def terrain_of(lat=42.0, lng=13.0, river=False, coast_km=float("inf"), **elev):
    """The centre's terrain in a land neighbourhood of even heights, the centre's own water distances
    (a river through it when ``river``) and elevations given."""
    centre, frame, nb = neighbourhood(lat=lat, lng=lng, k=3)
    frame["kind"] = "land"
    base = dict(elev_mean=100.0, elev_min=60.0, elev_max=140.0)
    for k, v in base.items():
        frame[k] = v
    for k, v in elev.items():
        frame.loc[frame.cell == centre, k] = v
    frame["river"] = frame.cell == centre if river else False
    frame["coast_km"] = coast_km
    frame["river_km"] = np.where(frame.cell == centre, 0.0 if river else np.inf, np.inf)
    frame["lake_km"] = np.inf
    terr = dict(zip(frame.cell, classify_terrain(frame, nb, rules=RULES)))
    return terr[centre]


@pytest.mark.parametrize(
    "kwargs, expected",
    [
        (dict(elev_mean=2100.0, elev_min=1200.0, elev_max=3200.0), "peaks"),
        (dict(elev_mean=1300.0, elev_min=700.0, elev_max=2000.0), "mountains"),
        (dict(elev_mean=700.0, elev_min=200.0, elev_max=1300.0), "mountains"),  # rugged middle heights
        (dict(elev_mean=400.0, elev_min=200.0, elev_max=600.0, lat=38.0), "hills"),
        (dict(elev_mean=500.0, elev_min=300.0, elev_max=700.0, lat=43.0), "forests"),
        (dict(elev_mean=100.0, elev_min=60.0, elev_max=140.0), "farmlands"),
        (dict(elev_mean=200.0, elev_min=100.0, elev_max=300.0, lat=31.0, lng=20.0), "desert"),
        (dict(elev_mean=5.0, elev_min=-2.0, elev_max=26.0, lat=31.0, lng=31.0, river=True), "marshes"),  # a delta
        (dict(elev_mean=150.0, elev_min=100.0, elev_max=200.0, lat=31.0, lng=31.0, river=True), "farmlands"),  # the Nile waters it
        (dict(elev_mean=2.0, elev_min=-2.0, elev_max=26.0, river=True), "marshes"),
    ],
)
def test_terrain_rules(kwargs, expected):
    assert terrain_of(**kwargs) == expected


def test_water_hexes_have_no_terrain():
    centre, frame, nb = neighbourhood()
    frame["kind"] = "sea"
    frame["elev_mean"] = frame["elev_min"] = frame["elev_max"] = float("nan")
    frame["river"] = False
    frame["coast_km"], frame["river_km"], frame["lake_km"] = 0.0, np.inf, np.inf
    assert classify_terrain(frame, nb, rules=RULES).isna().all()


def test_rules_file_errors(tmp_path):
    with pytest.raises(MissingInputError, match="does not exist"):
        load_terrain_rules(tmp_path / "nope.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[kind\n")
    with pytest.raises(InputError, match="not valid TOML"):
        load_terrain_rules(bad)
    partial = tmp_path / "partial.toml"
    partial.write_text("[kind]\nland_fraction = 0.5\n")
    with pytest.raises(InputError, match="lacks sections"):
        load_terrain_rules(partial)


def test_hex_distance_to_counts_hexes_from_the_nearest_source_up_to_the_limit():
    from bellica.etl.terrain import hex_distance_to

    # a - b - c - d - e in a line, f joined only to e; sources a and e
    adj = {"a": ["b"], "b": ["a", "c"], "c": ["b", "d"], "d": ["c", "e"], "e": ["d", "f"], "f": ["e"]}
    adj = pd.DataFrame([(c, n) for c, ns in adj.items() for n in ns], columns=["cell", "neighbor"])
    assert hex_distance_to({"a", "e"}, adj, limit=8) == {"a": 0, "b": 1, "c": 2, "d": 1, "e": 0, "f": 1}
    assert hex_distance_to({"a"}, adj, limit=2) == {"a": 0, "b": 1, "c": 2}
    assert hex_distance_to(set(), adj, limit=2) == {}
