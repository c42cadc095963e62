"""Hex classification: ``kind`` (land/coast/sea/ocean/lake) and land ``terrain``.

The thresholds live in ``datasets/terrain_rules.toml``; docs/terrain.md explains
each rule.  Order matters: a land hex takes the first terrain whose rule it
meets, in the order peaks, mountains, marshes, desert, forests, hills, farmlands.

Kinds are adjacency questions (a coast hex is a water hex next to land), asked of integer arrays:
cell names are numbered once per call (:func:`_step_codes`: Arrow's hash lookup of the neighbour
table's ends in the cells' names), then a step of the neighbour table is a pair of numbers and each
question is a scatter over those pairs.  Names, not rows, are what a neighbour table links: a name
given twice in ``cells`` is one node, and a neighbour-table end outside ``cells`` is a node of its own.

Terrain asks no adjacency question (issue 25): the rules measure the ground, so the same land gets
the same terrain at every resolution.  Water is a distance in km from the hex's centre
(:func:`ground_of`, from the shorelines and river lines), relief is read over discs of fixed radius
in km around the centre (:func:`_over_discs`), and a hex wider than the relief disc reads the relief
most of its land has on a map at the disc's resolution (:func:`relief_from_finer`).
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import geopandas as gpd
import h3
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import shapely
from h3ronpy import cells_parse, cells_to_string, change_resolution
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra
from scipy.spatial import cKDTree

from bellica.datasets import DATASETS_DIR
from bellica.geo.errors import InputError, MissingInputError

DEFAULT_TERRAIN_RULES = DATASETS_DIR / "terrain_rules.toml"
DEFAULT_OCEAN = DATASETS_DIR / "ocean_default.geojson"

TERRAINS = ("farmlands", "desert", "hills", "marshes", "forests", "mountains", "peaks")
WATER = ("coast", "sea", "ocean")
GROUND_COLUMNS = ("coast_km", "river_km", "lake_km")
"""What :func:`classify_terrain` needs beyond a hex's own attributes: km from its centre to the sea,
to a major river line and to a kept lake (:func:`ground_of`)."""
RELIEF_COLUMNS = ("relief_m", "neighbourhood_relief_m")
"""Optional in :func:`classify_terrain`: the relief of a hex wider than the relief disc, read on a finer
map (:func:`relief_from_finer`); where given (not NaN) it replaces the disc's."""
GROUND_KEYS = ("coastal_km", "watered_km", "lake_shore_km", "relief_radius_km", "neighbourhood_radius_km")
HEX_COUNT_KEYS = {"marshes": "max_coast_distance", "desert": "steppe_min_coast_distance", "forests": "min_coast_distance"}
"""Keys of rules files written before issue 25: hexes to the coast, which is other ground at every
resolution.  Their km replacements: [ground] coastal_km, [desert] steppe_min_coast_km."""
EARTH_RADIUS_KM = 6371.007180918475
"""The authalic sphere h3 measures on (h3.great_circle_distance): relief discs are measured on it (a
20 km disc is within 0.5 % of the ellipsoid's at any latitude, far below what a relief threshold means)."""
DISC_CHUNK_VALUES = 4_000_000
"""Values per block when reducing over discs: a res-7 map of a million hexes has ~240 centres in a
20-km disc, so blocks bound the memory to ~100 MB of temporaries whatever the map."""


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
    for section in ("islands", "ground"):
        if section not in rules:
            # files written before the small-island rule (issue 12) or the ground rules (issue 25): that
            # section comes from the embedded file (docs/terrain.md)
            rules[section] = tomllib.loads(DEFAULT_TERRAIN_RULES.read_text())[section]
    _check_islands(rules["islands"], path)
    _check_ground(rules, path)
    return rules


def _check_ground(rules: dict, path: Path) -> None:
    for section, key in HEX_COUNT_KEYS.items():
        if key in rules[section]:
            raise InputError(f"terrain rules file {path} [{section}] {key} counts hexes, which cover other ground at "
                             f"every resolution: give km instead ([ground] coastal_km, [desert] steppe_min_coast_km; "
                             f"see {DEFAULT_TERRAIN_RULES})")
    for section, key in [*(("ground", k) for k in GROUND_KEYS), ("desert", "steppe_min_coast_km")]:
        v = rules[section].get(key)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not np.isfinite(v) or v <= 0:
            raise InputError(f"terrain rules file {path} [{section}] {key} is {v!r}: give km > 0, "
                             f"e.g. {key} = {tomllib.loads(DEFAULT_TERRAIN_RULES.read_text())[section][key]}")


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
        # A kept lake takes its holder hex only when it covers a visible share of it: at res 4 a 50 km2
        # lake is 3 % of a hex, and turning a 97 %-land hex into lake drowned Tarsus and Alexandria.
        # Files written before this key keep every holder (0.0).
        visible = cells["lake_fraction"] >= r.get("kept_lake_min_fraction", 0.0)
        lake |= cells["keeps_lake"].fillna(False).astype(bool) & visible
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


def ground_reach_km(rules: dict) -> float:
    """The farthest any terrain rule looks for water: distances beyond it are not measured."""
    g = rules["ground"]
    return float(max(g["coastal_km"], g["watered_km"], g["lake_shore_km"], rules["desert"]["steppe_min_coast_km"]))


def ground_of(cells: pd.DataFrame, shorelines: gpd.GeoDataFrame, rivers, *, rules: dict) -> pd.DataFrame:
    """:data:`GROUND_COLUMNS` for ``cells`` (needs lat, lng, land_fraction, keeps_island), aligned on
    its index: km from each hex's centre to the sea, a major river and a kept lake, measured only for
    hexes that can be land (inf elsewhere, and beyond :func:`ground_reach_km`).  ``rivers`` are the
    whole lines, not cut to the map: a river just past the map's edge waters the hexes beside it."""
    from bellica.etl.water import ground_distances

    may_be_land = (cells["land_fraction"].fillna(0.0).to_numpy() >= rules["kind"]["land_fraction"]) | \
        cells["keeps_island"].fillna(False).astype(bool).to_numpy()
    out = pd.DataFrame(np.inf, index=cells.index, columns=list(GROUND_COLUMNS))
    some = cells.loc[may_be_land]
    if len(some):
        got = ground_distances(some["lat"].to_numpy(), some["lng"].to_numpy(), shorelines, rivers,
                               reach_km=ground_reach_km(rules))
        out.loc[some.index, list(GROUND_COLUMNS)] = got[list(GROUND_COLUMNS)].to_numpy()
    return out


def _sphere_xyz(lat: np.ndarray, lng: np.ndarray) -> np.ndarray:
    """Points on the :data:`EARTH_RADIUS_KM` sphere, in km: a chord between two is their great-circle
    distance to within a millionth at the radii used here."""
    phi, lam = np.radians(lat), np.radians(lng)
    return EARTH_RADIUS_KM * np.column_stack([np.cos(phi) * np.cos(lam), np.cos(phi) * np.sin(lam), np.sin(phi)])


def _over_discs(xyz: np.ndarray, radius_km: float, columns: list[tuple[np.ndarray, str]]) -> list[np.ndarray]:
    """Per point, each (values, "max"|"min"|"mean") reduced over the points within ``radius_km`` of it
    (itself included), NaN values ignored (NaN when all are).  One KD-tree of the centres; the disc
    members are padded to a block's largest disc with a NaN, in blocks of :data:`DISC_CHUNK_VALUES`."""
    n = len(xyz)
    out = [np.full(n, np.nan) for _ in columns]
    if not n:
        return out
    tree = cKDTree(xyz)
    # the chord of the arc, a hair longer: query() keeps distances below its bound, the count those up to it
    chord = 2.0 * EARTH_RADIUS_KM * np.sin(radius_km / (2.0 * EARTH_RADIUS_KM)) * (1 + 1e-12)
    counts = tree.query_ball_point(xyz, chord, return_length=True)
    padded = [np.append(np.asarray(v, dtype=float), np.nan) for v, _ in columns]
    step = max(1, DISC_CHUNK_VALUES // int(counts.max()))
    for lo in range(0, n, step):
        hi = min(n, lo + step)
        k = int(counts[lo:hi].max())
        dist, idx = tree.query(xyz[lo:hi], k=k, distance_upper_bound=chord)
        idx = np.where(np.isfinite(dist), idx, n).reshape(hi - lo, k)
        for o, values, (_, how) in zip(out, padded, columns):
            v = values[idx]
            if how == "max":
                o[lo:hi] = np.fmax.reduce(v, axis=1)
            elif how == "min":
                o[lo:hi] = np.fmin.reduce(v, axis=1)
            else:
                known = ~np.isnan(v)
                with np.errstate(invalid="ignore", divide="ignore"):
                    o[lo:hi] = np.where(known, v, 0.0).sum(axis=1) / known.sum(axis=1)
    return out


def _ground_relief(cells: pd.DataFrame, is_land: np.ndarray, g: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(highest, lowest point within ``relief_radius_km``, neighbourhood relief) per hex, over land hexes.

    The relief thresholds were set on res-5 hexes; the disc has a res-5 hex's area, so at res 5 it
    holds the hex alone and these are the hex's own max and min.  Neighbourhood relief is the range,
    over ``neighbourhood_radius_km`` (a res-5 hex's six neighbours), of the mean elevation of each
    hex's relief disc, so finer hexes are compared at the scale res-5 hexes were."""
    # Only land is measured and only land is classified: water hexes stay out of the discs.
    land = cells.loc[is_land]
    mean = land["elev_mean"].to_numpy(dtype=float)
    top = land["elev_max"].fillna(land["elev_mean"]).to_numpy(dtype=float)
    bottom = land["elev_min"].fillna(land["elev_mean"]).to_numpy(dtype=float)
    xyz = _sphere_xyz(land["lat"].to_numpy(dtype=float), land["lng"].to_numpy(dtype=float))
    top, bottom, footprint = _over_discs(xyz, g["relief_radius_km"], [(top, "max"), (bottom, "min"), (mean, "mean")])
    high, low = _over_discs(xyz, g["neighbourhood_radius_km"], [(footprint, "max"), (footprint, "min")])
    out = [np.full(len(cells), np.nan) for _ in range(3)]
    for o, v in zip(out, (top, bottom, high - low)):
        o[is_land] = v
    return out[0], out[1], np.where(np.isnan(out[2]), 0.0, out[2])


def classify_terrain(cells: pd.DataFrame, neighbors: pd.DataFrame | None = None, *, rules: dict) -> pd.Series:
    """Land terrain per cell (None for water), by the ordered rules of ``rules``.

    ``cells`` needs: cell, kind, lat, lng, elev_mean, elev_min, elev_max and :data:`GROUND_COLUMNS`
    (:func:`ground_of`); :data:`RELIEF_COLUMNS` where hexes are wider than the relief disc.  ``neighbors`` is not read: the rules measure the ground in km, not in hexes
    (it stays a parameter for the callers that pass the map's neighbour table).  Vectorised: every
    rule is a boolean column, and the first that holds wins.  A land hex with no elevation at all
    (elev_mean NaN: no DEM pixel over its land, see etl.dem.fill_unsampled_land) takes
    ``rules["islands"]["unmeasured_terrain"]``, a stated rule, rather than whatever its elevation
    filled with 0 would give (it used to be marshes).
    """
    missing = [c for c in GROUND_COLUMNS if c not in cells.columns]
    if missing:
        raise InputError(f"cells lack {', '.join(missing)}: measure them with etl.terrain.ground_of before classifying")
    is_land = cells["kind"].to_numpy() == "land"
    g = rules["ground"]
    top, bottom, nbr_relief = _ground_relief(cells, is_land, g)
    e_mean = cells["elev_mean"].fillna(0.0).to_numpy(dtype=float)
    e_max = np.nan_to_num(top)
    relief = e_max - np.nan_to_num(bottom)
    if set(RELIEF_COLUMNS) <= set(cells.columns):  # a hex wider than the relief disc: its land's relief
        finer = cells[list(RELIEF_COLUMNS)].to_numpy(dtype=float)
        relief = np.where(np.isnan(finer[:, 0]), relief, finer[:, 0])
        nbr_relief = np.where(np.isnan(finer[:, 1]), nbr_relief, finer[:, 1])
    coast, river, lake = (cells[c].to_numpy(dtype=float) for c in GROUND_COLUMNS)
    coastal = coast <= g["coastal_km"]
    watered = river <= g["watered_km"]
    near_lake = lake <= g["lake_shore_km"]

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
        & (coastal | (ma.get("river_or_lake_counts", True) & (watered | near_lake))),
        ~(d.get("watered_by_river", True) & watered)
        & ((lat <= d["max_lat"]) | ((lat <= d["steppe_max_lat"]) & (coast > d["steppe_min_coast_km"]))),
        (lat >= f["min_lat"])
        & (e_mean >= f["min_elev_mean"])
        & (e_mean < f["max_elev_mean"])
        & ~coastal
        & (nbr_relief <= f["max_neighbourhood_relief"]),
        (e_mean >= h["min_elev_mean"]) | (relief >= h["min_relief"]) | (nbr_relief >= h["min_neighbourhood_relief"]),
    ]
    choices = [None, rules["islands"]["unmeasured_terrain"], "peaks", "mountains", "marshes", "desert", "forests", "hills"]
    terrain = np.select(conditions, np.array(choices, dtype=object), default="farmlands")
    return pd.Series(terrain, index=cells.index, dtype=object)


def ground_resolution(rules: dict) -> int:
    """The H3 resolution whose average hex is nearest in area to the relief disc (res 5 for 9 km):
    a coarser map reads its relief there (:func:`relief_from_finer`)."""
    disc = np.pi * rules["ground"]["relief_radius_km"] ** 2
    areas = np.array([h3.average_hexagon_area(r, unit="km^2") for r in range(16)])
    return int(np.argmin(np.abs(np.log(areas / disc))))


def relief_from_finer(cells: pd.DataFrame, fine: pd.DataFrame, *, rules: dict) -> pd.DataFrame:
    """:data:`RELIEF_COLUMNS` for ``cells`` (cell), aligned on its index: the median, over the land
    hexes of ``fine`` (a map of the same ground at :func:`ground_resolution`: cell, kind, lat, lng and
    the elevation columns) whose parent is the cell, of their relief and neighbourhood relief; NaN
    where no land hex of ``fine`` falls in the cell.

    A hex wider than the relief disc cannot say where in it its relief lies: a res-4 hex holding the
    Mesaoria and the Kyrenia range spans 420 m, though most of its land is plain.  The median is the
    relief most of its land has, read where the thresholds were set."""
    out = pd.DataFrame(np.nan, index=cells.index, columns=list(RELIEF_COLUMNS))
    land = (fine["kind"] == "land").to_numpy()
    if not len(cells) or not land.any():
        return out
    top, bottom, nbr_relief = _ground_relief(fine, land, rules["ground"])
    ints = cells_parse(pa.array(fine["cell"].to_numpy(dtype=object)[land], type=pa.large_string()))
    res = h3.get_resolution(cells["cell"].iloc[0])
    parents = pa.array(cells_to_string(change_resolution(ints, res))).to_numpy(zero_copy_only=False)
    median = pd.DataFrame({"relief_m": (top - bottom)[land], "neighbourhood_relief_m": nbr_relief[land]},
                          index=parents).groupby(level=0).median()
    out[list(RELIEF_COLUMNS)] = median.reindex(cells["cell"].to_numpy())[list(RELIEF_COLUMNS)].to_numpy()
    return out


def finer_bbox(cells, fine_res: int) -> tuple[float, float, float, float]:
    """(west, south, east, north) holding every ``fine_res`` child of ``cells``: the cells' outline
    widened by one fine edge (a grandchild's centre can lie just past its grandparent's boundary)."""
    from bellica.etl.water import hex_rings_lonlat

    lon, lat, _ = hex_rings_lonlat(list(cells))
    pad = h3.average_hexagon_edge_length(fine_res, unit="km") / 111.0
    pad_lng = pad / max(np.cos(np.radians(min(89.0, np.abs(lat).max() + pad))), 0.01)
    return (max(-180.0, lon.min() - pad_lng), max(-90.0, lat.min() - pad),
            min(180.0, lon.max() + pad_lng), min(90.0, lat.max() + pad))
