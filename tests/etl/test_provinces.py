"""Provinces from real geography (etl/provinces.py, docs/provinces.md): allocation, edits, tables and views."""

from __future__ import annotations

import json
import textwrap
import tomllib
from pathlib import Path

import h3
import pytest

from bellica.etl.provinces import build_provinces, compute_provinces, MapHexes, spec_from_dict
from bellica.geo.errors import InputError, BellicaError
from bellica.geo.hexgrid import cell_polygon, neighbor_table
from bellica.geo.spatialdb import connect
from bellica.schema import create_database, create_map_tables, existing_tables

CENTRE = (41.9, 12.5)
RES = 6
K = 7
STEP = 0.078  # the largest lng step between neighbouring res-6 hexes here: a band this wide stops every path


def _xy(cell: str, origin: str) -> tuple[float, float]:
    lat0, lng0 = h3.cell_to_latlng(origin)
    lat, lng = h3.cell_to_latlng(cell)
    return (lng - lng0) / STEP, (lat - lat0) / STEP


def province_map_cells() -> dict[str, tuple[str, str | None]]:
    """{cell: (kind, terrain)}: a K-disk with sea west of x = -5 (and one island in it), a ridge of peaks
    across the whole disk at 0 <= x < 1.1, a lake, farmland elsewhere (x in units of STEP)."""
    origin = h3.latlng_to_cell(*CENTRE, RES)
    out = {}
    for cell in sorted(h3.grid_disk(origin, K)):
        x, y = _xy(cell, origin)
        if x < -5:
            out[cell] = ("sea", None)
        elif 0 <= x < 1.1:
            out[cell] = ("land", "peaks")
        else:
            out[cell] = ("land", "farmlands")
    island = min((c for c in out if out[c][0] == "sea" and all(out.get(n, ("sea",))[0] == "sea" for n in h3.grid_disk(c, 1))
                  and all(n in out for n in h3.grid_disk(c, 1))), key=lambda c: abs(_xy(c, origin)[1]))
    out[island] = ("land", "hills")
    lake = cell_near(-2, 3)
    out[lake] = ("lake", None)
    for cell, (kind, _) in list(out.items()):  # water next to land is the rules' Coast hex
        if kind == "sea" and any(out.get(n, ("sea",))[0] == "land" for n in h3.grid_ring(cell, 1)):
            out[cell] = ("coast", None)
    return out


def cell_near(x: float, y: float) -> str:
    origin = h3.latlng_to_cell(*CENTRE, RES)
    return min(h3.grid_disk(origin, K), key=lambda c: ((_xy(c, origin)[0] - x) ** 2 + (_xy(c, origin)[1] - y) ** 2, c))


def lonlat(cell: str) -> list[float]:
    lat, lng = h3.cell_to_latlng(cell)
    return [round(lng, 6), round(lat, 6)]


def make_province_map(path: Path) -> dict[str, tuple[str, str | None]]:
    """Write the synthetic map at ``path`` (hexes and hex_neighbors as `bellica map build` writes them)."""
    cells = province_map_cells()
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


# West of the ridge: Aemilia; east of it: Bruttium (north) and Campania (south).
CAPITALS = {"Aemilia": (-1.5, 0.0), "Bruttium": (5.0, 2.0), "Campania": (4.0, -3.5)}


def province_toml(extra: str = "", **capitals) -> str:
    caps = {**CAPITALS, **capitals}
    text = "".join(f'[[province]]\nname = "{name}"\ncapital = {lonlat(cell_near(*xy))}\n\n' for name, xy in caps.items())
    return text + textwrap.dedent(extra)


@pytest.fixture(scope="module")
def hexmap(tmp_path_factory) -> tuple[Path, dict]:
    path = tmp_path_factory.mktemp("provinces") / "map.duckdb"
    return path, make_province_map(path)


@pytest.fixture()
def fresh_map(tmp_path, hexmap) -> Path:
    """A copy of the synthetic map each test may write into."""
    out = tmp_path / "map.duckdb"
    out.write_bytes(hexmap[0].read_bytes())
    return out


def _hexes(path: Path) -> MapHexes:
    con = connect(path, read_only=True)
    try:
        return MapHexes.read(con)
    finally:
        con.close()


def _owners(result) -> dict[str, str]:
    return {cell: province for province, cell, _, _ in result.cells}


def _allocate(path, text, tmp_path=None):
    data = tomllib.loads(text)
    return compute_provinces(_hexes(path), spec_from_dict(data, base=tmp_path or Path(".")))


def test_allocation_respects_barriers(hexmap):
    path, cells = hexmap
    origin = h3.latlng_to_cell(*CENTRE, RES)
    a = cell_near(*CAPITALS["Aemilia"])
    b = cell_near(*CAPITALS["Bruttium"])
    c = cell_near(*CAPITALS["Campania"])
    east = [x for x, (kind, terrain) in cells.items() if kind == "land" and terrain == "farmlands" and _xy(x, origin)[0] >= 1.1]
    # East of the ridge, hexes nearer Aemilia's capital than the others' by grid distance.
    nearer_a = [x for x in east if h3.grid_distance(x, a) < min(h3.grid_distance(x, b), h3.grid_distance(x, c))]
    assert nearer_a
    with_ridge = _owners(_allocate(path, province_toml()))
    assert {with_ridge[x] for x in east} <= {"Bruttium", "Campania"}
    # Take the ridge away (peaks passable, same cost as farmland): those hexes go to Aemilia.
    flat = _owners(_allocate(path, province_toml("[allocation]\nbarriers = []\ncosts = { peaks = 2 }\n")))
    assert all(flat[x] == "Aemilia" for x in nearer_a)


def test_every_reachable_land_hex_is_allocated_contiguously(hexmap):
    path, cells = hexmap
    result = _allocate(path, province_toml())
    owners = _owners(result)
    land = {c for c, (kind, _) in cells.items() if kind == "land"}
    assert set(owners) == land - {c for c in land if all(cells.get(n, ("sea",))[0] != "land" for n in h3.grid_ring(c, 1))}
    assert result.unassigned == 1 and result.unassigned_pieces[0][0] == 1  # the island: no capital reaches it
    assert all(p["parts"] == 1 for p in result.provinces)
    for name, xy in CAPITALS.items():
        assert owners[cell_near(*xy)] == name
    # Peaks belong to provinces but are marked barriers; no lake or sea hex is anyone's.
    assert {b for _, c, _, b in result.cells if cells[c][1] == "peaks"} == {True}
    assert all(cells[c][0] == "land" for c in owners)
    assert sum(p["hex_count"] for p in result.provinces) == len(owners)


def test_terrain_costs_move_the_border(hexmap):
    path, cells = hexmap
    origin = h3.latlng_to_cell(*CENTRE, RES)
    a = cell_near(*CAPITALS["Aemilia"])
    east = [x for x, (kind, terrain) in cells.items() if terrain == "farmlands" and _xy(x, origin)[0] >= 1.1]
    passable = "[allocation]\nbarriers = []\ncosts = { peaks = %d }\n"
    cheap = _owners(_allocate(path, province_toml(passable % 2)))
    dear = _owners(_allocate(path, province_toml(passable % 40)))
    won = [x for x in east if cheap[x] == "Aemilia"]
    assert won and all(dear[x] != "Aemilia" for x in won)  # a costly ridge keeps Aemilia west of it
    assert all(cheap[x] == "Aemilia" for x in won if h3.grid_distance(x, a) <= 3)
    with pytest.raises(InputError, match="not positive"):
        _allocate(path, province_toml("[allocation]\ncosts = { farmlands = 0 }\n"))
    with pytest.raises(InputError, match="terrain farmlands with no cost"):
        spec = spec_from_dict(tomllib.loads(province_toml()))
        spec.costs.pop("farmlands")
        compute_provinces(_hexes(path), spec)


def test_ties_go_to_the_first_name_whatever_the_file_order(hexmap):
    path, cells = hexmap
    p = cell_near(3.0, 0.0)
    q = next(x for x in sorted(h3.grid_ring(p, 2)) if cells.get(x, ("sea", None))[1] == "farmlands"
             and sum(cells.get(n, ("sea", None))[1] == "farmlands" for n in set(h3.grid_ring(p, 1)) & set(h3.grid_ring(x, 1))) >= 1)
    common = [n for n in set(h3.grid_ring(p, 1)) & set(h3.grid_ring(q, 1)) if cells.get(n, ("sea", None))[1] == "farmlands"]
    for first, second in (("Zeta", "Alpha"), ("Alpha", "Zeta")):
        text = (f'[[province]]\nname = "{first}"\ncapital = {lonlat(p if first == "Alpha" else q)}\n'
                f'[[province]]\nname = "{second}"\ncapital = {lonlat(q if first == "Alpha" else p)}\n')
        owners = _owners(_allocate(path, text))
        assert all(owners[n] == "Alpha" for n in common)


def test_region_polygon_takes_precedence_and_seeds_the_island(hexmap, tmp_path):
    path, cells = hexmap
    origin = h3.latlng_to_cell(*CENTRE, RES)
    island = next(c for c, (k, t) in cells.items() if t == "hills")
    target = cell_near(5.0, -1.0)  # Bruttium's or Campania's by allocation, next to both
    region = {"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {"name": "Aemilia"},
         "geometry": json.loads(json.dumps(cell_polygon(island).buffer(0.001).__geo_interface__))},
        {"type": "Feature", "properties": {"name": "Aemilia"},
         "geometry": json.loads(json.dumps(cell_polygon(target).buffer(0.001).__geo_interface__))},
        {"type": "Feature", "properties": {"name": "Somewhere else"},
         "geometry": json.loads(json.dumps(cell_polygon(cell_near(-3, -3)).__geo_interface__))},
    ]}
    (tmp_path / "regions.geojson").write_text(json.dumps(region))
    caps = province_toml().replace('name = "Aemilia"\n', 'name = "Aemilia"\nregion = "regions.geojson"\n')
    result = _allocate(path, caps, tmp_path)
    owners = _owners(result)
    sources = {c: s for _, c, s, _ in result.cells}
    assert owners[island] == "Aemilia" and sources[island] == "region"
    assert owners[target] == "Aemilia" and sources[target] == "region"
    assert result.unassigned == 0
    aemilia = next(p for p in result.provinces if p["name"] == "Aemilia")
    assert aemilia["parts"] >= 2  # the island is a piece of its own
    # The region's hexes seed the allocation: the hexes around the one across the ridge go with it.
    assert _xy(target, origin)[0] > 1.1
    assert all(owners[n] == "Aemilia" for n in h3.grid_ring(target, 1))


def test_moved_cells_move(hexmap):
    path, cells = hexmap
    base = _owners(_allocate(path, province_toml()))
    cell = next(c for c, p in sorted(base.items()) if p == "Bruttium" and c != cell_near(*CAPITALS["Bruttium"]))
    text = province_toml().replace('name = "Campania"\n', f'name = "Campania"\ncells_add = ["{cell}"]\n')
    result = _allocate(path, text)
    owners = _owners(result)
    assert owners[cell] == "Campania"
    assert {c: s for _, c, s, _ in result.cells}[cell] == "moved"
    assert {c: p for c, p in owners.items() if c != cell} == {c: p for c, p in base.items() if c != cell}


def _deep_sea() -> str:
    """A sea hex with no land next to it (not a Coast hex)."""
    return next(c for c, (kind, _) in sorted(province_map_cells().items()) if kind == "sea")


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "provinces.toml"
    path.write_text(text)
    return path


def test_tables_and_views(fresh_map, tmp_path):
    text = province_toml("""
        [[exception]]
        from = "Aemilia"
        to = "Bruttium"
        one_way = true
        note = "a pass over the ridge, one way"

        [[exception]]
        from = "Aemilia"
        to = "Campania"

        [[sea]]
        name = "Mare Internum"
        bbox = [10.0, 41.0, 12.2, 43.0]
        """)
    build_provinces(fresh_map, _write(tmp_path, text))
    con = connect(fresh_map, read_only=True)
    try:
        assert {"provinces", "province_cells", "province_exceptions", "sea_areas", "sea_area_cells",
                "province_adjacency", "province_seas", "sea_area_adjacency"} <= existing_tables(con)
        adj = set(con.execute("SELECT a, b, kind FROM province_adjacency").fetchall())
        land = {(a, b) for a, b, k in adj if k == "land"}
        assert land == {(b, a) for a, b in land}  # land adjacency is symmetric
        assert land == {("Bruttium", "Campania"), ("Campania", "Bruttium")}  # the ridge parts Aemilia from both
        exc = {(a, b) for a, b, k in adj if k == "exception"}
        assert exc == {("Aemilia", "Bruttium"), ("Aemilia", "Campania"), ("Campania", "Aemilia")}  # one way respected
        assert con.execute("SELECT * FROM province_seas").fetchall() == [("Aemilia", "Mare Internum")]
        rows = con.execute("SELECT name, hex_count, parts, ST_GeometryType(geom), ST_NPoints(geom) > 6, "
                           "area_km2 > 0 FROM provinces ORDER BY name").fetchall()
        assert [r[0] for r in rows] == ["Aemilia", "Bruttium", "Campania"]
        assert all(r[2] == 1 and r[3] == "MULTIPOLYGON" and r[4] and r[5] for r in rows)
        # The dissolved outline holds every hex centre of the province, and the hex count adds up.
        assert con.execute("""SELECT count(*) FROM province_cells c JOIN hexes h USING (cell) JOIN provinces p
                              ON p.name = c.province WHERE NOT ST_Contains(p.geom, ST_Point(h.lng, h.lat))""").fetchone()[0] == 0
        assert con.execute("SELECT sum(hex_count) FROM provinces").fetchone()[0] == \
            con.execute("SELECT count(*) FROM province_cells").fetchone()[0]
        assert con.execute("SELECT count(*) FROM sea_area_cells c JOIN hexes h USING (cell) "
                           "WHERE h.kind NOT IN ('coast', 'sea', 'ocean')").fetchone()[0] == 0
    finally:
        con.close()


def test_existing_tables_need_force(fresh_map, tmp_path):
    path = _write(tmp_path, province_toml())
    build_provinces(fresh_map, path)
    with pytest.raises(InputError, match="already has province tables.*--force"):
        build_provinces(fresh_map, path)
    smaller = _write(tmp_path, province_toml().split("[[province]]\nname = \"Campania\"")[0])
    result = build_provinces(fresh_map, smaller, force=True)
    assert [p["name"] for p in result.provinces] == ["Aemilia", "Bruttium"]
    con = connect(fresh_map, read_only=True)
    assert con.execute("SELECT count(*) FROM provinces").fetchone()[0] == 2
    con.close()


@pytest.mark.parametrize("change, message", [
    (lambda t: t.replace(str(lonlat(cell_near(*CAPITALS["Bruttium"]))), "[30.0, 10.0]"), "Bruttium.*outside the map"),
    (lambda t: t.replace(str(lonlat(cell_near(*CAPITALS["Bruttium"]))), str(lonlat(_deep_sea()))),
     "Bruttium.*lies at sea.*nearest land hex"),
    (lambda t: t.replace(str(lonlat(cell_near(*CAPITALS["Bruttium"]))), str(lonlat(cell_near(*CAPITALS["Campania"])))),
     "same hex"),
    (lambda t: t.replace(str(lonlat(cell_near(*CAPITALS["Bruttium"]))), str(lonlat(cell_near(0.5, 0)))), "barrier"),
    (lambda t: t + '[[exception]]\nfrom = "Aemilia"\nto = "Dalmatia"\n', "to = 'Dalmatia' is no province"),
    (lambda t: t + '[[province]]\nname = "aemilia"\ncapital = [12.5, 41.9]\n', "name is used twice"),
    (lambda t: t + '[[province]]\nname = "X"\ncapitol = [12.5, 41.9]\n', "unknown key.*capitol"),
    (lambda t: t.replace('name = "Aemilia"\n', 'name = "Aemilia"\nregion = "bad.geojson"\n'), "bad.geojson is not GeoJSON"),
    (lambda t: t.replace('name = "Aemilia"\n', 'name = "Aemilia"\nregion = "point.geojson"\n'), "holds a Point, not a polygon"),
    (lambda t: t.replace('name = "Aemilia"\n', 'name = "Aemilia"\nregion = "missing.geojson"\n'), "does not exist"),
    (lambda t: t.replace('name = "Aemilia"\n', 'name = "Aemilia"\ncells_add = ["nonsense"]\n'), "not an H3 cell"),
    (lambda t: t + "[[sea]]\nname = \"Far\"\nbbox = [40, 10, 41, 11]\n", "holds no water hex"),
    (lambda t: "[[province]\n", "is not TOML"),
])
def test_bad_input_is_one_line_and_writes_nothing(fresh_map, tmp_path, change, message):
    (tmp_path / "bad.geojson").write_text("{not json")
    (tmp_path / "point.geojson").write_text(json.dumps({"type": "Point", "coordinates": [12.5, 41.9]}))
    path = _write(tmp_path, change(province_toml()))
    with pytest.raises(BellicaError, match=message) as info:
        build_provinces(fresh_map, path)
    assert "\n" not in str(info.value)
    con = connect(fresh_map, read_only=True)
    assert "provinces" not in existing_tables(con)
    con.close()


def test_a_coastal_capital_moves_to_the_land_next_to_it(hexmap):
    path, cells = hexmap
    coast = cell_near(-5.3, 0.0)
    assert cells[coast][0] == "coast"
    result = _allocate(path, province_toml(Aemilia=(-5.3, 0.0)))
    capital = next(p["capital_cell"] for p in result.provinces if p["name"] == "Aemilia")
    assert cells[capital] == ("land", "farmlands") and capital in h3.grid_ring(coast, 1)
    assert any("Aemilia" in n and "coast hex" in n for n in result.notes)


def test_italian_provinces_on_the_mediterranean_map(mediterranean_map, tmp_path):
    """Real geography: Roma, Capua and Tarentum split southern Italy into three contiguous provinces."""
    out = tmp_path / "med.duckdb"
    out.write_bytes(mediterranean_map.read_bytes())
    path = _write(tmp_path, textwrap.dedent("""
        [[province]]
        name = "Latium"
        capital = [12.48, 41.89]
        [[province]]
        name = "Campania"
        capital = [14.25, 41.08]
        [[province]]
        name = "Calabria"
        capital = [17.24, 40.47]
        [[sea]]
        name = "Mare Tyrrhenum"
        bbox = [9.5, 38.0, 15.6, 42.0]
        [[sea]]
        name = "Mare Ionium"
        bbox = [15.6, 36.0, 21.0, 40.4]
        """))
    result = build_provinces(out, path)
    by_name = {p["name"]: p for p in result.provinces}
    assert all(p["parts"] == 1 for p in result.provinces)
    assert by_name["Campania"]["hex_count"] > 20 and by_name["Calabria"]["hex_count"] > 20
    con = connect(out, read_only=True)
    try:
        land = set(con.execute("SELECT a, b FROM province_adjacency WHERE kind = 'land'").fetchall())
        assert {("Latium", "Campania"), ("Campania", "Calabria")} <= land
        seas = set(con.execute("SELECT * FROM province_seas").fetchall())
        assert {("Campania", "Mare Tyrrhenum"), ("Calabria", "Mare Ionium")} <= seas
        assert ("Calabria", "Mare Tyrrhenum") in seas  # the toe of Italy reaches the Tyrrhenian
        # Each capital's hex is its own, and Naples (14.27, 40.85) lies in Campania, Brundisium (17.94, 40.64) in Calabria.
        for name, lon, lat in (("Campania", 14.27, 40.85), ("Calabria", 17.94, 40.64), ("Latium", 12.48, 41.89)):
            cell = h3.latlng_to_cell(lat, lon, 5)
            assert con.execute("SELECT province FROM province_cells WHERE cell = ?", [cell]).fetchone() == (name,)
    finally:
        con.close()
