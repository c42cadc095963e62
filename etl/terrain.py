"""Hex classification: ``kind`` (land/coast/sea/ocean/lake) and land ``terrain``.

The thresholds live in ``datasets/terrain_rules.toml``; docs/terrain.md explains
each rule.  Order matters: a land hex takes the first terrain whose rule it
meets, in the order peaks, mountains, marshes, desert, forests, hills, farmlands.

Linear in the map: every adjacency question (coast, near a river or lake, the neighbourhood's
relief, hexes to the coast) is asked of integer arrays.  Cell names are numbered once per
call (:func:`_step_codes`: Arrow's hash lookup of the neighbour table's ends in the cells'
names), then a step of the neighbour table is a pair of numbers and each question is a
scatter over those pairs, never a set of strings, a string join or a groupby on strings.
Names, not rows, are what a neighbour table links, as before: a name given twice in
``cells`` is one node, and a neighbour-table end outside ``cells`` is a node of its own (it
can carry a hop towards the coast, never land, a river or an elevation).
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import geopandas as gpd
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import shapely
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from bellica.datasets import DATASETS_DIR
from bellica.geo.errors import InputError, MissingInputError

DEFAULT_TERRAIN_RULES = DATASETS_DIR / "terrain_rules.toml"
DEFAULT_OCEAN = DATASETS_DIR / "ocean_default.geojson"

TERRAINS = ("farmlands", "desert", "hills", "marshes", "forests", "mountains", "peaks")
WATER = ("coast", "sea", "ocean")


def load_terrain_rules(path: str | Path | None = None) -> dict:
    """Read a terrain-rules TOML file (default: the embedded one)."""
    path = Path(path) if path is not None else DEFAULT_TERRAIN_RULES
    if not path.exists():
        raise MissingInputError(f"terrain rules file {path} does not exist: pass an existing TOML file")
    try:
        rules = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as e:
        raise InputError(f"terrain rules file {path} is not valid TOML ({e}): fix the syntax") from e
    missing = {"kind", "peaks", "mountains", "marshes", "desert", "forests", "hills"} - rules.keys()
    if missing:
        raise InputError(f"terrain rules file {path} lacks sections {sorted(missing)}: copy them from {DEFAULT_TERRAIN_RULES}")
    if "islands" not in rules:
        # files written before the small-island rule: that rule comes from the embedded file (docs/terrain.md)
        rules["islands"] = tomllib.loads(DEFAULT_TERRAIN_RULES.read_text())["islands"]
    _check_islands(rules["islands"], path)
    return rules


def _check_islands(isl: dict, path: Path) -> None:
    where = f"terrain rules file {path} [islands]"
    v = isl.get("min_land_elev")
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not np.isfinite(v):
        raise InputError(f"{where} min_land_elev is {v!r}: give metres, e.g. min_land_elev = -14.0")
    v = isl.get("search_pixels")
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise InputError(f"{where} search_pixels is {v!r}: give a pixel count >= 0, e.g. search_pixels = 1")
    v = isl.get("unmeasured_terrain")
    if v not in TERRAINS:
        raise InputError(f"{where} unmeasured_terrain is {v!r}: give one of {', '.join(TERRAINS)}")


def load_ocean(path: str | Path | None = None) -> gpd.GeoDataFrame:
    """Polygons of water impassable to ships (default: the Atlantic beyond Gibraltar, Biscay)."""
    path = Path(path) if path is not None else DEFAULT_OCEAN
    if not path.exists():
        raise MissingInputError(f"ocean file {path} does not exist: pass a GeoJSON/GeoPackage of ocean polygons")
    try:
        gdf = gpd.read_file(path)
    except Exception as e:  # pyogrio raises several types for unreadable files
        raise InputError(f"ocean file {path} cannot be read ({e}): pass a GeoJSON/GeoPackage of polygons") from e
    return gdf.to_crs("EPSG:4326") if gdf.crs is not None else gdf.set_crs("EPSG:4326")


def _arrow_names(column) -> pa.Array:
    """A column of cell names as one Arrow large_string array (zero-copy from pandas' Arrow-backed
    str columns; Python strings are converted once)."""
    names = pa.array(column)
    if isinstance(names, pa.ChunkedArray):
        names = names.combine_chunks()
    return names if names.type == pa.large_string() else names.cast(pa.large_string())


def _step_codes(cell_names, neighbors: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Number the names of a map: (code of each row of ``cell_names``, code of each step's
    cell, code of each step's neighbor, node count).  Distinct names of ``cell_names`` are
    0..k-1 in order of first appearance; neighbour-table ends that are not among them follow."""
    encoded = _arrow_names(cell_names).dictionary_encode()
    row_code = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    value_set = encoded.dictionary
    k = len(value_set)
    steps = [_arrow_names(neighbors["cell"]), _arrow_names(neighbors["neighbor"])]
    ends = np.concatenate([pc.fill_null(pc.index_in(names, value_set=value_set), -1).to_numpy(zero_copy_only=False)
                           for names in steps]).astype(np.int64)
    outside = ends < 0
    n_nodes = k
    if outside.any():
        names = np.concatenate([names.to_numpy(zero_copy_only=False) for names in steps])
        extra, others = pd.factorize(names[outside])
        ends[outside] = k + extra
        n_nodes += len(others)
    n_steps = len(neighbors)
    return row_code, ends[:n_steps], ends[n_steps:], n_nodes


def _hops(src: np.ndarray, dst: np.ndarray, n_nodes: int, sources: np.ndarray, *, limit: int) -> np.ndarray:
    """Hexes from each node to the nearest of the ``sources`` (node codes) along the steps
    (src -> dst), inf beyond ``limit``: one multi-source breadth-first search (scipy's csgraph,
    unweighted)."""
    if not len(sources):
        return np.full(n_nodes, np.inf)
    graph = csr_matrix((np.ones(len(src)), (src, dst)), shape=(n_nodes, n_nodes))
    return dijkstra(graph, directed=True, indices=np.unique(sources), unweighted=True, min_only=True, limit=limit)


def hex_distance_to(sources: set[str], neighbors: pd.DataFrame, *, limit: int) -> dict[str, int]:
    """Hexes from each cell to the nearest source, up to ``limit``: one multi-source breadth-first
    search over the steps of a hex_neighbors frame (cell, neighbor); a hop count does not depend
    on how the cells are numbered."""
    if not sources:
        return {}
    names = sorted(sources)
    row_code, src, dst, n_nodes = _step_codes(names, neighbors)
    dist = _hops(src, dst, n_nodes, row_code, limit=limit)
    node_names = np.empty(n_nodes, dtype=object)
    node_names[row_code] = names
    if n_nodes > len(names):
        node_names[np.concatenate([src, dst])] = np.concatenate(
            [neighbors["cell"].to_numpy(dtype=object), neighbors["neighbor"].to_numpy(dtype=object)])
    found = np.flatnonzero(np.isfinite(dist))
    return dict(zip(node_names[found].tolist(), dist[found].astype(int).tolist()))


def _touching(mask: np.ndarray, row_code: np.ndarray, src: np.ndarray, dst: np.ndarray, n_nodes: int) -> np.ndarray:
    """Per row: whether the row's cell has a step to a cell whose row satisfies ``mask``."""
    target = np.zeros(n_nodes, dtype=bool)
    target[row_code[mask]] = True
    hit = np.zeros(n_nodes, dtype=bool)
    hit[src[target[dst]]] = True
    return hit[row_code]


def classify_kinds(
    cells: pd.DataFrame, neighbors: pd.DataFrame, *, rules: dict, ocean: gpd.GeoDataFrame | None = None
) -> pd.Series:
    """``kind`` per cell from water fractions, then coast/sea/ocean from adjacency and the ocean polygons.

    ``cells`` needs: cell, lat, lng, land_fraction, lake_fraction, landmasses,
    keeps_island, keeps_lake.
    """
    r = rules["kind"]
    land = cells["land_fraction"] >= r["land_fraction"]
    if r.get("keep_islands", True):
        land |= cells["keeps_island"].fillna(False).astype(bool)
    # A strait hex touching two land masses stays water unless nearly all land.
    strait = (cells["landmasses"] >= 2) & (cells["land_fraction"] < r["strait_max_land_fraction"])
    land &= ~(strait & ~cells["keeps_island"].fillna(False).astype(bool))
    # A hex that is not land is lake when it holds more lake than sea: inland
    # hexes that lose their land status to the strait rule (an island in a lake
    # counts as a second land mass) stay lake, never an isolated sea hex.
    sea_fraction = (1.0 - cells["land_fraction"] - cells["lake_fraction"]).clip(lower=0.0)
    lake = ((cells["lake_fraction"] >= r["lake_fraction"]) | (cells["lake_fraction"] > sea_fraction)) & ~land
    if r.get("keep_lakes", True):
        lake |= cells["keeps_lake"].fillna(False).astype(bool)
        land &= ~lake
    kind = pd.Series(np.where(land, "land", np.where(lake, "lake", "sea")), index=cells.index, dtype=object)

    row_code, src, dst, n_nodes = _step_codes(cells["cell"], neighbors)
    coast = _touching(land.to_numpy(dtype=bool), row_code, src, dst, n_nodes) & (kind == "sea").to_numpy()
    kind[coast] = "coast"
    if ocean is not None and len(ocean):
        # intersects_xy is intersects(geometry, points(x, y)) without building the points
        union = shapely.union_all(ocean.geometry.to_numpy())
        shapely.prepare(union)
        in_ocean = shapely.intersects_xy(union, cells["lng"].to_numpy(dtype=float), cells["lat"].to_numpy(dtype=float))
        kind[(kind.isin(["sea", "coast"])) & in_ocean] = "ocean"
    return kind


def classify_terrain(cells: pd.DataFrame, neighbors: pd.DataFrame, *, rules: dict) -> pd.Series:
    """Land terrain per cell (None for water), by the ordered rules of ``rules``.

    ``cells`` needs: cell, kind, lat, elev_mean, elev_min, elev_max, river.
    Vectorised: every rule is a boolean column, and the first that holds wins.
    A land hex with no elevation at all (elev_mean NaN: no DEM pixel over its land, see
    etl.dem.fill_unsampled_land) takes ``rules["islands"]["unmeasured_terrain"]``, a stated
    rule, rather than whatever its elevation filled with 0 would give (it used to be marshes).
    """
    kind = cells["kind"].to_numpy()
    is_land = kind == "land"
    row_code, src, dst, n_nodes = _step_codes(cells["cell"], neighbors)
    hops = _hops(src, dst, n_nodes, row_code[np.isin(kind, WATER)], limit=8)[row_code]
    cdist = np.where(np.isfinite(hops), hops, 99).astype(int)

    def near(mask: np.ndarray) -> np.ndarray:
        """The cell or one of its neighbours satisfies ``mask``."""
        return mask | _touching(mask, row_code, src, dst, n_nodes)

    watered = near(cells["river"].fillna(False).astype(bool).to_numpy())
    near_lake = near(kind == "lake")

    e_mean = cells["elev_mean"].fillna(0.0).to_numpy(dtype=float)
    e_max = cells["elev_max"].fillna(cells["elev_mean"]).fillna(0.0).to_numpy(dtype=float)
    e_min = cells["elev_min"].fillna(cells["elev_mean"]).fillna(0.0).to_numpy(dtype=float)
    relief = e_max - e_min
    # Range of elev_mean over the hex and its land neighbours (missing elevations ignored:
    # fmax/fmin keep the number when one side is NaN).
    node_elev = np.full(n_nodes, np.nan)
    node_elev[row_code] = np.where(is_land, cells["elev_mean"].to_numpy(dtype=float), np.nan)
    top, bottom = node_elev.copy(), node_elev.copy()
    np.fmax.at(top, src, node_elev[dst])
    np.fmin.at(bottom, src, node_elev[dst])
    span = (top - bottom)[row_code]
    nbr_relief = np.where(np.isnan(span), 0.0, span)

    p, m, ma, d, f, h = (rules[k] for k in ("peaks", "mountains", "marshes", "desert", "forests", "hills"))
    lat = cells["lat"].to_numpy(dtype=float)
    unmeasured = is_land & cells["elev_mean"].isna().to_numpy()
    conditions = [
        ~is_land,
        unmeasured,
        (e_max >= p["min_elev_max"]) & (e_mean >= p["min_elev_mean"]),
        (e_mean >= m["min_elev_mean"]) | ((e_mean >= m["rugged_min_elev_mean"]) & (relief >= m["rugged_min_relief"])),
        (e_mean <= ma["max_elev_mean"])
        & (e_max <= ma["max_elev_max"])
        & ((cdist <= ma["max_coast_distance"]) | (ma.get("river_or_lake_counts", True) & (watered | near_lake))),
        ~(d.get("watered_by_river", True) & watered)
        & ((lat <= d["max_lat"]) | ((lat <= d["steppe_max_lat"]) & (cdist >= d["steppe_min_coast_distance"]))),
        (lat >= f["min_lat"])
        & (e_mean >= f["min_elev_mean"])
        & (e_mean < f["max_elev_mean"])
        & (cdist >= f["min_coast_distance"])
        & (nbr_relief <= f["max_neighbourhood_relief"]),
        (e_mean >= h["min_elev_mean"]) | (relief >= h["min_relief"]) | (nbr_relief >= h["min_neighbourhood_relief"]),
    ]
    choices = [None, rules["islands"]["unmeasured_terrain"], "peaks", "mountains", "marshes", "desert", "forests", "hills"]
    terrain = np.select(conditions, np.array(choices, dtype=object), default="farmlands")
    return pd.Series(terrain, index=cells.index, dtype=object)
