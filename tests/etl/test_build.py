"""The map build end to end: real places on the default map, synthetic inputs, errors."""

import h3
import numpy as np
import pytest
import rasterio
from affine import Affine

from tabula.etl.build import build_map, region_bbox
from tabula.geo import hexgrid
from tabula.geo.errors import InputError, MissingInputError
from tabula.geo.spatialdb import connect


@pytest.fixture(scope="module")
def med(mediterranean_map):
    con = connect(mediterranean_map, read_only=True)
    yield con
    con.close()


def hex_at(con, lat, lng):
    cell = hexgrid.cell_at(lat, lng, 5)
    row = con.execute("SELECT kind, terrain, land_fraction, river FROM hexes WHERE cell = ?", [cell]).fetchone()
    return dict(zip(("kind", "terrain", "land_fraction", "river"), row))


@pytest.mark.parametrize(
    "place, lat, lng",
    [("Gran Sasso", 42.45, 13.55), ("Maiella", 42.09, 14.09), ("Sila", 39.3, 16.5), ("Etna", 37.75, 14.99)],
)
def test_high_apennine_cells_are_mountains(med, place, lat, lng):
    assert hex_at(med, lat, lng)["terrain"] == "mountains", place


@pytest.mark.parametrize("place, lat, lng", [("Mont Blanc", 45.83, 6.86), ("Monte Rosa", 45.93, 7.87), ("Ortles", 46.5, 10.54)])
def test_high_alpine_cells_are_mountains_or_impassable_peaks(med, place, lat, lng):
    assert hex_at(med, lat, lng)["terrain"] in ("mountains", "peaks"), place


@pytest.mark.parametrize("place, lat, lng", [("Cremona", 45.13, 10.02), ("Mantua", 45.16, 10.79), ("Piacenza", 45.05, 9.7), ("Roma", 41.89, 12.49)])
def test_po_plain_and_latium_are_farmlands(med, place, lat, lng):
    assert hex_at(med, lat, lng)["terrain"] == "farmlands", place


def test_po_and_tiber_are_rivers(med):
    assert hex_at(med, 45.13, 10.02)["river"]  # Po at Cremona
    assert hex_at(med, 41.89, 12.49)["river"]  # Tiber at Rome


def test_lake_trasimene_is_a_lake(med):
    # The lake straddles two hexes; the one holding its larger share is the lake hex.
    near = hexgrid.ring(hexgrid.cell_at(43.13, 12.10, 5), 1)
    kinds = [r[0] for r in med.execute(f"SELECT kind FROM hexes WHERE cell IN {tuple(near)}").fetchall()]
    assert kinds.count("lake") == 1


def test_elba_and_malta_are_land(med):
    assert hex_at(med, 42.78, 10.25)["kind"] == "land"
    assert hex_at(med, 35.9, 14.45)["kind"] == "land"


def test_strait_of_messina_is_a_coast_hex_between_sicily_and_calabria(med):
    rows = med.execute(
        """SELECT s.cell, a.lng, b.lng FROM straits s
           JOIN hexes h USING (cell) JOIN hexes a ON a.cell = s.land_a JOIN hexes b ON b.cell = s.land_b
           WHERE h.lat BETWEEN 37.9 AND 38.4 AND h.lng BETWEEN 15.3 AND 15.9"""
    ).fetchall()
    assert rows, "no strait hex in the Strait of Messina"
    kinds = {med.execute("SELECT kind FROM hexes WHERE cell = ?", [r[0]]).fetchone()[0] for r in rows}
    assert kinds == {"coast"}
    # one land side is Sicily, the other Calabria: Sicily is not joined to Italy by land
    land = {c for (c,) in med.execute("SELECT cell FROM hexes WHERE kind = 'land'").fetchall()}
    sicily = _component(med, hexgrid.cell_at(37.5, 14.0, 5), land)
    assert hexgrid.cell_at(41.89, 12.49, 5) not in sicily
    assert any((r[1] < r[2]) for r in rows)


def _component(con, start, land):
    adj = {}
    for a, b in con.execute("SELECT cell, neighbor FROM hex_neighbors").fetchall():
        if a in land and b in land:
            adj.setdefault(a, []).append(b)
    seen, stack = {start}, [start]
    while stack:
        for n in adj.get(stack.pop(), ()):
            if n not in seen:
                seen.add(n)
                stack.append(n)
    return seen


def test_atlantic_is_ocean_and_carthago_is_land(med):
    assert hex_at(med, 36.0, -6.5)["kind"] == "ocean"
    assert hex_at(med, 36.85, 10.32)["kind"] == "land"
    assert hex_at(med, 31.0, 17.0)["terrain"] == "desert"  # the Syrtis coast


def test_tables_and_views(med):
    n = med.execute("SELECT count(*) FROM hexes").fetchone()[0]
    assert n > 27000
    # Regression (#7, stock DuckDB): the geometry columns carry their CRS in the file, lon/lat axis order.
    types = dict(med.execute(
        "SELECT table_name || '.' || column_name, data_type FROM duckdb_columns() WHERE data_type LIKE 'GEOMETRY%'"
    ).fetchall())
    assert types == {"hexes.geom": "GEOMETRY('OGC:CRS84')", "map_rivers.geom": "GEOMETRY('OGC:CRS84')"}
    # every ordered adjacent pair, both ways, with clock sides six hours apart
    bad = med.execute(
        """SELECT count(*) FROM hex_neighbors a LEFT JOIN hex_neighbors b ON a.cell = b.neighbor AND a.neighbor = b.cell
           WHERE b.cell IS NULL OR (a.clock - b.clock + 12) % 12 <> 6"""
    ).fetchone()[0]
    assert bad == 0
    assert med.execute("SELECT count(*) FROM coast_adjacency").fetchone()[0] > 1000
    assert med.execute("SELECT count(*) FROM sea_land_borders WHERE cell_kind = 'land' AND neighbor_kind = 'land'").fetchone()[0] == 0
    # the centre lies inside its own hexagon
    assert med.execute("SELECT bool_and(ST_Contains(geom, ST_Point(lng, lat))) FROM hexes").fetchone()[0]
    # terrain only on land; peaks, lakes exist
    assert med.execute("SELECT count(*) FROM hexes WHERE (kind = 'land') <> (terrain IS NOT NULL)").fetchone()[0] == 0


# --- synthetic inputs --------------------------------------------------------------


def write_dem(path, *, west=12.0, north=42.5, size=240, step=1 / 120, crs="EPSG:4326", value=None):
    """A DEM rising west to east from 0 to ~1200 m, over ~2 x 2 degrees."""
    x = np.linspace(0, 1200, size, dtype=np.float32)
    data = np.tile(x, (size, 1)) if value is None else np.full((size, size), value, np.float32)
    profile = dict(driver="GTiff", width=size, height=size, count=1, dtype="float32", transform=Affine(step, 0.0, west, 0.0, -step, north), nodata=-9999)
    if crs:
        profile["crs"] = crs
    with rasterio.open(path, "w", **profile) as dst:
        dst.write(data, 1)
    return path


def test_build_with_a_user_dem_and_a_bbox(tmp_path):
    dem = write_dem(tmp_path / "dem.tif")
    out = tmp_path / "m.duckdb"
    report = build_map(out, bbox=(12.2, 40.8, 13.8, 42.3), res=5, dem=dem, progress=False)
    assert report.cells > 20 and out.exists()
    con = connect(out, read_only=True)
    west, east = con.execute(
        "SELECT avg(elev_mean) FILTER (WHERE lng < 12.6), avg(elev_mean) FILTER (WHERE lng > 13.4) FROM hexes WHERE kind = 'land'"
    ).fetchone()
    assert west < east  # the synthetic slope rises to the east
    meta = dict(con.execute("SELECT key, value FROM map_meta").fetchall())
    assert meta["res"] == "5" and str(dem) == meta["dem"]


def test_any_resolution_works(tmp_path):
    out = tmp_path / "r3.duckdb"
    report = build_map(out, bbox=(10.0, 38.0, 16.0, 43.0), res=3, progress=False)
    assert report.cells > 5
    con = connect(out, read_only=True)
    assert {r[0] for r in con.execute("SELECT DISTINCT res FROM hexes").fetchall()} == {3}


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(res=16), InputError, "0-15"),
        (dict(bbox=(13.0, 41.0, 12.0, 42.0)), InputError, "empty"),
        (dict(region="atlantis"), InputError, "unknown region"),
        (dict(dem="missing.tif"), MissingInputError, "does not exist"),
    ],
)
def test_bad_input_fails_and_writes_nothing(tmp_path, kwargs, error, match):
    out = tmp_path / "m.duckdb"
    kwargs.setdefault("bbox", (12.2, 40.8, 13.8, 42.3)) if "region" not in kwargs else None
    with pytest.raises(error, match=match):
        build_map(out, progress=False, **kwargs)
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []


def test_dem_without_crs_and_corrupt_dem(tmp_path):
    no_crs = write_dem(tmp_path / "nocrs.tif", crs=None)
    with pytest.raises(InputError, match="CRS"):
        build_map(tmp_path / "a.duckdb", bbox=(12.2, 40.8, 13.8, 42.3), dem=no_crs, progress=False)
    corrupt = tmp_path / "corrupt.tif"
    corrupt.write_bytes(b"II*\x00 this is not a tiff")
    with pytest.raises((InputError, MissingInputError)):
        build_map(tmp_path / "b.duckdb", bbox=(12.2, 40.8, 13.8, 42.3), dem=corrupt, progress=False)
    outside = write_dem(tmp_path / "far.tif", west=100.0, north=10.0)
    with pytest.raises(InputError, match="outside"):
        build_map(tmp_path / "c.duckdb", bbox=(12.2, 40.8, 13.8, 42.3), dem=outside, progress=False)
    assert not any(p.suffix == ".duckdb" for p in tmp_path.iterdir())


def test_region_presets():
    assert region_bbox() == (-7.0, 29.5, 37.0, 47.5)
    assert region_bbox("italy")[0] == 6.0
    with pytest.raises(InputError, match="only one"):
        region_bbox("italy", (1, 2, 3, 4))


def test_pentagon_free_region_has_six_sides_per_inner_cell(med):
    # every cell with six neighbours on the map has exactly the six odd clock positions here
    rows = med.execute(
        "SELECT cell, list_sort(list(clock)) FROM hex_neighbors GROUP BY cell HAVING count(*) = 6 LIMIT 500"
    ).fetchall()
    assert all(clocks == [1, 3, 5, 7, 9, 11] for _, clocks in rows)
    assert not any(h3.is_pentagon(c) for c, _ in rows)
