"""Benchmarks of the raster-to-hex aggregation (geo.zonal + etl.dem).

(a) Throughput (pixels/s) of :func:`etl.dem.dem_stats_by_cell` against
    ``rasterstats.zonal_stats`` and ``exactextract.exact_extract`` over the same H3
    hexagons (:func:`geo.hexgrid.cell_polygons`) of the same synthetic DEM, each the
    median of repeated runs in one process, with the per-hex means compared.
(b) Peak memory (summed RSS of this process and its Dask workers, sampled by psutil
    in a thread) and time of a 20000 x 20000 DEM through the Dask LocalCluster.

``run(work_dir, quick=...)`` returns rows {name, value, unit, baseline, ratio, note}
for ``benchmarks/run.py``.  Run alone: ``python -m benchmarks.bench_zonal [--quick]``.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import rasterio
from affine import Affine

from tabula.etl.dem import LOCAL_THREADS, dem_stats_by_cell
from tabula.geo.hexgrid import cell_polygons, cells_in_bbox
from tabula.geo.zonal import partials_from_window

def from_origin(west, north, dx, dy) -> Affine:
    """rasterio.transform.from_origin without its Affine '*' deprecation warning."""
    return Affine(dx, 0.0, west, 0.0, -dy, north)


NODATA = -32768
BBOX = (10.0, 35.0, 13.0, 38.0)  # 3 x 3 degrees, south of Sicily to Calabria
RES = 6


def synthetic_dem(path: Path, n: int, bbox=BBOX, *, rows_per_write: int = 1024) -> Path:
    """A smooth int16 terrain (hills a few km wide), tiled and deflate-compressed, written window by window."""
    west, south, east, north = bbox
    dx, dy = (east - west) / n, (north - south) / n
    lon = west + dx * (np.arange(n) + 0.5)
    with rasterio.open(path, "w", driver="GTiff", width=n, height=n, count=1, dtype="int16", crs="EPSG:4326",
                       transform=from_origin(west, north, dx, dy), nodata=NODATA, tiled=True, blockxsize=512,
                       blockysize=512, compress="deflate", predictor=2, zlevel=1, bigtiff="if_safer") as dst:
        for r0 in range(0, n, rows_per_write):
            r1 = min(n, r0 + rows_per_write)
            lat = north - dy * (np.arange(r0, r1) + 0.5)
            z = 800 + 400 * np.sin(lon[None, :] * 40) * np.cos(lat[:, None] * 30) + 150 * (lat[:, None] - south)
            dst.write(np.rint(z).astype(np.int16), 1, window=rasterio.windows.Window(0, r0, n, r1 - r0))
    return path


class PeakRss:
    """Peak of the summed RSS of this process and all its descendants (the Dask workers), sampled in a thread."""

    def __init__(self, interval: float = 0.2):
        self.interval, self.peak, self._stop = interval, 0, threading.Event()

    def _sample(self):
        import psutil

        me = psutil.Process()
        while not self._stop.is_set():
            total = 0
            for p in [me, *me.children(recursive=True)]:
                try:
                    total += p.memory_info().rss
                except psutil.Error:  # a worker may exit between listing and reading
                    pass
            self.peak = max(self.peak, total)
            time.sleep(self.interval)

    def __enter__(self):
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def _median_time(fn, repeats: int):
    times, out = [], None
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def _row(name, value, unit, baseline="", ratio="", note=""):
    return {"name": name, "value": value, "unit": unit, "baseline": baseline, "ratio": ratio, "note": note}


def bench_throughput(work_dir: Path, *, quick: bool = False) -> list[dict]:
    """(a): tabula vs rasterstats vs exactextract on an n x n DEM over 3 x 3 degrees at res 6."""
    import geopandas as gpd
    from exactextract import exact_extract
    from rasterstats import zonal_stats

    n = 1000 if quick else 4000
    repeats = 1 if quick else 3
    path = synthetic_dem(Path(work_dir) / f"zonal_{n}.tif", n)
    # hexes whose centres are 0.05 degrees inside the raster, so every tool sees whole hexes
    cells = cells_in_bbox((BBOX[0] + 0.05, BBOX[1] + 0.05, BBOX[2] - 0.05, BBOX[3] - 0.05), RES)
    polys = cell_polygons(cells)
    gdf = gpd.GeoDataFrame({"cell": cells}, geometry=list(polys), crs="EPSG:4326")

    t_ours, ours = _median_time(
        lambda: dem_stats_by_cell(path, cells, RES, supersample=1, use_dask=False, progress=False), repeats)
    t_rs, rs = _median_time(
        lambda: zonal_stats(list(polys), str(path), stats=["mean", "min", "max", "std", "count"], nodata=NODATA), repeats)
    t_ee, ee = _median_time(
        lambda: exact_extract(str(path), gdf, ["mean", "min", "max", "stdev", "count"], include_cols=["cell"],
                              output="pandas"), repeats)

    pixels = int(ours.elev_samples.sum())  # pixel centres inside the hexes: the work all three do
    # kernel alone on the in-memory window (no file I/O), for the record
    with rasterio.open(path) as ds:
        values = ds.read(1)
        t = ds.transform
    lats = t.f + t.e * (np.arange(n) + 0.5)
    lons = t.c + t.a * (np.arange(n) + 0.5)
    block = max(2, 32 * n // 4000)  # what etl.dem picks: about a third of a cell (~80 pixels at n = 4000)
    t_kernel, _ = _median_time(lambda: partials_from_window(values, res=RES, lats=lats, lons=lons, block=block), repeats)

    mean_ours = ours.set_index("cell").elev_mean
    rs_mean = np.array([s["mean"] if s["mean"] is not None else np.nan for s in rs])
    rs_count = np.array([s["count"] for s in rs])
    diff_rs = np.abs(mean_ours.loc[cells].to_numpy() - rs_mean)
    same_count = float(np.mean(rs_count == ours.set_index("cell").elev_samples.loc[cells].to_numpy()))
    diff_ee = np.abs(mean_ours.loc[list(ee["cell"])].to_numpy() - ee["mean"].to_numpy())

    ours_rate = pixels / t_ours / 1e6
    rs_rate = pixels / t_rs / 1e6
    ee_rate = pixels / t_ee / 1e6
    load = os.getloadavg()[0]
    setup = (f"{n}x{n} int16 DEM, 3x3 deg, res {RES}, {len(cells)} hexes, {pixels / 1e6:.1f} M pixels, median of {repeats}, "
             f"1-min load {load:.1f} on {os.cpu_count()} CPUs")
    return [
        _row("zonal: tabula dem_stats_by_cell throughput", round(ours_rate, 2), "Mpx/s", note=f"{setup}; {t_ours:.3f} s incl. file reads; windows on {LOCAL_THREADS} threads"),
        _row("zonal: kernel alone (in-memory window)", round(n * n / t_kernel / 1e6, 2), "Mpx/s", note=f"{t_kernel:.3f} s for {n}x{n}, block {block}"),
        _row("zonal: speed vs rasterstats.zonal_stats", round(ours_rate, 2), "Mpx/s", f"rasterstats {rs_rate:.2f} Mpx/s ({t_rs:.2f} s)",
             round(t_rs / t_ours, 2), "target >= 10x; rasterstats runs on one thread"),
        _row("zonal: speed vs exactextract", round(ours_rate, 2), "Mpx/s", f"exactextract {ee_rate:.2f} Mpx/s ({t_ee:.2f} s)",
             round(t_ee / t_ours, 2), "target >= 1x; exactextract runs on one thread"),
        _row("zonal: max |mean diff| vs rasterstats", round(float(np.nanmax(diff_rs)), 4), "m", "rasterstats",
             note=f"same pixel-centre rule; {same_count:.1%} of hexes have identical counts, the rest differ by edge pixels (rasterstats tests centres against straight lon/lat edges, H3 edges are geodesics)"),
        _row("zonal: median |mean diff| vs exactextract", round(float(np.nanmedian(diff_ee)), 4), "m", "exactextract",
             note=f"exactextract weights partial pixels; max {np.nanmax(diff_ee):.3f} m"),
    ]


def bench_dask_memory(work_dir: Path, *, quick: bool = False) -> list[dict]:
    """(b): peak RSS (client + workers) and speed of an n x n DEM (20000 unless quick) on the LocalCluster."""
    n = 6000 if quick else 20000
    bbox = (10.0, 36.0, 14.0, 40.0)
    path = synthetic_dem(Path(work_dir) / f"zonal_big_{n}.tif", n, bbox)
    cells = cells_in_bbox((10.3, 36.3, 13.7, 39.7), 5)
    with PeakRss() as rss:
        t = time.perf_counter()
        got = dem_stats_by_cell(path, cells, 5, use_dask=True, progress=False)
        elapsed = time.perf_counter() - t
    pixels = int(got.elev_samples.sum())
    note = f"{n}x{n} int16 DEM (deflate, 512 tiles), res 5, {len(cells)} hexes, 2 process workers, 1 GiB limit each"
    return [
        _row("zonal: Dask peak RSS (client + workers)", round(rss.peak / 1024**3, 3), "GiB", "target < 2 GB", note=note),
        _row("zonal: Dask LocalCluster throughput", round(pixels / elapsed / 1e6, 2), "Mpx/s",
             note=f"{elapsed:.1f} s incl. cluster start; {pixels / 1e6:.0f} M pixels"),
    ]


def run(work_dir: Path, *, quick: bool = False) -> list[dict]:
    work_dir = Path(work_dir)
    work_dir.mkdir(parents=True, exist_ok=True)
    return bench_throughput(work_dir, quick=quick) + bench_dask_memory(work_dir, quick=quick)


if __name__ == "__main__":
    with tempfile.TemporaryDirectory(prefix="bench-zonal-") as tmp:
        for r in run(Path(tmp), quick="--quick" in sys.argv):
            print(r)
