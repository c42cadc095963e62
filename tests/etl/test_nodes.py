"""Node maps from real geography (etl/nodes.py, docs/nodes.md): placing, routing, tables, views, refusals."""

from __future__ import annotations

import functools
import json
import math
import textwrap
from pathlib import Path

import duckdb
import h3
import pytest

from bellica.etl.nodes import NODE_TABLES, build_nodes, compute_nodes, copy_node_tables, node_file_from_dict
from bellica.etl.roads import HexGraph
from bellica.geo.errors import InputError, BellicaError
from bellica.geo.hexgrid import cell_polygon, neighbor_table
from bellica.geo.spatialdb import connect
from bellica.schema import create_database, create_map_tables, existing_tables

CENTRE = (41.9, 12.5)
RES = 6
K = 7
STEP = 0.078  # about one hex step in lng at res 6 here


def _xy(cell: str) -> tuple[float, float]:
    lat0, lng0 = h3.cell_to_latlng(h3.latlng_to_cell(*CENTRE, RES))
    lat, lng = h3.cell_to_latlng(cell)
    return (lng - lng0) / STEP, (lat - lat0) / STEP


@functools.lru_cache(maxsize=None)
def _map_cells() -> tuple:
    return tuple(_node_map_cells().items())


def node_map_cells() -> dict[str, tuple[str, str | None]]:
    """A fresh copy of the synthetic map's {cell: (kind, terrain)} (:func:`_node_map_cells`)."""
    return dict(_map_cells())


def _node_map_cells() -> dict[str, tuple[str, str | None]]:
    """{cell: (kind, terrain)}: a K-disk, sea west of x = -3 with one land hex (an island) far out
    in it, farmland east of it, hills where y > 3 (x, y in hex steps from the centre)."""
    origin = h3.latlng_to_cell(*CENTRE, RES)
    out: dict[str, tuple[str, str | None]] = {}
    for cell in sorted(h3.grid_disk(origin, K)):
        x, y = _xy(cell)
        out[cell] = ("sea", None) if x < -3 else ("land", "hills" if y > 3 else "farmlands")
    out[ISLAND()] = ("land", "farmlands")
    for cell, (kind, _) in list(out.items()):  # water next to land is the rules' Coast hex
        if kind == "sea" and any(out.get(n, ("sea",))[0] == "land" for n in h3.grid_ring(cell, 1)):
            out[cell] = ("coast", None)
    return out


@functools.lru_cache(maxsize=None)
def cell_near(x: float, y: float) -> str:
    origin = h3.latlng_to_cell(*CENTRE, RES)
    return min(h3.grid_disk(origin, K), key=lambda c: ((_xy(c)[0] - x) ** 2 + (_xy(c)[1] - y) ** 2, c))


def ISLAND() -> str:  # noqa: N802 - a constant computed from the grid
    return cell_near(-7.5, 0.0)


def lonlat(cell: str) -> list[float]:
    lat, lng = h3.cell_to_latlng(cell)
    return [round(lng, 6), round(lat, 6)]


def make_node_map(path: Path) -> dict[str, tuple[str, str | None]]:
    """Write the synthetic map at ``path`` (hexes and hex_neighbors as `bellica map build` writes them)."""
    cells = node_map_cells()
    con = create_database(path)
    try:
        create_map_tables(con)
        rows = []
        for cell, (kind, terrain) in cells.items():
            lat, lng = h3.cell_to_latlng(cell)
            rows.append([cell, RES, kind, terrain, lat, lng, cell_polygon(cell).wkt])
        con.executemany("INSERT INTO hexes (cell, res, kind, terrain, lat, lng, geom) "
                        "VALUES (?, ?, ?, ?, ?, ?, ST_GeomFromText(?::VARCHAR))", rows)
        con.executemany("INSERT INTO hex_neighbors VALUES (?, ?, ?, ?)", [list(r) for r in neighbor_table(cells)])
        con.executemany("INSERT INTO map_meta VALUES (?, ?)", [["region", "synthetic"], ["res", str(RES)]])
    finally:
        con.close()
    return cells


@functools.lru_cache(maxsize=None)
def coastal_land(y: float) -> str:
    """The land hex on the shore nearest the row ``y``."""
    cells = node_map_cells()
    shore = [c for c, (k, _) in cells.items() if k == "land" and c != ISLAND()
             and any(cells.get(n, ("sea",))[0] == "coast" for n in h3.grid_ring(c, 1))]
    return min(shore, key=lambda c: (abs(_xy(c)[1] - y), c))


# Portus and Navalia on the shore, Alpha and Beta inland on farmland, Gamma in the hills, Insula on
# the island.  Land paths Portus-Alpha-Beta-Gamma-Navalia, sea paths Portus-Navalia-Insula.
def places() -> dict[str, str]:
    return {"Portus": coastal_land(0.0), "Navalia": coastal_land(4.5), "Alpha": cell_near(1.0, 0.0),
            "Beta": cell_near(4.0, 1.0), "Gamma": cell_near(1.5, 4.5), "Insula": ISLAND()}


def node_toml(extra: str = "", *, drop: tuple[str, ...] = (), **fields) -> str:
    text = ""
    for name, cell in places().items():
        if name in drop:
            continue
        text += f'[[place]]\nname = "{name}"\nat = {lonlat(cell)}\n'
        if name in ("Portus", "Navalia"):
            text += "fortified = true\ncommands = 2\n"
        text += fields.get(name, "") + "\n"
    text += textwrap.dedent("""
        [[path]]
        from = "Portus"
        to = "Alpha"

        [[path]]
        from = "Beta"
        to = "Alpha"

        [[path]]
        from = "Beta"
        to = "Gamma"

        [[path]]
        from = "Gamma"
        to = "Navalia"

        [[path]]
        from = "Portus"
        to = "Navalia"
        by = "sea"

        [[path]]
        from = "Navalia"
        to = "Insula"
        by = "sea"
        """)
    return text + textwrap.dedent(extra)


@pytest.fixture(scope="module")
def hexmap(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("nodes") / "map.duckdb"
    make_node_map(path)
    return path


@pytest.fixture()
def fresh_map(tmp_path, hexmap) -> Path:
    out = tmp_path / "map.duckdb"
    out.write_bytes(hexmap.read_bytes())
    return out


def _graph(path: Path) -> HexGraph:
    con = connect(path, read_only=True)
    try:
        return HexGraph.from_db(con)
    finally:
        con.close()


def _compute(path: Path, text: str, year=None):
    import tomllib

    return compute_nodes(_graph(path), RES, node_file_from_dict(tomllib.loads(text), source="n.toml"), year=year)


def _write(tmp_path: Path, text: str) -> Path:
    f = tmp_path / "nodes.toml"
    f.write_text(text)
    return f


def _km(a: str, b: str) -> float:
    return h3.great_circle_distance(h3.cell_to_latlng(a), h3.cell_to_latlng(b), unit="km")


# --------------------------------------------------------------------------- placing and routing


def test_places_take_their_hex_terrain_and_coast(hexmap):
    result = _compute(hexmap, node_toml())
    nodes = {n["name"]: n for n in result.nodes}
    p = places()
    assert [n["name"] for n in result.nodes] == sorted(p)
    assert {name: n["cell"] for name, n in nodes.items()} == p
    assert nodes["Portus"]["coastal"] and nodes["Navalia"]["coastal"] and nodes["Insula"]["coastal"]
    assert not nodes["Alpha"]["coastal"] and not nodes["Beta"]["coastal"] and not nodes["Gamma"]["coastal"]
    assert nodes["Gamma"]["terrain"] == "hills" and nodes["Alpha"]["terrain"] == "farmlands"
    assert nodes["Portus"]["fortified"] and nodes["Portus"]["commands"] == 2
    assert not nodes["Alpha"]["fortified"] and nodes["Alpha"]["commands"] == 0
    assert result.notes == []


def test_overrides_of_terrain_and_coast(hexmap):
    result = _compute(hexmap, node_toml(Alpha='terrain = "marshes"\ncoastal = true\n', Portus="coastal = false\n",
                                        drop=()).replace('from = "Portus"\nto = "Navalia"\nby = "sea"',
                                                         'from = "Portus"\nto = "Navalia"'))
    nodes = {n["name"]: n for n in result.nodes}
    assert nodes["Alpha"]["terrain"] == "marshes" and nodes["Alpha"]["coastal"]
    assert not nodes["Portus"]["coastal"]


def test_land_path_is_a_road_route_with_length_hexes_terrain(hexmap):
    result = _compute(hexmap, node_toml())
    paths = {(p["a"], p["b"], p["kind"]): p for p in result.paths}
    assert sorted(paths) == [("Alpha", "Beta", "land"), ("Alpha", "Portus", "land"), ("Beta", "Gamma", "land"),
                             ("Gamma", "Navalia", "land"), ("Insula", "Navalia", "sea"), ("Navalia", "Portus", "sea")]
    p = places()
    ab = paths[("Alpha", "Beta", "land")]
    # Over uniform farmland the route is a shortest hex chain: grid distance + 1 hexes, all farmland.
    assert ab["hexes"] == h3.grid_distance(p["Alpha"], p["Beta"]) + 1 == len(ab["cells"])
    assert ab["terrain"] == {"farmlands": ab["hexes"]}
    assert ab["cells"][0] == p["Alpha"] and ab["cells"][-1] == p["Beta"]
    assert all(h3.are_neighbor_cells(u, v) for u, v in zip(ab["cells"], ab["cells"][1:]))
    # The length runs from site to site through the hex centres: at least the straight line, at most
    # a hex chain's zigzag (2/sqrt 3) longer.
    straight = _km(p["Alpha"], p["Beta"])
    assert straight <= ab["length_km"] <= straight * 2 / math.sqrt(3) + 0.2
    # The line starts and ends at the sites; the bearings are its first and last steps (Beta lies
    # east-north-east of Alpha: the path leaves Alpha eastward and comes into Beta from the west).
    line = list(ab["line"].coords)
    assert list(line[0]) == lonlat(p["Alpha"]) and list(line[-1]) == lonlat(p["Beta"])
    assert 0 < ab["bearing_a"] < 135 and 180 < ab["bearing_b"] < 360
    # Into the hills: Gamma's path counts them.
    assert paths[("Beta", "Gamma", "land")]["terrain"].get("hills", 0) >= 1
    # Land routes never touch water.
    cells = node_map_cells()
    for key, path in paths.items():
        if key[2] == "land":
            assert all(cells[c][0] == "land" for c in path["cells"])


def test_sea_path_sails_over_water_between_coastal_places(hexmap):
    result = _compute(hexmap, node_toml())
    paths = {(p["a"], p["b"], p["kind"]): p for p in result.paths}
    cells = node_map_cells()
    sea = paths[("Navalia", "Portus", "sea")]
    inner = sea["cells"][1:-1]
    assert inner and all(cells[c][0] in ("coast", "sea") for c in inner)
    assert sea["cells"][0] == places()["Navalia"] and sea["cells"][-1] == places()["Portus"]
    # Terrain of a sea path: water only (its land ends are not counted).
    assert set(sea["terrain"]) <= {"coast", "sea"} and sum(sea["terrain"].values()) == sea["hexes"] - 2
    # The island is reached by sea (and only by sea).
    assert paths[("Insula", "Navalia", "sea")]["hexes"] >= 3


def test_place_in_a_coast_hex_moves_ashore(hexmap):
    cells = node_map_cells()
    coast = min((c for c, (k, _) in cells.items() if k == "coast" and abs(_xy(c)[1]) < 1 and _xy(c)[0] > -6),
                key=lambda c: (abs(_xy(c)[1]), c))
    text = node_toml(drop=("Portus",)).replace('from = "Portus"', 'from = "Harbour"')
    text = f'[[place]]\nname = "Harbour"\nat = {lonlat(coast)}\n\n' + text
    result = _compute(hexmap, text)
    harbour = next(n for n in result.nodes if n["name"] == "Harbour")
    assert cells[harbour["cell"]][0] == "land" and h3.are_neighbor_cells(harbour["cell"], coast)
    assert harbour["coastal"] and harbour["lon"] == lonlat(coast)[0]  # the real site is kept
    assert len(result.notes) == 1 and result.notes[0].startswith("Harbour:") and "coast hex" in result.notes[0]


def test_declared_coastal_place_sails_from_its_harbour(hexmap):
    # Two hexes from the shore, declared coastal: it sails from the nearest coast hex within two rings.
    cells = node_map_cells()
    inland = min((c for c, (k, _) in cells.items() if k == "land" and c != ISLAND()
                  and min(h3.grid_distance(c, w) for w, (kw, _) in cells.items() if kw == "coast") == 2),
                 key=lambda c: (abs(_xy(c)[1] - 2), c))
    text = node_toml() + f'\n[[place]]\nname = "Arx"\nat = {lonlat(inland)}\ncoastal = true\n\n' \
                         '[[path]]\nfrom = "Arx"\nto = "Portus"\nby = "sea"\n'
    result = _compute(hexmap, text)
    path = next(p for p in result.paths if p["a"] == "Arx")
    assert path["cells"][0] == inland and cells[path["cells"][1]][0] == "coast"
    assert any(n.startswith("Arx: declared coastal") for n in result.notes)


def test_via_waypoints_bend_a_path(hexmap):
    p = places()
    plain = _compute(hexmap, node_toml())
    detour = cell_near(2.0, -3.0)
    bent = _compute(hexmap, node_toml('[[path]]\nfrom = "Alpha"\nto = "Navalia"\nvia = [%s]\n' % lonlat(detour)))
    path = next(x for x in bent.paths if (x["a"], x["b"]) == ("Alpha", "Navalia"))
    assert detour in path["cells"] and path["cells"][0] == p["Alpha"] and path["cells"][-1] == p["Navalia"]
    assert len(bent.paths) == len(plain.paths) + 1
    # Written the other way round (from Navalia), the waypoints are reversed with the ends: the same route.
    again = _compute(hexmap, node_toml('[[path]]\nfrom = "Navalia"\nto = "Alpha"\nvia = [%s]\n' % lonlat(detour)))
    assert next(x for x in again.paths if (x["a"], x["b"]) == ("Alpha", "Navalia"))["cells"] == path["cells"]


def test_year_filter_keeps_the_places_and_paths_of_that_year(hexmap):
    text = node_toml(Beta="until_year = -300\n", Gamma="from_year = -320\n") + \
        '\n[[path]]\nfrom = "Alpha"\nto = "Gamma"\nfrom_year = -250\n'
    every = _compute(hexmap, text)
    assert len(every.nodes) == 6 and len(every.paths) == 7
    early = _compute(hexmap, text, year=-330)  # before Gamma
    assert "Gamma" not in {n["name"] for n in early.nodes}
    assert {(p["a"], p["b"]) for p in early.paths} == {("Alpha", "Beta"), ("Alpha", "Portus"), ("Insula", "Navalia"), ("Navalia", "Portus")}
    late = _compute(hexmap, text, year=-250)  # Beta gone, the Alpha-Gamma road open
    assert "Beta" not in {n["name"] for n in late.nodes}
    assert ("Alpha", "Gamma") in {(p["a"], p["b"]) for p in late.paths}
    assert not any("Beta" in (p["a"], p["b"]) for p in late.paths)
    both = _compute(hexmap, text, year=-300)  # both limits are included
    assert {"Beta", "Gamma"} <= {n["name"] for n in both.nodes} and ("Alpha", "Gamma") not in {(p["a"], p["b"]) for p in both.paths}
    with pytest.raises(InputError, match="no place exists in 400 BC"):
        _compute(hexmap, node_toml(**{n: "from_year = -350\n" for n in places()}), year=-400)


# --------------------------------------------------------------------------- refusals


@pytest.mark.parametrize("text, match", [
    (node_toml() + '[[path]]\nfrom = "Portus"\nto = "Ostia"\n', r"\[\[path\]\] #7: to = 'Ostia' is no place of the file"),
    (node_toml() + '[[place]]\nname = "portus"\nat = [12.5, 41.9]\n', r"place 'portus': the name is used twice"),
    (node_toml() + "[[road]]\n", r"n.toml: unknown key\(s\) road"),
    (node_toml(Alpha="colour = \"red\"\n"), r"\[\[place\]\] #3: unknown key\(s\) colour: use only at, coastal"),
    (node_toml() + '[[path]]\nfrom = "Portus"\nto = "Beta"\nvia = []\nspeed = 2\n', r"\[\[path\]\] #7: unknown key\(s\) speed"),
    (node_toml(Alpha="commands = 4\n"), r"place 'Alpha': commands = 4: write a whole number 0 to 3"),
    (node_toml(Alpha="fortified = \"yes\"\n"), r"place 'Alpha' fortified: 'yes' is not true or false"),
    (node_toml(Alpha='terrain = "swamp"\n'), r"terrain = 'swamp' is no terrain class"),
    (node_toml(Alpha="from_year = -200\nuntil_year = -300\n"), r"until_year -300 is before from_year -200"),
    (node_toml(Alpha="from_year = 0\n"), r"0 is not a year"),
    (node_toml() + '[[path]]\nfrom = "Portus"\nto = "Portus"\n', r"from and to are both 'Portus'"),
    (node_toml() + '[[path]]\nfrom = "Alpha"\nto = "Portus"\n', r"the land path between them is listed twice \(#1 and #7\)"),
    (node_toml() + '[[path]]\nfrom = "Alpha"\nto = "Beta"\nby = "air"\n', r"by = 'air': write by = \"land\" or by = \"sea\""),
    ('[[path]]\nfrom = "A"\nto = "B"\n', r"no \[\[place\]\] entries"),
    (node_toml() + '[routing]\nsea_cost = { lake = 1 }\n', r"lake is no navigable water"),
])
def test_bad_files_are_refused_in_one_line(hexmap, text, match):
    with pytest.raises(InputError, match=match) as err:
        _compute(hexmap, text)
    assert "\n" not in str(err.value) and str(err.value).startswith("n.toml")


def test_places_off_the_map_or_at_sea_are_refused(hexmap):
    with pytest.raises(InputError, match=r"place 'Alpha': at = \[20.0, 41.9\] lies outside the map .*: correct it"):
        _compute(hexmap, node_toml().replace(f"at = {lonlat(places()['Alpha'])}", "at = [20.0, 41.9]"))
    lon, lat = lonlat(places()["Alpha"])
    with pytest.raises(InputError, match="lon and lat look swapped"):
        _compute(hexmap, node_toml().replace(f"at = {lonlat(places()['Alpha'])}", f"at = [{lat}, {lon}]"))
    deep = cell_near(-6.0, -4.0)
    assert node_map_cells()[deep][0] == "sea"
    with pytest.raises(InputError, match=r"place 'Alpha': .* lies at sea \(sea hex .*\): move it onto the land"):
        _compute(hexmap, node_toml().replace(f"at = {lonlat(places()['Alpha'])}", f"at = {lonlat(deep)}"))


def test_sea_path_to_an_inland_place_is_refused(hexmap):
    with pytest.raises(InputError, match=r"sea path Alpha - Portus .*: Alpha is not coastal .*: make it a land path"):
        _compute(hexmap, node_toml('[[path]]\nfrom = "Portus"\nto = "Alpha"\nby = "sea"\n'))
    with pytest.raises(InputError, match=r"Portus is not coastal"):  # the designer's coastal = false counts
        _compute(hexmap, node_toml(Portus="coastal = false\n"))


def test_no_route_is_refused(hexmap):
    with pytest.raises(InputError, match=r"land path Insula - Portus .*: no land route from Insula to Portus over passable land"):
        _compute(hexmap, node_toml('[[path]]\nfrom = "Portus"\nto = "Insula"\n'))
    sea = lonlat(cell_near(-6.0, -4.0))
    with pytest.raises(InputError, match=r"via \[.*\] lies in a sea hex: a land path's waypoints must lie in a land hex"):
        _compute(hexmap, node_toml('[[path]]\nfrom = "Portus"\nto = "Beta"\nvia = [%s]\n' % sea))


# --------------------------------------------------------------------------- tables and views


def _rows(path: Path, sql: str) -> list[tuple]:
    con = connect(path, read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def test_build_writes_tables_and_views(fresh_map, tmp_path):
    result = build_nodes(fresh_map, _write(tmp_path, node_toml()))
    assert len(result.nodes) == 6
    con = duckdb.connect(str(fresh_map), read_only=True)
    try:
        assert set(NODE_TABLES) | {"node_links", "node_steps"} <= existing_tables(con)
    finally:
        con.close()
    assert _rows(fresh_map, "SELECT name, coastal, fortified, commands FROM nodes ORDER BY name") == [
        ("Alpha", False, False, 0), ("Beta", False, False, 0), ("Gamma", False, False, 0), ("Insula", True, False, 0),
        ("Navalia", True, True, 2), ("Portus", True, True, 2)]
    # a < b, once per kind; lengths and lines stored.
    paths = _rows(fresh_map, "SELECT a, b, kind, hexes, length_km > 0, ST_AsText(geom) FROM node_paths ORDER BY ALL")
    assert all(a < b and ok and gt.startswith("LINESTRING") for a, b, _, _, ok, gt in paths) and len(paths) == 6
    assert _rows(fresh_map, "SELECT sum(hexes) FROM node_path_terrain") == _rows(
        fresh_map, "SELECT sum(hexes - CASE kind WHEN 'sea' THEN 2 ELSE 0 END) FROM node_paths")
    assert _rows(fresh_map, "SELECT count(*) FROM node_path_cells") == _rows(fresh_map, "SELECT sum(hexes) FROM node_paths")
    # node_links: both directions; the arrival bearing at the far end is the near end's bearing there.
    links = _rows(fresh_map, "SELECT from_node, to_node, kind FROM node_links ORDER BY ALL")
    assert len(links) == 12 and ("Alpha", "Portus", "land") in links and ("Portus", "Alpha", "land") in links
    assert _rows(fresh_map, "SELECT l.arrive_bearing = p.bearing_a FROM node_links l JOIN node_paths p "
                            "ON l.from_node = p.b AND l.to_node = p.a AND l.kind = p.kind") == [(True,)] * 6


def test_reach_views_give_exact_answers(fresh_map, tmp_path):
    build_nodes(fresh_map, _write(tmp_path, node_toml(Beta="until_year = -300\n")))
    reach = lambda sql: _rows(fresh_map, sql + " ORDER BY moves, node")  # noqa: E731
    assert reach("SELECT * FROM node_reach('Portus', 0)") == [("Portus", 0)]
    assert reach("SELECT * FROM node_reach('Portus', 2)") == [("Portus", 0), ("Alpha", 1), ("Beta", 2)]
    assert reach("SELECT * FROM node_reach('Portus', 9)") == [("Portus", 0), ("Alpha", 1), ("Beta", 2), ("Gamma", 3), ("Navalia", 4)]
    assert reach("SELECT * FROM node_reach('Gamma', 1)") == [("Gamma", 0), ("Beta", 1), ("Navalia", 1)]
    # In a year without Beta the road is cut at Alpha.
    assert reach("SELECT * FROM node_reach('Portus', 9, in_year := -250)") == [("Portus", 0), ("Alpha", 1)]
    assert reach("SELECT * FROM node_reach('Insula', 3)") == [("Insula", 0)]
    # Fleets: coastal nodes over sea paths only; an inland start reaches nothing.
    assert reach("SELECT * FROM fleet_reach('Portus', 1)") == [("Portus", 0), ("Navalia", 1)]
    assert reach("SELECT * FROM fleet_reach('Portus', 3)") == [("Portus", 0), ("Navalia", 1), ("Insula", 2)]
    assert reach("SELECT * FROM fleet_reach('Alpha', 3)") == []
    # node_steps: the fewest moves between every pair, per kind (every era together).
    steps = dict(((f, t, k), m) for f, t, k, m in _rows(fresh_map, "SELECT * FROM node_steps"))
    assert steps[("Portus", "Navalia", "land")] == 4 and steps[("Navalia", "Portus", "land")] == 4
    assert steps[("Insula", "Portus", "sea")] == 2 and steps[("Alpha", "Alpha", "land")] == 0
    assert ("Insula", "Portus", "land") not in steps and ("Alpha", "Alpha", "sea") not in steps
    assert len([k for k in steps if k[2] == "sea"]) == 9 and len([k for k in steps if k[2] == "land"]) == 5 * 5 + 1


def test_views_survive_reopening_and_match_a_breadth_first_search(fresh_map, tmp_path):
    # More paths than the fixture's chain: node_steps agrees with a plain BFS over node_links.
    extra = '[[path]]\nfrom = "Alpha"\nto = "Gamma"\n\n[[path]]\nfrom = "Portus"\nto = "Beta"\n'
    build_nodes(fresh_map, _write(tmp_path, node_toml(extra)))
    links = _rows(fresh_map, "SELECT from_node, to_node, kind FROM node_links")
    names = [n for (n,) in _rows(fresh_map, "SELECT name FROM nodes")]
    coastal = {n for (n,) in _rows(fresh_map, "SELECT name FROM nodes WHERE coastal")}
    expected = {}
    for kind in ("land", "sea"):
        for start in names if kind == "land" else sorted(coastal):
            dist, frontier = {start: 0}, [start]
            while frontier:
                nxt = []
                for u in frontier:
                    for f, t, k in links:
                        if f == u and k == kind and t not in dist:
                            dist[t] = dist[u] + 1
                            nxt.append(t)
                frontier = nxt
            expected.update({(start, t, kind): d for t, d in dist.items()})
    assert dict(((f, t, k), m) for f, t, k, m in _rows(fresh_map, "SELECT * FROM node_steps")) == expected


def test_refusals_write_nothing_and_existing_tables_need_force(fresh_map, tmp_path):
    bad = _write(tmp_path, node_toml('[[path]]\nfrom = "Portus"\nto = "Insula"\n'))
    with pytest.raises(InputError, match="no land route"):
        build_nodes(fresh_map, bad)
    assert not set(NODE_TABLES) & {t for (t,) in _rows(fresh_map, "SELECT table_name FROM information_schema.tables")}
    good = _write(tmp_path, node_toml())
    build_nodes(fresh_map, good)
    with pytest.raises(InputError, match="already has node tables .*: pass --force"):
        build_nodes(fresh_map, good)
    result = build_nodes(fresh_map, good, force=True, year=-100)
    assert result.year == -100 and _rows(fresh_map, "SELECT count(*) FROM nodes") == [(6,)]
    with pytest.raises(BellicaError, match="does not exist"):
        build_nodes(fresh_map, tmp_path / "missing.toml")
    (tmp_path / "broken.toml").write_text("[[place]\n")
    with pytest.raises(InputError, match="is not TOML"):
        build_nodes(fresh_map, tmp_path / "broken.toml")


def test_summary_and_json(hexmap):
    result = _compute(hexmap, node_toml())
    lines = result.summary()
    assert lines[0].startswith("6 places (3 coastal, 2 fortified); 4 land paths")
    assert any(line.startswith("  Portus: farmlands, coastal, fortified, 2 commands") for line in lines)
    data = json.loads(json.dumps(result.as_json()))
    assert {"year", "nodes", "paths", "notes"} == set(data) and "cells" not in data["paths"][0]


def test_a_campaign_copies_the_node_map(fresh_map, tmp_path):
    build_nodes(fresh_map, _write(tmp_path, node_toml()))
    con = create_database(tmp_path / "campaign.duckdb")
    try:
        assert not copy_node_tables(con, "memory")  # nothing to copy from a database without nodes
        con.execute(f"ATTACH '{fresh_map}' AS m (READ_ONLY)")
        assert copy_node_tables(con, "m")
        con.execute("DETACH m")
        assert con.execute("SELECT count(*) FROM nodes").fetchone() == (6,)
        assert con.execute("SELECT node FROM fleet_reach('Portus', 1) ORDER BY node").fetchall() == [("Navalia",), ("Portus",)]
    finally:
        con.close()
