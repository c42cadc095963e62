"""Export map tables to GeoParquet and GeoPackage (files QGIS opens directly)."""

from __future__ import annotations

import os
from pathlib import Path

import geopandas as gpd
import shapely

from tabula.geo.errors import InputError, MissingInputError
from tabula.geo.spatialdb import connect
from tabula.schema import existing_tables

EXPORT_FORMATS = {".parquet": "GeoParquet", ".gpkg": "GeoPackage"}


def open_map_database(db_path: str | Path, *, required: str):
    """Open a map (or campaign) database read-only; return it and its table names.

    Raises a one-line error when the file is missing or lacks the ``required`` table.
    """
    db_path = Path(db_path)
    if not db_path.exists():
        raise MissingInputError(f"map database {db_path} does not exist: build one with `tabula map build --out {db_path}`")
    con = connect(db_path, read_only=True)
    tables = existing_tables(con)
    if required not in tables:
        con.close()
        raise InputError(f"{db_path} has no {required} table: pass a database made by `tabula map build`")
    return con, tables


def layers_from_map(db_path: str | Path) -> dict[str, gpd.GeoDataFrame]:
    """The map's spatial tables (hexes, map_rivers, and structures/roads if a campaign) as GeoDataFrames."""
    con, tables = open_map_database(db_path, required="hexes")
    try:
        layers = {}
        for table in ("hexes", "map_rivers", "structures", "roads", "rivers", "sea_zones"):
            if table not in tables:
                continue
            df = con.execute(f"SELECT * EXCLUDE (geom), ST_AsWKB(geom) AS wkb FROM {table}").df()
            geometry = shapely.from_wkb(df.pop("wkb").map(bytes).to_numpy())
            # The columns are OGC:CRS84 (schema/*.sql): WGS84 lon/lat, which GeoPandas, GeoParquet
            # and GeoPackage write as EPSG:4326 with x = longitude.
            layers[table] = gpd.GeoDataFrame(df, geometry=geometry, crs="EPSG:4326")
        return layers
    finally:
        con.close()


def export_map(db_path: str | Path, out: str | Path) -> Path:
    """Write the map as GeoParquet (one file per layer: ``out`` for hexes, ``<stem>_<layer>.parquet`` for
    the others) or as one GeoPackage with a layer per table. Atomic: temp file, then move."""
    out = Path(out)
    fmt = EXPORT_FORMATS.get(out.suffix.lower())
    if fmt is None:
        raise InputError(f"cannot export to {out}: use a .parquet (GeoParquet) or .gpkg (GeoPackage) file name")
    layers = layers_from_map(db_path)
    out.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "GeoPackage":
        tmp = out.with_name(f".{out.name}.tmp.gpkg")
        tmp.unlink(missing_ok=True)
        try:
            for name, gdf in layers.items():
                gdf.to_file(tmp, layer=name, driver="GPKG")
            os.replace(tmp, out)
        finally:
            tmp.unlink(missing_ok=True)
        return out
    written = []
    for name, gdf in layers.items():
        target = out if name == "hexes" else out.with_name(f"{out.stem}_{name}.parquet")
        tmp = target.with_name(f".{target.name}.tmp")
        gdf.to_parquet(tmp)
        written.append((tmp, target))
    for tmp, target in written:
        os.replace(tmp, target)
    return out


def map_summary(db_path: str | Path) -> list[str]:
    """Lines describing a map: its metadata, then hex counts by kind and by terrain."""
    con, _ = open_map_database(db_path, required="map_meta")
    try:
        lines = [f"{k}: {v}" for k, v in con.execute("SELECT key, value FROM map_meta ORDER BY key").fetchall()]
        for column in ("kind", "terrain"):
            rows = con.execute(f"SELECT {column}, count(*) FROM hexes WHERE {column} IS NOT NULL GROUP BY 1 ORDER BY 2 DESC").fetchall()
            lines.append(f"{column}: " + ", ".join(f"{k} {n}" for k, n in rows))
        return lines
    finally:
        con.close()
