"""Export map tables to GeoParquet and GeoPackage (files QGIS opens directly).

An export replaces existing files only with ``force`` (never a campaign), writes each file
under a temporary name (``.NAME.PID.tmp...``, :mod:`etl.files`) and renames it into place;
a later export to the same output removes what a killed one left.
"""

from __future__ import annotations

import os
from pathlib import Path

import duckdb
import geopandas as gpd
import shapely

from bellica.etl.files import check_out_dir, clear_leftovers, open_duckdb, refuse_overwrite, table_names, temp_path
from bellica.geo.errors import InputError, first_line

EXPORT_FORMATS = {".parquet": "GeoParquet", ".gpkg": "GeoPackage"}


def open_map_database(db_path: str | Path, *, required: str):
    """Open a map (or campaign) database read-only; return it and its table names.

    Raises a one-line error when the file is missing, is not a DuckDB database (text, empty,
    truncated) or lacks the ``required`` table.
    """
    db_path = Path(db_path)
    con = open_duckdb(db_path, what="map database", fix=f"pass a file written by `bellica map build` (e.g. `bellica map build --out {db_path}`)")
    try:
        tables = table_names(con, "map database", db_path)
    except BaseException:
        con.close()
        raise
    if required not in tables:
        con.close()
        raise InputError(f"{db_path} has no {required} table: pass a database made by `bellica map build`")
    return con, tables


#: Layers made by a query rather than a table, and the table they need: the province adjacency
#: (schema/province_views.sql) as a line from capital to capital, so QGIS draws the graph.
QUERY_LAYERS = {
    "province_adjacency": ("provinces", """
        SELECT j.a, j.b, j.kind, ST_MakeLine(ST_Point(pa.capital_lon, pa.capital_lat),
                                             ST_Point(pb.capital_lon, pb.capital_lat)) AS geom
        FROM province_adjacency j JOIN provinces pa ON pa.name = j.a JOIN provinces pb ON pb.name = j.b
        ORDER BY j.a, j.b, j.kind"""),
}


def layers_from_map(db_path: str | Path) -> dict[str, gpd.GeoDataFrame]:
    """The map's spatial tables (hexes, map_rivers, and structures/roads if a campaign; provinces,
    sea areas and the province adjacency lines if `bellica map provinces` wrote them; nodes and
    node_paths if `bellica map nodes` did) as GeoDataFrames."""
    con, tables = open_map_database(db_path, required="hexes")
    try:
        layers = {}
        sources = {t: f"SELECT * FROM {t}" for t in ("hexes", "map_rivers", "structures", "roads", "rivers", "sea_zones",
                                                      "provinces", "sea_areas", "nodes", "node_paths") if t in tables}
        sources.update({name: sql for name, (needs, sql) in QUERY_LAYERS.items() if needs in tables and name in tables})
        for table, sql in sources.items():
            try:
                df = con.execute(f"SELECT * EXCLUDE (geom), ST_AsWKB(geom) AS wkb FROM ({sql})").df()
            except duckdb.Error as e:  # a truncated or damaged file opens, then fails on its data
                first = first_line(e)
                raise InputError(f"map database {db_path}: table {table} cannot be read ({first}): "
                                 "rebuild it with `bellica map build`") from None
            # A row without a geometry (a sea zone drawn by no polygon) stays a row with an empty geometry.
            geometry = shapely.from_wkb(df.pop("wkb").map(lambda b: bytes(b) if isinstance(b, (bytes, bytearray, memoryview)) else None).to_numpy())
            # The columns are OGC:CRS84 (schema/*.sql): WGS84 lon/lat, which GeoPandas, GeoParquet
            # and GeoPackage write as EPSG:4326 with x = longitude.
            layers[table] = gpd.GeoDataFrame(df, geometry=geometry, crs="EPSG:4326")
        return layers
    finally:
        con.close()


def _targets(out: Path, fmt: str, layers) -> dict[str, Path]:
    """The file each layer goes to: one GeoPackage, or ``out`` for hexes and ``<stem>_<layer>.parquet``."""
    if fmt == "GeoPackage":
        return {name: out for name in layers}
    return {name: out if name == "hexes" else out.with_name(f"{out.stem}_{name}.parquet") for name in layers}


def export_map(db_path: str | Path, out: str | Path, *, force: bool = False) -> list[Path]:
    """Write the map as GeoParquet (one file per layer: ``out`` for hexes, ``<stem>_<layer>.parquet`` for
    the others) or as one GeoPackage with a layer per table. Atomic: temp file, then move.

    Returns every file written, ``out`` first.  Existing files are replaced only with ``force``, and
    a campaign never."""
    out = Path(out)
    fmt = EXPORT_FORMATS.get(out.suffix.lower())
    if fmt is None:
        raise InputError(f"cannot export to {out}: use a .parquet (GeoParquet) or .gpkg (GeoPackage) file name")
    layers = layers_from_map(db_path)
    targets = _targets(out, fmt, layers)
    for target in dict.fromkeys(targets.values()):
        check_out_dir(target)
        refuse_overwrite(target, force=force, what="map export")
    for target in dict.fromkeys(targets.values()):
        clear_leftovers(target, command="bellica map export")
    if fmt == "GeoPackage":
        tmp = temp_path(out, "tmp.gpkg")  # GDAL picks the driver by the suffix
        tmp.unlink(missing_ok=True)
        try:
            for name, gdf in layers.items():
                gdf.to_file(tmp, layer=name, driver="GPKG")
            os.replace(tmp, out)
        finally:
            tmp.unlink(missing_ok=True)
        return [out]
    written = []
    try:
        for name, gdf in layers.items():
            target = targets[name]
            tmp = temp_path(target)
            written.append((tmp, target))
            gdf.to_parquet(tmp)
        for tmp, target in written:
            os.replace(tmp, target)
    finally:
        for tmp, _ in written:
            tmp.unlink(missing_ok=True)
    return sorted((target for _, target in written), key=lambda target: target != out)  # hexes (out) first


def map_info(db_path: str | Path) -> tuple[list[tuple[str, str]], dict[str, list[tuple[str, int]]]]:
    """A map's metadata rows ``(key, value)`` by key, and its hex counts by kind and by terrain,
    largest first and ties by name (the same every run): what ``bellica map info`` says, as text
    (:func:`map_summary`) or as JSON (bellica/services/jsonout.py)."""
    con, tables = open_map_database(db_path, required="map_meta")
    try:
        if "hexes" not in tables:
            raise InputError(f"{db_path} has no hexes table: pass a database made by `bellica map build`")
        meta = con.execute("SELECT key, value FROM map_meta ORDER BY key").fetchall()
        counts = {column: con.execute(f"SELECT {column}, count(*) FROM hexes WHERE {column} IS NOT NULL "
                                      "GROUP BY 1 ORDER BY 2 DESC, 1").fetchall()
                  for column in ("kind", "terrain")}
        return meta, counts
    except duckdb.Error as e:  # a truncated or damaged file opens, then fails on its data
        raise InputError(f"map database {db_path} cannot be read ({first_line(e)}): "
                         "rebuild it with `bellica map build`") from None
    finally:
        con.close()


def map_summary(db_path: str | Path) -> list[str]:
    """Lines describing a map: its metadata, then hex counts by kind and by terrain."""
    meta, counts = map_info(db_path)
    return ([f"{k}: {v}" for k, v in meta]
            + [f"{column}: " + ", ".join(f"{k} {n}" for k, n in rows) for column, rows in counts.items()])
