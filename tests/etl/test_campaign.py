"""Campaign creation on a tiny synthetic map and scenario written here (and once on the real map).

The synthetic world (res 6, about 400 hexes): land west of 11.0 E, sea east of
it; a hill band and a mountain band to the north, one peak, one lake hex, a
marsh by the shore and a river flag along 40.45 N.  The synthetic scenario has
two player factions (armies 1-2 and 3-4), a non-player one, seven structures,
two roads, a river, two overlapping sea zones and an override.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import h3
import pytest

from bellica.geo.errors import InputError
from bellica.geo.hexgrid import cell_at, cell_center, cell_polygon, cells_in_bbox, neighbor_table
from bellica.geo.spatialdb import connect
from bellica.schema import create_database, create_map_tables, existing_tables

BBOX = (10.0, 40.0, 11.5, 41.0)
RES = 6
SHORE = 11.0
PEAK = (40.80, 10.40)
LAKE = (40.30, 10.20)
MARSH = (40.55, 10.93)


def synthetic_kind_terrain(cell: str) -> tuple[str, str | None, float]:
    lat, lng = cell_center(cell)
    if lng >= SHORE:
        return "water", None, 0.0
    if cell == cell_at(*LAKE, RES):
        return "lake", None, 200.0
    if cell == cell_at(*PEAK, RES):
        return "land", "peaks", 2600.0
    if cell == cell_at(*MARSH, RES):
        return "land", "marshes", 2.0
    if lat > 40.85:
        return "land", "mountains", 1500.0
    if lat > 40.65:
        return "land", "hills", 600.0
    return "land", "farmlands", 80.0 + (SHORE - lng) * 100


def build_synthetic_map(path: Path, *, bbox=BBOX, res: int = RES) -> Path:
    """Write a map database with the map tables and views of the schema (schema/map*.sql)."""
    cells = cells_in_bbox(bbox, res)
    attrs = {c: synthetic_kind_terrain(c) for c in cells}
    land = {c for c, (k, _, _) in attrs.items() if k == "land"}
    con = create_database(path)
    create_map_tables(con)
    rows = []
    for c in cells:
        kind, terrain, elev = attrs[c]
        if kind == "water":
            kind = "coast" if any(n in land for n in h3.grid_ring(c, 1)) else "sea"
        lat, lng = cell_center(c)
        river = kind == "land" and abs(lat - 40.45) < 0.03
        rows.append((c, res, kind, terrain, elev, elev - 10, elev + 10, 5.0, 10, 1.0 if kind == "land" else 0.0,
                     1.0 if kind == "lake" else 0.0, river, lat, lng, cell_polygon(c).wkt))
    con.executemany("INSERT INTO hexes VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?, ST_GeomFromText(?::VARCHAR))", rows)
    con.executemany("INSERT INTO hex_neighbors VALUES (?,?,?,?)", neighbor_table(cells))
    con.execute("INSERT INTO map_meta VALUES ('resolution', ?)", [str(res)])
    con.close()
    return path


SCENARIO_TOML = """\
[scenario]
name = "synthetic"
title = "A synthetic test scenario"
bbox = [10.0, 40.0, 11.5, 41.0]
resolution = 6
start_fp = 1600
armies_per_faction = 2

[rules.victory]
vp_to_win = 50
"""

FACTIONS_TOML = """\
[[faction]]
name = "Alpha"
colour = "#aa0000"
army_list = "List A"
player = true
capitals = ["Acapitol"]
influence_multiplier = 1
first_army = 1
last_army = 2

[[faction]]
name = "Beta"
colour = "#0000aa"
army_list = "List B"
player = true
capitals = ["Bcapitol"]
influence_multiplier = 2
first_army = 3
last_army = 4

[[faction]]
name = "Gamma"
colour = "#00aa00"
army_list = "List G"
player = false
capitals = []
"""

STRUCTURES_CSV = """\
# name, modern, kind, lat, lon, controller
name,modern,kind,lat,lon,controller
Acapitol,Alphaville,city,40.20,10.30,Alpha
Atown,Alpha Two,town,40.40,10.60,Alpha
Bcapitol,Betaville,city,40.60,10.30,Beta
Btown,Beta Two,town,40.55,10.70,Beta
Marshtown,Swamp,city,40.55,10.93,Gamma
Shoretown,Quay,town,40.30,11.01,
Hilltown,High,town,40.75,10.60,Beta
"""

ROADS_TOML = """\
[[road]]
name = "Via Prima"
waypoints = ["Acapitol", "Atown", "Btown", "Bcapitol"]
note = "test road"

[[road]]
name = "Via Secunda"
waypoints = ["Acapitol", [40.25, 10.95], "Shoretown"]
"""

RIVERS_TOML = """\
[[river]]
name = "Flumen"
waypoints = [[40.45, 10.98], [40.45, 10.10]]
"""

OVERRIDES_TOML = """\
[[override]]
terrain = "farmlands"
structures = ["Hilltown"]
reason = "the designer wants an easy town in the hills"
"""

PLACEMENTS_CSV = """\
army,faction,structure
1,Alpha,Acapitol
2,Alpha,Atown
3,Beta,Bcapitol
4,Beta,Btown
"""


def sea_zones(overlap: float = 0.05, *, gap: bool = False) -> dict:
    split = 40.5
    north_lo = split + (0.3 if gap else -overlap)
    return {
        "type": "FeatureCollection",
        "features": [
            {"type": "Feature", "properties": {"name": "Mare Australe"},
             "geometry": {"type": "Polygon", "coordinates": [[[10.9, 39.9], [11.6, 39.9], [11.6, split + overlap], [10.9, split + overlap], [10.9, 39.9]]]}},
            {"type": "Feature", "properties": {"name": "Mare Boreale"},
             "geometry": {"type": "Polygon", "coordinates": [[[10.9, north_lo], [11.6, north_lo], [11.6, 41.1], [10.9, 41.1], [10.9, north_lo]]]}},
        ],
    }


def write_synthetic_scenario(directory: Path, replace: dict[str, str | None] | None = None) -> Path:
    """Write the synthetic scenario; ``replace`` swaps a file's text by file name (None: leave the file out)."""
    directory.mkdir(parents=True, exist_ok=True)
    files = {
        "scenario.toml": SCENARIO_TOML,
        "factions.toml": FACTIONS_TOML,
        "structures.csv": STRUCTURES_CSV,
        "roads.toml": ROADS_TOML,
        "rivers.toml": RIVERS_TOML,
        "overrides.toml": OVERRIDES_TOML,
        "placements.csv": PLACEMENTS_CSV,
        "sea_zones.geojson": json.dumps(sea_zones(), indent=1),
    }
    files.update(replace or {})
    for name, text in files.items():
        if text is not None:
            (directory / name).write_text(textwrap.dedent(text))
    return directory


@pytest.fixture(scope="module")
def synthetic_map(tmp_path_factory) -> Path:
    return build_synthetic_map(tmp_path_factory.mktemp("map") / "map.duckdb")


def test_synthetic_campaign_tables(tmp_path, synthetic_map):
    from bellica.etl.campaign import create_campaign

    scen = write_synthetic_scenario(tmp_path / "scen")
    out = tmp_path / "c.duckdb"
    result = create_campaign(scen, out, map_path=synthetic_map)
    assert out.is_file() and not list(tmp_path.glob(".c.duckdb.*"))
    assert result.counts["structures"] == 7 and result.counts["placements"] == 4
    con = connect(out, read_only=True)
    tables = existing_tables(con)
    for t in ("hexes", "hex_neighbors", "structures", "roads", "road_cells", "road_edges", "rivers", "river_cells",
              "sea_zones", "hex_sea_zones", "factions", "scenario_meta", "placements", "terrain_overrides",
              "scenario_notes", "structure_resilience", "coast_adjacency"):
        assert t in tables, t
    # Shoretown's point is in a coast hex: snapped to land and reported.
    cell, kind = con.execute("SELECT s.cell, h.kind FROM structures s JOIN hexes h USING (cell) WHERE name = 'Shoretown'").fetchone()
    assert kind == "land"
    notes = con.execute("SELECT message FROM scenario_notes WHERE subject = 'Shoretown'").fetchall()
    assert notes and "coast hex" in notes[0][0]
    # Override applied and recorded with its reason.
    terrain, = con.execute("SELECT terrain FROM hexes JOIN structures s USING (cell) WHERE s.name = 'Hilltown'").fetchone()
    assert terrain == "farmlands"
    assert con.execute("SELECT reason FROM terrain_overrides").fetchone()[0].startswith("the designer")
    # Factions as the architecture says.
    row = con.execute("SELECT capitals, influence_multiplier, first_army, last_army FROM factions WHERE name = 'Beta'").fetchone()
    assert row == (["Bcapitol"], 2, 3, 4)
    assert con.execute("SELECT first_army FROM factions WHERE name = 'Gamma'").fetchone()[0] is None
    # Border hexes belong to both zones; every water hex to at least one.
    both = con.execute("SELECT count(*) FROM (SELECT cell FROM hex_sea_zones GROUP BY cell HAVING count(*) = 2)").fetchone()[0]
    assert both > 0
    orphan = con.execute(
        "SELECT count(*) FROM hexes WHERE kind IN ('coast','sea') AND cell NOT IN (SELECT cell FROM hex_sea_zones)"
    ).fetchone()[0]
    assert orphan == 0
    # River cells follow the map's river flag between its two ends.
    n_river = con.execute("SELECT count(*) FROM river_cells JOIN hexes USING (cell) WHERE hexes.river").fetchone()[0]
    assert n_river >= 0.8 * con.execute("SELECT count(*) FROM river_cells").fetchone()[0]
    meta = dict(con.execute("SELECT key, value FROM scenario_meta").fetchall())
    assert meta["start_fp"] == "1600"
    placed = con.execute("SELECT p.cell = s.cell FROM placements p JOIN structures s ON s.name = p.structure").fetchall()
    assert placed and all(r[0] for r in placed)
    con.close()


def test_roads_are_connected_land_chains(tmp_path, synthetic_map):
    from bellica.etl.campaign import create_campaign

    out = tmp_path / "c.duckdb"
    create_campaign(write_synthetic_scenario(tmp_path / "s"), out, map_path=synthetic_map)
    con = connect(out, read_only=True)
    assert_roads_valid(con)
    # road_edges: both directions, with the clock of the side crossed.
    edges = con.execute("SELECT cell, neighbor, clock FROM road_edges WHERE road = 'Via Prima'").fetchall()
    pairs = {(a, b) for a, b, _ in edges}
    assert all((b, a) in pairs for a, b in pairs)
    for a, b, clock in edges:
        assert clock == con.execute("SELECT clock FROM hex_neighbors WHERE cell = ? AND neighbor = ?", [a, b]).fetchone()[0]
    geom_type = con.execute("SELECT DISTINCT ST_GeometryType(geom)::VARCHAR FROM roads").fetchall()
    assert geom_type == [("LINESTRING",)]
    con.close()


def assert_roads_valid(con) -> None:
    """Each road: consecutive cells adjacent, only passable land, first/last cells = first/last waypoint hexes."""
    from bellica.etl.roads import HexGraph

    g = HexGraph.from_db(con)
    roads = [r[0] for r in con.execute("SELECT name FROM roads").fetchall()]
    assert roads
    for road in roads:
        chain = [r[0] for r in con.execute("SELECT cell FROM road_cells WHERE road = ? ORDER BY seq", [road]).fetchall()]
        assert len(chain) >= 2, road
        for a, b in zip(chain, chain[1:]):
            assert b in {n for n, _ in g.neighbors[a]}, (road, a, b)
        for c in chain:
            assert g.kind[c] == "land" and g.terrain[c] != "peaks", (road, c, g.kind[c], g.terrain[c])


def test_existing_out_is_refused_and_failure_leaves_nothing(tmp_path, synthetic_map):
    from bellica.etl.campaign import create_campaign

    scen = write_synthetic_scenario(tmp_path / "s")
    out = tmp_path / "c.duckdb"
    out.write_text("precious")
    with pytest.raises(InputError, match="exists"):
        create_campaign(scen, out, map_path=synthetic_map)
    assert out.read_text() == "precious"
    # A zone gap fails on the map: no file, no temp left behind.
    bad = write_synthetic_scenario(tmp_path / "bad", {"sea_zones.geojson": json.dumps(sea_zones(gap=True))})
    out2 = tmp_path / "d.duckdb"
    with pytest.raises(InputError, match="sea_zones.geojson: .* in no sea zone"):
        create_campaign(bad, out2, map_path=synthetic_map)
    assert not out2.exists() and not list(tmp_path.glob(".d.duckdb.*"))


def test_map_of_wrong_resolution_is_refused(tmp_path):
    from bellica.etl.campaign import create_campaign

    m = build_synthetic_map(tmp_path / "m5.duckdb", res=5)
    with pytest.raises(InputError, match="resolution"):
        create_campaign(write_synthetic_scenario(tmp_path / "s"), tmp_path / "c.duckdb", map_path=m)


def test_place_armies_replaces_placements(tmp_path, synthetic_map):
    from bellica.etl.campaign import create_campaign, place_armies

    out = tmp_path / "c.duckdb"
    create_campaign(write_synthetic_scenario(tmp_path / "s"), out, map_path=synthetic_map)
    p = tmp_path / "p.csv"
    p.write_text("army,faction,structure\n1,Alpha,Atown\n2,Alpha,Acapitol\n3,Beta,Hilltown\n4,Beta,Btown\n")
    assert place_armies(out, p) == 4
    con = connect(out, read_only=True)
    assert con.execute("SELECT structure FROM placements WHERE army = 3").fetchone()[0] == "Hilltown"
    con.close()
    p.write_text("army,faction,structure\n1,Alpha,Atown\n2,Alpha,Atown\n3,Beta,Hilltown\n4,Beta,Btown\n")
    with pytest.raises(InputError, match="p.csv line 3: armies 1 and 2 of Alpha both start in Atown"):
        place_armies(out, p)


def test_place_armies_needs_a_campaign(tmp_path, synthetic_map):
    from bellica.etl.campaign import place_armies

    p = tmp_path / "p.csv"
    p.write_text(PLACEMENTS_CSV)
    with pytest.raises(InputError, match="has no factions/structures tables"):
        place_armies(synthetic_map, p)


def test_place_armies_is_refused_once_the_campaign_has_started(tmp_path, synthetic_map):
    from bellica.etl.campaign import create_campaign, place_armies

    out = tmp_path / "c.duckdb"
    create_campaign(write_synthetic_scenario(tmp_path / "s"), out, map_path=synthetic_map)
    con = connect(out)
    # the engine's append-only log, as `bellica round start` creates it
    con.execute("CREATE TABLE events (seq INTEGER, round INTEGER, phase VARCHAR, kind VARCHAR, data JSON, text VARCHAR)")
    con.execute("INSERT INTO events VALUES (1, 1, 'orders', 'set_campaign', '{}', 'start')")
    con.close()
    p = tmp_path / "p.csv"
    p.write_text("army,faction,structure\n1,Alpha,Atown\n2,Alpha,Acapitol\n3,Beta,Hilltown\n4,Beta,Btown\n")
    with pytest.raises(InputError, match="already started"):
        place_armies(out, p)


# --- issue 8: bad map files are one line, leftovers of killed runs are removed ----------


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


@pytest.mark.parametrize("content", [b"hi\n", b"", "truncated"])
def test_campaign_new_map_that_is_not_duckdb_is_one_input_error(tmp_path, synthetic_map, content):
    from bellica.etl.campaign import create_campaign

    bad = tmp_path / "t.duckdb"
    bad.write_bytes(synthetic_map.read_bytes()[:300000] if content == "truncated" else content)
    out = tmp_path / "c.duckdb"
    with pytest.raises(InputError, match=r"map .*t\.duckdb .*(not a readable DuckDB|cannot be read|is truncated)"):
        create_campaign(write_synthetic_scenario(tmp_path / "s"), out, map_path=bad)
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s", "t.duckdb"]


def test_killed_campaign_new_leftover_folder_is_removed(tmp_path, synthetic_map):
    from bellica.etl.campaign import create_campaign

    stale = tmp_path / f".c.duckdb.{_dead_pid()}.tmpdir"  # what a kill -9 of `campaign new` leaves
    stale.mkdir()
    (stale / "c.duckdb").write_bytes(b"half a campaign")
    (stale / "map.duckdb").write_bytes(b"a map")
    scen = write_synthetic_scenario(tmp_path / "s")
    create_campaign(scen, tmp_path / "c.duckdb", map_path=synthetic_map)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.duckdb", "s"]


def test_campaign_new_refused_while_another_run_writes_the_same_out(tmp_path, synthetic_map):
    from bellica.etl.campaign import create_campaign

    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        busy = tmp_path / f".c.duckdb.{live.pid}.tmpdir"
        busy.mkdir()
        with pytest.raises(InputError, match=f"another `bellica campaign new` \\(process {live.pid}\\)"):
            create_campaign(write_synthetic_scenario(tmp_path / "s"), tmp_path / "c.duckdb", map_path=synthetic_map)
        assert busy.is_dir() and not (tmp_path / "c.duckdb").exists()
    finally:
        live.kill()
        live.wait()


def test_campaign_new_out_under_a_file_is_one_input_error(tmp_path, synthetic_map):
    from bellica.etl.campaign import create_campaign

    (tmp_path / "afile").write_text("x")
    with pytest.raises(InputError, match="cannot create its folder"):
        create_campaign(write_synthetic_scenario(tmp_path / "s"), tmp_path / "afile" / "c.duckdb", map_path=synthetic_map)


def test_open_campaign_on_a_map_or_text_file(tmp_path, synthetic_map):
    from bellica.etl.campaign import open_campaign

    with pytest.raises(InputError, match="so it is a map, not a campaign"):
        open_campaign(synthetic_map)
    text = tmp_path / "t.duckdb"
    text.write_text("hi\n")
    with pytest.raises(InputError, match="not a readable DuckDB database"):
        open_campaign(text)


def test_a_campaign_on_a_larger_map_keeps_only_river_lines_on_its_hexes(tmp_path, mediterranean_map):
    """Like `map build`, a campaign's map_rivers are cut to its own hexes (Italy's, here, from the
    whole Mediterranean): no line lies past them, and the rivers that cross them remain."""
    import shapely

    from bellica.geo.hexgrid import cells_outline
    from tests.cli.test_rise_of_rome_cli import bellica

    out = tmp_path / "italy.duckdb"
    code = bellica(_NoCapture(), "campaign", "new", "--scenario", "rise-of-rome", "--map", mediterranean_map,
                   "--out", out, "-q")[0]
    assert code == 0
    con = connect(out, read_only=True)
    try:
        outline = cells_outline([r[0] for r in con.execute("SELECT cell FROM hexes").fetchall()])
        lines = [shapely.from_wkb(bytes(r[0])) for r in con.execute("SELECT ST_AsWKB(geom) FROM map_rivers").fetchall()]
    finally:
        con.close()
    big = connect(mediterranean_map, read_only=True)
    try:
        on_the_map = big.execute("SELECT count(*) FROM map_rivers").fetchone()[0]
    finally:
        big.close()
    assert 0 < len(lines) < on_the_map
    assert all(line.is_valid and line.geom_type in ("LineString", "MultiLineString") for line in lines)
    outside = [line for line in lines if not line.intersects(outline) or line.difference(outline.buffer(1e-6)).length > 1e-6]
    assert outside == []


class _NoCapture:
    """capsys for a call whose output the test does not read."""

    def readouterr(self):
        return "", ""


@pytest.mark.parametrize("scenario, own", [
    ("trossian", {"provinces": {"map", "built"}}),
    ("magna-graecia/dionysian", {"nodes": None, "year": None}),
])
def test_a_province_or_node_campaign_records_where_it_came_from(tmp_path, scenario, own):
    """scenario_meta of the province and node builders: the scenario's name, ruleset, extent, the
    map it was made on (--map: its path), when and how long, and the kind's own keys."""
    from tests.conftest import scenario_campaign_file

    path = scenario_campaign_file(scenario, tmp_path / "c.duckdb")
    con = connect(path, read_only=True)
    try:
        meta = dict(con.execute("SELECT key, value FROM scenario_meta").fetchall())
    finally:
        con.close()
    assert meta["name"] and meta["title"] and meta["ruleset"] in scenario
    assert len(meta["bbox"].split(",")) == 4 and int(meta["resolution"]) > 0
    assert meta["map"].endswith("map.duckdb") and float(meta["created_seconds"]) >= 0
    assert meta["created_at"][:2] == "20" and Path(meta["source"]).exists()
    for key, values in own.items():
        assert key in meta and (values is None or meta[key] in values)
    if "nodes" in own:
        assert Path(meta["nodes"]).is_file() and int(meta["year"].split()[0].lstrip("-")) > 0
