"""Hex classification: ``kind`` (land/coast/sea/ocean/lake) and land ``terrain``.

The thresholds live in ``datasets/terrain_rules.toml``; docs/terrain.md explains
each rule.  Order matters: a land hex takes the first terrain whose rule it
meets, in the order peaks, mountains, marshes, desert, forests, hills, farmlands.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import geopandas as gpd
import numpy as np
import pandas as pd
import shapely
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from tabula.datasets import DATASETS_DIR
from tabula.geo.errors import InputError, MissingInputError

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


def hex_distance_to(sources: set[str], neighbors: pd.DataFrame, *, limit: int) -> dict[str, int]:
    """Hexes from each cell to the nearest source, up to ``limit``: one multi-source breadth-first
    search (scipy's csgraph, unweighted) over the steps of a hex_neighbors frame (cell, neighbor).

    The cells are numbered by pandas' hash factorisation, straight from the frame's columns: a
    hop count does not depend on the numbering, and no Python loop walks the ~185,000 steps of
    a res-6 map."""
    if not sources:
        return {}
    codes, cells = pd.factorize(pd.concat([neighbors["cell"], neighbors["neighbor"], pd.Series(sorted(sources))],
                                          ignore_index=True))
    n_steps = len(neighbors)
    rows, cols = codes[:n_steps], codes[n_steps:2 * n_steps]
    graph = csr_matrix((np.ones(n_steps), (rows, cols)), shape=(len(cells), len(cells)))
    dist = dijkstra(graph, directed=True, indices=np.unique(codes[2 * n_steps:]), unweighted=True, min_only=True,
                    limit=limit)
    found = np.flatnonzero(np.isfinite(dist))
    return dict(zip(cells[found].tolist(), dist[found].astype(int).tolist()))


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

    land_cells = set(cells.loc[land, "cell"])
    touches_land = neighbors.loc[neighbors["neighbor"].isin(land_cells), "cell"]
    coast = cells["cell"].isin(set(touches_land)) & (kind == "sea")
    kind[coast] = "coast"
    if ocean is not None and len(ocean):
        pts = shapely.points(cells["lng"].to_numpy(), cells["lat"].to_numpy())
        in_ocean = shapely.intersects(shapely.union_all(ocean.geometry.to_numpy()), pts)
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
    cell_ids = cells["cell"].to_numpy()
    is_land = kind == "land"
    coast_dist = hex_distance_to(set(cell_ids[np.isin(kind, WATER)]), neighbors, limit=8)
    cdist = np.array([coast_dist.get(c, 99) for c in cell_ids])

    def near(mask: np.ndarray) -> np.ndarray:
        """The cell or one of its neighbours satisfies ``mask``."""
        targets = set(cell_ids[mask])
        hit = set(neighbors.loc[neighbors["neighbor"].isin(targets), "cell"])
        return mask | pd.Series(cell_ids).isin(hit).to_numpy()

    watered = near(cells["river"].fillna(False).astype(bool).to_numpy())
    near_lake = near(kind == "lake")

    e_mean = cells["elev_mean"].fillna(0.0).to_numpy(dtype=float)
    e_max = cells["elev_max"].fillna(cells["elev_mean"]).fillna(0.0).to_numpy(dtype=float)
    e_min = cells["elev_min"].fillna(cells["elev_mean"]).fillna(0.0).to_numpy(dtype=float)
    relief = e_max - e_min
    # Range of elev_mean over the hex and its land neighbours (missing elevations ignored).
    land_elev = pd.Series(np.where(is_land, cells["elev_mean"].to_numpy(dtype=float), np.nan), index=cell_ids)
    pairs = pd.concat(
        [pd.DataFrame({"cell": cell_ids, "elev": land_elev.to_numpy()}),
         pd.DataFrame({"cell": neighbors["cell"].to_numpy(), "elev": land_elev.reindex(neighbors["neighbor"]).to_numpy()})]
    )
    span = pairs.groupby("cell")["elev"].agg(["max", "min"])
    nbr_relief = (span["max"] - span["min"]).reindex(cell_ids).fillna(0.0).to_numpy()

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
