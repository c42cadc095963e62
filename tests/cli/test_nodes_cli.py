"""`bellica map nodes` end to end on the shipped Sicily node map, and `bellica map export` with its layers."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pyogrio
import pytest

BELLICA = [sys.executable, "-m", "bellica.cli"]
ROOT = Path(__file__).resolve().parents[2]
SICILY = ROOT / "datasets" / "scenarios" / "magna-graecia" / "sicily-nodes.toml"

# The places the Magna Graecia rules use by name (capitals, starting positions).
NAMES = ["Syracuse", "Akragas", "Gela", "Kamarina", "Selinus", "Heraclea Minoa", "Motya", "Lilybaeum", "Drepana", "Eryx",
         "Segesta", "Entella", "Panormus", "Solus", "Himera", "Thermae", "Cephaloedium", "Halaesa", "Tyndaris", "Mylae",
         "Messana", "Tauromenium", "Naxos", "Catana", "Leontini", "Henna", "Agyrion", "Morgantina", "Acrae", "Helorus"]


def run(*args):
    return subprocess.run([*BELLICA, *args], capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def sicily(tmp_path_factory) -> Path:
    """Sicily at res 6 (about 1,600 hexes, under a second to build)."""
    out = tmp_path_factory.mktemp("nodes") / "sicily6.duckdb"
    r = run("map", "build", "--bbox", "12.2,36.5,15.8,38.4", "--res", "6", "--out", str(out), "--quiet")
    assert r.returncode == 0, r.stderr
    return out


def _km(a, b) -> float:
    (lon1, lat1), (lon2, lat2) = a, b
    p1, p2 = math.radians(lat1), math.radians(lat2)
    h = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(math.radians(lon2 - lon1) / 2) ** 2
    return 2 * 6371.0 * math.asin(math.sqrt(h))


def test_sicily_node_map(sicily, tmp_path):
    db = tmp_path / "map.duckdb"
    db.write_bytes(sicily.read_bytes())
    r = run("map", "nodes", str(db), str(SICILY), "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    nodes = {n["name"]: n for n in data["nodes"]}
    assert set(NAMES) <= set(nodes)
    assert nodes["Syracuse"]["coastal"] and nodes["Syracuse"]["fortified"] and nodes["Syracuse"]["commands"] == 3
    assert not nodes["Henna"]["coastal"] and nodes["Henna"]["terrain"] in ("hills", "mountains")
    assert all(1 <= nodes[n]["commands"] <= 3 for n in NAMES)
    paths = {(p["a"], p["b"], p["kind"]): p for p in data["paths"]}
    # Messana to Tauromenium by the coast road: about 45 km in reality.
    mt = paths[("Messana", "Tauromenium", "land")]
    assert 0.8 * 45 <= mt["length_km"] <= 1.2 * 45
    # Every path at least as long as the straight line between its sites, and no land path wildly longer.
    for (a, b, kind), p in paths.items():
        straight = _km((nodes[a]["lon"], nodes[a]["lat"]), (nodes[b]["lon"], nodes[b]["lat"]))
        assert p["length_km"] >= straight - 0.1, (a, b, kind)
        if kind == "land":
            assert p["length_km"] <= 2.2 * straight + 5, (a, b, p["length_km"], straight)
    # The map's answer to movement questions, through `bellica sql`.
    r = run("sql", str(db), "SELECT node, moves FROM node_reach('Syracuse', 1, in_year := -397) ORDER BY node", "--json")
    assert r.returncode == 0, r.stderr
    assert [row["node"] for row in json.loads(r.stdout)] == ["Acrae", "Helorus", "Leontini", "Syracuse"]
    r = run("sql", str(db), "SELECT node FROM fleet_reach('Henna', 3)", "--json")
    assert r.returncode == 0 and json.loads(r.stdout) == []
    # QGIS layers.
    out = tmp_path / "map.gpkg"
    r = run("map", "export", str(db), "--out", str(out))
    assert r.returncode == 0, r.stderr
    layers = dict(pyogrio.list_layers(out))
    assert layers["nodes"] == "Point" and layers["node_paths"] == "LineString"


@pytest.mark.parametrize("year, present, absent", [
    (-397, {"Motya", "Gela", "Kamarina", "Selinus", "Halaesa", "Thermae"}, {"Lilybaeum", "Tyndaris", "Tauromenium", "Drepana", "Naxos", "Himera"}),
    (-278, {"Lilybaeum", "Phintias", "Tauromenium", "Tyndaris", "Kamarina", "Selinus"}, {"Motya", "Gela", "Drepana"}),
    (-264, {"Lilybaeum", "Messana", "Selinus", "Kamarina"}, {"Motya", "Drepana", "Gela"}),
    (-214, {"Lilybaeum", "Drepana", "Megara Hyblaea", "Akragas"}, {"Selinus", "Kamarina", "Motya"}),
])
def test_each_scenario_year(sicily, tmp_path, year, present, absent):
    db = tmp_path / "map.duckdb"
    db.write_bytes(sicily.read_bytes())
    r = run("map", "nodes", str(db), str(SICILY), f"--year={year}", "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    names = {n["name"] for n in data["nodes"]}
    assert present <= names and not absent & names and data["year"] == year
    # Every place of the year is reachable by land from Syracuse (one island, one road net).
    r = run("sql", str(db), "SELECT count(*) AS n FROM node_reach('Syracuse', 99)", "--json")
    assert r.returncode == 0 and json.loads(r.stdout)[0]["n"] == len(names)


def test_refusals_are_one_line(sicily, tmp_path):
    db = tmp_path / "map.duckdb"
    db.write_bytes(sicily.read_bytes())
    r = run("map", "nodes", str(db), str(SICILY))
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("35 places")
    r = run("map", "nodes", str(db), str(SICILY))
    assert r.returncode == 1 and "--force" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    r = run("map", "nodes", str(db), str(SICILY), "--force", "--year", "-397")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("27 places in 397 BC")
    r = run("map", "nodes", str(db), str(SICILY), "--force", "--year", "zero")
    assert r.returncode == 2 and "is not a year" in r.stderr
    bad = tmp_path / "bad.toml"
    bad.write_text(SICILY.read_text(encoding="utf-8") + '\n[[path]]\nfrom = "Henna"\nto = "Syracuse"\nby = "sea"\n')
    r = run("map", "nodes", str(db), str(bad), "--force")
    assert r.returncode == 1 and "Henna is not coastal" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_render_map_draws_the_node_map_over_the_terrain(sicily, tmp_path):
    db = tmp_path / "map.duckdb"
    db.write_bytes(sicily.read_bytes())
    assert run("map", "nodes", str(db), str(SICILY)).returncode == 0
    page = tmp_path / "map.html"
    r = run("render", "map", str(db), "--out", str(page))
    assert r.returncode == 0, r.stderr
    html = page.read_text()
    assert "Land paths" in html and "Sea paths" in html and "Syracuse" in html
    # A map built from a bbox has no region name: its title names the file, never "null".
    assert "map \u2014 " in html and "null \u2014" not in html
