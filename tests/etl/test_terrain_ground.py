"""The terrain rules measure the ground (issue 25): km from a hex's centre to water, relief over a disc
of fixed size, and a hex wider than that disc reads the relief most of its land has one level finer."""

import geopandas as gpd
import h3
import numpy as np
import pandas as pd
import pytest
import shapely
from pyproj import Geod

from bellica.etl.terrain import (DEFAULT_TERRAIN_RULES, classify_terrain, finer_bbox, ground_of, ground_resolution,
                                 load_terrain_rules, relief_from_finer)
from bellica.etl.water import ground_distances
from bellica.geo import hexgrid
from bellica.geo.errors import InputError

RULES = load_terrain_rules()
GEOD = Geod(ellps="WGS84")


def disc_map(lat, lng, res, *, radius_km=40.0, **columns):
    """Every land hex within ``radius_km`` of a point at ``res``: even heights (100 m, 60-140), the
    ground distances given (the same for every hex)."""
    centre = h3.latlng_to_cell(lat, lng, res)
    k = int(np.ceil(radius_km / (h3.average_hexagon_edge_length(res, unit="km") * 1.5)))
    cells = sorted(h3.grid_disk(centre, k))
    latlng = np.array([h3.cell_to_latlng(c) for c in cells])
    frame = pd.DataFrame({"cell": cells, "kind": "land", "lat": latlng[:, 0], "lng": latlng[:, 1],
                          "elev_mean": 100.0, "elev_min": 60.0, "elev_max": 140.0,
                          "coast_km": np.inf, "river_km": np.inf, "lake_km": np.inf})
    for key, value in columns.items():
        frame[key] = value
    return centre, frame


def terrain_at_every_res(lat, lng, **columns):
    out = {}
    for res in (5, 6, 7):
        centre, frame = disc_map(lat, lng, res, **columns)
        out[res] = dict(zip(frame.cell, classify_terrain(frame, rules=RULES)))[centre]
    return out


@pytest.mark.parametrize("columns, expected", [
    (dict(river_km=20.0), "farmlands"),            # the Nile's valley: watered within 26 km
    (dict(river_km=30.0), "desert"),               # beyond it, the Sahara
    (dict(river_km=5.0, elev_mean=5.0, elev_min=-2.0, elev_max=26.0), "marshes"),  # the delta: low, flat, watered
    (dict(coast_km=60.0, elev_mean=5.0, elev_min=-2.0, elev_max=26.0), "desert"),  # low and dry: no marsh
])
def test_water_is_km_from_the_centre_whatever_the_resolution(columns, expected):
    assert terrain_at_every_res(30.8, 31.0, **columns) == {5: expected, 6: expected, 7: expected}


def test_steppe_and_forests_read_km_to_the_sea():
    # south of 35.3 N: farther than 36 km from the sea is steppe desert, nearer is farmland (the Mesaoria)
    assert terrain_at_every_res(35.15, 33.5, coast_km=21.0) == dict.fromkeys((5, 6, 7), "farmlands")
    assert terrain_at_every_res(35.15, 33.5, coast_km=40.0) == dict.fromkeys((5, 6, 7), "desert")
    # wooded uplands of the north are forests inland, hills within the coastal strip
    upland = dict(elev_mean=400.0, elev_min=300.0, elev_max=500.0)
    assert terrain_at_every_res(43.0, 11.0, coast_km=20.0, **upland) == dict.fromkeys((5, 6, 7), "forests")
    assert terrain_at_every_res(43.0, 11.0, coast_km=10.0, **upland) == dict.fromkeys((5, 6, 7), "hills")


def test_relief_is_read_over_a_disc_of_a_res5_hex_area():
    # A ridge 5 km north of a plain's hex: at res 5 it lies in the hex (its max), at res 6 and 7 in
    # the neighbours within the 9 km disc.  Either way the plain by the ridge is hills, and a plain
    # 15 km from it is not.
    for res in (5, 6, 7):
        for offset_km, expected in ((5.0, "hills"), (15.0, "farmlands")):
            centre, frame = disc_map(42.0, 13.0, res)
            lat, lng = h3.cell_to_latlng(centre)
            ridge_lng, ridge_lat, _ = GEOD.fwd(lng, lat, 0.0, offset_km * 1000.0)
            if res == 5 and offset_km < 9:
                frame.loc[frame.cell == centre, "elev_max"] = 600.0  # the ridge is inside the res-5 hex
            else:
                frame.loc[frame.cell == h3.latlng_to_cell(ridge_lat, ridge_lng, res), "elev_max"] = 600.0
            got = dict(zip(frame.cell, classify_terrain(frame, rules=RULES)))[centre]
            assert got == expected, (res, offset_km, got)


def test_classify_terrain_needs_the_ground_columns():
    centre, frame = disc_map(42.0, 13.0, 5)
    with pytest.raises(InputError, match="cells lack coast_km, lake_km: measure them with etl.terrain.ground_of"):
        classify_terrain(frame.drop(columns=["coast_km", "lake_km"]), rules=RULES)


def test_a_coarse_hex_reads_the_relief_most_of_its_land_has_one_level_finer():
    # The Mesaoria's res-4 hex: four of its res-5 children are plain (40 m of relief), three hold
    # the Kyrenia range (900 m).  Its own samples span 900 m, hills; its land is mostly plain.
    parent = h3.latlng_to_cell(35.1, 33.4, 4)
    children = sorted(h3.cell_to_children(parent, 5))
    latlng = np.array([h3.cell_to_latlng(c) for c in children])
    rugged = np.arange(7) >= 4
    fine = pd.DataFrame({"cell": children, "kind": "land", "lat": latlng[:, 0], "lng": latlng[:, 1], "elev_mean": 150.0,
                         "elev_min": np.where(rugged, 0.0, 100.0), "elev_max": np.where(rugged, 900.0, 140.0)})
    lat, lng = h3.cell_to_latlng(parent)
    elsewhere = h3.latlng_to_cell(45.0, 10.0, 4)  # no land of the finer map: keeps its own relief
    coarse = pd.DataFrame({"cell": [parent, elsewhere], "kind": "land", "lat": [lat, 45.0], "lng": [lng, 10.0],
                           "elev_mean": 150.0, "elev_min": 0.0, "elev_max": 900.0, "coast_km": 20.0,
                           "river_km": np.inf, "lake_km": np.inf})
    relief = relief_from_finer(coarse, fine, rules=RULES)
    assert relief["relief_m"].iloc[0] == 40.0 and relief["neighbourhood_relief_m"].iloc[0] == 0.0
    assert relief.iloc[1].isna().all()
    assert classify_terrain(coarse, rules=RULES).tolist() == ["hills", "hills"]
    assert classify_terrain(coarse.join(relief), rules=RULES).tolist() == ["farmlands", "hills"]
    # mostly rugged land is hills however it is read; the sea's hexes do not vote
    fine["kind"] = np.where(rugged, "land", "coast")
    assert relief_from_finer(coarse, fine, rules=RULES)["relief_m"].iloc[0] == 900.0


def test_the_ground_resolution_is_the_relief_disc_s_and_finer_bbox_holds_every_child():
    assert ground_resolution(RULES) == 5
    assert ground_resolution({"ground": {"relief_radius_km": 3.4}}) == 6
    cells = hexgrid.cells_in_bbox((33.0, 34.8, 34.0, 35.5), 4)
    west, south, east, north = finer_bbox(cells, 6)
    kids = np.array([h3.cell_to_latlng(k) for c in cells for k in h3.cell_to_children(c, 6)])
    assert (kids[:, 0] >= south).all() and (kids[:, 0] <= north).all()
    assert (kids[:, 1] >= west).all() and (kids[:, 1] <= east).all()


def square(lng0, lat0, lng1, lat1, level):
    return {"level": level, "geometry": shapely.box(lng0, lat0, lng1, lat1)}


def test_ground_distances_are_geodesic_km_to_sea_river_and_kept_lakes():
    shore = gpd.GeoDataFrame([square(10.0, 40.0, 12.0, 42.0, 1),   # an island 2 x 2 degrees
                              square(10.9, 40.9, 11.1, 41.1, 2),   # a lake of ~370 km2: kept
                              square(11.5, 41.5, 11.52, 41.52, 2),  # a pond of ~3.5 km2: not a lake
                              square(5.0, 40.0, 6.0, 42.0, 1)],    # land at the extent's west edge
                             crs="EPSG:4326")
    river = gpd.GeoSeries([shapely.LineString([(10.5, 40.2), (10.5, 41.8)])], crs="EPSG:4326")
    lat, lng = np.array([41.0, 41.0, 41.5, 41.0]), np.array([10.2, 10.5, 11.6, 5.05])
    got = ground_distances(lat, lng, shore, river, reach_km=100.0)

    def km(lon0, lat0, lon1, lat1):
        return GEOD.inv(lon0, lat0, lon1, lat1)[2] / 1000.0

    assert got.coast_km[0] == pytest.approx(km(10.2, 41.0, 10.0, 41.0), rel=0.01)   # to the west shore
    assert got.river_km[0] == pytest.approx(km(10.2, 41.0, 10.5, 41.0), rel=0.01)
    assert got.river_km[1] == 0.0 and got.lake_km[1] == pytest.approx(km(10.5, 41.0, 10.9, 41.0), rel=0.01)
    assert got.lake_km[2] > 30  # the pond beside it is too small to be a lake
    # the straight edge of the shorelines' extent (5 E) is no coast: the sea is the other side
    assert got.coast_km[3] == pytest.approx(km(5.05, 41.0, 6.0, 41.0), rel=0.01)
    # beyond the reach asked for, nothing is measured
    assert np.isinf(ground_distances(lat, lng, shore, river, reach_km=5.0).river_km[0])


def test_ground_of_measures_only_hexes_that_can_be_land():
    shore = gpd.GeoDataFrame([square(10.0, 40.0, 12.0, 42.0, 1)], crs="EPSG:4326")
    cells = pd.DataFrame({"lat": [41.0, 41.0], "lng": [10.2, 10.3], "land_fraction": [1.0, 0.1],
                          "keeps_island": [False, False]}, index=[7, 9])
    got = ground_of(cells, shore, gpd.GeoSeries([], crs="EPSG:4326"), rules=RULES)
    assert list(got.index) == [7, 9] and got.coast_km[7] > 10 and np.isinf(got.coast_km[9])
    assert np.isinf(got.river_km).all()


def test_rules_files_in_hexes_are_refused_and_old_files_take_the_embedded_ground(tmp_path):
    text = DEFAULT_TERRAIN_RULES.read_text()
    bad = tmp_path / "rules.toml"
    bad.write_text(text.replace("steppe_min_coast_km = 36.0", "steppe_min_coast_km = 36.0\nsteppe_min_coast_distance = 3"))
    with pytest.raises(InputError, match=r"\[desert\] steppe_min_coast_distance counts hexes, which cover other ground"):
        load_terrain_rules(bad)
    bad.write_text(text.replace("watered_km = 26.0", "watered_km = -1"))
    with pytest.raises(InputError, match=r"\[ground\] watered_km is -1: give km > 0, e.g. watered_km = 26.0"):
        load_terrain_rules(bad)
    head, tail = text.split("\n[ground]\n")
    old = tmp_path / "old.toml"
    old.write_text(head + "\n[peaks]\n" + tail.split("\n[peaks]\n", 1)[1])
    assert load_terrain_rules(old)["ground"] == RULES["ground"]
