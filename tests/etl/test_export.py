"""Exports that QGIS opens: GeoPackage layers and GeoParquet files."""

import geopandas as gpd
import pyogrio
import pytest

from tabula.etl.build import build_map
from tabula.etl.export import export_map, map_summary
from tabula.geo.errors import InputError, MissingInputError


@pytest.fixture(scope="module")
def small_map(tmp_path_factory):
    path = tmp_path_factory.mktemp("export") / "elba.duckdb"
    build_map(path, bbox=(9.8, 42.3, 11.0, 43.2), res=5, progress=False)
    return path


def test_geopackage_has_hexes_and_rivers_layers(small_map, tmp_path):
    out = export_map(small_map, tmp_path / "map.gpkg")
    layers = {name for name, _ in pyogrio.list_layers(out)}
    assert {"hexes", "map_rivers"} <= layers
    hexes = gpd.read_file(out, layer="hexes")
    assert hexes.crs.to_epsg() == 4326
    assert {"cell", "kind", "terrain", "elev_mean", "land_fraction"} <= set(hexes.columns)
    assert (hexes.geometry.geom_type == "Polygon").all()


def test_geoparquet_roundtrip(small_map, tmp_path):
    out = export_map(small_map, tmp_path / "map.parquet")
    hexes = gpd.read_parquet(out)
    assert len(hexes) > 10 and hexes.crs.to_epsg() == 4326
    assert (tmp_path / "map_map_rivers.parquet").exists()


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
