"""The map build end to end: real places on the default map, synthetic inputs, errors."""

import os
import subprocess
import sys
from pathlib import Path

import duckdb
import h3
import numpy as np
import pytest
import rasterio
from affine import Affine

from bellica.etl.build import MAX_CELLS, build_map, check_cell_count, embedded_extent, estimated_cells, region_bbox
from bellica.geo import hexgrid
from bellica.geo.errors import InputError, MissingInputError
from bellica.geo.spatialdb import connect


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


# --- issue 8: nothing overwritten silently, guards before the work, no leftovers ----------

TINY = (12.2, 41.6, 12.7, 42.0)  # by Rome: land and sea, a dozen res-5 hexes, ~1 s


def dead_pid() -> int:
    """The id of a process that has exited (and been reaped), like a killed run's."""
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def make_campaign_file(path, table="scenario_meta"):
    con = duckdb.connect(str(path))
    con.execute(f"CREATE TABLE {table} (key VARCHAR, value VARCHAR)")
    con.execute(f"INSERT INTO {table} VALUES ('name', 'running')")
    con.close()
    return path.read_bytes()


def test_map_build_overwrite_needs_force(tmp_path):
    out = tmp_path / "m.duckdb"
    build_map(out, bbox=TINY, res=5, progress=False)
    before = out.read_bytes()
    with pytest.raises(InputError, match="exists: pass --force"):
        build_map(out, bbox=TINY, res=4, progress=False)
    assert out.read_bytes() == before
    build_map(out, bbox=TINY, res=6, progress=False, force=True)
    con = connect(out, read_only=True)
    assert con.execute("SELECT DISTINCT res FROM hexes").fetchall() == [(6,)]
    con.close()


@pytest.mark.parametrize("table", ["scenario_meta", "events"])
def test_map_build_never_replaces_a_campaign(tmp_path, table):
    out = tmp_path / "started_campaign.duckdb"
    before = make_campaign_file(out, table)
    with pytest.raises(InputError, match=f"holds a campaign \\(it has a {table} table\\).*even with --force"):
        build_map(out, bbox=TINY, res=5, progress=False, force=True)
    assert out.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["started_campaign.duckdb"]


def test_map_build_refuses_a_database_open_for_writing(tmp_path):
    out = tmp_path / "busy.duckdb"
    duckdb.connect(str(out)).close()
    holder = subprocess.Popen([sys.executable, "-c", f"import duckdb, time; c = duckdb.connect({str(out)!r}); print('open', flush=True); time.sleep(60)"],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "open"
        with pytest.raises(InputError, match="open for writing by another process"):
            build_map(out, bbox=TINY, res=5, progress=False, force=True)
    finally:
        holder.kill()
        holder.wait()


def test_map_build_res_15_memory_error_is_refused_with_the_estimate():
    # --res 15 over Sicily ran out of memory in polygon_to_cells; now refused before any work
    with pytest.raises(InputError, match=r"about [\d,]+ hexes, over the limit of 1,000,000 .*coarser --res or a smaller --bbox"):
        build_map("never.duckdb", region="sicily", res=15, progress=False)
    assert not Path("never.duckdb").exists()


@pytest.mark.parametrize("bbox, res", [((12.0, 41.0, 13.0, 42.0), 7), ((12.0, 41.0, 12.3, 41.3), 8), (TINY, 5)])
def test_estimated_cells_is_near_the_real_count(bbox, res):
    real = len(hexgrid.cells_in_bbox(bbox, res))
    assert 0.8 * real <= estimated_cells(bbox, res) <= 1.25 * real + 3


def test_cell_limit_is_what_the_default_map_and_res_6_need():
    assert estimated_cells(region_bbox(), 6) < MAX_CELLS  # the benchmarks' res-6 Mediterranean map
    with pytest.raises(InputError, match="limit of 2 "):
        check_cell_count(TINY, 5, limit=2)


def test_all_nodata_dem_is_refused(tmp_path):
    dem = write_dem(tmp_path / "nodata.tif", value=-9999)  # every pixel is the nodata value
    out = tmp_path / "m.duckdb"
    with pytest.raises(InputError, match=f"DEM {dem} has no valid pixel over region"):
        build_map(out, bbox=(12.2, 40.8, 13.8, 42.3), res=5, dem=dem, progress=False)
    assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["nodata.tif"]


def test_all_nodata_dem_over_open_sea_builds(tmp_path):
    # a land-only DEM has nothing over open sea: that region needs no elevation
    dem = write_dem(tmp_path / "nodata.tif", west=10.5, north=41.0, value=-9999)
    report = build_map(tmp_path / "sea.duckdb", bbox=(11.0, 40.0, 11.5, 40.3), res=5, dem=dem, progress=False)
    assert report.cells > 0 and set(report.kinds) <= {"sea", "coast", "ocean"}


def test_bbox_past_the_embedded_data_edge_is_refused(tmp_path):
    # east of 50 E the embedded shorelines have no land: Persis would silently be sea
    with pytest.raises(InputError, match=r"east 51.5 beyond 50.*pass --dem and --shorelines"):
        build_map(tmp_path / "m.duckdb", bbox=(48.0, 31.0, 51.5, 33.0), res=5, progress=False)
    dem = write_dem(tmp_path / "dem.tif", west=47.5, north=33.5, size=480)
    with pytest.raises(InputError, match=r"embedded shorelines/rivers data"):
        build_map(tmp_path / "m.duckdb", bbox=(48.0, 31.0, 51.5, 33.0), res=5, dem=dem, progress=False)
    with pytest.raises(InputError, match=r"south 21 beyond 22.5"):
        build_map(tmp_path / "m.duckdb", bbox=(10.0, 21.0, 11.0, 24.0), res=5, progress=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dem.tif"]


def test_embedded_extent_is_the_embedded_files_extent():
    from bellica.etl.build import DEFAULT_DEM

    with rasterio.open(DEFAULT_DEM) as ds:
        assert tuple(round(v, 6) for v in ds.bounds) == embedded_extent()


def test_killed_build_leftovers_are_removed_by_the_next_build(tmp_path):
    out = tmp_path / "m.duckdb"
    pid = dead_pid()
    stale = [tmp_path / f".m.duckdb.{pid}.tmp", tmp_path / f".m.duckdb.{pid}.tmp.wal"]
    for p in stale:
        p.write_bytes(b"half a map")
    other = tmp_path / f".other.duckdb.{pid}.tmp"  # another output's: not ours to remove
    other.write_bytes(b"x")
    build_map(out, bbox=TINY, res=5, progress=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == [other.name, "m.duckdb"]


def test_a_live_runs_temporary_file_refuses_the_build(tmp_path):
    out = tmp_path / "m.duckdb"
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        busy = tmp_path / f".m.duckdb.{live.pid}.tmp"
        busy.write_bytes(b"being written")
        with pytest.raises(InputError, match=f"another `bellica map build` \\(process {live.pid}\\) is writing"):
            build_map(out, bbox=TINY, res=5, progress=False)
        assert busy.exists() and not out.exists()
    finally:
        live.kill()
        live.wait()


def test_unwritable_out_is_one_input_error(tmp_path):
    (tmp_path / "afile").write_text("x")
    with pytest.raises(InputError, match="cannot create its folder"):
        build_map(tmp_path / "afile" / "m.duckdb", bbox=TINY, res=5, progress=False)
    with pytest.raises(InputError, match="is a directory"):
        build_map(tmp_path, bbox=TINY, res=5, progress=False)


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_read_only_out_folder_is_one_input_error(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir(mode=0o500)
    try:
        with pytest.raises(InputError, match="cannot write in"):
            build_map(ro / "m.duckdb", bbox=TINY, res=5, progress=False)
    finally:
        ro.chmod(0o700)


def test_complex_or_truncated_dem_is_refused_naming_it(tmp_path):
    complex_dem = tmp_path / "complex.tif"
    profile = dict(driver="GTiff", width=64, height=64, count=1, dtype="complex64", crs="EPSG:4326",
                   transform=Affine(1 / 30, 0.0, 12.0, 0.0, -1 / 30, 42.5))
    with rasterio.open(complex_dem, "w", **profile) as dst:
        dst.write(np.full((64, 64), 100 + 5j, np.complex64), 1)
    with pytest.raises(InputError, match=f"DEM {complex_dem} holds complex64 values"):
        build_map(tmp_path / "a.duckdb", bbox=(12.2, 40.8, 13.8, 42.3), res=5, dem=complex_dem, progress=False)
    whole = write_dem(tmp_path / "whole.tif")
    cut = tmp_path / "cut.tif"
    cut.write_bytes(whole.read_bytes()[: whole.stat().st_size // 2])
    with pytest.raises((InputError, MissingInputError), match="cut.tif"):
        build_map(tmp_path / "b.duckdb", bbox=(12.2, 40.8, 13.8, 42.3), res=5, dem=cut, progress=False)
    assert not any(p.suffix == ".duckdb" for p in tmp_path.iterdir())


# --- issue 19: map_rivers cut to the map --------------------------------------------------------


def test_map_rivers_are_cut_to_the_hexes_and_keep_their_river_flags(tmp_path):
    """145 of the 357 map_rivers features of the default map lay wholly outside it: the build kept
    every river system that reached the region, whole.  Now every line is cut to the hexes' union."""
    import geopandas as gpd
    import shapely

    from bellica.etl.water import river_cells

    dem = write_dem(tmp_path / "dem.tif")
    lines = [shapely.LineString([(11.0, 41.8), (12.45, 41.8), (13.5, 41.9)]),  # across the map, far past both ends
             shapely.LineString([(12.6, 40.0), (13.0, 40.5)]),                  # wholly south of it
             shapely.LineString([(12.3, 41.0), (12.3, 41.75), (12.35, 43.0)])]  # in from the south, out to the north
    rivers = gpd.GeoDataFrame({"river_id": [1, 2, 3], "length_km": [200.0, 90.0, 150.0]}, geometry=lines, crs=4326)
    rivers.to_parquet(tmp_path / "rivers.parquet")
    out = tmp_path / "m.duckdb"
    build_map(out, bbox=TINY, res=6, dem=dem, rivers=tmp_path / "rivers.parquet", progress=False)
    con = connect(out, read_only=True)
    rows = con.execute("""
        WITH map AS (SELECT ST_Union_Agg(geom) AS g FROM hexes)
        SELECT river_id, length_km, ST_IsValid(geom), ST_GeometryType(geom)::VARCHAR, ST_Intersects(geom, map.g),
               ST_Within(geom, ST_Buffer(map.g, 1e-7))
        FROM map_rivers, map ORDER BY river_id""").fetchall()
    assert [r[:2] for r in rows] == [(1, 200.0), (3, 150.0)]  # the one outside is gone; lengths are the systems'
    assert all(valid and kind in ("LINESTRING", "MULTILINESTRING") and inside and within
               for _, _, valid, kind, inside, within in rows), rows
    # the River flags are those of the whole lines
    cells = [c for (c,) in con.execute("SELECT cell FROM hexes ORDER BY cell").fetchall()]
    flagged = {c for (c,) in con.execute("SELECT cell FROM hexes WHERE river").fetchall()}
    land = {c for (c,) in con.execute("SELECT cell FROM hexes WHERE kind = 'land'").fetchall()}
    assert flagged and flagged == river_cells(cells, rivers.iloc[[0, 2]]) & land
    con.close()


def test_every_map_river_of_the_default_map_reaches_its_hexes(med):
    outside = med.execute("""
        WITH map AS (SELECT ST_Union_Agg(geom) AS g FROM hexes)
        SELECT count(*) FILTER (WHERE NOT ST_Intersects(geom, map.g)), count(*) FROM map_rivers, map""").fetchone()
    assert outside[0] == 0 and outside[1] > 150  # 213 systems reach the map (357 before, 144 of them outside)
