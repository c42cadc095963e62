"""Exports that QGIS opens: GeoPackage layers and GeoParquet files."""

import subprocess
import sys

import duckdb
import geopandas as gpd
import pyogrio
import pytest

from bellica.etl.build import build_map
from bellica.etl.export import export_map, map_summary
from bellica.geo.errors import InputError, MissingInputError


@pytest.fixture(scope="module")
def small_map(tmp_path_factory):
    path = tmp_path_factory.mktemp("export") / "elba.duckdb"
    build_map(path, bbox=(9.8, 42.3, 11.0, 43.2), res=5, progress=False)
    return path


def test_geopackage_has_hexes_and_rivers_layers(small_map, tmp_path):
    written = export_map(small_map, tmp_path / "map.gpkg")
    assert written == [tmp_path / "map.gpkg"]  # one file, a layer per table
    out = written[0]
    layers = {name for name, _ in pyogrio.list_layers(out)}
    assert {"hexes", "map_rivers"} <= layers
    hexes = gpd.read_file(out, layer="hexes")
    assert hexes.crs.to_epsg() == 4326
    assert {"cell", "kind", "terrain", "elev_mean", "land_fraction"} <= set(hexes.columns)
    assert (hexes.geometry.geom_type == "Polygon").all()


def test_geoparquet_roundtrip(small_map, tmp_path):
    written = export_map(small_map, tmp_path / "map.parquet")
    hexes = gpd.read_parquet(written[0])
    assert len(hexes) > 10 and hexes.crs.to_epsg() == 4326
    # every file written is returned (issue 19: the CLI named only the first), the hexes' first
    assert written == [tmp_path / "map.parquet", tmp_path / "map_map_rivers.parquet"]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in written)


def test_export_errors(small_map, tmp_path):
    with pytest.raises(InputError, match=".gpkg"):
        export_map(small_map, tmp_path / "map.shp")
    with pytest.raises(MissingInputError):
        export_map(tmp_path / "none.duckdb", tmp_path / "m.gpkg")
    assert not (tmp_path / "m.gpkg").exists()


def test_summary_lists_kinds(small_map):
    lines = map_summary(small_map)
    assert any(line.startswith("kind: ") and "land" in line for line in lines)
    assert any(line.startswith("res: 5") for line in lines)


# --- issue 8: exports replace nothing silently, bad map files are one line, no leftovers ---


def test_export_overwrite_needs_force(small_map, tmp_path):
    out = tmp_path / "map.gpkg"
    out.write_bytes(b"my own file")
    with pytest.raises(InputError, match="exists: pass --force"):
        export_map(small_map, out)
    assert out.read_bytes() == b"my own file"
    export_map(small_map, out, force=True)
    assert "hexes" in {name for name, _ in pyogrio.list_layers(out)}


def test_geoparquet_layer_files_also_need_force(small_map, tmp_path):
    rivers = tmp_path / "map_map_rivers.parquet"  # written beside map.parquet for the rivers layer
    rivers.write_bytes(b"keep me")
    with pytest.raises(InputError, match="map_map_rivers.parquet exists"):
        export_map(small_map, tmp_path / "map.parquet")
    assert rivers.read_bytes() == b"keep me" and not (tmp_path / "map.parquet").exists()


def test_export_never_replaces_a_campaign(small_map, tmp_path):
    out = tmp_path / "campaign.gpkg"
    con = duckdb.connect(str(out))
    con.execute("CREATE TABLE events (seq INTEGER)")
    con.close()
    before = out.read_bytes()
    with pytest.raises(InputError, match="holds a campaign .* even with --force"):
        export_map(small_map, out, force=True)
    assert out.read_bytes() == before


@pytest.mark.parametrize("content", [b"hi\n", b"", "truncated"])
def test_export_and_info_of_a_file_that_is_not_duckdb(small_map, tmp_path, content):
    bad = tmp_path / "t.duckdb"
    bad.write_bytes(small_map.read_bytes()[:20000] if content == "truncated" else content)
    with pytest.raises(InputError, match="t.duckdb"):
        export_map(bad, tmp_path / "m.gpkg")
    with pytest.raises(InputError, match="t.duckdb"):
        map_summary(bad)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.duckdb"]


def test_export_into_an_impossible_folder(small_map, tmp_path):
    (tmp_path / "afile").write_text("x")
    with pytest.raises(InputError, match="cannot create its folder"):
        export_map(small_map, tmp_path / "afile" / "m.gpkg")


def test_killed_export_leftovers_are_removed(small_map, tmp_path):
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    stale = tmp_path / f".m.gpkg.{p.pid}.tmp.gpkg"
    stale.write_bytes(b"half")
    export_map(small_map, tmp_path / "m.gpkg")
    assert sorted(q.name for q in tmp_path.iterdir()) == ["m.gpkg"]
