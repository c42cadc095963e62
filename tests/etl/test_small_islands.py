"""Small islands measured, not guessed (issue 8): a land hex whose pixel-centre samples miss its land
takes its elevation from the DEM pixels over that land, is listed in map_meta, and never falls into a
terrain class because a missing elevation read as 0 m."""

import json

import duckdb
import geopandas as gpd
import h3
import numpy as np
import pandas as pd
import pytest
import rasterio
import shapely
from affine import Affine

from bellica.etl.dem import dem_stats_by_cell, elevation_notes, fill_unsampled_land, land_pixel_stats
from bellica.etl.terrain import classify_terrain, load_terrain_rules
from bellica.geo import hexgrid
from bellica.geo.errors import InputError

RULES = load_terrain_rules()
NODATA = -32768
PX = 0.05  # degrees: ~5 km pixels, coarse against a res-5 hex (~9 km edge)


def write_dem(path, values, west, north):
    profile = dict(driver="GTiff", width=values.shape[1], height=values.shape[0], count=1, dtype="int16",
                   crs="EPSG:4326", transform=Affine(PX, 0, west, 0, -PX, north), nodata=NODATA)
    with rasterio.open(path, "w", **profile) as dst:
        dst.write(values.astype(np.int16), 1)
    return path


def shores(*polys):
    return gpd.GeoDataFrame({"level": [1] * len(polys)}, geometry=list(polys), crs="EPSG:4326")


def pixel_rows_cols(west, north, lon0, lat0, lon1, lat1):
    """Pixel index ranges (rows, cols) whose footprints overlap the lon/lat box."""
    c0, c1 = int(np.floor((lon0 - west) / PX)), int(np.ceil((lon1 - west) / PX))
    r0, r1 = int(np.floor((north - lat1) / PX)), int(np.ceil((north - lat0) / PX))
    return slice(r0, r1), slice(c0, c1)


def one_land_hex(cell, land_fraction, elev):
    lat, lng = hexgrid.cell_center(cell)
    # a small island is all shore: at sea distance 0, far from rivers and lakes
    return pd.DataFrame({"cell": [cell], "kind": ["land"], "lat": [lat], "lng": [lng], "land_fraction": [land_fraction],
                         "river": [False], "coast_km": [0.0], "river_km": [np.inf], "lake_km": [np.inf]}).merge(elev, on="cell")


def test_unsampled_island_hex_takes_the_nearest_pixels_of_its_own_island(tmp_path):
    # Hex A holds the west end of an island; every pixel over A is sea (nodata), so A gets no sample.
    # The island goes on east, out of A, over pixels reading 300 m: A's elevation must come from
    # those (the same island, within the search radius), and say so.
    a = h3.latlng_to_cell(38.0, 13.0, 5)
    west, south, east, north = shapely.bounds(hexgrid_polygon(a))
    dem_west, dem_north = 12.5, 38.5
    values = np.full((20, 30), NODATA)
    rows, cols = pixel_rows_cols(dem_west, dem_north, west, south, east, north)
    lat = (south + north) / 2
    island = shapely.box(13.0, lat - 0.01, east + 0.12, lat + 0.01)
    ir, ic = pixel_rows_cols(dem_west, dem_north, cols.stop * PX + dem_west, lat - 0.01, east + 0.12, lat + 0.01)
    values[ir, ic] = 300  # the island's pixels east of A's footprint
    values[rows, cols] = NODATA
    dem = write_dem(tmp_path / "dem.tif", values, dem_west, dem_north)

    elev = dem_stats_by_cell(dem, [a], 5, progress=False)
    assert elev.loc[0, "elev_samples"] == 0  # no pixel centre, no sample: the bug's starting point
    cells = fill_unsampled_land(one_land_hex(a, 0.02, elev), dem, shores(island),
                                rules={**RULES, "islands": {**RULES["islands"], "search_pixels": 2}})
    row = cells.iloc[0]
    assert row.elev_source == "island" and row.elev_mean == 300 and row.elev_max == 300 and row.elev_samples >= 1
    assert 0 < row.elev_search_px <= 2
    cells["terrain"] = classify_terrain(cells, pd.DataFrame(columns=["cell", "neighbor"]), rules=RULES)
    assert elevation_notes(cells)[a]["source"] == "island"


def hexgrid_polygon(cell):
    return shapely.Polygon([(lng, lat) for lat, lng in h3.cell_to_boundary(cell)])


def test_island_hex_reading_the_sea_floor_takes_the_pixel_over_its_land(tmp_path):
    # Giglio/Capraia: the coarse pixels around a small island read the sea floor (-200 m); only the
    # pixel over the island reads land (120 m).  The hex's samples average under the sea (marshes);
    # its land must take the pixel over it.
    a = h3.latlng_to_cell(42.0, 11.0, 5)
    lat, lng = hexgrid.cell_center(a)
    dem_west, dem_north = 10.5, 42.5
    values = np.full((20, 20), -200)
    island = shapely.box(lng - 0.005, lat - 0.005, lng + 0.005, lat + 0.005)
    r, c = pixel_rows_cols(dem_west, dem_north, *island.bounds)
    values[r, c] = 120
    dem = write_dem(tmp_path / "dem.tif", values, dem_west, dem_north)
    elev = dem_stats_by_cell(dem, [a], 5, progress=False)
    assert elev.loc[0, "elev_mean"] < 0  # the old reading: below the sea, hence marshes
    cells = fill_unsampled_land(one_land_hex(a, 0.001, elev), dem, shores(island), rules=RULES)
    row = cells.iloc[0]
    assert (row.elev_source, row.elev_mean, row.elev_min, row.elev_samples) == ("hex land", 120, 120, 1)


def test_mostly_land_hex_keeps_a_real_depression(tmp_path):
    # Qattara, the Dead Sea: a mostly-land hex reading below sea level is measured, not sea floor.
    a = h3.latlng_to_cell(30.0, 27.0, 5)
    lat, lng = hexgrid.cell_center(a)
    dem = write_dem(tmp_path / "dem.tif", np.full((20, 20), -86), lng - 0.5, lat + 0.5)
    elev = dem_stats_by_cell(dem, [a], 5, progress=False)
    cells = fill_unsampled_land(one_land_hex(a, 1.0, elev), dem, shores(hexgrid_polygon(a).buffer(0.1)), rules=RULES)
    assert cells.iloc[0].elev_source == "samples" and cells.iloc[0].elev_mean == -86


def test_island_with_no_pixel_is_classed_by_the_stated_rule_not_as_marsh(tmp_path):
    # Ustica, La Galite: every pixel around is sea.  No elevation is invented (NULL, 0 samples), the
    # terrain is the rules file's unmeasured_terrain, and map_meta lists the hex.
    a = h3.latlng_to_cell(38.7, 13.18, 5)
    lat, lng = hexgrid.cell_center(a)
    dem = write_dem(tmp_path / "dem.tif", np.full((20, 20), NODATA), lng - 0.5, lat + 0.5)
    island = shapely.box(lng - 0.02, lat - 0.02, lng + 0.02, lat + 0.02)
    elev = dem_stats_by_cell(dem, [a], 5, progress=False)
    cells = fill_unsampled_land(one_land_hex(a, 0.03, elev), dem, shores(island), rules=RULES)
    assert cells.iloc[0].elev_source == "none" and np.isnan(cells.iloc[0].elev_mean)
    cells["terrain"] = classify_terrain(cells, pd.DataFrame(columns=["cell", "neighbor"]), rules=RULES)
    assert cells.iloc[0].terrain == RULES["islands"]["unmeasured_terrain"] != "marshes"
    assert elevation_notes(cells) == {a: {"source": "none", "pixels": 0, "terrain": "hills"}}


def test_islands_rules_are_checked(tmp_path):
    text = (load_terrain_rules.__globals__["DEFAULT_TERRAIN_RULES"]).read_text()
    bad = tmp_path / "rules.toml"
    bad.write_text(text.replace('unmeasured_terrain = "hills"', 'unmeasured_terrain = "swamp"'))
    with pytest.raises(InputError, match="unmeasured_terrain is 'swamp'"):
        load_terrain_rules(bad)
    bad.write_text(text.replace("search_pixels = 1", "search_pixels = -1"))
    with pytest.raises(InputError, match="search_pixels is -1"):
        load_terrain_rules(bad)
    # a rules file from before the island rule still loads, with the embedded [islands]
    old = tmp_path / "old.toml"
    old.write_text(text.split("[islands]")[0])
    assert load_terrain_rules(old)["islands"] == RULES["islands"]


# --- the real default map -------------------------------------------------------------------

NAMED = {"Ustica": (38.70, 13.18), "Giglio": (42.36, 10.90), "Capraia": (43.05, 9.83),
         "La Galite": (37.53, 8.93), "Pantelleria": (36.79, 11.99)}
# Ventotene (40.80 N 13.43 E, 1.5 km2) is under the island rule's 5 km2 and stays sea.


def test_default_map_small_islands_are_measured_not_guessed(mediterranean_map):
    con = duckdb.connect(str(mediterranean_map), read_only=True)
    try:
        notes = json.loads(con.execute("SELECT value FROM map_meta WHERE key = 'elevation_fallback'").fetchone()[0])
        hexes = con.execute("SELECT cell, kind, terrain, elev_mean, elev_samples, land_fraction FROM hexes").df().set_index("cell")
    finally:
        con.close()
    land = hexes[hexes.kind == "land"]
    # every land hex without a sample is listed, with the stated rule's terrain: none falls into
    # marshes because NULL read as 0 m
    blank = land[land.elev_samples == 0]
    assert len(blank) and set(blank.index) <= set(notes)
    assert (blank.terrain == RULES["islands"]["unmeasured_terrain"]).all()
    assert all(notes[c]["source"] == "none" for c in blank.index)
    # no island hex (land only by the island rule) keeps a sea-floor mean
    islands = land[land.land_fraction < RULES["kind"]["land_fraction"]]
    assert not (islands.elev_mean < RULES["islands"]["min_land_elev"]).any()
    for name, (lat, lng) in NAMED.items():
        row = hexes.loc[h3.latlng_to_cell(lat, lng, 5)]
        assert row.kind == "land", name
        assert row.terrain != "marshes", name
        if row.elev_samples == 0:
            assert notes[row.name]["source"] == "none", name


def test_default_map_pantelleria_follows_its_dem_pixels(mediterranean_map):
    # The 5-arc-minute DEM reads at most 166 m over Pantelleria (836 m summit): the land in its hex
    # overlaps two 166 m pixels and a sliver of a -310 m one (the sea floor).  The hex's terrain must follow those numbers through the rules:
    # hills as soon as the pixels say so, and the classification of those readings otherwise.
    from bellica.etl.build import DEFAULT_DEM, DEFAULT_SHORELINES
    from bellica.etl.shorelines import read_shorelines

    cell = h3.latlng_to_cell(36.79, 11.99, 5)
    over_land = land_pixel_stats(DEFAULT_DEM, [cell], read_shorelines(DEFAULT_SHORELINES),
                                 min_land_elev=RULES["islands"]["min_land_elev"]).iloc[0]
    con = duckdb.connect(str(mediterranean_map), read_only=True)
    try:
        row = con.execute("SELECT terrain, elev_mean, elev_max FROM hexes WHERE cell = ?", [cell]).df().iloc[0]
    finally:
        con.close()
    assert row.elev_max == over_land.elev_max == 166.0
    if over_land.elev_mean >= RULES["hills"]["min_elev_mean"]:
        assert row.terrain in ("hills", "mountains")
    else:
        assert row.terrain == "farmlands"  # what 166 m with no relief is, by the hills rule's 330 m
