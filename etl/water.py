"""Per-hex land and lake fractions by true area, islands and lakes each hex must keep, river hexes.

Areas are measured in a Lambert azimuthal equal-area projection centred on the
cells, so a hex at 30N and one at 47N are compared fairly.  GSHHG polygons nest
(a lake lies inside land, an island inside a lake, a pond inside that island),
so by level areas

    land = A1 - A2 + A3 - A4        lake = A2 - A3

Speed (the default map is ~28,000 res-5 hexes): continents are cut into pieces
of at most MAX_PIECE_VERTICES vertices by recursive halving of their bounding
box (what PostGIS ST_Subdivide does; shapely has none), then one STRtree query
finds every (hex, piece) pair.  A hex properly inside a piece takes its own area
with no overlay; only hexes on a shoreline pay for an intersection, and that
intersection is with a small piece, never with Eurasia.
"""

from __future__ import annotations

from collections.abc import Iterable

import geopandas as gpd
import h3
import numpy as np
import pandas as pd
import shapely
from pyproj import Transformer

from bellica.etl.shorelines import polygonal_part
from bellica.geo.errors import InputError
from bellica.geo.settings import WGS84

DEFAULT_MIN_ISLAND_KM2 = 5.0
"""A land polygon (level 1 or 3) this large gets a hex even when no hex is mostly land.
5 km2 keeps every Aegates island (Levanzo, the smallest, is ~7 km2 in GSHHG
intermediate), Capri (~11), Elba and Malta, and drops the islets and rocks.
A res-5 hex is ~250 km2, so below ~5 km2 an island is a dot in a sea hex."""

DEFAULT_MIN_LAKE_KM2 = 50.0
"""A lake (level 2) this large gets a lake hex even when it fills no hex.
Keeps Trasimene (~112 km2), Bolsena (~115), Bracciano (~57) and the Alpine lakes;
smaller reservoirs and ponds stay inside their land hex."""

DEFAULT_MIN_LANDMASS_FRACTION = 0.01
"""A land polygon counts towards ``landmasses`` when it covers this share of the hex
(~2.5 km2 of a res-5 hex): a sliver from a neighbouring coast is not a landmass."""

MAX_PIECE_VERTICES = 256
MAX_EDGE_DEG = 0.05
"""Shoreline edges longer than this (a user's box, a bbox cut) are densified before projecting,
so an edge means the same straight lon/lat line the map draws (a 1.6-degree edge along a
parallel would otherwise become a chord ~300 m off, 2% of a hex it crosses)."""
REGION_MARGIN_DEG = 0.5  # shorelines are clipped to the cells' bounds plus this, before projecting


def laea_for_bounds(west: float, south: float, east: float, north: float) -> str:
    """PROJ string of a Lambert azimuthal equal-area projection centred on a lon/lat box."""
    return (f"+proj=laea +lat_0={(south + north) / 2:.6f} +lon_0={(west + east) / 2:.6f} "
            "+datum=WGS84 +units=m +no_defs")


def check_cells(cells: Iterable[str]) -> list[str]:
    """``cells`` as a list of distinct valid H3 cells; InputError naming the first bad one."""
    cells = list(cells)
    for c in cells:
        if not isinstance(c, str) or not h3.is_valid_cell(c):
            raise InputError(f"cell {c!r} is not an H3 cell: pass H3 cell strings such as '851e8053fffffff'")
    if len(set(cells)) != len(cells):
        dup = pd.Series(cells)[pd.Series(cells).duplicated()].iloc[0]
        raise InputError(f"cell {dup} is listed twice: pass each cell once")
    return cells


def hex_rings_lonlat(cells: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(lon, lat, offsets) of every cell's boundary vertices, flattened; cell i's are [offsets[i], offsets[i+1])."""
    boundaries = [h3.cell_to_boundary(c) for c in cells]
    counts = np.fromiter((len(b) for b in boundaries), dtype=np.int64, count=len(boundaries))
    flat = np.array([p for b in boundaries for p in b], dtype=np.float64).reshape(-1, 2)
    offsets = np.concatenate([[0], np.cumsum(counts)])
    lon, lat = flat[:, 1], flat[:, 0]
    # A hex straddling the antimeridian has vertices at +179 and -179; put them on one side
    # (the projection maps both sides to the same place, so this only keeps the bounds honest).
    for i in np.flatnonzero(np.maximum.reduceat(lon, offsets[:-1]) - np.minimum.reduceat(lon, offsets[:-1]) > 180):
        seg = slice(offsets[i], offsets[i + 1])
        lon[seg] = np.where(lon[seg] < 0, lon[seg] + 360, lon[seg])
    return lon, lat, offsets


def polygons_from_rings(x: np.ndarray, y: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Shapely polygons from flattened open rings (vectorised: one shapely call per vertex count)."""
    n = len(offsets) - 1
    out = np.empty(n, dtype=object)
    counts = np.diff(offsets)
    for k in np.unique(counts):  # 6 for hexagons, 5 for the 12 pentagons
        idx = np.flatnonzero(counts == k)
        starts = offsets[idx][:, None] + np.arange(k)[None, :]
        coords = np.stack([x[starts], y[starts]], axis=-1)
        coords = np.concatenate([coords, coords[:, :1]], axis=1)  # close the rings
        out[idx] = shapely.polygons(coords)
    return out


def _project(geoms: np.ndarray, transformer: Transformer) -> np.ndarray:
    def fn(coords):
        x, y = transformer.transform(coords[:, 0], coords[:, 1])
        return np.column_stack([x, y])

    return shapely.transform(geoms, fn)


def pieces_from_polygon(geom, *, max_vertices: int = MAX_PIECE_VERTICES, min_size: float = 1.0) -> list:
    """``geom`` cut into polygonal pieces of at most ``max_vertices`` vertices, or smaller than
    ``min_size`` (in the geometry's units; metres in the equal-area plane) across.

    Recursive halving of the bounding box along its longer side with clip_by_rect,
    which is linear in the vertex count, so the whole cut is O(n log n).
    """
    out = []
    stack = [geom]
    while stack:
        g = stack.pop()
        if g is None or g.is_empty:
            continue
        if shapely.get_num_coordinates(g) <= max_vertices:
            out.append(g)
            continue
        xmin, ymin, xmax, ymax = g.bounds
        if max(xmax - xmin, ymax - ymin) < min_size:  # a piece this small: cutting further cannot help
            out.append(g)
            continue
        if xmax - xmin >= ymax - ymin:
            mid = (xmin + xmax) / 2
            halves = (shapely.clip_by_rect(g, xmin, ymin, mid, ymax), shapely.clip_by_rect(g, mid, ymin, xmax, ymax))
        else:
            mid = (ymin + ymax) / 2
            halves = (shapely.clip_by_rect(g, xmin, ymin, xmax, mid), shapely.clip_by_rect(g, xmin, mid, xmax, ymax))
        for h in halves:
            h = polygonal_part(h)
            if h is not None:
                stack.append(h)
    return out


def _shorelines_arrays(shorelines) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(levels, gshhg ids, lon/lat geometries) from a shorelines GeoDataFrame, checked."""
    if not isinstance(shorelines, gpd.GeoDataFrame):
        raise InputError("shorelines is not a GeoDataFrame: read it with etl.shorelines.read_shorelines or read_gshhg")
    if "level" not in shorelines.columns:
        raise InputError("shorelines have no 'level' column: read them with read_shorelines or read_gshhg")
    gdf = shorelines
    if gdf.crs is not None and not gdf.crs.equals(WGS84):
        gdf = gdf.to_crs(WGS84)
    levels = pd.to_numeric(gdf["level"], errors="coerce").to_numpy()
    if not np.isin(levels, [1, 2, 3, 4]).all():
        raise InputError("shorelines have a level outside 1-4: levels are 1 land, 2 lake, 3 island in lake, 4 pond")
    ids = (gdf["gshhg_id"].to_numpy(dtype="int64") if "gshhg_id" in gdf.columns
           else np.arange(len(gdf), dtype="int64"))
    return levels.astype(np.int64), ids, np.asarray(gdf.geometry.values, dtype=object)


def water_fractions_by_cell(
    cells: Iterable[str],
    shorelines: gpd.GeoDataFrame,
    *,
    min_island_km2: float = DEFAULT_MIN_ISLAND_KM2,
    min_lake_km2: float = DEFAULT_MIN_LAKE_KM2,
    min_landmass_fraction: float = DEFAULT_MIN_LANDMASS_FRACTION,
) -> pd.DataFrame:
    """Per cell: land_fraction, lake_fraction (true-area shares, 0-1), landmasses, keeps_island,
    keeps_lake, island_id, lake_id.

    * ``landmasses``: distinct land polygons (level 1 or 3) covering at least
      ``min_landmass_fraction`` of the cell;
    * ``keeps_island`` / ``island_id``: the cell holds the largest share of a land
      polygon of at least ``min_island_km2`` (its area inside the clipped region),
      and that polygon's gshhg_id (the largest such polygon if several).  Continents
      qualify too: their holder is some fully-land cell, where the flag changes nothing;
    * ``keeps_lake`` / ``lake_id``: the same for lakes (level 2) of at least ``min_lake_km2``.

    Rows follow the order of ``cells``; ids are pandas nullable Int64 (NA when not kept).
    """
    cells = check_cells(cells)
    for name, v in (("min_island_km2", min_island_km2), ("min_lake_km2", min_lake_km2),
                    ("min_landmass_fraction", min_landmass_fraction)):
        if not (isinstance(v, (int, float)) and np.isfinite(v) and v >= 0):
            raise InputError(f"{name} {v!r} is not a non-negative number: give e.g. {name}=5")
    levels, ids, geoms = _shorelines_arrays(shorelines)
    n = len(cells)
    result = pd.DataFrame({
        "cell": pd.Series(cells, dtype="object"),
        "land_fraction": np.zeros(n), "lake_fraction": np.zeros(n),
        "landmasses": np.zeros(n, dtype=np.int64),
        "keeps_island": np.zeros(n, dtype=bool), "keeps_lake": np.zeros(n, dtype=bool),
        "island_id": pd.array([pd.NA] * n, dtype="Int64"), "lake_id": pd.array([pd.NA] * n, dtype="Int64"),
    })
    if n == 0:
        return result
    hexes, transformer, region = _equal_area_hexes(cells)
    hex_area = shapely.area(hexes)
    near = _shorelines_near(geoms, region, transformer)
    if near is None:
        return result
    keep, projected = near
    levels, ids = levels[keep], ids[keep]
    poly_area = shapely.area(projected)
    pairs = _hex_polygon_areas(hexes, hex_area, projected)
    if pairs is None:
        return result
    h, p, a = pairs
    lv = levels[p]
    by_level = {k: np.bincount(h, weights=a * (lv == k), minlength=n) for k in (1, 2, 3, 4)}
    land = (by_level[1] - by_level[2] + by_level[3] - by_level[4]) / hex_area
    lake = (by_level[2] - by_level[3]) / hex_area
    # Rounding in the overlays leaves ~1e-12 outside [0, 1]; clip so callers can test == 1.
    result["land_fraction"] = np.clip(np.where(np.abs(land - 1) < 1e-9, 1.0, land), 0.0, 1.0)
    result["lake_fraction"] = np.clip(np.where(np.abs(lake) < 1e-9, 0.0, lake), 0.0, 1.0)

    is_land = np.isin(lv, (1, 3))
    big_enough = is_land & (a >= min_landmass_fraction * hex_area[h])
    result["landmasses"] = np.bincount(h[big_enough], minlength=n).astype(np.int64)
    for flag, id_col, wanted, min_km2 in (("keeps_island", "island_id", is_land, min_island_km2),
                                          ("keeps_lake", "lake_id", lv == 2, min_lake_km2)):
        _mark_keepers(result, flag, id_col, wanted & (poly_area[p] >= min_km2 * 1e6), h, p, a, poly_area, ids)
    return result


def _equal_area_hexes(cells: list[str]) -> tuple[np.ndarray, Transformer, tuple[float, float, float, float]]:
    """The cells as polygons in an equal-area plane fitted to them, that plane's transformer from
    lon/lat, and the lon/lat box (with a margin) the shorelines are clipped to."""
    lon, lat, offsets = hex_rings_lonlat(cells)
    west, east, south, north = lon.min(), lon.max(), lat.min(), lat.max()
    if east - west > 180:
        raise InputError("cells span more than 180 degrees of longitude: build regions of less than half the globe")
    transformer = Transformer.from_crs(WGS84, laea_for_bounds(west, south, east, north), always_xy=True)
    hx, hy = transformer.transform(lon, lat)
    hexes = polygons_from_rings(np.asarray(hx), np.asarray(hy), offsets)
    region = (west - REGION_MARGIN_DEG, max(-90.0, south - REGION_MARGIN_DEG),
              east + REGION_MARGIN_DEG, min(90.0, north + REGION_MARGIN_DEG))
    return hexes, transformer, region


def _shorelines_near(geoms: np.ndarray, region, transformer: Transformer) -> tuple[np.ndarray, np.ndarray] | None:
    """The shoreline polygons with a part in ``region``: their indices and those parts in the
    equal-area plane (None: no polygon reaches it)."""
    # Only the part of the shorelines near the cells matters; clipping in lon/lat first also keeps
    # far-away coordinates (the projection's antipode) out of the equal-area plane.
    clipped = shapely.clip_by_rect(shapely.make_valid(geoms), *region)
    clipped = np.array([polygonal_part(g) for g in clipped], dtype=object)
    keep = np.flatnonzero([g is not None for g in clipped])
    if len(keep) == 0:
        return None
    dense = shapely.segmentize(clipped[keep], MAX_EDGE_DEG)
    return keep, shapely.make_valid(_project(dense, transformer))


def _hex_polygon_areas(hexes: np.ndarray, hex_area: np.ndarray,
                       projected: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """``(hex, polygon, area)`` arrays: the area each polygon covers of each hex it overlaps (None: the
    polygons hold no area).  Polygons are cut into small pieces first so each overlay stays cheap."""
    pieces, parent = [], []
    for i, g in enumerate(projected):
        g = polygonal_part(g)
        if g is None:
            continue
        ps = pieces_from_polygon(g)
        pieces.extend(ps)
        parent.extend([i] * len(ps))
    if not pieces:
        return None
    pieces = np.array(pieces, dtype=object)
    parent = np.array(parent, dtype=np.int64)
    shapely.prepare(pieces)
    tree = shapely.STRtree(pieces)
    hex_i, piece_i = tree.query(hexes, predicate="intersects")

    # Pair areas: a hex properly inside its piece is covered whole; a piece properly inside its hex
    # (an islet) is taken whole; only the rest needs an overlay.
    area = np.empty(len(hex_i))
    inside = shapely.contains_properly(pieces[piece_i], hexes[hex_i])
    area[inside] = hex_area[hex_i[inside]]
    rest = np.flatnonzero(~inside)
    if len(rest):
        hp, pp = hexes[hex_i[rest]], pieces[piece_i[rest]]
        holds = shapely.contains_properly(hp, pp)
        area[rest[holds]] = shapely.area(pp[holds])
        cut = rest[~holds]
        area[cut] = shapely.area(shapely.intersection(hexes[hex_i[cut]], pieces[piece_i[cut]]))

    # Sum per (hex, polygon): a polygon reaches a hex through several pieces.
    poly_i = parent[piece_i]
    pairs = pd.DataFrame({"hex": hex_i, "poly": poly_i, "area": area})
    pairs = pairs.groupby(["hex", "poly"], sort=False, as_index=False)["area"].sum()
    pairs = pairs[pairs["area"] > 0]
    return pairs["hex"].to_numpy(), pairs["poly"].to_numpy(), pairs["area"].to_numpy()


def _mark_keepers(result: pd.DataFrame, flag: str, id_col: str, sel: np.ndarray, h: np.ndarray, p: np.ndarray,
                  a: np.ndarray, poly_area: np.ndarray, ids: np.ndarray) -> None:
    """Set ``flag`` and ``id_col`` on the cell holding the largest share of each selected polygon."""
    if not sel.any():
        return
    cand = pd.DataFrame({"hex": h[sel], "poly": p[sel], "area": a[sel], "poly_area": poly_area[p[sel]]})
    # The holder of each polygon: its largest share (first cell on ties, for determinism).
    best = cand.sort_values(["poly", "area", "hex"], ascending=[True, False, True]).drop_duplicates("poly")
    # A cell holding several: name the largest polygon.
    best = best.sort_values(["hex", "poly_area"], ascending=[True, False]).drop_duplicates("hex")
    rows = best["hex"].to_numpy()
    result.loc[rows, flag] = True
    result.loc[rows, id_col] = ids[best["poly"].to_numpy()]


def river_cells(cells: Iterable[str], rivers) -> set[str]:
    """The cells (of ``cells``) that any of ``rivers`` (a GeoDataFrame or lon/lat lines) crosses or touches."""
    cells = check_cells(cells)
    lines = _lonlat_lines(rivers)
    if not len(cells) or not len(lines):
        return set()
    if not all(isinstance(g, (shapely.LineString, shapely.MultiLineString)) for g in lines if g is not None):
        raise InputError("rivers hold non-line geometries: give LineStrings (read them with etl.rivers.read_rivers)")
    lon, lat, offsets = hex_rings_lonlat(cells)
    hexes = polygons_from_rings(lon, lat, offsets)
    tree = shapely.STRtree(hexes)
    _, hex_i = tree.query(lines, predicate="intersects")
    return {cells[i] for i in np.unique(hex_i)}


def _lonlat_lines(rivers) -> np.ndarray:
    """River lines as an array of lon/lat geometries (a GeoDataFrame/GeoSeries in any CRS, or lines)."""
    if isinstance(rivers, gpd.GeoDataFrame | gpd.GeoSeries):
        if rivers.crs is not None and not rivers.crs.equals(WGS84):
            rivers = rivers.to_crs(WGS84)
        return np.asarray(rivers.geometry.values if isinstance(rivers, gpd.GeoDataFrame) else rivers.values, dtype=object)
    return np.asarray(list(rivers), dtype=object)


def _segments(lines: np.ndarray) -> np.ndarray:
    """Every straight segment of ``lines`` as its own two-point line: an STRtree of short segments
    answers a nearest-line query without measuring a whole river (the Nile has thousands of vertices)."""
    parts = shapely.get_parts(lines[[g is not None and not g.is_empty for g in lines]])
    coords, part = shapely.get_coordinates(parts, return_index=True)
    same = part[1:] == part[:-1]
    return shapely.linestrings(np.stack([coords[:-1][same], coords[1:][same]], axis=1))


def _nearest_km(points: np.ndarray, targets: np.ndarray, reach_km: float) -> np.ndarray:
    """Km from each point to the nearest target (0 inside a polygon); inf beyond ``reach_km``."""
    out = np.full(len(points), np.inf)
    if len(targets) and len(points):
        (i, _), metres = shapely.STRtree(targets).query_nearest(points, max_distance=reach_km * 1000.0,
                                                                return_distance=True, all_matches=False)
        out[i] = metres / 1000.0
    return out


def ground_distances(lat, lng, shorelines: gpd.GeoDataFrame, rivers, *, reach_km: float,
                     min_lake_km2: float = DEFAULT_MIN_LAKE_KM2) -> pd.DataFrame:
    """Per point (hex centres): ``coast_km`` to the sea (0 at sea), ``river_km`` to the nearest line of
    ``rivers``, ``lake_km`` to a lake (level 2) of at least ``min_lake_km2`` (0 inside); inf beyond
    ``reach_km``, the farthest any terrain rule asks.

    The terrain rules read these instead of counting hexes, so a place is as far from the Nile at
    res 7 as at res 4 (docs/terrain.md, "Ground, not hexes").  Distances are measured in the
    equal-area plane of :func:`water_fractions_by_cell` (within 2 % over the whole Mediterranean, at
    ~20 degrees from its centre).  The sea is what the shorelines' extent holds outside level-1 land,
    so the straight edge of a clipped shorelines file is never a coast."""
    lat, lng = np.asarray(lat, dtype=float), np.asarray(lng, dtype=float)
    out = pd.DataFrame({"coast_km": np.full(len(lat), np.inf), "river_km": np.inf, "lake_km": np.inf})
    if not len(lat):
        return out
    levels, _, geoms = _shorelines_arrays(shorelines)
    transformer = Transformer.from_crs(WGS84, laea_for_bounds(lng.min(), lat.min(), lng.max(), lat.max()), always_xy=True)
    points = shapely.points(*transformer.transform(lng, lat))
    # The region the rules can reach, in degrees (a degree of longitude shrinks towards the pole).
    pad_lat = reach_km / 111.0 + REGION_MARGIN_DEG
    pad_lng = pad_lat / max(np.cos(np.radians(min(89.0, np.abs(lat).max() + pad_lat))), 0.01)
    region = shapely.box(max(-180.0, lng.min() - pad_lng), max(-90.0, lat.min() - pad_lat),
                         min(180.0, lng.max() + pad_lng), min(90.0, lat.max() + pad_lat))
    if len(geoms):  # no shorelines at all: all sea
        region = shapely.intersection(region, shapely.box(*shorelines.total_bounds))
    clipped = shapely.intersection(shapely.make_valid(geoms), region)

    def plane(g):
        return shapely.make_valid(_project(shapely.segmentize(np.asarray(g, dtype=object), MAX_EDGE_DEG), transformer))

    sea = polygonal_part(shapely.difference(region, shapely.union_all(clipped[levels == 1])))
    sea_pieces = pieces_from_polygon(plane([sea])[0]) if sea is not None else []
    out["coast_km"] = _nearest_km(points, np.array(sea_pieces, dtype=object), reach_km)
    lakes = [g for g in (polygonal_part(g) for g in plane(clipped[levels == 2])) if g is not None]
    lake_pieces = [p for g in lakes if g.area >= min_lake_km2 * 1e6 for p in pieces_from_polygon(g)]
    out["lake_km"] = _nearest_km(points, np.array(lake_pieces, dtype=object), reach_km)
    lines = _lonlat_lines(rivers)
    if len(lines):
        out["river_km"] = _nearest_km(points, _segments(plane(shapely.intersection(lines, region))), reach_km)
    return out


__all__ = ["DEFAULT_MIN_ISLAND_KM2", "DEFAULT_MIN_LAKE_KM2", "DEFAULT_MIN_LANDMASS_FRACTION", "ground_distances",
           "laea_for_bounds", "pieces_from_polygon", "river_cells", "water_fractions_by_cell"]
