"""Per-hex water fractions: synthetic polygons against a geodesic oracle, then the shipped data."""


import geopandas as gpd
import h3
import numpy as np
import pytest
import shapely
from pyproj import Geod

from bellica.datasets import DATASETS_DIR
from bellica.etl.shorelines import read_shorelines
from bellica.etl.water import pieces_from_polygon, river_cells, water_fractions_by_cell
from bellica.geo.errors import InputError
from bellica.geo.hexgrid import cell_at, cell_polygon, cells_in_bbox
from bellica.geo.settings import MEDITERRANEAN_BBOX

GEOD = Geod(ellps="WGS84")
CENTRE = cell_at(40.0, 12.0, 5)
DISK = sorted(h3.grid_disk(CENTRE, 3))  # 37 res-5 cells, ~1 degree across


def geodesic_km2(geom) -> float:
    return abs(GEOD.geometry_area_perimeter(geom)[0]) / 1e6 if not geom.is_empty else 0.0


def shores(*rows):
    """rows of (level, gshhg_id, geometry)."""
    level, gid, geom = zip(*rows)
    return gpd.GeoDataFrame({"level": list(level), "gshhg_id": list(gid)}, geometry=list(geom), crs=4326)


def oracle_fraction(cell, geom):
    # Geod joins vertices by geodesics; densify so edges follow the lon/lat lines they mean.
    hexagon = shapely.segmentize(cell_polygon(cell), 0.002)
    geom = shapely.segmentize(geom, 0.002)
    return geodesic_km2(hexagon.intersection(geom)) / geodesic_km2(hexagon)


def test_fractions_match_geodesic_areas_of_nested_levels():
    land = shapely.box(11.3, 39.5, 12.9, 40.5)
    lake = shapely.box(11.6, 39.7, 12.4, 40.3)
    island = shapely.box(11.9, 39.9, 12.2, 40.1)
    pond = shapely.box(12.0, 39.95, 12.1, 40.05)
    out = water_fractions_by_cell(DISK, shores((1, 1, land), (2, 2, lake), (3, 3, island), (4, 4, pond)))
    assert out["cell"].tolist() == DISK
    for cell, lf, kf in out[["cell", "land_fraction", "lake_fraction"]].itertuples(index=False):
        want_land = (oracle_fraction(cell, land) - oracle_fraction(cell, lake)
                     + oracle_fraction(cell, island) - oracle_fraction(cell, pond))
        want_lake = oracle_fraction(cell, lake) - oracle_fraction(cell, island)
        # LAEA vs ellipsoid and straight edges in different planes: agreement to 0.2% of a hex
        assert lf == pytest.approx(want_land, abs=2e-3), cell
        assert kf == pytest.approx(want_lake, abs=2e-3), cell
    assert ((out["land_fraction"] > 0) & (out["land_fraction"] < 1)).any()


def test_full_and_empty_cells_are_exact():
    big = shapely.box(10, 38, 14, 42)
    out = water_fractions_by_cell(DISK, shores((1, 7, big)))
    assert (out["land_fraction"] == 1.0).all() and (out["lake_fraction"] == 0.0).all()
    assert (out["landmasses"] == 1).all()
    far = shapely.box(30, 30, 31, 31)
    out = water_fractions_by_cell(DISK, shores((1, 7, far)))
    assert (out["land_fraction"] == 0.0).all() and (out["landmasses"] == 0).all()
    assert not out["keeps_island"].any() and out["island_id"].isna().all()


def test_own_hexagon_as_land_fills_that_cell_only():
    out = water_fractions_by_cell(DISK, shores((1, 3, cell_polygon(CENTRE)))).set_index("cell")
    # The hexagon's ~10 km edges, straight in lon/lat here and straight in the equal-area plane
    # inside water.py, part by a few metres: 1e-4 of the hex.
    assert out.loc[CENTRE, "land_fraction"] == pytest.approx(1.0, abs=1e-3)
    assert out.drop(index=CENTRE)["land_fraction"].max() < 1e-3
    assert out.loc[CENTRE, "keeps_island"] and out.loc[CENTRE, "island_id"] == 3


def test_small_island_is_kept_by_the_cell_with_its_largest_share():
    lat, lng = h3.cell_to_latlng(CENTRE)
    islet = shapely.Point(lng, lat).buffer(0.015)  # ~5.6 km2, all in the centre cell
    # straddles the centre cell's boundary: most of it in one neighbour
    neighbour = DISK[0] if DISK[0] != CENTRE else DISK[1]
    edge = shapely.Point(*h3.cell_to_latlng(neighbour)[::-1]).buffer(0.03)
    out = water_fractions_by_cell(DISK, shores((1, 11, islet), (1, 12, edge)), min_island_km2=1.0).set_index("cell")
    assert out.loc[CENTRE, "keeps_island"] and out.loc[CENTRE, "island_id"] == 11
    assert 0 < out.loc[CENTRE, "land_fraction"] < 0.05
    assert out.loc[neighbour, "keeps_island"] and out.loc[neighbour, "island_id"] == 12
    assert out["keeps_island"].sum() == 2
    strict = water_fractions_by_cell(DISK, shores((1, 11, islet)), min_island_km2=50.0)
    assert not strict["keeps_island"].any()


def test_two_islands_in_one_cell_count_two_landmasses_and_keep_the_larger():
    lat, lng = h3.cell_to_latlng(CENTRE)
    a = shapely.Point(lng - 0.03, lat).buffer(0.02)
    b = shapely.Point(lng + 0.03, lat).buffer(0.01)
    out = water_fractions_by_cell(DISK, shores((1, 21, a), (1, 22, b)), min_island_km2=0.5).set_index("cell")
    assert out.loc[CENTRE, "landmasses"] == 2
    assert out.loc[CENTRE, "island_id"] == 21


def test_small_lake_is_kept():
    lat, lng = h3.cell_to_latlng(CENTRE)
    land = shapely.box(10, 38, 14, 42)
    lake = shapely.Point(lng, lat).buffer(0.04)  # ~40 km2
    out = water_fractions_by_cell(DISK, shores((1, 1, land), (2, 5, lake)), min_lake_km2=10).set_index("cell")
    assert out.loc[CENTRE, "keeps_lake"] and out.loc[CENTRE, "lake_id"] == 5
    assert out.loc[CENTRE, "lake_fraction"] == pytest.approx(oracle_fraction(CENTRE, lake), abs=2e-3)
    assert out["keeps_lake"].sum() == 1
    assert not water_fractions_by_cell(DISK, shores((1, 1, land), (2, 5, lake)), min_lake_km2=100)["keeps_lake"].any()


def test_huge_detailed_polygon_is_subdivided_without_changing_areas():
    lat, lng = h3.cell_to_latlng(CENTRE)
    disc = shapely.Point(lng, lat).buffer(0.45, quad_segs=2000)  # 8000 vertices across the disk
    pieces = pieces_from_polygon(disc, max_vertices=100, min_size=1e-6)
    assert len(pieces) > 50
    assert max(shapely.get_num_coordinates(p) for p in pieces) <= 100
    assert sum(p.area for p in pieces) == pytest.approx(disc.area, rel=1e-9)
    out = water_fractions_by_cell(DISK, shores((1, 1, disc)))
    for cell, lf in out[["cell", "land_fraction"]].itertuples(index=False):
        assert lf == pytest.approx(oracle_fraction(cell, disc), abs=2e-3)


def test_river_cells_follow_the_line():
    neighbour = next(n for n in h3.grid_ring(CENTRE, 1))
    a, b = h3.cell_to_latlng(CENTRE), h3.cell_to_latlng(neighbour)
    line = shapely.LineString([a[::-1], b[::-1]])  # centre to centre crosses one shared side
    assert river_cells(DISK, [line]) == {CENTRE, neighbour}
    assert river_cells(DISK, gpd.GeoDataFrame(geometry=[line], crs=4326)) == {CENTRE, neighbour}
    assert river_cells(DISK, []) == set()
    with pytest.raises(InputError):
        river_cells(DISK, [shapely.Point(0, 0)])


def test_bad_inputs():
    s = shores((1, 1, shapely.box(10, 38, 14, 42)))
    with pytest.raises(InputError, match="not an H3 cell"):
        water_fractions_by_cell(["nope"], s)
    with pytest.raises(InputError, match="twice"):
        water_fractions_by_cell([CENTRE, CENTRE], s)
    with pytest.raises(InputError, match="level"):
        water_fractions_by_cell(DISK, s.drop(columns="level"))
    with pytest.raises(InputError, match="min_island_km2"):
        water_fractions_by_cell(DISK, s, min_island_km2=-1)
    assert len(water_fractions_by_cell([], s)) == 0


@pytest.fixture(scope="module")
def default_map():
    cells = cells_in_bbox(MEDITERRANEAN_BBOX, 5)
    shorelines = read_shorelines(DATASETS_DIR / "mediterranean_shorelines.parquet")
    out = water_fractions_by_cell(cells, shorelines)
    return out.set_index("cell"), None, shorelines


def test_default_map_covers_every_cell(default_map):
    out, _, _ = default_map
    assert len(out) > 27000  # timing is measured by `make bench`, not here


def test_real_islands_lakes_land_and_sea(default_map):
    out, _, shorelines = default_map

    def at(lat, lng):
        return out.loc[cell_at(lat, lng, 5)]

    assert at(42.78, 10.25)["keeps_island"] and at(42.78, 10.25)["island_id"] == 874   # Elba
    assert at(35.9, 14.45)["keeps_island"]                                              # Malta
    assert at(40.55, 14.24)["keeps_island"]                                             # Capri
    assert at(37.93, 12.33)["keeps_island"] and at(37.97, 12.06)["keeps_island"]        # Favignana, Marettimo
    assert at(45.0, 10.5)["land_fraction"] == 1.0                                       # Po plain
    assert at(40.0, 12.0)["land_fraction"] == 0.0 and at(40.0, 12.0)["landmasses"] == 0  # Tyrrhenian
    # Lake Trasimene is split ~44/49 km2 between the cell at 43.13N 12.10E and its neighbour;
    # the neighbour holds the larger share and keeps it.
    trasimene_id = shorelines[(shorelines["level"] == 2)
                              & shorelines.intersects(shapely.Point(12.10, 43.13))]["gshhg_id"].iloc[0]
    keepers = out.index[out["lake_id"] == trasimene_id].tolist()
    assert len(keepers) == 1
    assert keepers[0] in h3.grid_disk(cell_at(43.13, 12.10, 5), 1)
    assert out.loc[keepers[0], "lake_fraction"] >= at(43.13, 12.10)["lake_fraction"]
    assert 0.1 < at(43.13, 12.10)["lake_fraction"] < 0.3
    assert np.all((out["land_fraction"] + out["lake_fraction"]) <= 1 + 1e-9)
