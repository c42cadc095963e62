"""`bellica map provinces` end to end, and `bellica map export` with the province layers."""

from __future__ import annotations

import json
import subprocess
import sys

import geopandas as gpd
import pyogrio
import pytest

from tests.etl.test_provinces import make_province_map, province_toml

BELLICA = [sys.executable, "-m", "bellica.cli"]


def run(*args):
    return subprocess.run([*BELLICA, *args], capture_output=True, text=True, timeout=300)


@pytest.fixture()
def setup(tmp_path):
    make_province_map(tmp_path / "map.duckdb")
    (tmp_path / "provinces.toml").write_text(province_toml("""
        [[exception]]
        from = "Aemilia"
        to = "Bruttium"
        one_way = true

        [[sea]]
        name = "Mare Internum"
        bbox = [10.0, 41.0, 12.2, 43.0]
        """))
    return tmp_path


def test_provinces_then_export(setup):
    db, toml = str(setup / "map.duckdb"), str(setup / "provinces.toml")
    r = run("map", "provinces", db, toml)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("3 provinces") and "Aemilia:" in r.stdout and "unassigned: 1 land hexes" in r.stdout
    # A second run is refused, one line, nothing replaced; --force replaces.
    r = run("map", "provinces", db, toml)
    assert r.returncode == 1 and "--force" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    r = run("map", "provinces", db, toml, "--force", "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert [p["name"] for p in data["provinces"]] == ["Aemilia", "Bruttium", "Campania"]
    assert data["unassigned"] == 1 and data["seas"][0]["name"] == "Mare Internum"
    r = run("sql", db, "SELECT a, b, kind FROM province_adjacency ORDER BY ALL", "--json")
    assert r.returncode == 0, r.stderr
    assert {"a": "Aemilia", "b": "Bruttium", "kind": "exception"} in json.loads(r.stdout)
    # QGIS layers: provinces, sea areas, the adjacency as capital-to-capital lines.
    out = setup / "map.gpkg"
    r = run("map", "export", db, "--out", str(out))
    assert r.returncode == 0, r.stderr
    layers = dict(pyogrio.list_layers(out))
    assert layers["provinces"] == "MultiPolygon" and layers["sea_areas"] == "MultiPolygon"
    assert layers["province_adjacency"] == "LineString"
    provinces = gpd.read_file(out, layer="provinces")
    assert sorted(provinces["name"]) == ["Aemilia", "Bruttium", "Campania"] and provinces.crs.to_epsg() == 4326
    assert len(gpd.read_file(out, layer="province_adjacency")) == 3  # Bruttium-Campania both ways, the one-way exception
    r = run("map", "export", db, "--out", str(setup / "map.parquet"))
    assert r.returncode == 0, r.stderr
    assert (setup / "map_provinces.parquet").exists() and (setup / "map_province_adjacency.parquet").exists()


@pytest.mark.parametrize("edit, message", [
    (lambda t: t.replace('name = "Bruttium"\ncapital = [', 'name = "Bruttium"\ncapital = [40.0, 10.0]\n# ['), "outside the map"),
    (lambda t: t.replace('name = "Aemilia"\n', 'name = "Aemilia"\nregion = "bad.geojson"\n'), "is not GeoJSON"),
    (lambda t: t + '[[exception]]\nfrom = "Aemilia"\nto = "Atlantis"\n', "no province of the file"),
])
def test_bad_input_one_line_nothing_written(setup, edit, message):
    (setup / "bad.geojson").write_text('{"type": "Feature"')
    toml = setup / "provinces.toml"
    toml.write_text(edit(toml.read_text()))
    r = run("map", "provinces", str(setup / "map.duckdb"), str(toml))
    assert r.returncode == 1 and message in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
    r = run("sql", str(setup / "map.duckdb"), "SELECT count(*) AS n FROM information_schema.tables "
            "WHERE table_name LIKE 'province%'", "--json")
    assert json.loads(r.stdout) == [{"n": 0}]


def test_missing_map_is_one_line(setup):
    r = run("map", "provinces", str(setup / "nope.duckdb"), str(setup / "provinces.toml"))
    assert r.returncode != 0 and "does not exist" in r.stderr and len(r.stderr.strip().splitlines()) == 1
