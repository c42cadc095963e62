"""The map build: real geography in, H3 hex tables in DuckDB out.

    cells of the region --> water fractions (GSHHG)  --> kind (land/coast/sea/ocean/lake)
                        --> elevation stats (DEM)    --> terrain (rules file)
                        --> rivers (WDB-II majors)   --> river flag; the lines cut to the hexes' outline
                        --> neighbours with clock sides
                        --> hexes, hex_neighbors, map_rivers, map_meta + views

The database is written to a temporary file next to the output (``.NAME.PID.tmp``,
see :mod:`etl.files`) and moved into place only when complete, so a failed build never
leaves a half-written map; a later build of the same output removes what a killed one
left.  An existing output is replaced only with ``force``, and a campaign never.

Guards before any work: the estimated cell count (:data:`MAX_CELLS`), a bbox past the
embedded data's edge when the embedded data is used (:func:`check_embedded_extent`),
and, once the shorelines are read, a DEM with no valid pixel over a region that has land.
"""

from __future__ import annotations

import json
import math
import os
import time
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path

import h3
import numpy as np
import pandas as pd
import shapely

from bellica.datasets import DATASETS_DIR
from bellica.etl.files import check_out_dir, clear_leftovers, refuse_overwrite, temp_path
from bellica.etl.shorelines import check_bbox
from bellica.geo import hexgrid
from bellica.geo.errors import InputError, MissingInputError, first_line
from bellica.geo.logs import logger
from bellica.geo.progress import progress_bar
from bellica.geo.settings import DATA_EXTENT, DEFAULT_RESOLUTION
from bellica.schema import create_database, create_map_tables

log = logger(__name__)

DEFAULT_DEM = DATASETS_DIR / "mediterranean_dem.tif"
DEFAULT_SHORELINES = DATASETS_DIR / "mediterranean_shorelines.parquet"
DEFAULT_RIVERS = DATASETS_DIR / "mediterranean_rivers.parquet"
REGIONS_FILE = DATASETS_DIR / "regions.toml"
DEFAULT_REGION = "mediterranean"

MAX_CELLS = 1_000_000
"""The most H3 cells (estimated, :func:`estimated_cells`) a build takes on.  Peak memory of a build
with the embedded data, measured here: ~340 MB of libraries plus ~3 KB per cell (res 8, 47,020 cells:
0.58 GB; res 9, 331,215 cells: 1.47 GB; res 9, 991,701 cells: 3.07 GB), so the limit keeps a build
near 3 GB on a 24 GB machine shared with other work.  ``--res 15`` over Sicily asks for ~137 billion
cells (a MemoryError before).  Above the limit: a coarser --res or a smaller --bbox."""


def named_regions() -> dict[str, dict]:
    return tomllib.loads(REGIONS_FILE.read_text())


def region_bbox(region: str | None = None, bbox: tuple[float, float, float, float] | None = None):
    """Resolve a named region or an explicit bbox (west, south, east, north) to a bbox."""
    if bbox is not None:
        if region is not None:
            raise InputError("both a region name and a bbox were given: pass only one of --region / --bbox")
        return check_bbox(bbox)
    name = region or DEFAULT_REGION
    regions = named_regions()
    if name not in regions:
        raise InputError(f"unknown region {name!r}: use one of {sorted(regions)} or --bbox west,south,east,north")
    return tuple(float(v) for v in regions[name]["bbox"])


@dataclass
class BuildOptions:
    """Everything a map build depends on (recorded in map_meta for reproducibility)."""

    bbox: tuple[float, float, float, float]
    res: int = DEFAULT_RESOLUTION
    dem: Path = DEFAULT_DEM
    shorelines: Path = DEFAULT_SHORELINES
    rivers: Path = DEFAULT_RIVERS
    terrain_rules: Path | None = None
    ocean: Path | None = None
    min_river_km: float | None = None
    scheduler: str | None = None
    use_dask: bool | None = None
    progress: bool = True


@dataclass
class BuildReport:
    path: Path
    cells: int
    kinds: dict[str, int]
    terrains: dict[str, int]
    seconds: dict[str, float] = field(default_factory=dict)

    def summary(self) -> str:
        total = sum(self.seconds.values())
        kinds = ", ".join(f"{k} {v}" for k, v in sorted(self.kinds.items()))
        terr = ", ".join(f"{k} {v}" for k, v in sorted(self.terrains.items()))
        return f"{self.path}: {self.cells} hexes ({kinds}); land terrain: {terr}; built in {total:.1f} s"


def estimated_cells(bbox, res: int) -> int:
    """About how many H3 cells of resolution ``res`` have their centre in ``bbox``: the bbox's
    area on the authalic sphere over H3's average cell area at ``res`` (H3 cells vary in size: measured up to ~15% over)."""
    west, south, east, north = bbox
    radius_km = 6371.0072
    area = radius_km**2 * math.radians(east - west) * (math.sin(math.radians(north)) - math.sin(math.radians(south)))
    return int(round(area / h3.average_hexagon_area(res, unit="km^2")))


def check_cell_count(bbox, res: int, *, limit: int = MAX_CELLS) -> int:
    """The estimated cell count, or InputError when it is over ``limit`` (before any memory is spent)."""
    n = estimated_cells(bbox, res)
    if n > limit:
        raise InputError(
            f"bbox {list(bbox)} at resolution {res} holds about {n:,} hexes, over the limit of {limit:,} "
            f"(about 3 GB of memory): pass a coarser --res or a smaller --bbox"
        )
    return n


def embedded_extent() -> tuple[float, float, float, float]:
    """(west, south, east, north) covered by the embedded DEM, shorelines and rivers: DATA_EXTENT."""
    return DATA_EXTENT


def check_embedded_extent(options: "BuildOptions") -> None:
    """Refuse a bbox that extends past the embedded data's edge while embedded data is used:
    beyond it the shorelines have no land, so land would silently become sea."""
    used = [name for name, path, default in (("DEM", options.dem, DEFAULT_DEM),
                                              ("shorelines", options.shorelines, DEFAULT_SHORELINES),
                                              ("rivers", options.rivers, DEFAULT_RIVERS))
            if Path(path) == default]
    if not used:
        return
    edge = embedded_extent()
    west, south, east, north = options.bbox
    past = [f"{side} {v:g} beyond {e:g}" for side, v, e, over in (
        ("west", west, edge[0], west < edge[0]), ("south", south, edge[1], south < edge[1]),
        ("east", east, edge[2], east > edge[2]), ("north", north, edge[3], north > edge[3])) if over]
    if past:
        raise InputError(
            f"bbox {list(options.bbox)} extends past the edge of the embedded {'/'.join(used)} data "
            f"({', '.join(past)}; the embedded data cover {list(edge)}): pass --dem and --shorelines "
            "(and --rivers) covering that area, or a bbox inside the edge"
        )


def dem_has_data(dem: Path, bbox) -> bool:
    """Whether the DEM has at least one valid (not nodata, not NaN) pixel over ``bbox``; reads the
    region block by block and stops at the first valid one.  A DEM of complex numbers, or one
    whose pixels cannot be read (a truncated file), is an InputError naming it."""
    from rasterio.errors import RasterioError

    from bellica.etl.dem import _open_dem, _region_window, _windows

    with _open_dem(Path(dem)) as ds:
        dtype = np.dtype(ds.dtypes[0])
        if not (np.issubdtype(dtype, np.integer) or np.issubdtype(dtype, np.floating)):
            raise InputError(f"DEM {dem} holds {dtype} values, not elevations: pass a DEM of integer or real metres")
        region = _region_window(ds, bbox, dem)
        try:
            for window in _windows(region, 1024, ds.block_shapes[0]):
                values = ds.read(1, window=window, masked=True)
                valid = ~np.ma.getmaskarray(values)
                if np.issubdtype(dtype, np.floating):
                    valid &= ~np.isnan(values.filled(0))
                if valid.any():
                    return True
        except RasterioError as e:
            first = first_line(e)
            raise InputError(f"DEM {dem} cannot be read over region {list(bbox)} ({first}): the file is damaged or "
                             "truncated: pass a whole DEM (--dem)") from None
    return False


def _check_file(path: Path, what: str, option: str) -> Path:
    """``path`` made absolute, once it exists here: a Dask worker opens the DEM itself, in its own
    working folder, where a relative path names another file or none."""
    path = Path(path)
    if not path.exists():
        raise MissingInputError(f"{what} {path} does not exist: pass an existing file with {option}")
    return Path(os.path.abspath(path))


def _absolute_inputs(options: BuildOptions) -> BuildOptions:
    """``options`` with every input file checked (one line naming a missing one) and made absolute,
    before any work: map_meta then records where each input really was."""
    options.dem = _check_file(options.dem, "DEM", "--dem")
    options.shorelines = _check_file(options.shorelines, "shorelines file", "--shorelines")
    options.rivers = _check_file(options.rivers, "rivers file", "--rivers")
    # their loaders say what is wrong with them; an absolute path is still clearer in map_meta
    options.terrain_rules = Path(os.path.abspath(options.terrain_rules)) if options.terrain_rules is not None else None
    options.ocean = Path(os.path.abspath(options.ocean)) if options.ocean is not None else None
    return options


def hex_attributes(options: BuildOptions) -> tuple[pd.DataFrame, pd.DataFrame, "object", dict[str, float]]:
    """Compute every per-hex attribute and the neighbour table (no database involved)."""
    from bellica.etl.dem import dem_stats_by_cell
    from bellica.etl.shorelines import read_shorelines
    from bellica.etl.terrain import load_ocean, load_terrain_rules

    hexgrid.check_resolution(options.res)
    rules = load_terrain_rules(options.terrain_rules)
    ocean = load_ocean(options.ocean)
    options = _absolute_inputs(options)
    dem, shore_path, rivers_path = options.dem, options.shorelines, options.rivers

    seconds: dict[str, float] = {}
    steps = progress_bar(6, "map build", "step", enabled=options.progress)

    def step(name: str, started: float) -> None:
        seconds[name] = round(time.perf_counter() - started, 3)
        steps.set_postfix_str(name)
        steps.update()

    t = time.perf_counter()
    cell_ids = hexgrid.cells_in_bbox(options.bbox, options.res)
    if not cell_ids:
        raise InputError(f"region {options.bbox} holds no H3 cell centre at resolution {options.res}: widen the bbox or raise the resolution")
    latlng = np.array([hexgrid.cell_center(c) for c in cell_ids])
    cells = pd.DataFrame({"cell": cell_ids, "lat": latlng[:, 0], "lng": latlng[:, 1]})
    step("cells", t)

    t = time.perf_counter()
    neighbors = hexgrid.neighbor_frame(cell_ids)  # linear in the cells: no Python tuple per pair
    step("neighbours", t)

    t = time.perf_counter()
    shorelines = read_shorelines(shore_path)
    cells = _with_water(cells, cell_ids, shorelines, dem, options)
    step("water fractions", t)

    t = time.perf_counter()
    elev = dem_stats_by_cell(dem, cell_ids, options.res, scheduler=options.scheduler, use_dask=options.use_dask, progress=options.progress)
    cells = cells.merge(elev, on="cell", how="left")
    step("elevation", t)

    t = time.perf_counter()
    cells, majors = _with_rivers(cells, cell_ids, shorelines, rivers_path, options, rules)
    step("rivers", t)

    t = time.perf_counter()
    cells = _classified(cells, neighbors, cell_ids, dem, shorelines, options, rules, ocean)
    step("classification", t)
    steps.close()
    return cells, neighbors, majors, seconds


def _with_water(cells: pd.DataFrame, cell_ids: list[str], shorelines, dem: Path, options: BuildOptions) -> pd.DataFrame:
    """``cells`` with their water fractions; a DEM with no data over the region's land is refused."""
    from bellica.etl.water import water_fractions_by_cell

    water = water_fractions_by_cell(cell_ids, shorelines)
    cells = cells.merge(water, on="cell", how="left")
    # A DEM with nothing over land (all nodata, or the wrong area) would leave every land hex
    # to a default terrain: refuse it.  A region of open sea needs no elevation.
    if (cells["land_fraction"] > 0).any() and not dem_has_data(dem, options.bbox):
        raise InputError(f"DEM {dem} has no valid pixel over region {list(options.bbox)} (all nodata there), "
                         "yet the region has land: pass a DEM with elevations for it (--dem)")
    return cells


def _with_rivers(cells: pd.DataFrame, cell_ids: list[str], shorelines, rivers_path: Path, options: BuildOptions,
                 rules) -> tuple[pd.DataFrame, "object"]:
    """``cells`` with their River flags and ground measures, and the major rivers cut to the hexes."""
    from bellica.etl.rivers import clip_rivers, read_rivers, select_major_rivers
    from bellica.etl.terrain import ground_of
    from bellica.etl.water import river_cells

    rivers = read_rivers(rivers_path)
    majors = select_major_rivers(rivers, min_length_km=options.min_river_km) if options.min_river_km is not None else select_major_rivers(rivers)
    wet = river_cells(cell_ids, majors)
    cells["river"] = cells["cell"].isin(wet)
    # The terrain rules measure water in km from each centre to the whole lines (docs/terrain.md).
    cells = cells.join(ground_of(cells, shorelines, majors, rules=rules))
    # The River flags come from the whole lines (a line touching a hex's corner flags it); what
    # map_rivers keeps is cut to the hexes: past them a line describes no hex of this map.
    majors = clip_rivers(majors, hexgrid.cells_outline(cell_ids))
    return cells, majors


def _classified(cells: pd.DataFrame, neighbors: pd.DataFrame, cell_ids: list[str], dem: Path, shorelines,
                options: BuildOptions, rules, ocean) -> pd.DataFrame:
    """``cells`` with their kind and terrain classes (relief read at the rules' ground resolution)."""
    from bellica.etl.dem import fill_unsampled_land
    from bellica.etl.terrain import classify_kinds, classify_terrain, finer_bbox, ground_resolution, relief_from_finer

    cells["kind"] = classify_kinds(cells, neighbors, rules=rules, ocean=ocean)
    # Land hexes whose centre samples miss their land (small islands) take it from the DEM's
    # pixels over that land, marked in elev_source (docs/terrain.md, "Small islands").
    cells = fill_unsampled_land(cells, dem, shorelines, rules=rules)
    # Rivers flow on land: a water hex is not a River hex for the rules.
    cells.loc[cells["kind"] != "land", "river"] = False
    ground = ground_resolution(rules)
    if options.res < ground:
        # A hex wider than the relief disc reads the relief most of its land has on a map of the same
        # ground at the disc's resolution (docs/terrain.md, "Ground, not hexes").
        fine = replace(options, res=ground, bbox=finer_bbox(cell_ids, ground), progress=False)
        if estimated_cells(fine.bbox, ground) <= MAX_CELLS:
            cells = cells.join(relief_from_finer(cells, hex_attributes(fine)[0], rules=rules))
        else:
            log.warning("relief of res %d hexes read on them, not at res %d: too many hexes there", options.res, ground)
    cells["terrain"] = classify_terrain(cells, neighbors, rules=rules)
    return cells


def write_map_database(path: Path, cells: pd.DataFrame, neighbors: pd.DataFrame, rivers, meta: dict) -> None:
    """Write the map tables and views (schema/map.sql, schema/map_views.sql) into a new DuckDB file at ``path``."""
    hexes = pd.DataFrame(
        {
            "cell": cells["cell"],
            "res": meta["res"],
            "kind": cells["kind"],
            "terrain": cells["terrain"],
            "elev_mean": cells["elev_mean"].round(1),
            "elev_min": cells["elev_min"],
            "elev_max": cells["elev_max"],
            "elev_std": cells["elev_std"].round(1),
            "elev_samples": cells["elev_samples"].fillna(0).astype("int64"),
            "land_fraction": cells["land_fraction"].round(4),
            "lake_fraction": cells["lake_fraction"].round(4),
            "river": cells["river"].astype(bool),
            "lat": cells["lat"].round(6),
            "lng": cells["lng"].round(6),
            "wkb": hexgrid.cell_polygons_wkb(cells["cell"]),
        }
    )
    river_df = pd.DataFrame(
        {
            "river_id": np.asarray(rivers["river_id"], dtype="int64"),
            "length_km": np.asarray(rivers["length_km"], dtype="float64").round(1),
            "wkb": shapely.to_wkb(rivers.geometry.to_numpy()),
        }
    )
    con = create_database(path)
    try:
        con.register("hexes_df", hexes)
        con.register("neighbors_df", neighbors)
        con.register("rivers_df", river_df)
        con.execute("BEGIN")
        create_map_tables(con)
        con.execute(
            """INSERT INTO hexes
               SELECT cell, res, kind, terrain, elev_mean, elev_min, elev_max, elev_std,
                      elev_samples, land_fraction, lake_fraction, river, lat, lng, ST_GeomFromWKB(wkb)
               FROM hexes_df ORDER BY cell"""
        )
        con.execute("INSERT INTO hex_neighbors SELECT cell, neighbor, clock, bearing FROM neighbors_df ORDER BY cell, clock")
        con.execute("INSERT INTO map_rivers SELECT river_id, length_km, ST_GeomFromWKB(wkb) FROM rivers_df")
        con.executemany("INSERT INTO map_meta VALUES (?, ?)", [(k, json.dumps(v) if not isinstance(v, str) else v) for k, v in meta.items()])
        con.execute("COMMIT")
    finally:
        con.close()


def build_map(out: str | Path, *, region: str | None = None, bbox=None, res: int = DEFAULT_RESOLUTION, force: bool = False,
              **kwargs) -> BuildReport:
    """Build the hex map of a region into the DuckDB file ``out``.

    An existing ``out`` is replaced only with ``force``, and never when it holds a campaign.

    Keyword options are those of :class:`BuildOptions` (dem, shorelines, rivers,
    terrain_rules, ocean, min_river_km, scheduler, use_dask, progress).

    Example::

        bellica map build --region italy --res 5 --out italy.duckdb
    """
    options = BuildOptions(bbox=region_bbox(region, bbox), res=hexgrid.check_resolution(res), **{k: v for k, v in kwargs.items() if v is not None})
    check_cell_count(options.bbox, options.res)
    check_embedded_extent(options)
    options = _absolute_inputs(options)
    out = check_out_dir(out)
    refuse_overwrite(out, force=force, what="map")
    clear_leftovers(out, command="bellica map build")
    started = time.perf_counter()
    cells, neighbors, rivers, seconds = hex_attributes(options)
    from bellica.etl.dem import elevation_notes

    t = time.perf_counter()
    meta = {
        "res": options.res,
        "bbox": list(options.bbox),
        "region": region or (None if bbox is not None else DEFAULT_REGION),
        "dem": str(options.dem),
        "shorelines": str(options.shorelines),
        "rivers": str(options.rivers),
        "terrain_rules": str(options.terrain_rules or "embedded"),
        "ocean": str(options.ocean or "embedded"),
        "min_river_km": options.min_river_km,
        "cells": len(cells),
        # land hexes whose elevation is not their own pixel-centre samples, and how it was taken
        "elevation_fallback": elevation_notes(cells),
    }
    tmp = temp_path(out)
    tmp.unlink(missing_ok=True)
    try:
        write_map_database(tmp, cells, neighbors, rivers, meta)
        # Again at the end: the output may have appeared (or become a campaign) during the build.
        refuse_overwrite(out, force=force, what="map")
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)
        Path(str(tmp) + ".wal").unlink(missing_ok=True)
    seconds["write"] = round(time.perf_counter() - t, 3)
    log.info("map built in %.2f s", time.perf_counter() - started)
    kinds = cells["kind"].value_counts().to_dict()
    terrains = cells["terrain"].dropna().value_counts().to_dict()
    return BuildReport(path=out, cells=len(cells), kinds=kinds, terrains=terrains, seconds=seconds)
