"""Tiny synthetic map and campaign databases for the web map tests: the schema's tables (bellica.schema), filled row by row.

Hexes are a disk of H3 cells around Rome: the west third water (ocean, sea,
coast), one lake, the rest land with every terrain in latitude bands, a river
running west to east through the middle row.  Geometries come from
``geo.hexgrid.cell_polygon`` exactly as the map build stores them.
"""

from __future__ import annotations

from pathlib import Path

import h3
import shapely

from bellica.geo.hexgrid import cell_center, cell_polygon, ring
from bellica.geo.spatialdb import connect
from bellica.schema import create_campaign_tables, create_database, create_map_tables

CENTRE = (41.9, 12.5)
RES = 6
TERRAINS = ("farmlands", "desert", "hills", "marshes", "forests", "mountains", "peaks")

def synthetic_cells(k: int = 4, *, centre=CENTRE, res: int = RES) -> list[dict]:
    """Rows for ``hexes``: a k-ring disk (61 cells for k=4) with water, a lake, terrains, a river."""
    origin = h3.latlng_to_cell(*centre, res)
    cells = sorted(ring(origin, k))
    lats = [cell_center(c)[0] for c in cells]
    lngs = [cell_center(c)[1] for c in cells]
    lng_lo, lng_hi = min(lngs), max(lngs)
    lat_lo, lat_hi = min(lats), max(lats)
    lake = sorted(ring(origin, 1) - {origin})[0]
    rows = []
    for cell, lat, lng in zip(cells, lats, lngs):
        x = (lng - lng_lo) / (lng_hi - lng_lo)
        y = (lat - lat_lo) / (lat_hi - lat_lo)
        if x < 0.12:
            kind = "ocean"
        elif x < 0.25:
            kind = "sea"
        elif x < 0.36:
            kind = "coast"
        elif cell == lake:
            kind = "lake"
        else:
            kind = "land"
        terrain = TERRAINS[min(int(y * len(TERRAINS)), len(TERRAINS) - 1)] if kind == "land" else None
        elev = 50.0 + 2500.0 * y if kind == "land" else None
        rows.append({
            "cell": cell, "res": res, "kind": kind, "terrain": terrain,
            "elev_mean": elev, "elev_min": None if elev is None else elev - 40, "elev_max": None if elev is None else elev + 60,
            "elev_std": None if elev is None else 12.5, "elev_samples": 400 if kind == "land" else 0,
            "land_fraction": 1.0 if kind == "land" else (0.2 if kind == "coast" else 0.0),
            "lake_fraction": 1.0 if kind == "lake" else 0.0,
            "river": kind == "land" and abs(lat - centre[0]) < 0.04,
            "lat": lat, "lng": lng, "wkt": cell_polygon(cell).wkt,
        })
    return rows


def make_map_db(path: Path, *, k: int = 4, centre=CENTRE, res: int = RES) -> list[dict]:
    """Write a map database at ``path``; returns the hex rows."""
    rows = synthetic_cells(k, centre=centre, res=res)
    con = create_database(path)
    try:
        create_map_tables(con)
        con.executemany(
            "INSERT INTO hexes VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ST_GeomFromText(?::VARCHAR))",
            [[r["cell"], r["res"], r["kind"], r["terrain"], r["elev_mean"], r["elev_min"], r["elev_max"], r["elev_std"],
              r["elev_samples"], r["land_fraction"], r["lake_fraction"], r["river"], r["lat"], r["lng"], r["wkt"]]
             for r in rows],
        )
        river = [(r["lng"], r["lat"]) for r in rows if r["river"]]
        river.sort()
        con.execute(
            "INSERT INTO map_rivers VALUES (1, 42.0, ST_GeomFromText(?::VARCHAR))",
            ["LINESTRING(" + ", ".join(f"{x} {y}" for x, y in river) + ")"],
        )
        con.executemany("INSERT INTO map_meta VALUES (?, ?)", [["name", "Synthetic Latium"], ["resolution", str(res)]])
    finally:
        con.close()
    return rows


FACTIONS = [
    # name, colour, player, capitals
    ("Roma", "#b71c1c", True, ["Roma"]),
    ("Etrusci", "#2e7d32", True, ["Caere"]),
    ("Carthago", "#6a1b9a", False, []),
]


def make_campaign_db(path: Path, *, started: bool = True, k: int = 4) -> dict:
    """A map database plus the campaign tables (and, if ``started``, engine state) by hand.

    Returns names the tests check: cells of structures, road and river cells, zone cells.
    """
    rows = make_map_db(path, k=k)
    land = [r for r in rows if r["kind"] == "land"]
    water = [r for r in rows if r["kind"] in ("sea", "coast")]
    origin = h3.latlng_to_cell(*CENTRE, RES)
    by_cell = {r["cell"]: r for r in rows}
    if by_cell[origin]["kind"] != "land":
        origin = land[len(land) // 2]["cell"]
    east = max(land, key=lambda r: r["lng"])["cell"]
    north = max(land, key=lambda r: r["lat"])["cell"]
    coastal = min(land, key=lambda r: r["lng"])["cell"]
    south = min(land, key=lambda r: r["lat"])["cell"]
    structures = [
        # name, modern, kind, cell, controller at start, capital
        ("Roma", "Rome", "city", origin, "Roma", True),
        ("Ostia", "Ostia Antica", "town", coastal, "Roma", False),
        ("Caere", "Cerveteri", "city", north, "Etrusci", True),
        ("Tibur", "Tivoli", "town", east, None, False),
        ("Lavinium", "Pratica di Mare", "town", south, "Roma", False),
    ]
    road = h3.grid_path_cells(coastal, east)
    river = [r["cell"] for r in sorted(land, key=lambda r: r["lng"]) if r["river"]]
    zone_cells = sorted(r["cell"] for r in water)
    con = connect(path)
    try:
        create_campaign_tables(con)
        con.executemany("INSERT INTO factions VALUES (?, ?, 'list', ?, ?, 1, 1, 9)", [list(f) for f in FACTIONS])
        for s in structures:
            lat, lng = cell_center(s[3])
            con.execute("INSERT INTO structures VALUES (?, ?, ?, ?, ?, ?, ST_Point(?, ?))", [*s, lng, lat])
        line = "LINESTRING(" + ", ".join(f"{cell_center(c)[1]} {cell_center(c)[0]}" for c in road) + ")"
        con.execute("INSERT INTO roads VALUES ('Via Tiburtina', ST_GeomFromText(?::VARCHAR))", [line])
        con.executemany("INSERT INTO road_cells VALUES ('Via Tiburtina', ?, ?)", [[i, c] for i, c in enumerate(road)])
        line = "LINESTRING(" + ", ".join(f"{cell_center(c)[1]} {cell_center(c)[0]}" for c in river) + ")"
        con.execute("INSERT INTO rivers VALUES ('Tiberis', ST_GeomFromText(?::VARCHAR))", [line])
        con.executemany("INSERT INTO river_cells VALUES ('Tiberis', ?)", [[c] for c in river])
        zone = shapely.union_all([cell_polygon(c) for c in zone_cells])
        con.execute("INSERT INTO sea_zones VALUES ('Mare Tyrrhenum', ST_GeomFromText(?::VARCHAR))", [zone.wkt])
        con.executemany("INSERT INTO hex_sea_zones VALUES (?, 'Mare Tyrrhenum')", [[c] for c in zone_cells])
        con.executemany("INSERT INTO scenario_meta VALUES (?, ?)",
                        [["name", "latium"], ["title", "Latium 340 BC"], ["start_fp", "1600"]])
        con.executemany("INSERT INTO placements VALUES (?, ?, ?, ?)",
                        [[1, "Roma", "Roma", origin], [2, "Roma", "Ostia", coastal], [5, "Etrusci", "Caere", north]])
        if started:
            # The state tables as the ruleset defines them (engine/vae_victis/sql/state.sql).
            from bellica.engine.core.ruleset import get_ruleset
            from bellica.engine.core.state import create_state_tables

            create_state_tables(con, get_ruleset("vae-victis-ii").schema)
            # Strengths are odd numbers no other part of the page contains, so leaks are detectable.
            con.executemany("INSERT INTO armies (id, faction, cell, strength, eliminated) VALUES (?, ?, ?, ?, ?)", [
                [1, "Roma", origin, 1357, False],
                [2, "Roma", origin, 1213, False],
                [5, "Etrusci", north, 2468, False],
                [6, "Etrusci", east, 1111, True],
            ])
            con.executemany("INSERT INTO control (structure, controller) VALUES (?, ?)", [["Tibur", "Etrusci"], ["Roma", "Roma"]])
            con.execute("INSERT INTO sieges (structure, faction, resilience, start_resilience, started_round) "
                        "VALUES ('Lavinium', 'Etrusci', 3, 4, 1)")
    finally:
        con.close()
    return {"rows": rows, "structures": structures, "road": road, "river": river, "zone": zone_cells}


def layer_payloads(page: str, kind: str) -> list:
    """The data our layers of one kind pass to their builder in a rendered page (the last argument
    of the call), decoded."""
    import json
    import re

    out = []
    for name in re.findall(rf"var ({kind}_\w+) = \(function", page):
        match = re.search(rf"var {name} = \(function.*?\n        \}}\)\((?:\w+_data, )?(.*?)\);\n", page, re.S)
        out.append(json.loads(match.group(1)))
    return out


def hex_layer_data(page: str) -> dict:
    """The hex layer's payload in a rendered page (``JSON.parse('...')`` of a JS string), with its
    packed rings unpacked into ``v``: one delta array per hex, as ``encode_rings`` made them."""
    import json
    import re

    from bellica.web_maps.encode import unpack_rings

    match = re.search(r"var hex_layer_\w+_data = JSON\.parse\('(.*?)'\);\n", page)
    assert match, "no hex layer data in the page"
    # The JS string escapes only backslashes and quotes (encode.to_json_string).
    data = json.loads(re.sub(r"\\(.)", lambda m: m.group(1), match.group(1)))
    data["v"] = unpack_rings(data["vb"], data["n"])
    return data
