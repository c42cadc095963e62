"""The embedded data's extent (DATA_EXTENT): it matches the shipped files, reaches every seed's world
(Mare Nostrum's Iberia, Gaul, Egypt and Seleucid east), and a bbox past it is refused with the edge named."""

import duckdb
import h3
import pytest
import rasterio
import shapely

from bellica.datasets import DATASETS_DIR
from bellica.etl.build import (DEFAULT_DEM, DEFAULT_RIVERS, DEFAULT_SHORELINES, MAX_CELLS, BuildOptions, build_map,
                              check_embedded_extent, embedded_extent, estimated_cells, named_regions, region_bbox)
from bellica.etl.rivers import read_rivers
from bellica.etl.shorelines import read_shorelines
from bellica.etl.sources import DEM_NODATA
from bellica.geo.errors import InputError
from bellica.geo.settings import DATA_EXTENT, MEDITERRANEAN_BBOX

# Places of the seeds' worlds, (lon, lat): each must be land in the embedded DEM and shorelines.
LAND = {
    "Babylon": (44.42, 32.54),
    "Seleucia on the Tigris": (44.52, 33.10),
    "Susa": (48.25, 32.19),
    "Syene, First Cataract": (32.90, 24.09),
    "Olisipo": (-9.14, 38.72),
    "Gesoriacum, on the Channel": (1.61, 50.73),
    "Antioch": (36.16, 36.20),
    "Tarsus, Cilicia": (34.89, 36.92),
    "Mazaca, Cappadocia": (35.48, 38.73),
    "Tyre, Phoenicia": (35.21, 33.27),
}
# Harbour cities, (lon, lat) of the city and of open sea a few km off it: the city is on the coast.
COAST = {
    "Gades": ((-6.29, 36.53), (-6.50, 36.45)),
    "Massalia": ((5.37, 43.30), (5.20, 43.15)),
    "Alexandria": ((29.92, 31.20), (29.92, 31.40)),
}


@pytest.fixture(scope="module")
def shores():
    return read_shorelines(DEFAULT_SHORELINES)


def _dem_at(lon, lat):
    with rasterio.open(DEFAULT_DEM) as src:
        row, col = src.index(lon, lat)
        return int(src.read(1)[row, col])


def _contains(outer, inner):
    return outer[0] <= inner[0] and outer[1] <= inner[1] and outer[2] >= inner[2] and outer[3] >= inner[3]


def test_data_extent_is_the_shipped_files_extent(shores):
    assert embedded_extent() == DATA_EXTENT
    with rasterio.open(DEFAULT_DEM) as src:
        assert tuple(round(v, 6) for v in src.bounds) == DATA_EXTENT
        assert src.res == pytest.approx((1 / 12, 1 / 12))
    assert tuple(shores.total_bounds) == pytest.approx(DATA_EXTENT, abs=0.01)
    assert _contains(DATA_EXTENT, tuple(read_rivers(DEFAULT_RIVERS).total_bounds))


def test_every_named_region_and_the_default_bbox_lie_inside_the_data():
    assert _contains(DATA_EXTENT, MEDITERRANEAN_BBOX)
    for name, region in named_regions().items():
        assert _contains(DATA_EXTENT, tuple(region["bbox"])), name


def test_mare_nostrum_region_spans_the_seed_world():
    west, south, east, north = region_bbox("mare-nostrum")
    assert west <= -9.5 and south <= 24.0 and east >= 48.5 and north >= 50.9  # Cabo da Roca, Syene, Gulf head, Calais
    assert estimated_cells((west, south, east, north), 5) < MAX_CELLS / 10


@pytest.mark.parametrize("place", sorted(LAND))
def test_seed_places_are_land_in_the_embedded_data(shores, place):
    lon, lat = LAND[place]
    assert _dem_at(lon, lat) != DEM_NODATA, place
    land = shores[shores["level"] == 1]
    assert land.intersects(shapely.Point(lon, lat)).sum() == 1, place


@pytest.mark.parametrize("place", sorted(COAST))
def test_seed_harbours_are_on_the_coast_of_the_embedded_data(shores, place):
    (lon, lat), (sea_lon, sea_lat) = COAST[place]
    land = shapely.union_all(shores[shores["level"] == 1].geometry.to_numpy())
    assert land.distance(shapely.Point(lon, lat)) < 0.02, place  # within ~2 km of the shoreline
    assert _dem_at(lon, lat) != DEM_NODATA, place
    assert not land.intersects(shapely.Point(sea_lon, sea_lat)), place
    assert _dem_at(sea_lon, sea_lat) == DEM_NODATA, place


@pytest.mark.parametrize(
    "bbox, edge",
    [
        ((45.0, 30.0, 55.0, 34.0), "east 55 beyond 50"),
        ((-12.5, 37.0, -8.0, 40.0), "west -12.5 beyond -11"),
        ((30.0, 21.0, 34.0, 25.0), "south 21 beyond 22.5"),
        ((0.0, 49.0, 4.0, 53.0), "north 53 beyond 52"),
    ],
)
def test_bbox_past_the_data_edge_is_refused_with_the_edge_named(tmp_path, bbox, edge):
    with pytest.raises(InputError, match=rf"{edge}.*the embedded data cover \[-11.0, 22.5, 50.0, 52.0\].*pass --dem and --shorelines"):
        build_map(tmp_path / "m.duckdb", bbox=bbox, res=4, progress=False)
    assert list(tmp_path.iterdir()) == []


def test_the_edge_applies_to_the_embedded_data_only(tmp_path):
    bbox = (45.0, 30.0, 55.0, 34.0)
    mine = {k: tmp_path / f"{k}.x" for k in ("dem", "shorelines", "rivers")}
    check_embedded_extent(BuildOptions(bbox=bbox, **mine))  # the user's own data: their extent is theirs
    with pytest.raises(InputError, match=r"embedded rivers data \(east 55 beyond 50"):
        check_embedded_extent(BuildOptions(bbox=bbox, dem=mine["dem"], shorelines=mine["shorelines"]))
    check_embedded_extent(BuildOptions(bbox=DATA_EXTENT))  # the edge itself is inside


def test_babylon_on_a_built_map(tmp_path):
    out = tmp_path / "babylon.duckdb"
    build_map(out, bbox=(43.5, 31.5, 45.5, 33.5), res=5, progress=False)
    con = duckdb.connect(str(out), read_only=True)
    try:
        cell = h3.latlng_to_cell(32.54, 44.42, 5)
        kind, terrain, river = con.execute("SELECT kind, terrain, river FROM hexes WHERE cell = ?", [cell]).fetchone()
    finally:
        con.close()
    assert (kind, terrain, river) == ("land", "farmlands", True)  # the Euphrates' plain


def test_default_map_is_unchanged_by_the_wider_data(tmp_path, mediterranean_map):
    """The shipped data are a superset: the default map built from data regenerated for the old extent
    (MEDITERRANEAN_BBOX widened by one degree, the files shipped before issue 12) has the same hexes."""
    pytest.importorskip("pvlib")
    from bellica.etl.sources import build_default_datasets

    old = build_default_datasets(tmp_path / "old", bbox=MEDITERRANEAN_BBOX, margin_deg=1.0)
    before = tmp_path / "before.duckdb"
    build_map(before, progress=False, **old)
    con = duckdb.connect()
    try:
        con.execute(f"ATTACH '{before}' AS a (READ_ONLY)")
        con.execute(f"ATTACH '{mediterranean_map}' AS b (READ_ONLY)")
        assert con.execute("SELECT count(*) FROM b.hexes").fetchone()[0] > 20_000
        for table in ("hexes", "hex_neighbors"):
            for x, y in (("a", "b"), ("b", "a")):
                n = con.execute(f"SELECT count(*) FROM (SELECT * FROM {x}.{table} EXCEPT ALL SELECT * FROM {y}.{table})").fetchone()[0]
                assert n == 0, (table, x, y)
    finally:
        con.close()


def test_sources_md_states_the_extent():
    text = (DATASETS_DIR / "SOURCES.md").read_text()
    assert "(-11, 22.5, 50, 52)" in text
