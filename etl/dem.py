"""DEM reader and driver: elevation statistics per H3 cell of a map region.

:func:`dem_stats_by_cell` opens any raster GDAL reads (GeoTIFF, netCDF, ...; any CRS),
reads only the windows that cover the region's bounding box, one at a time, and
aggregates each with the kernel of :mod:`geo.zonal`.  Large rasters go to
dask.distributed: each window is a task returning small per-cell partials, and the
partials are merged in a tree (fan-in :data:`TREE_FAN_IN`), so no process ever
holds more than a few windows and a few partials.

Dask details: windows are submitted as tasks (``Client.submit``) with the region's
cells scattered once to every worker; every :data:`TREE_FAN_IN` leaves get a
higher-priority combine task, so partials are folded as soon as they exist; the
combines are folded again in groups of :data:`TREE_FAN_IN` up to one result.  The
default cluster (:func:`_local_cluster`) has :data:`DASK_WORKERS` process workers with
:data:`WORKER_MEMORY_LIMIT` each and no dashboard; ``scheduler="tcp://host:8786"`` uses an
existing cluster instead (its workers need this project importable, and see the DEM at the
absolute path the client gives them: each task names the file, and a relative name would be
resolved in the worker's own working folder).  GDAL's block cache is capped per process
(:data:`GDAL_CACHE_MB`): windows are read once.

Limits: the region must not cross the antimeridian, and must use the DEM's longitude
convention (a 0..360 DEM does not cover negative longitudes); cells outside the DEM
simply get no samples.

Output: one row per requested cell, in the order given (duplicates dropped), with
``cell, elev_mean, elev_min, elev_max, elev_std, elev_samples``.  A cell with no
valid sample (all nodata, e.g. open sea in a land-only DEM) keeps its row with
``elev_samples`` 0 and NaN (NULL in DuckDB) statistics, so the result joins 1:1
onto the map's cells.
"""

from __future__ import annotations

import contextlib
import math
import os
from concurrent.futures import ThreadPoolExecutor
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import h3
import numpy as np
import pandas as pd
import rasterio
import rasterio.windows
from h3ronpy import cells_area_km2
from h3ronpy.vector import cells_bounds
from pyproj import Geod, Transformer
from rasterio.enums import MaskFlags
from rasterio.errors import RasterioError, RasterioIOError

from bellica.geo.errors import BellicaError, InputError, MissingInputError, first_line
from bellica.geo.hexgrid import check_resolution
from bellica.geo.logs import library_logs
from bellica.geo.progress import progress_bar
from bellica.geo.settings import WGS84
from bellica.geo.zonal import (
    DEFAULT_MIN_SAMPLES,
    STATS_COLUMNS,
    Partials,
    combine_partials,
    empty_partials,
    partials_from_window,
    partials_to_stats,
    restrict_partials,
    supersample_factor,
)

DASK_SAMPLE_THRESHOLD = 100_000_000
"""``use_dask=None`` goes distributed above this many samples (pixels x supersample^2) in the region."""

DASK_WORKERS = 2
WORKER_MEMORY_LIMIT = "1GiB"
"""Per worker; a 2048 x 2048 window needs ~250 MB of numpy temporaries."""

GDAL_CACHE_MB = 64
"""GDAL's default block cache is 5% of RAM per process; windows are read once, so keep it small."""

SCHEDULER_CONNECT_TIMEOUT = "10s"

TREE_FAN_IN = 8
LOCAL_COMBINE_EVERY = 16
LOCAL_THREADS = min(2, os.cpu_count() or 1)
"""Threads for the in-process path (one window each in flight)."""


@dataclass(frozen=True)
class WindowJob:
    """Everything a worker needs to aggregate one window (small and picklable)."""

    path: str
    band: int
    row_off: int
    col_off: int
    height: int
    width: int
    res: int
    supersample: int
    block: int
    transform: tuple[float, ...]  # affine a, b, c, d, e, f
    crs_wkt: str
    regular: bool  # north-up lon/lat grid whose coordinates are WGS84 lon/lat


def _open_error(path: Path, exc: Exception) -> MissingInputError:
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return MissingInputError(f"DEM {path} cannot be read ({first}): pass a GeoTIFF/netCDF elevation raster GDAL can open")


def _open_dem(path: Path):
    """Open the DEM; a netCDF holding one variable is opened through its subdataset."""
    try:
        ds = rasterio.open(path)
    except (RasterioIOError, RasterioError) as e:
        raise _open_error(path, e) from None
    if ds.count == 0:
        subs = list(ds.subdatasets)
        ds.close()
        if len(subs) != 1:
            names = ", ".join(s.rsplit(":", 1)[-1] for s in subs) or "none"
            raise InputError(f"DEM {path} has no single elevation band (variables: {names}): pass e.g. NETCDF:\"{path}\":<variable>")
        try:
            ds = rasterio.open(subs[0])
        except (RasterioIOError, RasterioError) as e:
            raise _open_error(path, e) from None
    return ds


def _check_cells(cells: Iterable[str], res: int) -> list[str]:
    if isinstance(cells, str):
        raise InputError("cells is one string: pass an iterable of H3 cell strings")
    out = list(dict.fromkeys(str(c) for c in cells))
    if not out:
        raise InputError("cell list is empty: pass the H3 cells of the map region (geo.hexgrid.cells_in_bbox)")
    for c in out:
        if not h3.is_valid_cell(c):
            raise InputError(f"cell {c!r} is not an H3 cell: pass H3 strings such as '851e8053fffffff'")
        if h3.get_resolution(c) != res:
            raise InputError(f"cell {c} has resolution {h3.get_resolution(c)}, not {res}: pass cells of resolution {res}")
    return out


def _apply(t, cols, rows):
    """Affine transform of pixel (col, row) positions to CRS (x, y), spelled out for arrays."""
    return t.a * cols + t.b * rows + t.c, t.d * cols + t.e * rows + t.f


def _is_regular_lonlat(ds, to_wgs84: Transformer) -> bool:
    """True when pixel columns are meridians and rows parallels, in WGS84 lon/lat.

    Checked numerically (corners and centre map to themselves within 1e-9 degrees),
    which accepts EPSG:4326 and its aliases, OGC:CRS84 and datums without a shift.
    """
    t = ds.transform
    if not ds.crs.is_geographic or t.b != 0 or t.d != 0:
        return False
    xs = np.array([0, ds.width, 0, ds.width, ds.width / 2], dtype=float)
    ys = np.array([0, 0, ds.height, ds.height, ds.height / 2], dtype=float)
    lon, lat = _apply(t, xs, ys)
    lon2, lat2 = to_wgs84.transform(lon, lat)
    return bool(np.allclose(lon2, lon, rtol=0, atol=1e-9) and np.allclose(lat2, lat, rtol=0, atol=1e-9))


def _region_window(ds, bbox, path) -> rasterio.windows.Window:
    """Pixel window (outward-rounded, one pixel of margin) covering the lon/lat ``bbox`` in the raster."""
    from rasterio.warp import transform_bounds

    try:
        bounds = transform_bounds(WGS84, ds.crs, *bbox, densify_pts=21)
    except Exception as e:  # noqa: BLE001 -- PROJ errors have no common type
        raise InputError(f"region {bbox} cannot be projected into the DEM's CRS ({e}): pick cells inside the DEM") from None
    if not all(map(math.isfinite, bounds)):
        raise InputError(f"region {bbox} lies outside the DEM {path}'s projection domain: pick cells inside the DEM")
    w = rasterio.windows.from_bounds(*bounds, transform=ds.transform)
    r0 = max(0, math.floor(min(w.row_off, w.row_off + w.height)) - 1)
    c0 = max(0, math.floor(min(w.col_off, w.col_off + w.width)) - 1)
    r1 = min(ds.height, math.ceil(max(w.row_off, w.row_off + w.height)) + 1)
    c1 = min(ds.width, math.ceil(max(w.col_off, w.col_off + w.width)) + 1)
    if r1 <= r0 or c1 <= c0:
        b = tuple(round(x, 4) for x in ds.bounds)
        raise InputError(f"region {tuple(round(x, 4) for x in bbox)} lies outside the DEM {path} (bounds {b} in its CRS): pick cells inside the DEM or another DEM")
    return rasterio.windows.Window(c0, r0, c1 - c0, r1 - r0)


def _pixel_area_km2(ds, to_wgs84: Transformer, row: float, col: float) -> float:
    """Geodesic area of the pixel at (row, col), from its four corners."""
    t = ds.transform
    xs, ys = _apply(t, np.array([col, col + 1, col + 1, col], dtype=float), np.array([row, row, row + 1, row + 1], dtype=float))
    lon, lat = to_wgs84.transform(xs, ys)
    area, _ = Geod(ellps="WGS84").polygon_area_perimeter(lon, lat)
    return abs(area) / 1e6


def _auto_block(samples_across_cell: float) -> int:
    """Grid-row spacing for the kernel: about a third of a cell, a power of two in 2..128.

    Measured on a 4000 x 4000 window at ~90 pixels per cell (res 6): 32 beats 16 and 64;
    fewer grid rows mean fewer look-ups but more segments that cross a cell edge.
    """
    if samples_across_cell <= 6:
        return 2
    return int(min(128, 2 ** round(math.log2(samples_across_cell / 3))))


def _windows(region: rasterio.windows.Window, size: int, block_shape: tuple[int, int]) -> list[rasterio.windows.Window]:
    """Tile ``region`` with windows of at most ``size`` pixels a side, aligned to the file's blocks."""
    bh, bw = block_shape
    sh = max(bh, size // bh * bh) if size >= bh else size
    sw = max(bw, size // bw * bw) if size >= bw else size
    r0, c0 = int(region.row_off), int(region.col_off)
    r1, c1 = r0 + int(region.height), c0 + int(region.width)
    out = []
    for r in range(r0 // sh * sh, r1, sh):
        for c in range(c0 // sw * sw, c1, sw):
            top, left = max(r, r0), max(c, c0)
            out.append(rasterio.windows.Window(left, top, min(c + sw, c1) - left, min(r + sh, r1) - top))
    return out


def _valid_mask(ds, band: int, window, values: np.ndarray) -> np.ndarray | None:
    """Usable pixels: from the nodata value when that is the only mask (a cheap compare),
    else GDAL's mask band (internal masks, alpha); None when every pixel is valid.
    NaN is always invalid (the kernel drops it)."""
    flags = ds.mask_flag_enums[band - 1]
    if flags == [MaskFlags.all_valid]:
        return None
    if flags == [MaskFlags.nodata]:
        nodata = ds.nodatavals[band - 1]
        return values != nodata if not np.isnan(nodata) else None
    return ds.read_masks(band, window=window) > 0


def window_partials(job: WindowJob, cells: np.ndarray | None = None, *, cache_mb: int | None = GDAL_CACHE_MB) -> Partials:
    """Read one window of the DEM and aggregate it (runs in a Dask worker or locally).

    ``cache_mb`` caps GDAL's block cache while reading (right in a worker process of
    our own); None leaves the caller's GDAL settings alone.  The cache size is
    process-global in GDAL, so threads that set and restore it concurrently can leave
    it capped after they finish and slow every later GDAL user of the process.
    """
    window = rasterio.windows.Window(job.col_off, job.row_off, job.width, job.height)
    env = rasterio.Env(GDAL_CACHEMAX=cache_mb) if cache_mb is not None else contextlib.nullcontext()
    failed = None
    with env:
        try:
            with rasterio.open(job.path) as ds:
                values = ds.read(job.band, window=window)
                valid = _valid_mask(ds, job.band, window, values)
        except (RasterioIOError, RasterioError) as e:
            failed = first_line(e)
    if failed is not None:
        # Raised outside the handler: a Dask worker sends the error back pickled with its context,
        # and a rasterio error in that context fails to unpickle, which turns ours into a bare Exception.
        raise _window_error(job, failed)
    a, b, c, d, e, f = job.transform
    if job.regular:
        lons = c + a * (job.col_off + np.arange(job.width) + 0.5)
        lats = f + e * (job.row_off + np.arange(job.height) + 0.5)
        p = partials_from_window(values, res=job.res, valid=valid, lats=lats, lons=lons, pixel_step=(e, a),
                                 supersample=job.supersample, block=job.block)
    else:
        to_wgs84 = Transformer.from_crs(job.crs_wkt, WGS84, always_xy=True)

        def lonlat(rows, cols):
            x = c + a * (job.col_off + cols + 0.5) + b * (job.row_off + rows + 0.5)
            y = f + d * (job.col_off + cols + 0.5) + e * (job.row_off + rows + 0.5)
            return to_wgs84.transform(x, y)

        p = partials_from_window(values, res=job.res, valid=valid, lonlat=lonlat, supersample=job.supersample, block=job.block)
    return restrict_partials(p, cells) if cells is not None else p


def _window_error(job: WindowJob, reason: str) -> BellicaError:
    """A window that cannot be read: a DEM that is not there (on a Dask worker: the workers open it
    themselves, at the client's absolute path) is named as missing; anything else as damaged."""
    path = job.path.split('"')[1] if job.path.startswith("NETCDF:") and job.path.count('"') >= 2 else job.path
    if not os.path.exists(path):
        where = _dask_worker()
        if where:
            return MissingInputError(f"DEM {path} does not exist on Dask worker {where}: the workers open the DEM "
                                     "themselves: put it where every worker sees it at that same path (a shared folder)")
        return MissingInputError(f"DEM {path} does not exist (any more): pass an existing DEM with --dem")
    return MissingInputError(f"DEM {path} window at row {job.row_off}, col {job.col_off} cannot be read ({reason}): "
                             "the file is damaged; re-create it")


def _dask_worker() -> str | None:
    """The address of the Dask worker running this task, None outside one."""
    try:
        from distributed import get_worker

        return str(get_worker().address)
    except (ImportError, ValueError):
        return None


def _combine(*parts: Partials) -> Partials:
    return combine_partials(parts)


def _run_local(jobs, cells_u64, bar, threads: int = LOCAL_THREADS) -> Partials:
    """Windows on a small thread pool: reading (GDAL), the numpy reductions and the
    h3ronpy look-ups release the GIL.  ``pool.map`` yields in job order, so partials
    combine in the same order whatever the thread timing (bit-identical sums)."""
    acc: list[Partials] = []
    with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
        for part in pool.map(lambda job: window_partials(job, cells_u64, cache_mb=None), jobs):
            acc.append(part)
            bar.update(1)
            if len(acc) >= LOCAL_COMBINE_EVERY:  # keep memory flat on long runs
                acc = [combine_partials(acc)]
    return combine_partials(acc)


def _local_cluster():
    """:data:`DASK_WORKERS` worker processes of one thread and :data:`WORKER_MEMORY_LIMIT` each, with
    a scheduler in this process that serves no web page.

    LocalCluster(dashboard_address=None) leaves out the Bokeh dashboard only: its scheduler still
    opens an HTTP server on port 8787 (moving to another port, with a warning, when that one is
    taken), registers it as the "dashboard" service and logs its address (distributed 2026.8;
    dask/distributed#7207).  Nobody asked for it, so this scheduler does not start it."""
    import logging

    from distributed import Nanny, Scheduler, SpecCluster

    class NoHttpScheduler(Scheduler):
        def start_http_server(self, *args, **kwargs) -> None:  # the one place the scheduler binds it
            return None

    off = {"dashboard": False, "dashboard_address": None}
    worker = {"cls": Nanny, "options": {"nthreads": 1, "memory_limit": WORKER_MEMORY_LIMIT, "host": "127.0.0.1",
                                         "silence_logs": logging.WARNING, **off}}
    return SpecCluster(scheduler={"cls": NoHttpScheduler, "options": {"host": "127.0.0.1", "port": 0, **off}},
                       workers={i: worker for i in range(DASK_WORKERS)}, silence_logs=logging.WARNING)


def _connect(scheduler: str | None):
    """(a Client, the cluster started for it or None)."""
    from distributed import Client

    if not scheduler:
        cluster = _local_cluster()
        return Client(cluster, set_as_default=False), cluster
    try:
        return Client(scheduler, timeout=SCHEDULER_CONNECT_TIMEOUT, set_as_default=False), None
    except (OSError, TimeoutError, ValueError) as e:  # ValueError: an address of no known form
        first = first_line(e)
        raise InputError(f"cannot reach the Dask scheduler {scheduler!r} ({first}): start one or leave --scheduler out") from None


def _run_dask(jobs, cells_u64, bar, scheduler: str | None, *, quiet: bool = False) -> Partials:
    import distributed  # noqa: F401 -- before library_logs: the import sets distributed's log level

    # distributed logs some thirty INFO lines per cluster (geo/logs.py): kept for --verbose
    with library_logs(quiet=quiet):
        client, cluster = _connect(scheduler)
        try:
            return _submit_tree(client, jobs, cells_u64, bar)
        finally:
            client.close()
            if cluster is not None:
                cluster.close()


def _submit_tree(client, jobs, cells_u64, bar) -> Partials:
    """The windows as tasks, folded in a tree of combines (module doc); their result."""
    from distributed import as_completed

    cells_f = client.scatter(cells_u64, broadcast=True)
    leaves, level, pending = [], [], []
    for i, job in enumerate(jobs):
        fut = client.submit(window_partials, job, cells_f, key=f"dem-window-{i}-{id(jobs)}", pure=False)
        leaves.append(fut)
        pending.append(fut)
        if len(pending) == TREE_FAN_IN:
            # combine as soon as a group is done; higher priority so partials never pile up
            level.append(client.submit(_combine, *pending, priority=10, pure=False))
            pending = []
    level += pending
    for _ in as_completed(leaves, loop=client.loop):
        bar.update(1)
    while len(level) > 1:
        level = [client.submit(_combine, *level[i : i + TREE_FAN_IN], priority=20, pure=False)
                 for i in range(0, len(level), TREE_FAN_IN)]
    return level[0].result() if level else empty_partials()


def _supersample_k(supersample, pixel_km2: float, cell_km2: float, min_samples: int) -> int:
    if supersample == "auto":
        return supersample_factor(pixel_km2, cell_km2, min_samples=min_samples)
    if isinstance(supersample, int) and not isinstance(supersample, bool) and supersample >= 1:
        return supersample
    raise InputError(f"supersample {supersample!r} is not 'auto' or a positive integer: pass 'auto', 1 (off) or k >= 2")


def dem_stats_by_cell(
    dem_path,
    cells: Iterable[str],
    res: int,
    *,
    window_size: int = 2048,
    scheduler: str | None = None,
    use_dask: bool | None = None,
    supersample: int | str = "auto",
    progress: bool = True,
    block: int | None = None,
    min_samples: int = DEFAULT_MIN_SAMPLES,
    band: int = 1,
) -> pd.DataFrame:
    """Elevation statistics of the DEM per H3 cell of ``cells`` (resolution ``res``).

    ``window_size``: samples a side per window (after supersampling), bounding memory.
    ``scheduler``: address of a running dask.distributed scheduler (implies Dask).
    ``use_dask``: True/False forces the path; None uses Dask when the region holds more
    than :data:`DASK_SAMPLE_THRESHOLD` samples (a local 2-worker process cluster).
    ``supersample``: "auto" (k from :func:`geo.zonal.supersample_factor` so the smallest
    cell gets about ``min_samples`` samples), or an integer k >= 1 (1 = off).
    ``block``: kernel grid-row spacing (default: from the cell size in samples).
    Returns one row per requested cell (see the module doc for empty cells).
    """
    check_resolution(res)
    cell_list = _check_cells(cells, res)
    if isinstance(window_size, bool) or not isinstance(window_size, int) or window_size < 16:
        raise InputError(f"window_size {window_size!r} is too small: pass an integer >= 16 (default 2048)")
    path = Path(dem_path)
    if not path.exists():
        raise MissingInputError(f"DEM {path} does not exist: pass the path of an elevation raster (GeoTIFF, netCDF)")
    # Absolute before the jobs name it: a Dask worker resolves a relative path in its own working folder.
    path = Path(os.path.abspath(path))
    cells_u64 = np.sort(np.array([h3.str_to_int(c) for c in cell_list], dtype=np.uint64))

    with _open_dem(path) as ds:
        if ds.crs is None:
            raise InputError(f"DEM {path} has no CRS: assign one (e.g. gdal_edit.py -a_srs EPSG:4326 {path.name})")
        if not 1 <= band <= ds.count:
            raise InputError(f"DEM {path} has no band {band}: pass a band between 1 and {ds.count}")
        crs_wkt = ds.crs.to_wkt()
        to_wgs84 = Transformer.from_crs(crs_wkt, WGS84, always_xy=True)
        regular = _is_regular_lonlat(ds, to_wgs84)
        west, south, east, north = cells_bounds(cells_u64)
        if east - west > 180:
            raise InputError("the cells cross the antimeridian: split the region at 180 degrees")
        region = _region_window(ds, (west, south, east, north), path)

        mid_r, mid_c = region.row_off + region.height / 2, region.col_off + region.width / 2
        pixel_km2 = _pixel_area_km2(ds, to_wgs84, math.floor(mid_r), math.floor(mid_c))
        # the smallest cell sets the supersampling; areas vary smoothly, so a spread-out sample suffices
        cell_km2 = float(np.asarray(cells_area_km2(cells_u64[:: max(1, len(cells_u64) // 4096)])).min())
        k = _supersample_k(supersample, pixel_km2, cell_km2, min_samples)
        if block is None:
            block = _auto_block(math.sqrt(cell_km2 / (pixel_km2 / k**2)))
        size = max(1, window_size // k)
        windows = _windows(region, size, ds.block_shapes[band - 1])
        t = ds.transform
        jobs = [
            WindowJob(str(ds.name), band, int(w.row_off), int(w.col_off), int(w.height), int(w.width), res, k, int(block),
                      (t.a, t.b, t.c, t.d, t.e, t.f), crs_wkt, regular)
            for w in windows
        ]
        samples = int(region.height) * int(region.width) * k * k

    if use_dask is None:
        use_dask = scheduler is not None or samples > DASK_SAMPLE_THRESHOLD
    with progress_bar(len(jobs), f"DEM -> res {res} hexes", "window", enabled=progress) as bar:
        if use_dask or scheduler:
            partials = _run_dask(jobs, cells_u64, bar, scheduler, quiet=not progress)
        else:
            partials = _run_local(jobs, cells_u64, bar)

    stats = partials_to_stats(partials)
    out = pd.DataFrame({"cell": pd.Series(cell_list, dtype="str")}).merge(stats, on="cell", how="left")
    out["elev_samples"] = out["elev_samples"].fillna(0).astype("int64")
    return out[STATS_COLUMNS]


# --- Land the centre samples miss: small islands -------------------------------------------

ELEV_SOURCES = ("samples", "hex land", "island", "none")
"""``elev_source`` values: the hex's own pixel-centre samples (the normal case); DEM pixels over the
hex's land; the nearest DEM pixels over the same island, within the search radius; no pixel at all."""


def _hex_polygon(cell: str):
    import shapely

    ring = [(lng, lat) for lat, lng in h3.cell_to_boundary(cell)]
    return shapely.Polygon(ring)


def _land_index(shorelines):
    """(levels, lon/lat polygons, STRtree) of a shorelines GeoDataFrame (level 1 land, 2 lake, 3 island
    in a lake, 4 pond)."""
    import shapely

    levels = np.asarray(pd.to_numeric(shorelines["level"], errors="coerce"), dtype=float)
    geoms = np.asarray(shorelines.geometry.values, dtype=object)
    ok = np.array([g is not None and not g.is_empty for g in geoms]) & np.isin(levels, (1, 2, 3, 4))
    levels, geoms = levels[ok].astype(int), geoms[ok]
    return levels, geoms, shapely.STRtree(geoms)


def _land_in(hex_poly, levels, geoms, tree):
    """(the land inside the hex, the land polygons (islands) that reach it), in lon/lat.
    Land is level 1 - lakes + islands in lakes - ponds, as in the water fractions."""
    import shapely

    idx = tree.query(hex_poly, predicate="intersects")
    if len(idx) == 0:
        return None, []
    parts = {k: [shapely.intersection(hex_poly, geoms[i]) for i in idx if levels[i] == k] for k in (1, 2, 3, 4)}
    union = lambda gs: shapely.union_all(gs) if gs else shapely.Polygon()  # noqa: E731
    land = shapely.union(shapely.difference(union(parts[1]), union(parts[2])),
                         shapely.difference(union(parts[3]), union(parts[4])))
    islands = [geoms[i] for i in idx if levels[i] in (1, 3)]
    return (land if not land.is_empty else None), islands


def _weighted_stats(values: np.ndarray, weights: np.ndarray) -> tuple[float, float, float, float]:
    """(mean, min, max, std) of pixel values weighted by the area each covers (population std)."""
    w = weights / weights.sum() if weights.sum() > 0 else np.full(len(values), 1 / len(values))
    mean = float((w * values).sum())
    return mean, float(values.min()), float(values.max()), float(math.sqrt(max(float((w * (values - mean) ** 2).sum()), 0.0)))


def land_pixel_stats(dem_path, cells: Iterable[str], shorelines, *, min_land_elev: float, search_pixels: int = 1,
                     band: int = 1) -> pd.DataFrame:
    """Elevation of the land of each cell from the DEM's pixels at native resolution, for the few
    land cells whose pixel-centre samples say nothing about their land (small islands).

    For each cell, in order:

    1. ``hex land``: the valid pixels whose footprint overlaps the cell's land (shorelines), each
       weighted by the land area it covers;
    2. ``island``: else the valid pixels over the same island (a land polygon reaching the cell)
       nearest to the cell's land, at most ``search_pixels`` pixels away, weighted by the island area
       they cover;
    3. ``none``: else no statistics (NaN, 0 samples).

    A pixel is valid when it is not nodata/masked and reads at least ``min_land_elev`` metres: a
    coarse pixel that mixes a small island with the sea around it can read the sea floor (Capraia's
    read -58 and -114 m), which is not the island's land.  ``elev_samples`` counts the pixels used;
    ``elev_source`` and ``elev_search_px`` (pixels between the land and the pixels used) say how.
    """
    cell_list = list(dict.fromkeys(str(c) for c in cells))
    rows = []
    if not cell_list:
        return pd.DataFrame(columns=[*STATS_COLUMNS, "elev_source", "elev_search_px"])
    if isinstance(search_pixels, bool) or not isinstance(search_pixels, int) or search_pixels < 0:
        raise InputError(f"search_pixels {search_pixels!r} is not a pixel count: give an integer >= 0")
    land_index = _land_index(shorelines)
    path = Path(dem_path)
    with _open_dem(path) as ds:
        to_pixels = _lonlat_to_pixels(ds)
        for cell in cell_list:
            stats, used, source, dist = _cell_land_stats(ds, band, cell, to_pixels, land_index, min_land_elev,
                                                         search_pixels)
            rows.append((cell, *stats, used, source, dist))
    out = pd.DataFrame(rows, columns=[*STATS_COLUMNS, "elev_source", "elev_search_px"])
    out["elev_samples"] = out["elev_samples"].astype("int64")
    return out


def _lonlat_to_pixels(ds):
    """A function taking a lon/lat geometry to the DEM's pixel space (x = column, y = row; pixel
    (r, c) is the unit box at (c, r))."""
    import shapely

    to_crs = Transformer.from_crs(WGS84, ds.crs.to_wkt(), always_xy=True)
    inv = ~ds.transform

    def to_pixels(g):
        def fn(xy):
            x, y = to_crs.transform(xy[:, 0], xy[:, 1])
            x, y = np.asarray(x), np.asarray(y)
            return np.column_stack([inv.a * x + inv.b * y + inv.c, inv.d * x + inv.e * y + inv.f])
        return shapely.transform(g, fn)

    return to_pixels


def _cell_land_stats(ds, band: int, cell: str, to_pixels, land_index, min_land_elev: float, search_pixels: int):
    """``(stats, pixels used, elev_source, elev_search_px)`` of one cell's land (module doc of
    :func:`land_pixel_stats`), from the valid pixels of a window around the cell."""
    levels, geoms, tree = land_index
    nothing = (np.nan, np.nan, np.nan, np.nan), 0, "none", np.nan
    hex_px = to_pixels(_hex_polygon(cell))
    c0, r0, c1, r1 = hex_px.bounds
    m = search_pixels + 1
    r0, c0 = max(0, math.floor(r0) - m), max(0, math.floor(c0) - m)
    r1, c1 = min(ds.height, math.ceil(r1) + m), min(ds.width, math.ceil(c1) + m)
    if not (r1 > r0 and c1 > c0):
        return nothing
    window = rasterio.windows.Window(c0, r0, c1 - c0, r1 - r0)
    values = ds.read(band, window=window).astype(np.float64)
    valid = _valid_mask(ds, band, window, values)
    ok = np.isfinite(values) & (values >= min_land_elev)
    if valid is not None:
        ok &= valid
    if not ok.any():  # only now is the land geometry worth computing
        return nothing
    land, islands = _land_in(_hex_polygon(cell), levels, geoms, tree)
    if land is None:
        return nothing
    picked = _pixels_on_land(ds, window, values, ok, land, islands, to_pixels, search_pixels)
    if picked is None:
        return nothing
    source, dist, v, w = picked
    return _weighted_stats(v, w), len(v), source, dist


def _pixels_on_land(ds, window, values: np.ndarray, ok: np.ndarray, land, islands, to_pixels, search_pixels: int):
    """``(elev_source, distance in pixels, values, weights)``: the valid pixels over the cell's land,
    else the nearest ones over the same island within ``search_pixels``; None when neither."""
    import shapely

    c0, r0 = window.col_off, window.row_off
    rr, cc = np.nonzero(ok)
    boxes = shapely.box(cc + c0, rr + r0, cc + c0 + 1, rr + r0 + 1)
    land_px = to_pixels(land)
    cover = shapely.area(shapely.intersection(boxes, land_px))
    hit = cover > 0
    if hit.any():
        return "hex land", 0.0, values[rr[hit], cc[hit]], cover[hit]
    if not islands:
        return None
    # a continent is clipped to the window before it is projected
    box = _px_bounds_lonlat(ds, window)
    near = shapely.union_all([to_pixels(shapely.clip_by_rect(g, *box)) for g in islands])
    on_island = shapely.area(shapely.intersection(boxes, near))
    d = shapely.distance(boxes, land_px)
    cand = (on_island > 0) & (d <= search_pixels)
    if not cand.any():
        return None
    dmin = d[cand].min()
    pick = cand & (d <= dmin + 1e-9)
    return "island", float(dmin), values[rr[pick], cc[pick]], on_island[pick]


def _px_bounds_lonlat(ds, window) -> tuple[float, float, float, float]:
    """lon/lat bounds of a pixel window, widened a little, to clip big land polygons (a continent)
    before they are projected into pixel space."""
    from rasterio.warp import transform_bounds

    cols = np.array([window.col_off, window.col_off + window.width], dtype=float)
    rows = np.array([window.row_off, window.row_off + window.height], dtype=float)
    xs, ys = _apply(ds.transform, np.repeat(cols, 2), np.tile(rows, 2))
    west, south, east, north = transform_bounds(ds.crs, WGS84, xs.min(), ys.min(), xs.max(), ys.max(), densify_pts=11)
    pad = 0.01 * max(east - west, north - south)
    return west - pad, south - pad, east + pad, north + pad


def unsampled_land(cells: pd.DataFrame, *, land_fraction: float, min_land_elev: float) -> np.ndarray:
    """Mask of the land cells whose centre samples hold no land elevation: no sample at all, or
    (for a cell that is land only by the island rule, i.e. mostly sea) a sample below
    ``min_land_elev`` -- a sea-floor reading of a coarse coastal pixel, which drags the island's
    mean under the sea.  A mostly-land cell keeps its samples: a depression below sea level
    (Qattara, the Dead Sea) is real there."""
    land = (cells["kind"] == "land").to_numpy()
    samples = cells["elev_samples"].fillna(0).to_numpy()
    island = (cells["land_fraction"] < land_fraction).to_numpy()
    sea_floor = cells["elev_min"].to_numpy(dtype=float) < min_land_elev
    return land & ((samples == 0) | (island & sea_floor))


def fill_unsampled_land(cells: pd.DataFrame, dem_path, shorelines, *, rules: dict, band: int = 1) -> pd.DataFrame:
    """``cells`` (needs cell, kind, land_fraction and the elevation columns) with the elevation of
    :func:`unsampled_land` cells taken from :func:`land_pixel_stats`, and two new columns:
    ``elev_source`` (see :data:`ELEV_SOURCES`) and ``elev_search_px``.  Only those few cells are
    touched; every other cell keeps its samples (``elev_source`` "samples")."""
    isl = rules["islands"]
    out = cells.copy()
    out["elev_source"] = np.where(out["elev_samples"].fillna(0).to_numpy() > 0, "samples", None)
    out["elev_search_px"] = np.nan
    todo = unsampled_land(out, land_fraction=rules["kind"]["land_fraction"], min_land_elev=isl["min_land_elev"])
    if todo.any():
        got = land_pixel_stats(dem_path, out.loc[todo, "cell"], shorelines, min_land_elev=isl["min_land_elev"],
                               search_pixels=isl["search_pixels"], band=band).set_index("cell")
        idx = out.index[todo]
        for col in [*STATS_COLUMNS[1:], "elev_source", "elev_search_px"]:
            out.loc[idx, col] = got.loc[out.loc[idx, "cell"], col].to_numpy()
    return out


def elevation_notes(cells: pd.DataFrame) -> dict:
    """The ``map_meta`` entry ``elevation_fallback``: every land cell whose elevation did not come from
    its own samples, with how it was taken (see docs/terrain.md, "Small islands")."""
    sel = cells[(cells["kind"] == "land") & (cells["elev_source"].fillna("samples") != "samples")].sort_values("cell")
    notes = {}
    for r in sel.itertuples():
        note = {"source": r.elev_source, "pixels": int(r.elev_samples)}
        if r.elev_source == "island":
            note["search_px"] = float(r.elev_search_px)
        if "terrain" in sel.columns:
            note["terrain"] = r.terrain
        notes[r.cell] = note
    return notes


__all__ = [
    "DASK_SAMPLE_THRESHOLD",
    "ELEV_SOURCES",
    "WindowJob",
    "dem_stats_by_cell",
    "elevation_notes",
    "fill_unsampled_land",
    "land_pixel_stats",
    "unsampled_land",
    "window_partials",
]
