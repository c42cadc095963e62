"""Tiny synthetic map and campaign databases for the web map tests, written table by table.

Hexes are a disk of H3 cells around Rome: the west third water (ocean, sea,
coast), one lake, the rest land with every terrain in latitude bands, a river
running west to east through the middle row.  Geometries come from
``geo.hexgrid.cell_polygon`` exactly as the map build stores them.
"""

from __future__ import annotations

from pathlib import Path

import h3

from geo.hexgrid import cell_center, cell_polygon, ring
from geo.spatialdb import connect

CENTRE = (41.9, 12.5)
RES = 6
TERRAINS = ("farmlands", "desert", "hills", "marshes", "forests", "mountains", "peaks")

MAP_DDL = """
CREATE TABLE hexes (cell VARCHAR PRIMARY KEY, res INTEGER, kind VARCHAR, terrain VARCHAR,
    elev_mean DOUBLE, elev_min DOUBLE, elev_max DOUBLE, elev_std DOUBLE, elev_samples INTEGER,
    land_fraction DOUBLE, lake_fraction DOUBLE, river BOOLEAN, lat DOUBLE, lng DOUBLE, geom GEOMETRY);
CREATE TABLE map_rivers (river_id INTEGER, length_km DOUBLE, geom GEOMETRY);
CREATE TABLE map_meta (key VARCHAR, value VARCHAR);
"""


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
    con = connect(path)
    try:
        con.execute(MAP_DDL)
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
